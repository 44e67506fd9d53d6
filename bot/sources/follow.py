"""Following a growing file like ``tail -f``: what was appended since the last look, as lines.

The follower keeps the file open and reads from where it stopped, in chunks, at most
``read_limit`` bytes per call (so memory stays bounded however far behind it is); the caller
drives the loop. A file that shrinks under it (truncation) is read again from its start, after a
``Truncated`` marker. Rename rotation, fingerprints and inotify wake-ups are not done here.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

from bot.errors import InputError
from bot.sources.lines import DEFAULT_MAX_LINE_BYTES, LineSplitter
from bot.sources.source import Item, Source, Truncated

log = logging.getLogger(__name__)

CHUNK_BYTES = 64 * 1024
READ_LIMIT_BYTES = 1024 * 1024
POLL_INTERVAL = 0.25


class FileFollower:
    """Lines appended to ``path``, from ``offset`` (just after line ``line_number``) on.

    A missing file is an ``InputError`` at once, unless ``wait_for_file``: then it is read once
    it appears. With ``stop_at_end`` the follower reads to the file's current end, emits the
    partial last line and closes (backfill, ``--once``); otherwise it never closes by itself.
    """

    def __init__(
        self,
        path: Path | str,
        *,
        offset: int = 0,
        line_number: int = 0,
        wait_for_file: bool = False,
        stop_at_end: bool = False,
        poll_interval: float = POLL_INTERVAL,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        chunk_bytes: int = CHUNK_BYTES,
        read_limit: int = READ_LIMIT_BYTES,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        name: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.name = name if name is not None else str(path)
        self.poll_interval = poll_interval
        self.clock = clock
        self.sleep = sleep
        self.stop_at_end = stop_at_end
        self._chunk_bytes = chunk_bytes
        self._read_limit = max(read_limit, chunk_bytes)
        self._max_line_bytes = max_line_bytes
        self._splitter = LineSplitter(max_line_bytes, offset=offset, number=line_number)
        self._position = offset  # bytes of the file read so far
        self._file: BinaryIO | None = None
        self._closed = False
        if not self._open() and not wait_for_file:
            raise InputError(f"{self.path}: no such file")

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def position(self) -> int:
        """Bytes of the file read so far (the partial last line included)."""
        return self._position

    @property
    def offset(self) -> int:
        """The offset just after the last line returned: where a later reading may resume."""
        return self._splitter.offset

    def read_available(self) -> list[Item]:
        """The lines appended since the last call (at most ``read_limit`` bytes' worth)."""
        if self._closed or (self._file is None and not self._open()):
            return []
        file = self._file
        assert file is not None
        items: list[Item] = []
        size = os.fstat(file.fileno()).st_size
        if size < self._position:
            items.append(self._restart(size))
        budget = self._read_limit
        at_end = False
        while budget > 0:
            chunk = file.read(min(self._chunk_bytes, budget))
            if not chunk:
                at_end = True
                break
            self._position += len(chunk)
            budget -= len(chunk)
            items.extend(self._splitter.feed(chunk))
        if at_end and self.stop_at_end:
            items.extend(self._splitter.finish())
            self.close()
        return items

    def ready(self) -> bool:
        """True when the file grew or shrank since the last read (or it appeared, or the
        follower is to stop at its end and has not yet)."""
        if self._closed:
            return False
        if self.stop_at_end:
            return True
        if self._file is None:
            return self.path.exists()
        return os.fstat(self._file.fileno()).st_size != self._position

    def wait_ready(self, timeout: float) -> bool:
        return wait_for_data([self], timeout)

    def close(self) -> None:
        self._closed = True
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> FileFollower:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _open(self) -> bool:
        """Open the file and go to the reading position; False while it does not exist."""
        try:
            file = open(self.path, "rb", buffering=0)  # noqa: SIM115 (held open while following)
        except FileNotFoundError:
            return False
        except IsADirectoryError:
            raise InputError(f"{self.path}: is a directory, not a log file") from None
        except OSError as error:
            raise InputError(f"{self.path}: cannot read it ({error.strerror or error})") from None
        file.seek(self._position)
        self._file = file
        return True

    def _restart(self, size: int) -> Truncated:
        """The file is shorter than what was read: read it again from its start."""
        log.warning(
            "%s: the file shrank from %d to %d bytes; reading it again from the start",
            self.name,
            self._position,
            size,
        )
        marker = Truncated(offset=self._position, size=size)
        assert self._file is not None
        self._file.seek(0)
        self._position = 0
        self._splitter = LineSplitter(self._max_line_bytes)
        return marker


def wait_for_data(
    sources: Sequence[Source],
    timeout: float,
    *,
    poll_interval: float | None = None,
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], None] | None = None,
) -> bool:
    """Block until one of ``sources`` is ready (a file grew or shrank) or ``timeout`` seconds
    passed; whether one is ready. Polls every ``poll_interval`` seconds; the interval, clock and
    sleep default to the first ``FileFollower``'s (else 0.25 s and the real ones)."""
    first = next((s for s in sources if isinstance(s, FileFollower)), None)
    interval = poll_interval if poll_interval is not None else _interval(first)
    now = clock or (first.clock if first is not None else time.monotonic)
    pause = sleep or (first.sleep if first is not None else time.sleep)
    deadline = now() + timeout
    while True:
        if any(source.ready() for source in sources):
            return True
        remaining = deadline - now()
        if remaining <= 0:
            return False
        pause(min(interval, remaining))


def _interval(first: FileFollower | None) -> float:
    return first.poll_interval if first is not None else POLL_INTERVAL
