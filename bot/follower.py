"""The main loop of ``follow`` and ``run``: sources → formats → sessions → messages → Slack.

Each turn reads what the sources have (never blocking on one; ``bot.reading``), feeds the
records to their sessions, re-renders only the sessions that changed (at most every
``render_every_s``, or sooner, every ``FRESH_RENDER_S``, when the shared update budget has room:
an update that goes at once should carry what was just read, not what was read half a second
ago), and lets delivery send what its budgets allow; finished sessions idle for a while leave
memory for the store (``bot.retiring``); then it waits for more input or for delivery's next
slot, whichever comes first.

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
from blocks.status import surface_of
from blocks.thread import changed_messages
from bot import events
from bot.app.approval_threads import ApprovalThreads
from bot.checkpoints import Checkpoints, CoreState
from bot.delivery import Delivery
from bot.delivery.status import Surface
from bot.errors import SlackError, Stopped
from bot.formats.reader import SourceReader
from bot.health import Heartbeat
from bot.logs import EventLog
from bot.metrics import report_of
from bot.preview import expected_results
from bot.progress import ProgressBar
from bot.reading import FollowCounts, Reading
from bot.redaction import Redactor
from bot.replay import Replay
from bot.retiring import Retired
from bot.session import Session, SessionBook, SessionSettings
from bot.sources.folder import FolderWatch
from bot.sources.source import Source
from bot.stopping import DRAIN_S, Stopping

RENDER_EVERY_S = 0.5
FRESH_RENDER_S = 0.1
IDLE_WAIT_S = 0.25
MAX_FLUSHES = 3  # a final delivery renders again at most this often for threads started again


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
    approvals: ApprovalThreads | None = None  # permission requests shown in their threads
    surfaces: tuple[Surface, ...] = ()  # the status under threads, agent sessions, App Home
    plan_blocks: bool = False  # the todo list as a plan of task cards
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
        self.delivery = delivery
        self.core = core or CoreState(SessionBook(options.session_settings))
        self.book = self.core.book
        if options.session_settings is not None:  # a restored core: this run's settings
            self.book.use_settings(options.session_settings)
        self.folder = folder  # new files in it become sources as they appear
        self.heartbeat = options.heartbeat
        self.clock, self.wall_clock = options.clock, options.wall_clock
        self.log = options.log or EventLog(None)
        self.render_every_s = options.render_every_s
        self.approvals = options.approvals
        self.replay = options.replay  # --replay-speed: records applied at their log's pace
        self.surfaces, self.plan_blocks = options.surfaces, options.plan_blocks
        self.since = options.since  # --since: a session last active before then is not posted
        self.retired = Retired(checkpoints, self.log, self.clock, self.wall_clock)
        self.reading = Reading(
            self.core, self.retired, log=self.log, family=options.family, folder=folder,
            redactor=options.redactor or Redactor(),  # secrets out before previews are cut
            replay=self.replay, progress=options.progress,
        )  # fmt: skip
        self._touched = self.reading.touched  # sessions changed since they were last rendered
        for session in self.book.sessions.values():  # restored: what Slack shows is not known
            session.change_all()
        self._skipped_said = core is not None  # how many --since left out: said at a first start
        self._rendered_at = float("-inf")
        self._unsaved = core is None
        self.turned_at = self.clock()  # when the loop last turned (health: it is not stuck)
        self.stopped: str | None = None  # why delivery stopped (a revoked token...), if it did
        kept = checkpoints is not None and checkpoints.store.path is not None  # a state file
        self.stopping = Stopping(self.clock, lambda: self.delivery.pending, self.log,
                                 keeps_state=kept)  # fmt: skip
        for source in sources:
            self.add_source(source)

    def add_source(self, source: Source) -> None:
        """Follow one more source (a file that appeared in a followed folder)."""
        self.reading.add_source(source)

    @property
    def sources(self) -> list[Source]:
        return self.reading.sources

    @property
    def readers(self) -> dict[str, SourceReader]:
        return self.core.readers

    @property
    def counts(self) -> FollowCounts:
        return self.reading.counts

    @property
    def not_understood(self) -> list[str]:
        """A line for each source of which nothing could be read."""
        return self.reading.not_understood

    @property
    def nothing_read(self) -> bool:
        """Not one record could be read, and no session was restored: the input is empty or
        not a log slacktail reads."""
        return self.reading.nothing_read

    @property
    def input_ended(self) -> bool:
        """Every source ended (a followed folder: only with ``--once``, once it was read)."""
        return self.reading.input_ended

    # --- one turn -------------------------------------------------------------------------

    def read(self) -> int:
        """Feed what every source has now; the number of items read."""
        read = self.reading.read(self.wall_clock())
        self._unsaved = self._unsaved or self.reading.changed
        self.reading.changed = False
        return read

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
                self.book.sessions[session_id].change_all()
                self._touched.add(session_id)
        for session_id in self.delivery.take_forgotten():  # a message of theirs was deleted
            if session_id in self.book.sessions:
                self.book.sessions[session_id].change_all()
        touched = self._touched  # in the order the sessions appeared: their roots go in that order
        for session_id in [sid for sid in self.book.sessions if sid in touched]:
            session = self.book.sessions[session_id]
            if self._before_since(session):
                continue  # history: read, so that its state is right, but not posted
            reaction = SESSION_REACTION[session.status]
            messages = changed_messages(session, session.take_changes(), now, self.plan_blocks)
            self.delivery.want(session_id, messages, reaction)
            if self.surfaces:
                shown = surface_of(session)  # what the line under it and the Home show
                for surface in self.surfaces:
                    surface.saw(shown)
        self._touched.clear()
        self._say_skipped()

    def _before_since(self, session: Session) -> bool:
        """Whether the session's last record (by its log's own time) is older than --since."""
        since = self.since
        return since is not None and session.last_at is not None and session.last_at < since

    def _say_skipped(self) -> None:
        """At a first start, once what there is was read: how many sessions --since leaves out."""
        if self._skipped_said or not (self.reading.caught_up or self.input_ended):
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
                if self.approvals is not None:
                    self.approvals.turn(self.book, self.delivery)
                wait = self.deliver()
                for surface in self.surfaces:
                    surface.step()
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
            for reader, records, at in self.replay.release_all():
                self.reading.apply(reader, records, now, at)
        if end_sessions:
            self.book.close(expected_results(self.core.families))
            self._touched.update(self.book.sessions)
            self._unsaved = True
        done = False
        try:
            done = self._flush(deadline_s)
            for surface in self.surfaces:
                surface.finish()
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
        """Move finished sessions, delivered and idle for a while, from memory to the store
        (``bot.retiring``); a late record of one brings it back."""
        if self.retired.retire(self.book, self.delivery, self._touched):
            self._unsaved = True

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


def _position_of(source: Source) -> _Position | None:
    """Where a resumable source (a file, a spool) stands; None for one that is not."""
    position: Callable[[], _Position] | None = getattr(source, "position", None)
    return position() if callable(position) else None
