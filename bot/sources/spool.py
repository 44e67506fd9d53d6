"""Reading stdin through a spool file, so that a restart resumes it like any file.

A thread copies stdin's bytes, as they arrive, to ``<state>/spool/stdin-<UTC time>-<pid>.jsonl``
(created 0600, written unbuffered); the main loop follows that file with a ``FileFollower``,
whose positions the store commits. The input ends once stdin ended and the spool was read to
its end. A spool left by an earlier run is complete (its stdin is gone): ``leftover_spools``
lists them, to be read from their stored positions with ``stop_at_end`` and deleted once read
and committed (``remove_spool``). A wrapped command's output (``run -- CMD``) is not spooled:
a restart runs the command again, so there is nothing to resume. A line over the size limit is
spooled cut to its first ``max_line_bytes + 1`` bytes, enough for the follower to know it is
too long: a line with no end (``/dev/zero``) does not fill the disk. Given a ``redactor``, each
line is spooled redacted (``bot.sources.pipe_copy.redacted_line``): what an agent printed to a
pipe is put on disk without its secrets (what is read from the spool is redacted again anyway).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from bot import events
from bot.errors import InputError
from bot.redaction import Redactor
from bot.sources.file_options import FileOptions
from bot.sources.follow import FileFollower
from bot.sources.lines import DEFAULT_MAX_LINE_BYTES
from bot.sources.pipe_copy import redacted_line, write_all
from bot.sources.position import FilePosition
from bot.sources.source import Item, SourceEvent
from bot.sources.stream import CHUNK_BYTES, ChunkStream

SPOOL_PREFIX = "stdin-"


class StdinSpool:
    """``stream`` copied to a new spool file in ``folder`` (created 0700 if missing) on a
    thread, and followed from that file: a ``Source`` named ``name``.

    Standard input can bring the same log again (piped in twice): its lines are ``repeatable``,
    so that a line applied before is applied once (see ``SourceReader``)."""

    repeatable = True

    def __init__(
        self,
        stream: ChunkStream,
        folder: Path,
        *,
        name: str | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        redactor: Redactor | None = None,
    ) -> None:
        self.error: OSError | ValueError | None = None  # the copying failed (said once)
        self._error_said = False
        self.path = _create(folder, now())
        self.name = name if name is not None else str(self.path)  # resumed by this name
        self._stream = stream
        self._ended = threading.Event()  # stdin ended: every byte of it is in the spool
        self._wrote = threading.Event()  # bytes (or the end) arrived since the last wait
        options = FileOptions(max_line_bytes=max_line_bytes)
        self._follower = FileFollower(self.path, options, name=self.name)
        self._clipper = LineClipper(max_line_bytes + 1)
        self._redacting = None if redactor is None else LineRedactor(redactor)
        self._thread = threading.Thread(
            target=self._copy, name="slacktail-spool", daemon=True
        )
        self._thread.start()

    @property
    def closed(self) -> bool:
        return self._follower.closed

    @property
    def ended(self) -> bool:
        """stdin ended (the spool may not be read to its end yet)."""
        return self._ended.is_set()

    def position(self) -> FilePosition:
        """Where the lines returned so far end in the spool file (see ``FileFollower``)."""
        return self._follower.position()

    def read_available(self) -> list[Item]:
        """The lines spooled since the last call; once stdin ended, up to the spool's end,
        the partial last line too, and the source closes."""
        if not self._ended.is_set():  # looked at first: what was spooled before it is read
            return self._follower.read_available()
        self._follower.stop_at_end = True
        if self.error is None or self._error_said:
            return self._follower.read_available()
        self._error_said = True
        text = f"warning: {self.name}: spooling stopped: {self.error}"
        said = SourceEvent(events.ReadingStopped(self.name, str(self.error)), text)
        return [said, *self._follower.read_available()]

    def ready(self) -> bool:
        if self._follower.closed:
            return False
        return self._ended.is_set() or self._follower.ready()

    def wait_ready(self, timeout: float) -> bool:
        self._wrote.clear()
        if self.ready():
            return True
        self._wrote.wait(max(timeout, 0.0))
        return self.ready()

    def close(self) -> None:
        """Stop following. The thread is a daemon: a read it is blocked in does not keep the
        process alive."""
        self._follower.close()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the copying thread to end (after end of input); whether it did."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _copy(self) -> None:
        """The thread: stdin's chunks appended to the spool until end of input (or an error)."""
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            while True:
                chunk = self._stream.read1(CHUNK_BYTES)
                if not chunk:
                    break
                chunk = self._clipper.clip(chunk)
                if self._redacting is not None:
                    chunk = self._redacting.redact(chunk)
                write_all(fd, chunk)
                self._wrote.set()
            if self._redacting is not None:  # the last line, with no newline
                write_all(fd, self._redacting.flush())
        except (OSError, ValueError) as error:  # EIO, a closed stream, a full disk
            self.error = error  # said by the next read
        finally:
            os.close(fd)
            self._ended.set()
            self._wrote.set()


class LineClipper:
    """Chunks of a stream in, the same with each line cut to its first ``keep`` bytes out."""

    def __init__(self, keep: int) -> None:
        self._keep = keep
        self._line = 0  # bytes of the current line so far (the cut ones included)

    def clip(self, chunk: bytes) -> bytes:
        if self._line + len(chunk) <= self._keep:  # no line in it can be too long
            last = chunk.rfind(b"\n")
            self._line = self._line + len(chunk) if last < 0 else len(chunk) - last - 1
            return chunk
        parts: list[bytes] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            stop = len(chunk) if end < 0 else end
            parts.append(chunk[start : min(stop, start + max(self._keep - self._line, 0))])
            if end < 0:
                self._line += stop - start
                return b"".join(parts)
            parts.append(b"\n")
            self._line, start = 0, end + 1


class LineRedactor:
    """Chunks of a stream in, the same with each line redacted out (``redacted_line``): a line
    is written once its newline came (the last one at ``flush``)."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._parts: list[bytes] = []  # the line begun and not ended yet

    def redact(self, chunk: bytes) -> bytes:
        end = chunk.rfind(b"\n")
        if end < 0:
            self._parts.append(chunk)
            return b""
        lines = b"".join([*self._parts, chunk[:end]])
        self._parts = [chunk[end + 1 :]] if end + 1 < len(chunk) else []
        if not self._redactor.may_hold_secret_json(lines):  # most chunks: as they are
            return lines + b"\n"
        return b"".join(redacted_line(self._redactor, line) + b"\n" for line in lines.split(b"\n"))

    def flush(self) -> bytes:
        rest, self._parts = b"".join(self._parts), []
        return redacted_line(self._redactor, rest) if rest else b""


def leftover_spools(folder: Path, *, besides: Path | None = None) -> list[Path]:
    """The spool files in ``folder`` left by earlier runs (all but ``besides``), oldest first."""
    if not folder.is_dir():
        return []
    found = sorted(folder.glob(f"{SPOOL_PREFIX}*.jsonl"))
    return [path for path in found if besides is None or path != besides]


def remove_spool(path: Path) -> None:
    """Delete a spool file read to its end and committed (gone already: nothing to do)."""
    path.unlink(missing_ok=True)


def _create(folder: Path, moment: datetime) -> Path:
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        stamp = moment.astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        path = folder / f"{SPOOL_PREFIX}{stamp}-{os.getpid()}.jsonl"
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as error:
        reason = error.strerror or error
        raise InputError(f"{folder}: cannot spool stdin there ({reason})") from None
    return path
