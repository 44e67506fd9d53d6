"""Following every session file in a folder, or matching a glob, new ones as they appear.

``slacktail follow DIR`` follows the files that ``SESSION_FILES`` names under ``DIR``, where
agents keep their sessions (an agent's folder, or a folder above it, such as ``~/.gemini``;
not ``~`` itself: ``**`` does not enter hidden folders such as ``~/.claude``):

- ``**/*.jsonl``: JSON Lines, appended to. Claude Code's ``~/.claude/projects`` holds
  ``<project>/<session>.jsonl`` and, for the subagents a session started,
  ``<project>/<session>/subagents/agent-<id>.jsonl``; Codex
  ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``; the Gemini CLI's journal
  ``~/.gemini/tmp/<hash>/chats/session-*.jsonl``; pi ``~/.pi/agent/sessions/<cwd>/*.jsonl``;
  Kimi Code ``~/.kimi-code/sessions/wd_*/<session>/agents/main/wire.jsonl``.
- ``**/.system_generated/logs/transcript.jsonl``: Antigravity's
  ``~/.gemini/antigravity-cli/brain/<conversation>/.system_generated/logs/transcript.jsonl``,
  under a hidden folder, which ``**`` does not enter. Its twin ``transcript_full.jsonl`` holds
  the same steps again: it is left out when ``transcript.jsonl`` is beside it (``TWINS``).
- ``**/chats/session-*.json``: the Gemini CLI's session documents, and ``**/*.traj``: SWE-agent
  trajectories. These are JSON documents, rewritten whole as the session grows: each is
  followed by a ``DocumentFollower``, read whole again when it changes.

Documents are named, not every ``*.json``: an agent's folder also holds ``settings.json``,
``logs.json``, saved chats and the like, which are not sessions and would each be reported as
a file slacktail cannot read. ``patterns`` (``follow --pattern``) replaces the defaults; a
glob (``*``, ``?``, ``[``, ``**`` for any depth) given as the target follows what it matches.
A ``.json`` or ``.traj`` file is followed as a document (unless it holds JSON Lines), any other
file as JSON Lines.

Each file is its own follower (each needs its own format reader), handed out once by
``new_files``. One ``ChangeWatch`` serves them all: the folders are scanned again when a file
or folder appears (or every ``rescan_interval`` seconds), and a file is looked at when it
changed (or every ``recheck_interval`` seconds). Files idle for ``close_idle_after`` seconds are
closed until they change, so open files stay few however many sessions the folder holds.

A file or folder that cannot be read (its permissions, a file briefly a folder) stops nothing:
it is said once (``take_events``, and each follower's own ``SourceEvent``), the rest is followed,
and it is read once it can be (a folder at the next scan, a file at its follower's next try).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot import events
from bot.sources.document import DocumentFollower, DocumentOptions, is_document_file
from bot.sources.file_options import FileOptions
from bot.sources.follow import FileFollower
from bot.sources.lines import DEFAULT_MAX_LINE_BYTES
from bot.sources.patterns import SESSION_FILES, FilePatterns, left_out, split_target
from bot.sources.position import DocumentPosition, FilePosition
from bot.sources.source import SourceEvent
from bot.sources.watch import ChangeWatch, wait_for_change

RESCAN_S = 10.0  # with events; without, folders are scanned as often as files are polled
CLOSE_IDLE_S = 60.0


FollowedFile = FileFollower | DocumentFollower
Resume = Callable[[Path], FilePosition | DocumentPosition | None]


def parent_session(path: Path) -> str | None:
    """For a Claude Code subagent's file, ``<session>/subagents/agent-<id>.jsonl``, the id of
    the session that started it; None for any other file."""
    if path.parent.name == "subagents" and path.name.startswith("agent-"):
        return path.parent.parent.name
    return None


@dataclass(frozen=True)
class FolderOptions:
    """How a folder is followed. ``patterns`` name the files under it (a glob target is its
    own pattern); with ``stop_at_end`` each file is read to its end and closed (``--once``).
    With file-system events the folders are scanned again when a file or folder appears, or
    every ``rescan_interval`` seconds; files idle for ``close_idle_after`` seconds are closed
    until they change; a line over ``max_line_bytes`` is skipped."""

    patterns: Sequence[str] = SESSION_FILES
    stop_at_end: bool = False
    rescan_interval: float = RESCAN_S
    close_idle_after: float | None = CLOSE_IDLE_S
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    clock: Callable[[], float] = time.monotonic


class FolderWatch:
    """The session files under ``target`` (a folder or a glob), each as a ``FileFollower`` or,
    for a document, a ``DocumentFollower``, followed as ``options`` say.

    ``resume(path)`` gives a file's stored position (None: read it from its start);
    ``select(path)`` may leave files out (asked again at each scan until it takes them);
    ``watch``: the ``ChangeWatch`` of every file (default: one of its own).
    """

    def __init__(
        self,
        target: str,
        options: FolderOptions | None = None,
        *,
        watch: ChangeWatch | None = None,
        resume: Resume | None = None,
        select: Callable[[Path], bool] | None = None,
    ) -> None:
        options = options or FolderOptions()
        clock = options.clock
        self.name = target
        self.root, self.patterns = split_target(target, options.patterns)
        self._files = FilePatterns(self.patterns)
        self.watch = watch if watch is not None else ChangeWatch(clock=clock)
        self._own_watch = watch is None
        self.watch.watch_folder(self.root, recursive=True)
        self._resume = resume
        self._select = select
        self.stop_at_end = options.stop_at_end
        polling = self.watch.recheck_interval
        self._rescan_interval = options.rescan_interval if self.watch.events else polling
        self._close_idle_after = options.close_idle_after
        self._max_line_bytes = options.max_line_bytes
        self._clock = clock
        self._scanned_at = float("-inf")
        self.followers: dict[str, FollowedFile] = {}  # by absolute path
        self._unreadable: dict[str, str] = {}  # folder → why it cannot be listed
        self._events: list[SourceEvent] = []  # to be said once each

    @property
    def pattern_text(self) -> str:
        """What files it looks for, as a person would write it."""
        return ", ".join(str(self.root / pattern) for pattern in self.patterns)

    def new_files(self) -> list[FollowedFile]:
        """Followers for the files that appeared since the last call (all of them, the first
        time), in path order. A file is handed out once, whatever happens to it later: its
        follower copes with it being rotated, truncated, deleted and created again."""
        if not self._scan_due():
            return []
        self._scanned_at = self._clock()
        found: list[FollowedFile] = []
        for path in self._matches():
            key = os.path.abspath(path)
            if key in self.followers or (self._select is not None and not self._select(path)):
                continue
            follower = self._follower(path)
            self.followers[key] = follower
            found.append(follower)
        return found

    def ready(self) -> bool:
        """A followed file changed, or the folders may hold new files."""
        return self._scan_due() or any(f.ready() for f in self.followers.values())

    def wait_ready(self, timeout: float) -> bool:
        """Block until ``ready()`` or ``timeout`` seconds passed (woken by file-system events,
        or polling where there are none)."""
        return wait_for_change(self.watch, [self], timeout)

    def take_events(self) -> list[SourceEvent]:
        """What the scans since the last call found: folders that cannot be listed (now), and
        folders that can be again; and whether file-system events stopped (``polling``)."""
        said, self._events = [*self._events, *self.watch.take_events()], []
        return said

    def close(self) -> None:
        for follower in self.followers.values():
            follower.close()
        if self._own_watch:
            self.watch.close()

    def _scan_due(self) -> bool:
        if self.watch.take_new_entries():
            self._scanned_at = float("-inf")
        return self._clock() - self._scanned_at >= self._rescan_interval

    def _matches(self) -> list[Path]:
        """The files named, in path order: a session before its subagents."""
        errors: list[OSError] = []
        found = [path for path in self._files.find(self.root, errors) if not left_out(path)]
        self._note_unreadable(errors)
        return found

    def _note_unreadable(self, errors: list[OSError]) -> None:
        now = {
            str(error.filename): error.strerror or str(error)
            for error in errors
            if not isinstance(error, (FileNotFoundError, NotADirectoryError))  # gone meanwhile
        }
        for folder, reason in now.items():
            if folder not in self._unreadable:
                text = (f"warning: {folder}: cannot read this folder ({reason}); following "
                        "the rest, and its files once it can be read")  # fmt: skip
                event = events.Unreadable(self.name, reason, folder=folder)
                self._events.append(SourceEvent(event, text))
        for folder in sorted(self._unreadable.keys() - now.keys()):
            if os.path.isdir(folder):  # not gone
                text = f"{folder}: can be read again; following its files"
                self._events.append(SourceEvent(events.Readable(self.name, folder), text))
        self._unreadable = now

    def _follower(self, path: Path) -> FollowedFile:
        resume = self._resume(path) if self._resume is not None else None
        if is_document_file(path):
            document = DocumentOptions(stop_at_end=self.stop_at_end, clock=self._clock)
            return DocumentFollower(path, document, resume=resume, watch=self.watch)
        options = FileOptions(
            wait_for_file=True,
            stop_at_end=self.stop_at_end,
            close_idle_after=self._close_idle_after,
            max_line_bytes=self._max_line_bytes,
            clock=self._clock,
        )
        file_resume = resume if isinstance(resume, FilePosition) else None
        return FileFollower(path, options, resume=file_resume, watch=self.watch)
