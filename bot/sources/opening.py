"""Opening a followed file: at a given offset, or where a stored ``FilePosition`` says.

Resuming checks that the path still names the file read before (device and inode), still
holding what was read (size, first bytes); a file cut or replaced meanwhile is read again from
its start after a ``Truncated`` marker; a file rotated away meanwhile is found among its old
path's siblings and its rest read first; a file gone for good leaves a ``Rotated`` marker before
the file now at the path.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from bot.errors import InputError
from bot.sources.position import FilePosition, find_moved, identity, matches
from bot.sources.source import Rotated, Truncated

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Opened:
    """An open file, where to read it from (just after line ``line``), and the marker to give
    before its lines, if any."""

    file: BinaryIO
    stat: os.stat_result
    offset: int
    line: int
    marker: Truncated | None = None


def file_error(path: Path, error: OSError) -> InputError:
    """A log file that cannot be read, said in one line."""
    if isinstance(error, FileNotFoundError):
        return InputError(f"{path}: no such file")
    if isinstance(error, IsADirectoryError):
        return InputError(f"{path}: is a directory, not a log file")
    return InputError(f"{path}: cannot read it ({error.strerror or error})")


def open_file(path: Path) -> tuple[BinaryIO, os.stat_result] | None:
    """The file at ``path``, open for reading, and its status; None when there is none."""
    try:
        file = open(path, "rb", buffering=0)  # noqa: SIM115 (held open while following)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise file_error(path, error) from None
    return file, os.fstat(file.fileno())


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
        log.warning("%s: cut or replaced since it was last read; reading it again", path)
        return Opened(file, stat, 0, 0, Truncated(resume.offset, stat.st_size))
    if opened is None and not search:
        return None
    moved = find_moved(resume)
    moved_opened = open_file(moved) if moved is not None else None
    if moved_opened is not None:  # rotated meanwhile: its rest first, then the new file
        if opened is not None:
            opened[0].close()
        log.info("%s: resuming in %s, where it was moved", path, moved)
        return Opened(*moved_opened, resume.offset, resume.line)
    if opened is None:
        return None
    log.warning("%s: the file read before is gone; reading the new one from its start", path)
    return Opened(*opened, 0, 0, Rotated(resume.offset, opened[1].st_size))
