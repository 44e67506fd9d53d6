"""A copy of what a pipe brought, so that Full output can read a tool's whole output again.

A tool call's Full output is read again from the file its result was read from (``bot.outputs``).
What comes through a pipe has no such file: ``run``'s agent output, and standard input (or a
named pipe) when it is not spooled (the embedded local Slack keeps no state on disk). So, when
the app can receive clicks, each line such a source brings is appended, as it is read, to
``<state>/spool/copy-<source>-<UTC time>-<pid>.jsonl`` (created 0600, its folder 0700), and the
positions of its results point into that copy.

The copy is REDACTED (``redacted_line``): the agent printed those lines to a pipe, not to a
log on disk, and slacktail does not put on disk a secret the agent did not (stdin's spool is
redacted the same way). It is bounded by what the agent wrote (a line over the size limit is
not copied: an empty line keeps the lines' numbers). It lasts as long as the run, as the app
that answers clicks does: ``close`` removes it, and a copy that a run which died left behind
(its process gone) is removed by the next.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import orjson

from bot.redaction import Redactor
from bot.sources.lines import Line

COPY_PREFIX = "copy-"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_DEPTH = 200  # a JSON value nested deeper is not walked (Python's stack)


class PipeCopy:
    """The redacted copy of one source's lines, in ``folder``."""

    def __init__(
        self,
        folder: Path,
        source: str,
        redactor: Redactor,
        *,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        remove_left_behind(folder)
        stamp = now().astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        name = _UNSAFE.sub("-", source)[:40] or "source"
        self.path = folder / f"{COPY_PREFIX}{name}-{stamp}-{os.getpid()}.jsonl"
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        self._redactor = redactor
        self._end = 0  # bytes written
        self._number = 0  # the last line written
        self.error: OSError | None = None  # writing failed (a full disk): nothing more copied

    def copy(self, line: Line) -> Line | None:
        """``line`` as the copy holds it (same number; the copy's bytes and offset), appended;
        None once writing failed."""
        if self._fd is None or self.error is not None:
            return None
        gap = b"\n" * max(line.number - self._number - 1, 0)  # lines not copied (too long)
        data = redacted_line(self._redactor, line.data)
        try:
            write_all(self._fd, gap + data + b"\n")
        except OSError as error:
            self.error = error
            return None
        self._number = max(self._number, line.number)
        self._end += len(gap) + len(data) + 1
        return Line(line.number, self._end, data)

    def close(self) -> None:
        """Stop copying and remove the copy (the app answering its clicks stops with it)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self.path.unlink(missing_ok=True)


def redacted_line(redactor: Redactor, data: bytes) -> bytes:
    """A line with every secret in it redacted, as it may be written to disk. A JSON line
    stays JSON: when redacting its text would break it (an extra pattern taking a closing
    quote), its strings are redacted one by one instead; one nested too deep for that is not
    kept (an empty line)."""
    if not redactor.may_hold_secret_json(data):
        return data
    text = data.decode("utf-8", "surrogateescape")
    redacted = redactor.redact(text)
    if redacted == text:
        return data
    if _is_json(redacted) or not _is_json(data):
        return redacted.encode("utf-8", "surrogateescape")
    try:
        return orjson.dumps(_strings_redacted(orjson.loads(data), redactor, 0))
    except RecursionError:
        return b""


def remove_left_behind(folder: Path) -> None:
    """Remove the copies whose run is gone (its pid, the name's last part, runs no more)."""
    for path in folder.glob(f"{COPY_PREFIX}*.jsonl"):
        pid = path.stem.rsplit("-", 1)[-1]
        if pid.isdigit() and not _running(int(pid)):
            path.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: running
        return True
    return True


def _strings_redacted(value: object, redactor: Redactor, depth: int) -> object:
    if isinstance(value, str):
        return redactor.redact(value)
    if depth > _DEPTH:
        raise RecursionError("nested too deep to redact")
    if isinstance(value, dict):
        return {redactor.redact(key): _strings_redacted(item, redactor, depth + 1)
                for key, item in value.items()}  # fmt: skip
    if isinstance(value, list):
        return [_strings_redacted(item, redactor, depth + 1) for item in value]
    return value


def _is_json(data: bytes | str) -> bool:
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return True


def write_all(fd: int, data: bytes) -> None:
    """All of ``data`` written to ``fd`` (``os.write`` may write part of it)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
