"""The session stage: records in, per-session state out. Pure and deterministic."""

from __future__ import annotations

from datetime import datetime

from bot.records import Record, Unparsed
from bot.session.significance import Significance, Verbosity, classify
from bot.session.state import Session, SessionSettings, SessionStatus
from bot.session.tool_calls import ToolCallState, ToolStatus

__all__ = [
    "Session",
    "SessionBook",
    "SessionSettings",
    "SessionStatus",
    "Significance",
    "ToolCallState",
    "ToolStatus",
    "Verbosity",
    "classify",
]


class SessionBook:
    """Every session of a stream, by id, in the order they first appeared."""

    def __init__(self, settings: SessionSettings | None = None) -> None:
        self.settings = settings or SessionSettings()
        self.sessions: dict[str, Session] = {}
        self.records = 0
        self.unparsed = 0
        self.hidden = 0
        self._last: Session | None = None  # consecutive records mostly share a session

    def apply(self, record: Record, now: datetime | None = None) -> Session | None:
        """Route one record to its session; returns that session (None for unparsed lines)."""
        self.records += 1
        session_id = record.session_id
        if not session_id:  # an unparsed line, or a line before any session began
            if type(record) is Unparsed:
                self.unparsed += 1
            else:
                self.hidden += 1
            return None
        session = self._last
        if session is None or session.session_id != session_id:
            session = self.sessions.get(session_id)
            if session is None:
                session = self.sessions[session_id] = Session(session_id, self.settings)
            self._last = session
        if session.apply(record, now) is Significance.HIDDEN:
            self.hidden += 1
        return session

    def tick(self, now: datetime) -> list[Session]:
        """Sessions whose state changed because time passed (orphaned calls)."""
        return [session for session in self.sessions.values() if session.tick(now)]

    def close(self, expects_result: dict[str, bool] | None = None) -> None:
        """End of input; ``expects_result`` says, per session id, whether its format reports a
        session's end (default: it does)."""
        flags = expects_result or {}
        for session_id, session in self.sessions.items():
            session.close(flags.get(session_id, True))
