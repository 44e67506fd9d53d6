"""Finished sessions out of memory: a follower that runs for weeks keeps only the sessions
that may still change.

A finished session, delivered and idle for ``RETIRE_AFTER_S``, is retired: kept in the store
(``Checkpoints.archive``) instead of in memory, looked for every ``RETIRE_EVERY_S``. A late
record of it brings it back (``bring_back``), its thread going on in place; a session of a
document rewritten in place is built again from the document, so its retired state is
forgotten (``forget``). Without a store (``checkpoints`` None) nothing is retired.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from bot import events
from bot.checkpoints import Checkpoints
from bot.delivery import Delivery
from bot.logs import EventLog
from bot.session import SessionBook, SessionStatus

RETIRE_AFTER_S = 600.0  # a finished, delivered session idle this long leaves memory...
RETIRE_EVERY_S = 60.0  # ...checked this often (only with a store to keep it in)


class Retired:
    """The sessions retired to the store by ``checkpoints`` (those of earlier runs too)."""

    def __init__(
        self,
        checkpoints: Checkpoints | None,
        log: EventLog,
        clock: Callable[[], float],
        wall_clock: Callable[[], datetime],
    ) -> None:
        self.checkpoints = checkpoints
        self.log = log
        self.clock, self.wall_clock = clock, wall_clock
        self.ids = checkpoints.archived_ids() if checkpoints is not None else set()
        self._looked_at = clock()

    def __contains__(self, session_id: str) -> bool:
        return session_id in self.ids

    def retire(self, book: SessionBook, delivery: Delivery, touched: set[str]) -> bool:
        """Retire the finished sessions delivered and idle for ``RETIRE_AFTER_S`` (none of
        ``touched``, those changed since they were last rendered), when it is time to look;
        whether one was."""
        checkpoints = self.checkpoints
        if checkpoints is None or self.clock() - self._looked_at < RETIRE_EVERY_S:
            return False
        self._looked_at = self.clock()
        now = self.wall_clock()
        retired = False
        for session_id, session in list(book.sessions.items()):
            if session.status is SessionStatus.RUNNING or session_id in touched:
                continue
            seen = session.last_seen
            if seen is None or (now - seen).total_seconds() < RETIRE_AFTER_S:
                continue
            if delivery.waiting_for(session_id):
                continue
            checkpoints.archive(session)
            book.release(session_id)
            self.ids.add(session_id)
            retired = True
            self.log.event(events.SessionRetired(session_id))
        return retired

    def bring_back(self, session_id: str, book: SessionBook) -> None:
        """A late record of a retired session: its state back in ``book``."""
        self.ids.discard(session_id)
        assert self.checkpoints is not None
        session = self.checkpoints.unarchive(session_id)
        if session is not None:
            book.restore(session)

    def forget(self, session_id: str) -> None:
        """The session is built again from its source: its retired state is not to come back."""
        if session_id in self.ids:
            self.ids.discard(session_id)
            if self.checkpoints is not None:
                self.checkpoints.drop_archived(session_id)
