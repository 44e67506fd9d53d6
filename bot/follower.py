"""The main loop of ``follow`` and ``run``: sources → formats → sessions → messages → Slack.

Each turn reads what the sources have (never blocking on one), feeds the records to their
sessions, re-renders only the sessions that changed (at most every ``render_every_s``, or
sooner, every ``FRESH_RENDER_S``, when the shared update budget has room: an update that goes
at once should carry what was just read, not what was read half a second ago), and lets
delivery send what its budgets allow; then it waits for more input or for delivery's next
slot, whichever comes first.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from blocks.figures import SESSION_REACTION
from blocks.thread import thread_messages
from bot.delivery import Delivery
from bot.formats.reader import SourceReader
from bot.logs import EventLog
from bot.preview import REPORTS_RESULT
from bot.progress import ProgressBar
from bot.records import Record, Unparsed
from bot.session import SessionBook, SessionSettings
from bot.sources.lines import Line, LongLine
from bot.sources.source import Source, Truncated

RENDER_EVERY_S = 0.5
FRESH_RENDER_S = 0.1
IDLE_WAIT_S = 0.25


@dataclass
class FollowCounts:
    lines: int = 0
    records: int = 0
    unparsed: int = 0
    long_lines: int = 0


class Follower:
    def __init__(
        self,
        sources: Sequence[Source],
        delivery: Delivery,
        *,
        settings: SessionSettings | None = None,
        family: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        log: EventLog | None = None,
        render_every_s: float = RENDER_EVERY_S,
        progress: ProgressBar | None = None,
    ) -> None:
        self.sources = list(sources)
        self.delivery = delivery
        self.book = SessionBook(settings)
        self.readers = {source.name: SourceReader(source.name, family=family) for source in sources}
        self.clock, self.wall_clock = clock, wall_clock
        self.log = log or EventLog(None)
        self.render_every_s = render_every_s
        self.progress = progress
        self.counts = FollowCounts()
        self._touched: set[str] = set()
        self._families: dict[str, str] = {}
        self._rendered_at = float("-inf")
        self._finished: set[str] = set()

    # --- one turn -------------------------------------------------------------------------

    def read(self) -> int:
        """Feed what every source has now; the number of items read."""
        now = self.wall_clock()
        read = 0
        for source in self.sources:
            reader = self.readers[source.name]
            items = source.read_available()
            read += len(items)
            for item in items:
                self._apply(reader, self._records(reader, item), now)
            if source.closed and source.name not in self._finished:
                self._finished.add(source.name)
                self._apply(reader, reader.finish(), now)
        return read

    def _records(self, reader: SourceReader, item: Line | LongLine | Truncated) -> list[Record]:
        if isinstance(item, Line):
            self.counts.lines += 1
            if self.progress is not None:
                self.progress.update(item.offset)
            return reader.feed(item.data, item.number)
        if isinstance(item, LongLine):
            self.counts.long_lines += 1
            self.log.event("long_line", source=reader.source, line=item.number, bytes=item.size)
            reason = f"line of {item.size:,} bytes, over the limit"
            return [Unparsed("", None, item.number, reason=reason)]
        self.log.event("truncated", source=reader.source, at=item.offset, size=item.size)
        return []

    def _apply(self, reader: SourceReader, records: list[Record], now: datetime) -> None:
        for record in records:
            self.counts.records += 1
            session = self.book.apply(record, now)
            if session is None:
                self.counts.unparsed += type(record) is Unparsed
                continue
            if session.session_id not in self._families:
                self._families[session.session_id] = reader.family or ""
                self.log.event("session_started", session=session.session_id,
                               agent=session.info.agent or None, source=reader.source)  # fmt: skip
            self._touched.add(session.session_id)

    def render(self, *, force: bool = False) -> None:
        """Hand the sessions that changed to delivery (at most every ``render_every_s``)."""
        moment = self.clock()
        if not force and moment - self._rendered_at < self.render_every_s:
            return
        self._rendered_at = moment
        now = self.wall_clock()
        for session in self.book.tick(now):
            self._touched.add(session.session_id)
        for session_id in sorted(self._touched):
            session = self.book.sessions[session_id]
            reaction = SESSION_REACTION[session.status]
            self.delivery.want(session_id, thread_messages(session, now), reaction)
        self._touched.clear()

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
        return all(source.closed for source in self.sources)

    # --- the loop -------------------------------------------------------------------------

    def run(self, stop: threading.Event | None = None, drain_s: float = 30.0) -> None:
        """Follow until every source ended (or ``stop`` is set), then deliver the final state
        (for at most ``drain_s`` seconds after a stop)."""
        stop = stop or threading.Event()
        while not stop.is_set():
            self.read()
            if self.input_ended:
                break
            self.render(force=self._update_may_go())
            wait = self.deliver()
            self._wait(IDLE_WAIT_S if wait is None else min(wait, IDLE_WAIT_S))
        self.finish(drain_s if stop.is_set() else None)

    def finish(self, deadline_s: float | None = None) -> None:
        """End of input: settle every session and deliver its final state."""
        self.read()
        if self.progress is not None:
            self.progress.close()
        self.book.close({sid: fam in REPORTS_RESULT for sid, fam in self._families.items()})
        self._touched.update(self.book.sessions)
        self.render(force=True)
        done = self.delivery.flush(deadline_s)
        counts = self.delivery.counts
        outcome = "delivered" if done else "delivery_incomplete"
        self.log.event(outcome, sessions=len(self.book.sessions),
                       records=self.counts.records, unparsed=self.counts.unparsed,
                       posts=counts.posts, updates=counts.updates, rate_limited=counts.rate_limited,
                       retries=counts.retries, waiting=self.delivery.pending)  # fmt: skip

    def _wait(self, timeout: float) -> None:
        if timeout <= 0:
            return
        for source in self.sources:
            if source.ready():
                return
        if self.sources:
            self.sources[0].wait_ready(timeout)  # a turn later, every source is read again
