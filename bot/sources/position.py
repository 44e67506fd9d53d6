"""Which file a follower was reading and how far: what the store commits, what a restart resumes.

A file is known by its device and inode (what a rename keeps) and by a fingerprint of its first
bytes (what a truncation or a new file reusing the inode changes). ``find_moved`` looks for a
file that was renamed away (rotation, ``app.jsonl`` → ``app.jsonl.1``) among its old name's
siblings. A JSON document read whole has no offset: its position (``DocumentPosition``) is the
file it was read from and a digest of the content last read. ``stored_position`` tells the two
apart in what the store gives back.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeVar

from bot.errors import InputError

FINGERPRINT_BYTES = 1024
SCAN_BYTES = 64 * 1024

_T = TypeVar("_T")

Identity = tuple[int, int]  # (device, inode)


@dataclass(frozen=True, slots=True)
class FilePosition:
    """Just after line ``line`` (``offset`` bytes in) of the file that was at ``path``.

    ``fingerprint`` hashes the file's first ``fingerprint_size`` bytes (at most
    ``FINGERPRINT_BYTES``, never past ``offset``). ``inode`` 0: no file was open yet.
    """

    path: str
    device: int
    inode: int
    fingerprint: str
    fingerprint_size: int
    offset: int
    line: int

    @property
    def identity(self) -> Identity:
        return (self.device, self.inode)

    def to_dict(self) -> dict[str, str | int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> FilePosition:
        """The position ``to_dict`` gave; an ``InputError`` when a field is missing or wrong."""
        return cls(
            path=_field(data, "path", str),
            device=_count(data, "device"),
            inode=_count(data, "inode"),
            fingerprint=_field(data, "fingerprint", str),
            fingerprint_size=_count(data, "fingerprint_size"),
            offset=_count(data, "offset"),
            line=_count(data, "line"),
        )


@dataclass(frozen=True, slots=True)
class DocumentPosition:
    """The content last read whole from the file at ``path``: the file (device, inode, size,
    modification time) and the ``digest`` of that content. ``inode`` 0: nothing read yet."""

    path: str
    device: int
    inode: int
    size: int
    mtime_ns: int
    digest: str

    @property
    def read(self) -> bool:
        """Something was read (a content whose messages may already be in the channel)."""
        return self.inode != 0

    def to_dict(self) -> dict[str, str | int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> DocumentPosition:
        """The position ``to_dict`` gave; an ``InputError`` when a field is missing or wrong."""
        return cls(
            path=_field(data, "path", str),
            device=_count(data, "device"),
            inode=_count(data, "inode"),
            size=_count(data, "size"),
            mtime_ns=_count(data, "mtime_ns"),
            digest=_field(data, "digest", str),
        )


def stored_position(data: Mapping[str, object]) -> FilePosition | DocumentPosition:
    """A position as the store gave it back: a document's (it has a ``digest``) or a file's."""
    if "digest" in data:
        return DocumentPosition.from_dict(data)
    return FilePosition.from_dict(data)


def _field(data: Mapping[str, object], key: str, kind: type[_T]) -> _T:
    value = data.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise InputError(f"a stored file position has no valid {key}: {value!r}")
    return value


def _count(data: Mapping[str, object], key: str) -> int:
    value = _field(data, key, int)
    if value < 0:
        raise InputError(f"a stored file position has no valid {key}: {value!r}")
    return value


def fingerprint(head: bytes) -> str:
    return hashlib.blake2b(head, digest_size=16).hexdigest()


def identity(stat: os.stat_result) -> Identity:
    return (stat.st_dev, stat.st_ino)


def path_identity(path: Path) -> tuple[Identity, int] | None:
    """The identity and size of the regular file at ``path``; None when there is none (or its
    folder may not be read)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return identity(stat), stat.st_size


def read_head(fd: int, size: int) -> bytes:
    """The file's first ``size`` bytes (fewer when it is shorter)."""
    parts: list[bytes] = []
    got = 0
    while got < size:
        part = os.pread(fd, size - got, got)
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def lines_before(fd: int, end: int) -> int:
    """How many newlines the file has before offset ``end`` (read in bounded chunks)."""
    count = 0
    at = 0
    while at < end:
        part = os.pread(fd, min(SCAN_BYTES, end - at), at)
        if not part:
            break
        count += part.count(b"\n")
        at += len(part)
    return count


def matches(fd: int, position: FilePosition, size: int) -> bool:
    """The open file still holds what ``position`` read: long enough, same first bytes."""
    if size < max(position.offset, position.fingerprint_size):
        return False
    return fingerprint(read_head(fd, position.fingerprint_size)) == position.fingerprint


def find_moved(position: FilePosition) -> Path | None:
    """The file ``position`` was read from, renamed to a sibling of its old path; None when gone."""
    folder = Path(position.path).parent
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return None
    for entry in entries:
        try:
            if entry.inode() != position.inode or not entry.is_file():
                continue
            if identity(entry.stat()) == position.identity and _same_head(entry.path, position):
                return Path(entry.path)
        except OSError:  # gone in between
            continue
    return None


def unchanged(path: Path, position: FilePosition, size: int) -> bool:
    """``path`` still names the file ``position`` was read from, ``size`` bytes long, with the
    same first bytes (a file created in its place may reuse its inode, and even its size)."""
    if path_identity(path) != (position.identity, size):
        return False
    try:
        return _same_head(str(path), position)
    except OSError:  # gone, or it may no longer be read: it is to be opened again
        return False


def _same_head(path: str, position: FilePosition) -> bool:
    fd = os.open(path, os.O_RDONLY)
    try:
        return matches(fd, position, os.fstat(fd).st_size)
    finally:
        os.close(fd)
