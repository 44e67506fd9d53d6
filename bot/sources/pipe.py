"""Opening a named pipe, a process substitution (``<(cmd)``) or a device, to be read as a stream.

Such a path is not a file to follow: it has no size, no offset to seek to or resume from. It is
read once, as standard input is, until its writer closes it (a ``StreamReader``).

Opening a named pipe waits for a program to open it for writing. So it is first opened without
waiting and looked at: when no program writes to it yet, that is said (one line, once), then
opening waits for one, as ``cat`` would (Ctrl-C stops). A process substitution names a
descriptor this process already holds (``/dev/fd/63``): that descriptor is read, never opened
again (its writer may have finished, leaving only what it wrote).
"""

from __future__ import annotations

import os
import re
import stat as kinds
from collections.abc import Callable
from pathlib import Path

from bot.sources.opening import file_error

CHUNK_BYTES = 64 * 1024
_OWN_DESCRIPTOR = re.compile(r"/(?:dev|proc/self)/fd/(\d+)")


def is_stream(path: Path | str) -> bool:
    """``path`` names something read as a stream: a pipe, a device (not a file, not a folder)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not kinds.S_ISREG(mode) and not kinds.S_ISDIR(mode)


class PipeReader:
    """A pipe or device open for reading, with the bytes read while opening it given first:
    ``read1`` as a ``StreamReader`` reads its stream."""

    def __init__(self, fd: int, first: bytes = b"") -> None:
        self._file = os.fdopen(fd, "rb")
        self._first = first

    def read1(self, size: int = CHUNK_BYTES, /) -> bytes:
        if self._first:
            chunk, self._first = self._first, b""
            return chunk
        return self._file.read1(size)

    def close(self) -> None:
        self._file.close()


def open_stream(path: Path, tell: Callable[[str], None]) -> PipeReader:
    """``path`` open for reading as a stream; when it is a pipe no program writes to yet,
    ``tell`` says so (once) before opening waits for one."""
    own = _own_descriptor(path)
    if own is not None:
        return PipeReader(os.dup(own))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise file_error(path, error) from None
    if not kinds.S_ISFIFO(os.fstat(fd).st_mode):
        os.set_blocking(fd, True)
        return PipeReader(fd)
    first = _first_bytes(fd)
    if first is None:  # no writer yet
        os.close(fd)
        tell(f"{path}: waiting for a program to write to this pipe (Ctrl-C to stop)")
        try:
            fd = os.open(path, os.O_RDONLY)  # returns once a writer opened it
        except OSError as error:
            raise file_error(path, error) from None
        first = b""
    os.set_blocking(fd, True)
    return PipeReader(fd, first)


def _first_bytes(fd: int) -> bytes | None:
    """What a pipe opened without waiting holds: its bytes (none yet while a writer has it
    open); None when no program has it open for writing (it reads as ended)."""
    try:
        first = os.read(fd, CHUNK_BYTES)
    except BlockingIOError:
        return b""
    return first or None


def _own_descriptor(path: Path) -> int | None:
    """For ``/dev/fd/N`` (or ``/proc/self/fd/N``) naming a pipe this process holds open as
    descriptor N (a process substitution), N."""
    match = _OWN_DESCRIPTOR.fullmatch(str(path))
    if match is None:
        return None
    fd = int(match[1])
    try:
        held, named = os.fstat(fd), os.stat(path)
    except OSError:
        return None
    if (held.st_dev, held.st_ino) != (named.st_dev, named.st_ino):
        return None
    return fd
