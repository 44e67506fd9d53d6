"""What a session is doing now, as the one line shown under its thread
(``assistant.threads.setStatus``), and its state as a Slack agent session
(``agents.sessions.setStatus``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from blocks.text import one_line
from bot.caps import STATUS_LIMIT
from bot.session import Session, SessionStatus
from bot.session.tool_calls import shown_name

THINKING: Final = "thinking…"
# A session's status -> its agent session's: the Stop button shows while it is processing.
_AGENT_STATES: Final = {
    SessionStatus.RUNNING: "processing",
    SessionStatus.IDLE: "processing",  # quiet in the middle of a turn: the agent still runs
    SessionStatus.WAITING: "active",  # its turn ended: it waits for the person
}


@dataclass(frozen=True, slots=True)
class SessionSurface:
    """What the surfaces beside a thread (the line under it, its agent session, the App Home)
    show of a session, made from it when the follower renders it: delivery reads this, never
    the session itself."""

    session_id: str
    status: SessionStatus
    doing: str  # the line under its thread ("": none)
    agent_state: str  # processing | active | closed
    title: str | None  # its title, else its first prompt
    agent: str
    calls: int  # tool calls so far
    last: datetime | None  # its newest record's time

    @property
    def activity(self) -> float:
        """A sort key: the time of the newest record (0: none yet)."""
        return 0.0 if self.last is None else self.last.timestamp()


def surface_of(session: Session) -> SessionSurface:
    info = session.info
    return SessionSurface(
        session.session_id, session.status, doing_now(session), agent_state(session),
        info.title or info.prompt or None, info.agent, len(session.calls),
        session.last_at or session.last_seen,
    )  # fmt: skip


def doing_now(session: Session) -> str:
    """The line under a running session's thread: its newest open call ("running Bash: pytest
    -q"), else "thinking…"; nothing ("") once it waits, is idle or ended, or its input ended."""
    if session.status is not SessionStatus.RUNNING or session.closed:
        return ""
    call = session.newest_open_call()
    if call is None:
        return THINKING
    name = shown_name(call.name)
    doing = f"running {name}: {call.summary}" if call.summary else f"running {name}"
    return one_line(doing, STATUS_LIMIT)


def agent_state(session: Session) -> str:
    """The session's agent-session status: processing, active (waiting for the person) or
    closed (ended)."""
    if session.closed and session.status is not SessionStatus.WAITING:
        return "closed"
    return _AGENT_STATES.get(session.status, "closed")
