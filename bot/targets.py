"""What ``slacktail follow`` follows: one file, a folder or glob of session files, or standard
input, each resumed from the positions the last checkpoint committed.

Standard input is spooled to the state directory first (``spool/``), so a restart resumes it
like a file: spool files an earlier run left unread are read to their end before the new input,
and each is deleted once it was read to its end and committed.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from bot.checkpoints import Restored
from bot.errors import InputError
from bot.sources.files import WholeFile, is_document
from bot.sources.folder import FolderWatch, is_folder_target, split_target
from bot.sources.follow import FileFollower
from bot.sources.position import FilePosition
from bot.sources.source import Source
from bot.sources.spool import StdinSpool, leftover_spools, remove_spool
from bot.sources.stream import ChunkStream, StreamReader

DOCUMENT_MAX = 64_000_000  # a whole-document log larger than this is followed as lines


@dataclass
class Target:
    """The sources of one ``follow`` argument, and the spool files to delete once read."""

    sources: list[Source] = field(default_factory=list)
    folder: FolderWatch | None = None
    spools: list[tuple[Source, Path]] = field(default_factory=list)
    size: int = 0  # bytes of a single file (the progress bar's end), else 0

    def clean_up(self) -> None:
        """Delete the spool files read to their end (their last position is committed)."""
        for source, path in self.spools:
            if source.closed:
                remove_spool(path)

    def close(self) -> None:
        for source in self.sources:
            source.close()
        if self.folder is not None:
            self.folder.close()


def job_of(path: str) -> str:
    """What identifies a ``follow`` job, wherever it is started from."""
    if path == "-":
        return "follow -"
    return "follow " + str(Path(path).expanduser().absolute())


def check_target(path: str) -> None:
    """A log that cannot be read is the user's mistake, reported before Slack is reached."""
    if path == "-":
        return
    if is_folder_target(path):
        split_target(path)  # raises InputError naming what is wrong
        return
    FileFollower(path).close()  # raises InputError naming what is wrong


def target_for(
    path: str, *, once: bool, restored: Restored, spool_dir: Path | None, max_line_bytes: int
) -> Target:
    if path == "-":
        return _stdin(restored, spool_dir, max_line_bytes)
    if is_folder_target(path):
        folder = FolderWatch(path, resume=lambda p: _resume(restored, str(p)), stop_at_end=once,
                             max_line_bytes=max_line_bytes)  # fmt: skip
        return Target(folder=folder)
    return _file(path, once=once, restored=restored, max_line_bytes=max_line_bytes)


def _file(path: str, *, once: bool, restored: Restored, max_line_bytes: int) -> Target:
    resume = _resume(restored, path)
    follower = FileFollower(path, stop_at_end=once, resume=resume, max_line_bytes=max_line_bytes)
    size = Path(path).stat().st_size
    head = Path(path).read_bytes() if size < DOCUMENT_MAX and resume is None else b""
    if head and is_document(head):  # a .traj or a stored run: rewritten, not appended to
        follower.close()
        already_read = restored.core is not None and path in restored.core.ended
        return Target([WholeFile(Path(path), b"" if already_read else head)], size=size)
    return Target([follower], size=size)


def _stdin(restored: Restored, spool_dir: Path | None, max_line_bytes: int) -> Target:
    stdin = cast(ChunkStream, sys.stdin.buffer)  # a BufferedReader: it has read1
    if spool_dir is None:  # nothing outlives this run (the embedded local Slack)
        return Target([StreamReader(stdin, name="stdin", max_line_bytes=max_line_bytes)])
    try:
        spool = StdinSpool(stdin, spool_dir, max_line_bytes=max_line_bytes)
    except OSError as error:
        raise InputError(f"{spool_dir}: cannot spool standard input there ({error})") from None
    target = Target()
    for path in leftover_spools(spool_dir, besides=spool.path):
        left = FileFollower(path, stop_at_end=True, resume=_resume(restored, str(path)),
                            max_line_bytes=max_line_bytes)  # fmt: skip
        target.sources.append(left)
        target.spools.append((left, path))
    target.sources.append(spool)
    target.spools.append((spool, spool.path))
    return target


def _resume(restored: Restored, name: str) -> FilePosition | None:
    position = restored.positions.get(name)
    return FilePosition.from_dict(position) if position is not None else None
