"""Reading the sources into their sessions: each source's items, through its format reader, to
records applied to the session book (what a follower does at each turn, before it renders).

What a source says while reading goes on (a file rotated, cut, unreadable for a while, a line
over the limit) is written to the event log, and said on stderr when a person should hear of
it. A source of which nothing can be read is said once.

A JSON document rewritten in place (a ``DocumentFollower``) is read again whole: the sessions
read from it before are dropped and built again from the new content (``_rebuild``), never
added to, so their messages, which keep their keys, are updated in place, and only what is new
is posted.

A source that can say how it ended (a ``run`` command's agent: its exit code, the signal that
ended it) gives, once its output ended, an ``AgentExited`` record to each session it wrote.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bot import events
from bot.checkpoints import CoreState
from bot.formats import FAMILIES
from bot.formats.reader import SourceReader
from bot.logs import EventLog
from bot.outputs import LineRead, keep_position
from bot.progress import ProgressBar
from bot.records import Origin, Record, ToolResult, Unparsed
from bot.redaction import Redactor, redact_record
from bot.replay import Replay
from bot.retiring import Retired
from bot.session.ends import exit_records
from bot.sources.document import DocumentFollower
from bot.sources.folder import FolderWatch
from bot.sources.follow import FileFollower
from bot.sources.lines import Line, LineOverLimit, LongLine
from bot.sources.pipe_copy import PipeCopy
from bot.sources.source import Rewritten, Rotated, Source, SourceEvent, Truncated
from bot.sources.spool import StdinSpool


@dataclass
class FollowCounts:
    lines: int = 0
    records: int = 0
    unparsed: int = 0
    long_lines: int = 0


class Reading:
    """The sources (and the files of ``folder`` as they appear) read into ``core``'s sessions,
    each source as the format ``family`` (none: detected), every record redacted first.
    ``retired``: the sessions in the store, a late record of one brings it back; ``replay``:
    records held to be applied at their log's pace."""

    def __init__(
        self,
        core: CoreState,
        retired: Retired,
        *,
        log: EventLog,
        redactor: Redactor,
        family: str | None = None,
        folder: FolderWatch | None = None,
        replay: Replay | None = None,
        progress: ProgressBar | None = None,
    ) -> None:
        self.core, self.book, self.readers = core, core.book, core.readers
        self.retired = retired
        self.log, self.redactor, self.family = log, redactor, family
        self.folder, self.replay, self.progress = folder, replay, progress
        self.sources: list[Source] = []
        self.counts = FollowCounts()
        self.touched: set[str] = set(self.book.sessions)  # changed since the last render
        self.changed = False  # read (or dropped) since the state was last saved
        self.caught_up = False  # a turn found nothing more to read: what was there is read
        self.not_understood: list[str] = []  # a line for each source of which nothing was read
        self._folder_scanned = False
        self._said: set[str] = set()  # those sources (a rewritten document's new reader too)
        self._exits: dict[str, dict[str, None]] = {}  # a command's source -> the sessions it wrote

    def add_source(self, source: Source) -> None:
        """Read one more source (a file that appeared in a followed folder)."""
        self.sources.append(source)
        if source.name not in self.readers:
            self.readers[source.name] = SourceReader(
                source.name, family=self.family, repeatable=getattr(source, "repeatable", False)
            )
        if isinstance(source, DocumentFollower):  # its sessions are rebuilt when it is rewritten
            self.core.produced.setdefault(source.name, set())
        if callable(getattr(source, "ending", None)):  # its end becomes its sessions' record
            self._exits.setdefault(source.name, {})

    def read(self, now: datetime) -> int:
        """Feed what every source has now, the sessions' time ``now``; the number of items."""
        read = 0
        if self.folder is not None:
            self._scan(self.folder)
        for source in self.sources:
            reader = self.readers[source.name]
            items = source.read_available()
            read += len(items)
            self.changed = self.changed or bool(items)
            for item in items:
                if isinstance(item, Rewritten):
                    reader = self._rebuild(source.name, item)
                    continue
                at = _line_read(source, item)  # the line's position, for Full output
                self._take(reader, self._records(reader, item), now, at)
            if source.closed and source.name not in self.core.ended:
                self.core.ended.add(source.name)
                self.changed = True
                self._take(reader, reader.finish() + self._exit_records(source, reader), now)
            if items or source.closed:
                self._say_if_not_understood(reader)
        if self.replay is not None:
            for reader, records, at in self.replay.due():
                self.apply(reader, records, now, at)
        if read == 0 and (self.folder is None or self._folder_scanned):
            self.caught_up = True
        return read

    @property
    def input_ended(self) -> bool:
        """Every source ended (a followed folder: only with ``--once``, once it was read)."""
        if self.folder is not None and not (self.folder.stop_at_end and self._folder_scanned):
            return False
        if self.replay is not None and self.replay.holding:
            return False
        return all(source.closed for source in self.sources)

    @property
    def nothing_read(self) -> bool:
        """Not one record could be read, and no session was restored: the input is empty or
        not a log slacktail reads."""
        counts = self.counts
        return counts.records == counts.unparsed and not self.book.sessions and not self.retired.ids

    def apply(
        self, reader: SourceReader, records: list[Record], now: datetime, at: LineRead | None = None
    ) -> None:
        """Apply ``reader``'s records to their sessions (a session's first one is said); ``at``:
        where the line they were read from is, to read a tool's output again."""
        produced = self.core.produced.get(reader.source)  # only a document's are kept
        exits = self._exits.get(reader.source)  # and a command's
        for record in records:
            self.counts.records += 1
            if record.session_id in self.retired:
                self.retired.bring_back(record.session_id, self.book)
            record = redact_record(record, self.redactor)
            session = self.book.apply(record, now)
            if session is None:
                self.counts.unparsed += type(record) is Unparsed
                continue
            if at is not None and type(record) is ToolResult:
                keep_position(session, record, at)
            if session.session_id not in self.core.families:
                self.core.families[session.session_id] = reader.family or ""
                known = FAMILIES.get(reader.family or "")  # before the log names its agent
                agent = session.info.agent or (known.agent if known is not None else None)
                self.log.event(events.SessionStarted(session.session_id, agent, reader.source))
            self.touched.add(session.session_id)
            if produced is not None:
                produced.add(session.session_id)
            if exits is not None:
                exits[session.session_id] = None

    def _scan(self, folder: FolderWatch) -> None:
        """The files that appeared in the folder become sources (said in one line per scan)."""
        found = folder.new_files()
        for new_file in found:
            self.add_source(new_file)
        if found:
            names = tuple(new_file.name for new_file in found[:5])
            self.log.event(events.FilesFound(len(found), names))
        for said in folder.take_events():  # a folder it may not read, for a while
            self._tell(said)
        self._folder_scanned = True

    def _take(
        self, reader: SourceReader, records: list[Record], now: datetime, at: LineRead | None = None
    ) -> None:
        """Apply what was read, or (replaying) hold it until its time comes."""
        if self.replay is None:
            self.apply(reader, records, now, at)
        elif at is not None and any(type(record) is ToolResult for record in records):
            self.replay.hold(reader, records, at)
        else:  # held lines keep no position they do not need (a line's bytes, in memory)
            self.replay.hold(reader, records)

    def _records(
        self, reader: SourceReader, item: Line | LongLine | LineOverLimit | Truncated | SourceEvent
    ) -> list[Record]:
        if isinstance(item, Line):
            self.counts.lines += 1
            if self.progress is not None:
                self.progress.update(item.offset)
            return reader.feed(item.data, item.number)
        if isinstance(item, LongLine):
            self.counts.long_lines += 1
            self.log.event(events.LongLine(reader.source, item.number, item.size))
            reason = f"line of {item.size:,} bytes, over the limit"
            return [Unparsed(Origin("", None, item.number), reason=reason)]
        if isinstance(item, LineOverLimit):
            over = events.LineOverLimit(reader.source, item.number, item.limit)
            self._tell(SourceEvent(over, f"warning: {item.text(reader.source)}"))
            return []
        if isinstance(item, SourceEvent):
            self._tell(item)
            return []
        cut = events.Rotated if isinstance(item, Rotated) else events.Truncated
        # offset: the bytes read of the file before (``at`` is every event's time)
        self.log.event(cut(reader.source, item.offset, item.size))
        return []

    def _tell(self, said: SourceEvent) -> None:
        """What reading goes on through, said once: in the log and, for a person, on stderr."""
        self.log.event(said.event)
        if said.text is not None:
            print(f"slacktail: {said.text}", file=sys.stderr)

    def _say_if_not_understood(self, reader: SourceReader) -> None:
        """A source of which nothing can be read is said once, on stderr and in the log."""
        said = reader.not_understood()
        if said is None or reader.source in self._said:
            return
        self._said.add(reader.source)
        self.not_understood.append(said)
        self.log.event(events.NotUnderstood(reader.source, reader.first_line))
        print(f"slacktail: {said}", file=sys.stderr)

    def _rebuild(self, name: str, item: Rewritten) -> SourceReader:
        """The document ``name`` was rewritten: the sessions read from it are dropped, with its
        reader, to be built again from its new content. Their messages are then updated in
        place (same keys), not posted again."""
        dropped = self.core.produced.get(name, set())
        for session_id in dropped:
            self.book.drop(session_id)
            self.retired.forget(session_id)  # its retired state is not to come back
        self.core.produced[name] = set()
        if self.replay is not None:
            self.replay.forget(name)
        self.core.ended.discard(name)
        self.changed = True
        reader = self.readers[name] = SourceReader(name, family=self.family)
        if item.before is None or item.size < item.before:  # not an agent's save as it goes on
            self.log.event(events.Rewritten(name, item.size, len(dropped)))
        return reader

    def _exit_records(self, source: Source, reader: SourceReader) -> list[Record]:
        """How the source's agent ended, a record for each session it wrote (none while the
        agent still runs, or for a source that has no agent)."""
        sessions = self._exits.get(source.name)
        ending: Callable[[], _Ending | None] | None = getattr(source, "ending", None)
        if not sessions or ending is None:
            return []
        ended = ending()
        if ended is None:
            return []
        self.log.event(events.AgentEnded(source.name, ended.code, ended.signal))
        return exit_records(sessions, ended.code, ended.signal, reader.stats.lines + 1)


def _line_read(source: Source, item: object) -> LineRead | None:
    """Where a line can be read again: in its file (stdin: its spool), or in the copy of a
    pipe's lines (``run``'s agent output, an unspooled stdin) when one is kept (see
    ``bot.outputs``); None for anything else."""
    if not isinstance(item, Line):
        return None
    if isinstance(source, FileFollower | StdinSpool):
        return LineRead(str(source.path), item)
    if isinstance(source, DocumentFollower):
        return LineRead(str(source.path), item, document=True)
    copy = getattr(source, "copy", None)
    if isinstance(copy, PipeCopy) and (copied := copy.copy(item)) is not None:
        return LineRead(str(copy.path), copied)
    return None


class _Ending(Protocol):
    """How a source's agent ended (see ``AgentCommand.ending``)."""

    @property
    def code(self) -> int | None: ...

    @property
    def signal(self) -> str | None: ...
