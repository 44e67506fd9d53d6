"""Opening a followed file: at a given offset, or where a stored ``FilePosition`` says.

Resuming checks that the path still names the file read before (device and inode), still
holding what was read (size, first bytes); a file cut or replaced meanwhile is read again from
its start after a ``Truncated`` marker; a file rotated away meanwhile is found among its old
path's siblings and its rest read first; a file gone for good leaves a ``Rotated`` marker before
the file now at the path.

A path that names something else for a while (a folder, a file it may not read, a pipe) is not
an error that stops following: ``Unreadable`` says it once (a ``SourceEvent``), tries again
every ``RETRY_S`` seconds, and says when it can be read again.

What happened is said by the follower, from the markers: ``truncated``, ``rotated`` and, for a
file found renamed (``moved_to``), ``moved`` events.
"""

from __future__ import annotations

import os
import stat as kinds
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from bot import events
from bot.errors import InputError
from bot.sources.position import FilePosition, find_moved, identity, matches
from bot.sources.source import Item, Rotated, SourceEvent, Truncated

RETRY_S = 2.0  # a followed path that cannot be read is tried again this often


@dataclass(frozen=True)
class Opened:
    """An open file, where to read it from (just after line ``line``), and the marker to give
    before its lines, if any; ``moved_to``: the file is not at the path any more, but there."""

    file: BinaryIO
    stat: os.stat_result
    offset: int
    line: int
    marker: Truncated | None = None
    moved_to: Path | None = None


def file_error(path: Path, error: OSError) -> InputError:
    """A log file that cannot be read, said in one line."""
    if isinstance(error, FileNotFoundError):
        return InputError(f"{path}: no such file")
    if isinstance(error, IsADirectoryError):
        return InputError(f"{path}: is a directory, not a log file")
    return InputError(f"{path}: cannot read it ({error.strerror or error})")


def open_file(path: Path) -> tuple[BinaryIO, os.stat_result] | None:
    """The regular file at ``path``, open for reading, and its status; None when there is none.
    Anything else there (a folder, a pipe, a device) is an ``InputError``: opening never waits
    for a pipe's writer."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise file_error(path, error) from None
    status = os.fstat(fd)
    if not kinds.S_ISREG(status.st_mode):
        os.close(fd)
        if kinds.S_ISDIR(status.st_mode):
            raise file_error(path, IsADirectoryError())
        raise InputError(f"{path}: not a regular file (a pipe or a device)")
    os.set_blocking(fd, True)
    return open(fd, "rb", buffering=0), status


def open_at(path: Path, offset: int, line: int) -> Opened | None:
    """The file at ``path`` from ``offset``; from its start, after a marker, if it is shorter."""
    opened = open_file(path)
    if opened is None:
        return None
    file, stat = opened
    if stat.st_size < offset:
        return Opened(file, stat, 0, 0, Truncated(offset, stat.st_size))
    return Opened(file, stat, offset, line)


def open_resumed(path: Path, resume: FilePosition, *, search: bool = True) -> Opened | None:
    """The file ``resume`` was read from, where it was left; None while there is none (and,
    unless ``search``, the path names no file: the siblings are not searched again)."""
    opened = open_file(path)
    if opened is not None and identity(opened[1]) == resume.identity:
        file, stat = opened
        if matches(file.fileno(), resume, stat.st_size):
            return Opened(file, stat, resume.offset, resume.line)
        return Opened(file, stat, 0, 0, Truncated(resume.offset, stat.st_size))
    if opened is None and not search:
        return None
    moved = find_moved(resume)
    moved_opened = open_file(moved) if moved is not None else None
    if moved_opened is not None:  # rotated meanwhile: its rest first, then the new file
        if opened is not None:
            opened[0].close()
        return Opened(*moved_opened, resume.offset, resume.line, moved_to=moved)
    if opened is None:
        return None
    return Opened(*opened, 0, 0, Rotated(resume.offset, opened[1].st_size))


class Unreadable:
    """Whether the followed path ``name`` can be opened: when it cannot (``failed``), said once,
    then tried again at most every ``retry_s`` seconds (``due``); once it can (``cleared``), said
    too. Each returns the ``SourceEvent`` to give before the next lines, if any."""

    def __init__(self, name: str, clock: Callable[[], float], retry_s: float = RETRY_S) -> None:
        self.name = name
        self.error: InputError | None = None  # why it cannot be read, while it cannot
        self._clock = clock
        self._retry_s = retry_s
        self._retry_at = float("-inf")

    def due(self) -> bool:
        """Trying to open it now is worth it (it was not failing, or long enough ago)."""
        return self.error is None or self._clock() >= self._retry_at

    def failed(self, error: InputError) -> list[Item]:
        self._retry_at = self._clock() + self._retry_s
        said = self.error is not None and str(self.error) == str(error)
        self.error = error
        if said:
            return []
        text = f"warning: {error}; reading on, and this file once it can be read"
        return [SourceEvent(events.Unreadable(self.name, str(error)), text)]

    def cleared(self) -> list[Item]:
        if self.error is None:
            return []
        self.error = None
        text = f"{self.name}: can be read again; reading it"
        return [SourceEvent(events.Readable(self.name), text)]
