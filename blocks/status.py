"""What a session is doing now, as the one line shown under its thread
(``assistant.threads.setStatus``), and its state as a Slack agent session
(``agents.sessions.setStatus``)."""

from __future__ import annotations

from typing import Final

from blocks.text import one_line
from bot.session import Session, SessionStatus

STATUS_LIMIT: Final = 120  # characters of the line under a thread
THINKING: Final = "thinking…"
# A session's status -> its agent session's: the Stop button shows while it is processing.
_AGENT_STATES: Final = {
    SessionStatus.RUNNING: "processing",
    SessionStatus.IDLE: "processing",  # quiet in the middle of a turn: the agent still runs
    SessionStatus.WAITING: "active",  # its turn ended: it waits for the person
}


def doing_now(session: Session) -> str:
    """The line under a running session's thread: its newest open call ("running Bash: pytest
    -q"), else "thinking…"; nothing ("") once it waits, is idle or ended, or its input ended."""
    if session.status is not SessionStatus.RUNNING or session.closed:
        return ""
    call = session.newest_open_call()
    if call is None:
        return THINKING
    doing = f"running {call.name}: {call.summary}" if call.summary else f"running {call.name}"
    return one_line(doing, STATUS_LIMIT)


def agent_state(session: Session) -> str:
    """The session's agent-session status: processing, active (waiting for the person) or
    closed (ended)."""
    if session.closed and session.status is not SessionStatus.WAITING:
        return "closed"
    return _AGENT_STATES.get(session.status, "closed")
