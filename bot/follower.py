"""The main loop of ``follow`` and ``run``: sources → formats → sessions → messages → Slack.

Each turn reads what the sources have (never blocking on one), feeds the records to their
sessions, re-renders only the sessions that changed (at most every ``render_every_s``, or
sooner, every ``FRESH_RENDER_S``, when the shared update budget has room: an update that goes
at once should carry what was just read, not what was read half a second ago), and lets
delivery send what its budgets allow; then it waits for more input or for delivery's next
slot, whichever comes first.

A JSON document rewritten in place (a ``DocumentFollower``) is read again whole: the sessions
read from it before are dropped and built again from the new content (``_rebuild``), never
added to, so their messages, which keep their keys, are updated in place, and only what is new
is posted.

A source that can say how it ended (a ``run`` command's agent: its exit code, the signal that
ended it) gives, once its output ended, an ``AgentExited`` record to each session it wrote.
A stop (the first Ctrl-C) ends the reading and gives delivery ``drain_s`` more seconds, saying
what it waits for; a second one stops at once (``Stopped``), the state saved for the next start
(``bot.stopping``).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from blocks.figures import SESSION_REACTION
from blocks.thread import thread_messages
from bot import events
from bot.checkpoints import Checkpoints, CoreState
from bot.delivery import Delivery
from bot.errors import SlackError, Stopped
from bot.formats.reader import SourceReader
from bot.health import Heartbeat
from bot.logs import EventLog
from bot.metrics import report_of
from bot.preview import expected_results
from bot.progress import ProgressBar
from bot.records import Origin, Record, Unparsed
from bot.redaction import Redactor, redact_record
from bot.replay import Replay
from bot.session import Session, SessionBook, SessionSettings, SessionStatus
from bot.session.ends import exit_records
from bot.sources.document import DocumentFollower
from bot.sources.folder import FolderWatch
from bot.sources.lines import Line, LineOverLimit, LongLine
from bot.sources.source import Rewritten, Rotated, Source, SourceEvent, Truncated
from bot.stopping import DRAIN_S, Stopping

RENDER_EVERY_S = 0.5
RETIRE_AFTER_S = 600.0  # a finished, delivered session idle this long leaves memory...
RETIRE_EVERY_S = 60.0  # ...checked this often (only with a store to keep it in)
FRESH_RENDER_S = 0.1
IDLE_WAIT_S = 0.25
MAX_FLUSHES = 3  # a final delivery renders again at most this often for threads started again


@dataclass
class FollowCounts:
    lines: int = 0
    records: int = 0
    unparsed: int = 0
    long_lines: int = 0


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class FollowerOptions:
    """How a follower runs; the defaults: quiet, nothing kept, the real clocks.

    ``session_settings``: how sessions are shown (verbosity, when one is idle); ``family``: the
    format every source is read as (``--format``; none: detected); ``since``: a session last
    active before then is read, not posted (``--since``); ``redactor``: secrets out of every
    record (default: the rule table alone). ``log`` takes its events; ``checkpoints`` keeps its
    state (and retired sessions) in the store; ``progress`` shows a bar, ``heartbeat`` tells the
    health endpoint, ``replay`` applies records at their log's pace (``--replay-speed``).
    Changed sessions are rendered at most every ``render_every_s`` seconds of ``clock``;
    sessions are shown at ``wall_clock``'s time."""

    session_settings: SessionSettings | None = None
    family: str | None = None
    since: datetime | None = None
    redactor: Redactor | None = None
    log: EventLog | None = None
    checkpoints: Checkpoints | None = None
    progress: ProgressBar | None = None
    heartbeat: Heartbeat | None = None
    replay: Replay | None = None
    render_every_s: float = RENDER_EVERY_S
    clock: Callable[[], float] = time.monotonic
    wall_clock: Callable[[], datetime] = _utc_now


class Follower:
    """Follows ``sources`` (and the files of ``folder`` as they appear) into ``delivery``, as
    ``options`` say; ``core``: the state a checkpoint restored (none: a first start)."""

    def __init__(
        self,
        sources: Sequence[Source],
        delivery: Delivery,
        options: FollowerOptions | None = None,
        *,
        core: CoreState | None = None,
        folder: FolderWatch | None = None,
    ) -> None:
        options = options or FollowerOptions()
        checkpoints = self.checkpoints = options.checkpoints
        self.sources: list[Source] = []
        self.delivery = delivery
        self.family = options.family
        self.core = core or CoreState(SessionBook(options.session_settings))
        self.book = self.core.book
        self.readers = self.core.readers
        self.folder = folder  # new files in it become sources as they appear
        self.heartbeat = options.heartbeat
        self._folder_scanned = False
        self.redactor = options.redactor or Redactor()  # secrets out before previews are cut
        self.clock, self.wall_clock = options.clock, options.wall_clock
        self.log = options.log or EventLog(None)
        self.render_every_s = options.render_every_s
        self.progress = options.progress
        self.replay = options.replay  # --replay-speed: records applied at their log's pace
        self.since = options.since  # --since: a session last active before then is not posted
        self._skipped_said = core is not None  # how many --since left out: said at a first start
        self._caught_up = False  # a turn found nothing more to read: what was there is read
        self.counts = FollowCounts()
        self._touched: set[str] = set(self.book.sessions)  # restored: compare with the channel
        self._families = self.core.families
        self._rendered_at = float("-inf")
        self._finished = self.core.ended
        self._unsaved = core is None
        self._archived = checkpoints.archived_ids() if checkpoints is not None else set()
        self._retired_at = self.clock()
        self.turned_at = self.clock()  # when the loop last turned (health: it is not stuck)
        self.stopped: str | None = None  # why delivery stopped (a revoked token...), if it did
        self.not_understood: list[str] = []  # a line for each source of which nothing was read
        self._said: set[str] = set()  # those sources (a rewritten document's new reader too)
        self._exits: dict[str, dict[str, None]] = {}  # a command's source -> the sessions it wrote
        kept = checkpoints is not None and checkpoints.store.path is not None  # a state file
        self.stopping = Stopping(self.clock, lambda: self.delivery.pending, self.log,
                                 keeps_state=kept)  # fmt: skip
        for source in sources:
            self.add_source(source)

    def add_source(self, source: Source) -> None:
        """Follow one more source (a file that appeared in a followed folder)."""
        self.sources.append(source)
        if source.name not in self.readers:
            self.readers[source.name] = SourceReader(
                source.name, family=self.family, repeatable=getattr(source, "repeatable", False)
            )
        if isinstance(source, DocumentFollower):  # its sessions are rebuilt when it is rewritten
            self.core.produced.setdefault(source.name, set())
        if callable(getattr(source, "ending", None)):  # its end becomes its sessions' record
            self._exits.setdefault(source.name, {})

    # --- one turn -------------------------------------------------------------------------

    def read(self) -> int:
        """Feed what every source has now; the number of items read."""
        now = self.wall_clock()
        read = 0
        if self.folder is not None:
            found = self.folder.new_files()
            for new_file in found:
                self.add_source(new_file)
            if found:  # one line per scan, however many files it found
                names = tuple(new_file.name for new_file in found[:5])
                self.log.event(events.FilesFound(len(found), names))
            for event in self.folder.take_events():  # a folder it may not read, for a while
                self._tell(event)
            self._folder_scanned = True
        for source in self.sources:
            reader = self.readers[source.name]
            items = source.read_available()
            read += len(items)
            self._unsaved = self._unsaved or bool(items)
            for item in items:
                if isinstance(item, Rewritten):
                    reader = self._rebuild(source.name, item)
                    continue
                self._take(reader, self._records(reader, item), now)
            if source.closed and source.name not in self._finished:
                self._finished.add(source.name)
                self._unsaved = True
                self._take(reader, reader.finish() + self._exit_records(source, reader), now)
            if items or source.closed:
                self._say_if_not_understood(reader)
        if self.replay is not None:
            for reader, records in self.replay.due():
                self._apply(reader, records, now)
        if read == 0 and (self.folder is None or self._folder_scanned):
            self._caught_up = True
        return read

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

    def _take(self, reader: SourceReader, records: list[Record], now: datetime) -> None:
        """Apply what was read, or (replaying) hold it until its time comes."""
        if self.replay is None:
            self._apply(reader, records, now)
        else:
            self.replay.hold(reader, records)

    def _say_if_not_understood(self, reader: SourceReader) -> None:
        """A source of which nothing can be read is said once, on stderr and in the log."""
        said = reader.not_understood()
        if said is None or reader.source in self._said:
            return
        self._said.add(reader.source)
        self.not_understood.append(said)
        self.log.event(events.NotUnderstood(reader.source, reader.first_line))
        print(f"slacktail: {said}", file=sys.stderr)

    @property
    def nothing_read(self) -> bool:
        """Not one record could be read, and no session was restored: the input is empty or
        not a log slacktail reads."""
        counts = self.counts
        return counts.records == counts.unparsed and not self.book.sessions and not self._archived

    def _tell(self, said: SourceEvent) -> None:
        """What reading goes on through, said once: in the log and, for a person, on stderr."""
        self.log.event(said.event)
        if said.text is not None:
            print(f"slacktail: {said.text}", file=sys.stderr)

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

    def _rebuild(self, name: str, item: Rewritten) -> SourceReader:
        """The document ``name`` was rewritten: the sessions read from it are dropped, with its
        reader, to be built again from its new content. Their messages are then updated in
        place (same keys), not posted again."""
        dropped = self.core.produced.get(name, set())
        for session_id in dropped:
            self.book.drop(session_id)
            if session_id in self._archived:  # its archived state is not to come back
                self._archived.discard(session_id)
                if self.checkpoints is not None:
                    self.checkpoints.drop_archived(session_id)
        self.core.produced[name] = set()
        if self.replay is not None:
            self.replay.forget(name)
        self._finished.discard(name)
        self._unsaved = True
        reader = self.readers[name] = SourceReader(name, family=self.family)
        self.log.event(events.Rewritten(name, item.size, len(dropped)))
        return reader

    def _apply(self, reader: SourceReader, records: list[Record], now: datetime) -> None:
        produced = self.core.produced.get(reader.source)  # only a document's are kept
        exits = self._exits.get(reader.source)  # and a command's
        for record in records:
            self.counts.records += 1
            if record.session_id in self._archived:
                self._unarchive(record.session_id)
            session = self.book.apply(redact_record(record, self.redactor), now)
            if session is None:
                self.counts.unparsed += type(record) is Unparsed
                continue
            if session.session_id not in self._families:
                self._families[session.session_id] = reader.family or ""
                agent = session.info.agent or None
                self.log.event(events.SessionStarted(session.session_id, agent, reader.source))
            self._touched.add(session.session_id)
            if produced is not None:
                produced.add(session.session_id)
            if exits is not None:
                exits[session.session_id] = None

    def render(self, *, force: bool = False) -> None:
        """Hand the sessions that changed to delivery (at most every ``render_every_s``)."""
        moment = self.clock()
        if not force and moment - self._rendered_at < self.render_every_s:
            return
        self._rendered_at = moment
        now = self._now()
        for session in self.book.tick(now, fresh=self._touched):  # those still being read
            self._touched.add(session.session_id)
        for session_id in self.delivery.take_lost_threads():  # their roots were deleted
            if session_id in self.book.sessions:
                self._touched.add(session_id)
        touched = self._touched  # in the order the sessions appeared: their roots go in that order
        for session_id in [sid for sid in self.book.sessions if sid in touched]:
            session = self.book.sessions[session_id]
            if self._before_since(session):
                continue  # history: read, so that its state is right, but not posted
            reaction = SESSION_REACTION[session.status]
            self.delivery.want(session_id, thread_messages(session, now), reaction)
        self._touched.clear()
        self._say_skipped()

    def _before_since(self, session: Session) -> bool:
        """Whether the session's last record (by its log's own time) is older than --since."""
        since = self.since
        return since is not None and session.last_at is not None and session.last_at < since

    def _say_skipped(self) -> None:
        """At a first start, once what there is was read: how many sessions --since leaves out."""
        if self._skipped_said or not (self._caught_up or self.input_ended):
            return
        self._skipped_said = True
        skipped = sum(1 for s in self.book.sessions.values() if self._before_since(s))
        if skipped:
            since = self.since.isoformat(timespec="minutes") if self.since is not None else ""
            self.log.event(events.SessionsSkipped(skipped, since))
            print(f"slacktail: {skipped} session(s) last active before {since} were read but "
                  "not posted (--since)", file=sys.stderr)  # fmt: skip

    def _now(self) -> datetime:
        """The time sessions are shown at: the wall clock's, or while a log is replayed, the
        time in the log the replay has reached (a replayed session runs in the log's time)."""
        replayed = self.replay.log_now() if self.replay is not None else None
        return replayed if replayed is not None else self.wall_clock()

    def deliver(self) -> float | None:
        """Send what may go now; the seconds until delivery's next slot (None: nothing waits)."""
        while True:
            wait = self.delivery.step()
            if wait is None or wait > 0:
                return wait

    def _update_may_go(self) -> bool:
        """A render now would be sent at once: the update budget has room, and something
        changed since a render a little while ago."""
        if not self._touched or self.clock() - self._rendered_at < FRESH_RENDER_S:
            return False
        return self.delivery.update_may_go()

    @property
    def input_ended(self) -> bool:
        """Every source ended (a followed folder: only with ``--once``, once it was read)."""
        if self.folder is not None and not (self.folder.stop_at_end and self._folder_scanned):
            return False
        if self.replay is not None and self.replay.holding:
            return False
        return all(source.closed for source in self.sources)

    # --- the loop -------------------------------------------------------------------------

    def run(self, stop: threading.Event | None = None, drain_s: float = DRAIN_S) -> None:
        """Follow until every source ended (or ``stop`` is set), then deliver the final state
        (for at most ``drain_s`` seconds after a stop). A stop is slacktail stopping, not the
        agent: its sessions are left running, to be resumed by the next start. A second stop
        (``Stopped``, raised by the signal handler) ends at once, the state saved."""
        stop = self.stopping.stop = stop or threading.Event()
        self.stopping.drain_s = drain_s
        try:
            while not stop.is_set():
                self.turned_at = self.clock()
                self._beat()
                self.read()
                if self.input_ended:
                    break
                self.render(force=self._update_may_go())
                wait = self.deliver()
                self.retire()
                self.save_checkpoint()
                self._wait(min(w for w in (IDLE_WAIT_S, wait, self._replay_in()) if w is not None))
        except SlackError as error:  # e.g. the token was revoked: what was read is kept
            self.stopped = str(error)
            self._beat()
            self.log.event(events.DeliveryStopped(str(error)))
            self.save_checkpoint(force=True)
            raise
        except Stopped:
            self.save_checkpoint(force=True)
            raise
        self.finish(end_sessions=not stop.is_set())  # a stop gives delivery ``drain_s``

    def finish(self, deadline_s: float | None = None, *, end_sessions: bool = True) -> None:
        """Deliver the final state; at the end of the input (``end_sessions``) every session
        is settled first (calls still running are interrupted)."""
        self.read()
        if self.replay is not None:  # what is still held goes at once
            now = self.wall_clock()
            for reader, records in self.replay.release_all():
                self._apply(reader, records, now)
        if end_sessions:
            self.book.close(expected_results(self._families))
            self._touched.update(self.book.sessions)
            self._unsaved = True
        done = False
        try:
            done = self._flush(deadline_s)
        finally:
            self.save_checkpoint(force=True)
            self.stopping.ended(done)
        sent = self.delivery.counts
        outcome = events.Delivered if done else events.DeliveryIncomplete
        self.log.event(outcome(len(self.book.sessions), self.counts.records,
                               self.counts.unparsed, sent.posts, sent.updates, sent.rate_limited,
                               sent.retries, self.delivery.pending))  # fmt: skip

    def _flush(self, deadline_s: float | None) -> bool:
        """Render and send everything; a thread started again meanwhile (its root was
        deleted) is rendered whole and sent too."""
        done = False
        for _ in range(MAX_FLUSHES):
            self.render(force=True)
            done = self.delivery.flush(deadline_s, stop=self.stopping.give_up)
            if not self.delivery.lost_threads:
                break
        return done

    def _beat(self) -> None:
        """Tell the health endpoint how things stand (a frozen snapshot: no lock needed)."""
        if self.heartbeat is not None:
            self.heartbeat.beat(report_of(self, self.turned_at, lag_s=self.delivery.lag_s(),
                                          stopped=self.stopped))  # fmt: skip

    # --- memory ---------------------------------------------------------------------------

    def retire(self) -> None:
        """Move finished sessions, delivered and idle for ``RETIRE_AFTER_S``, from memory to
        the store; a late record of one brings it back."""
        checkpoints = self.checkpoints
        if checkpoints is None or self.clock() - self._retired_at < RETIRE_EVERY_S:
            return
        self._retired_at = self.clock()
        now = self.wall_clock()
        for session_id, session in list(self.book.sessions.items()):
            if session.status is SessionStatus.RUNNING or session_id in self._touched:
                continue
            seen = session.last_seen
            if seen is None or (now - seen).total_seconds() < RETIRE_AFTER_S:
                continue
            if self.delivery.waiting_for(session_id):
                continue
            checkpoints.archive(session)
            self.book.release(session_id)
            self._archived.add(session_id)
            self._unsaved = True
            self.log.event(events.SessionRetired(session_id))

    def _unarchive(self, session_id: str) -> None:
        self._archived.discard(session_id)
        assert self.checkpoints is not None
        session = self.checkpoints.unarchive(session_id)
        if session is not None:
            self.book.restore(session)

    def save_checkpoint(self, *, force: bool = False) -> None:
        """Commit the sources' positions with the core state they produced (when due)."""
        checkpoints = self.checkpoints
        if checkpoints is None or not self._unsaved or not (force or checkpoints.due()):
            return
        if self.replay is not None and self.replay.holding:
            return  # the positions are past records not applied yet
        positions = {
            source.name: position.to_dict()
            for source in self.sources
            if (position := _position_of(source)) is not None
        }
        checkpoints.save(self.core, positions)
        self._unsaved = False

    def _replay_in(self) -> float | None:
        return None if self.replay is None else self.replay.next_in()

    def _wait(self, timeout: float) -> None:
        if timeout <= 0:
            return
        if self.replay is not None and self.folder is None and all(s.closed for s in self.sources):
            self.replay.sleep(timeout)  # only held records are left: nothing else wakes us
            return
        if self.folder is not None:
            self.folder.wait_ready(timeout)  # woken by a change in the folder
            return
        for source in self.sources:
            if source.ready():
                return
        if self.sources:
            self.sources[0].wait_ready(timeout)  # a turn later, every source is read again


class _Position(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


class _Ending(Protocol):
    """How a source's agent ended (see ``AgentCommand.ending``)."""

    @property
    def code(self) -> int | None: ...

    @property
    def signal(self) -> str | None: ...


def _position_of(source: Source) -> _Position | None:
    """Where a resumable source (a file, a spool) stands; None for one that is not."""
    position: Callable[[], _Position] | None = getattr(source, "position", None)
    return position() if callable(position) else None
