"""Every session of a stream, by id: routes records to their sessions, and forgets the sessions
a caller is done with so that a long stream of many sessions keeps its memory bounded."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection
from datetime import datetime

from mypy_extensions import mypyc_attr

from bot.records import Origin, Record, Unparsed
from bot.session.settings import SessionSettings
from bot.session.significance import Significance
from bot.session.state import Session

TOMBSTONES = 100_000  # released session ids remembered; the oldest is forgotten past this
REMEMBERED_LINES = 50_000  # ids of applied lines remembered, to apply a line seen again once


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class SessionBook:
    """Every open session of a stream, by id, in the order they first appeared."""

    def __init__(self, settings: SessionSettings | None = None) -> None:
        self.settings = settings or SessionSettings()
        self.sessions: dict[str, Session] = {}
        self.records = 0
        self.unparsed = 0
        self.hidden = 0
        self.late = 0  # records of a session already released (counted, not applied)
        self._last: Session | None = None  # consecutive records mostly share a session
        # Open session ids, least recently active first, and tombstones of released sessions,
        # oldest first. OrderedDicts: their oldest entries are taken again and again, which a
        # plain dict makes slower the longer it runs (see ``bot.formats.common.remember``).
        self._recent: OrderedDict[str, None] = OrderedDict()
        self._released: OrderedDict[str, None] = OrderedDict()
        self.repeated = 0  # records of lines applied before (by their uid), not applied again
        self._uids: OrderedDict[str, None] = OrderedDict()  # ids of the lines applied lately
        self._origin: Origin | None = None  # the origin of the last record applied
        self._repeated = False  # whether that record's line was applied before

    def apply(self, record: Record, now: datetime | None = None) -> Session | None:
        """Route one record to its session; returns that session (None for unparsed lines and
        for late records of a released session)."""
        self.records += 1
        origin = record.origin
        if origin is not self._origin:  # the first record of a line
            self._origin = origin
            self._repeated = origin.uid is not None and self._seen_before(origin.uid)
        if self._repeated:
            self.repeated += 1
            return None
        session_id = record.session_id
        if not session_id:  # an unparsed line, or a line before any session began
            if type(record) is Unparsed:
                self.unparsed += 1
            else:
                self.hidden += 1
            return None
        session = self._last
        if session is None or session.session_id != session_id:
            session = self._switch(session_id)
            if session is None:
                self.late += 1
                return None
        if session.apply(record, now) is Significance.HIDDEN:
            self.hidden += 1
        return session

    def _seen_before(self, uid: str) -> bool:
        """Whether a line with this id was applied already (else it is remembered)."""
        seen = self._uids
        if uid in seen:
            return True
        seen[uid] = None
        if len(seen) > REMEMBERED_LINES:
            seen.popitem(last=False)
        return False

    def _switch(self, session_id: str) -> Session | None:
        """The session records now go to, made the most recently active (None: released)."""
        session = self.sessions.get(session_id)
        recent = self._recent
        if session is None:
            if session_id in self._released:
                return None
            session = self.sessions[session_id] = Session(session_id, self.settings)
            recent[session_id] = None
        else:
            recent.move_to_end(session_id)
        self._last = session
        return session

    def least_recent(self) -> Session | None:
        """The open session whose last record is the oldest (the first to release when the
        caller keeps a bounded number of sessions), or None when none is open."""
        session_id = next(iter(self._recent), None)
        return None if session_id is None else self.sessions[session_id]

    def release(self, session_id: str) -> None:
        """Forget a session the caller is done with (e.g. once its final messages are sent).
        A small tombstone stays: a late record of it is counted as ``late``, not applied to a
        new session of the same id."""
        session = self.sessions.pop(session_id, None)
        if session is None:
            return
        del self._recent[session_id]
        if self._last is session:
            self._last = None
        released = self._released
        released[session_id] = None
        if len(released) > TOMBSTONES:
            released.popitem(last=False)

    def drop(self, session_id: str) -> None:
        """Forget a session entirely, tombstone and all: records of it then build it anew (its
        source, a document rewritten in place, is being read again from its start)."""
        if self.sessions.pop(session_id, None) is self._last:
            self._last = None
        self._recent.pop(session_id, None)
        self._released.pop(session_id, None)

    def use_settings(self, settings: SessionSettings) -> None:
        """This run's settings, for the sessions a checkpoint restored too (a verbosity, the
        app's controls: what this run shows, not what the run that saved them showed)."""
        self.settings = settings
        for session in self.sessions.values():
            if session.settings != settings:
                session.use_settings(settings)

    def restore(self, session: Session) -> None:
        """Take back a released session (kept elsewhere meanwhile): its records apply again."""
        session_id = session.session_id
        if session.settings != self.settings:  # this run's, not those of the run that kept it
            session.use_settings(self.settings)
        session.change_all()  # what its thread shows is rendered again whole
        self._released.pop(session_id, None)
        self.sessions[session_id] = session
        self._recent.pop(session_id, None)
        self._recent[session_id] = None

    def tick(self, now: datetime, fresh: Collection[str] = ()) -> list[Session]:
        """Sessions whose state changed because time passed (idle sessions, orphaned calls).
        The ``fresh`` ones (records came for them just now: their log is still being read)
        are not made idle."""
        return [
            session
            for session in self.sessions.values()
            if session.tick(now, session.session_id not in fresh)
        ]

    def close(self, expects_result: dict[str, bool] | None = None) -> None:
        """End of input; ``expects_result`` says, per session id, whether its format reports a
        session's end (default: it does)."""
        flags = expects_result or {}
        for session_id, session in self.sessions.items():
            session.close(flags.get(session_id, True))
