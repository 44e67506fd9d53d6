"""What ``slacktail follow`` follows: one file, a folder or glob of session files, standard
input, or a pipe (a named pipe, ``<(cmd)``) or device, each resumed from the positions the last
checkpoint committed.

Standard input is spooled to the state directory first (``spool/``), so a restart resumes it
like a file: spool files an earlier run left unread are read to their end before the new input,
and each is deleted once it was read to its end and committed. A pipe is read as a stream, as
standard input is, but not spooled (its spool, named like stdin's, would be another job's
leftover); a new pipe is a new input, read from its start.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from bot.checkpoints import Restored
from bot.errors import InputError
from bot.redaction import Redactor
from bot.sources.document import DocumentFollower, DocumentOptions, is_document_file
from bot.sources.file_options import FileOptions
from bot.sources.folder import FolderOptions, FolderWatch
from bot.sources.follow import FileFollower
from bot.sources.patterns import SESSION_FILES, is_folder_target, split_target
from bot.sources.pipe import is_stream, open_stream
from bot.sources.position import DocumentPosition, FilePosition, stored_position
from bot.sources.source import Source
from bot.sources.spool import StdinSpool, leftover_spools, remove_spool
from bot.sources.stream import ChunkStream, StreamReader


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
    if path == "-" or is_stream(path):  # a pipe is opened (its writer waited for) once
        return
    if is_folder_target(path):
        split_target(path)  # raises InputError naming what is wrong
        return
    FileFollower(path).close()  # raises InputError naming what is wrong


def target_for(
    path: str,
    *,
    once: bool,
    restored: Restored,
    spool_dir: Path | None,
    max_line_bytes: int,
    patterns: Sequence[str] = (),
    redactor: Redactor | None = None,
) -> Target:
    """The sources of ``path``; ``patterns`` name the files under a folder (none: the
    agents' session files, ``SESSION_FILES``); ``redactor``: stdin is spooled redacted."""
    if path == "-":
        return _stdin(restored, spool_dir, max_line_bytes, redactor)
    if is_stream(path):
        return _pipe(path, restored, max_line_bytes)
    if is_folder_target(path):
        options = FolderOptions(patterns or SESSION_FILES, stop_at_end=once,
                                max_line_bytes=max_line_bytes)  # fmt: skip
        folder = FolderWatch(path, options, resume=lambda p: _resume(restored, str(p)))
        return Target(folder=folder)
    return _file(path, once=once, restored=restored, max_line_bytes=max_line_bytes)


def _file(path: str, *, once: bool, restored: Restored, max_line_bytes: int) -> Target:
    resume = _resume(restored, path)
    size = Path(path).stat().st_size
    if isinstance(resume, DocumentPosition) or (
        resume is None and is_document_file(Path(path), look_inside=True)
    ):  # a .traj, a session document, a stored run: rewritten whole, not appended to
        document = DocumentFollower(path, DocumentOptions(stop_at_end=once), resume=resume)
        return Target([document], size=size)
    options = FileOptions(stop_at_end=once, max_line_bytes=max_line_bytes)
    follower = FileFollower(path, options, resume=resume)
    return Target([follower], size=size)


def _pipe(path: str, restored: Restored, max_line_bytes: int) -> Target:
    stream = open_stream(Path(path), _say)
    if restored.core is not None:  # what an earlier pipe of this name held is not resumed
        restored.core.readers.pop(path, None)
        restored.core.ended.discard(path)
    return Target([StreamReader(stream, name=path, max_line_bytes=max_line_bytes)])


def _say(text: str) -> None:
    print(f"slacktail: {text}", file=sys.stderr)


def _stdin(
    restored: Restored, spool_dir: Path | None, max_line_bytes: int, redactor: Redactor | None
) -> Target:
    stdin = cast(ChunkStream, sys.stdin.buffer)  # a BufferedReader: it has read1
    if spool_dir is None:  # nothing outlives this run (the embedded local Slack)
        return Target([StreamReader(stdin, name="stdin", max_line_bytes=max_line_bytes)])
    try:
        spool = StdinSpool(stdin, spool_dir, max_line_bytes=max_line_bytes, redactor=redactor)
    except OSError as error:
        raise InputError(f"{spool_dir}: cannot spool standard input there ({error})") from None
    target = Target()
    for path in leftover_spools(spool_dir, besides=spool.path):
        resume = _resume(restored, str(path))
        if not isinstance(resume, FilePosition):
            resume = None  # a spool is never a document
        options = FileOptions(stop_at_end=True, max_line_bytes=max_line_bytes)
        left = FileFollower(path, options, resume=resume)
        target.sources.append(left)
        target.spools.append((left, path))
    target.sources.append(spool)
    target.spools.append((spool, spool.path))
    return target


def _resume(restored: Restored, name: str) -> FilePosition | DocumentPosition | None:
    position = restored.positions.get(name)
    return stored_position(position) if position is not None else None
