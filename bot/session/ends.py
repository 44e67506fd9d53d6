"""How a session's turns and runs end, as its records tell: what moves a session that waits for
the user on again, and what the agent's exit means for it (see ``Session``).

A session runs while its log moves. It waits for the user once a ``TurnEnded`` says the agent
answered, and runs again when the agent is at work again (the user's next words, the agent's
text or tools); it is idle when its log has said nothing for ``idle_after_s`` in the middle of
a turn (or with no sign that its turn ended), and runs again with the log's next record. Its
end is its result, or the agent's exit (``AgentExited``) when the agent wrote no result.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from bot.records import (
    AssistantText,
    Delegation,
    Origin,
    Record,
    Thinking,
    TodoUpdate,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import AgentExited, ResultStatus

# The signals someone sends to stop a program (Ctrl-C is SIGINT): an agent ended by one was
# stopped. Any other signal that ended it (SIGSEGV, SIGABRT...) is a crash: it failed.
STOP_SIGNALS: Final = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGKILL")
# The records of an agent at work (see ``moves_on``).
_WORK: Final = (UserText, AssistantText, Thinking, ToolCall, ToolResult, TodoUpdate, Delegation)


def moves_on(record: Record) -> bool:
    """Whether ``record`` says the agent is at work again: the user's words, the agent's text,
    thinking, tool calls and their results; not a notice, a hook or a local command run
    between turns (those come while the session waits)."""
    return isinstance(record, _WORK)


def exit_status(ended: AgentExited) -> ResultStatus:
    """The outcome an agent's exit gives a session that reported none: stopped by a stop
    signal, failed on another signal or a non-zero code, succeeded on code 0."""
    if ended.signal is not None:
        return ResultStatus.STOPPED if ended.signal in STOP_SIGNALS else ResultStatus.FAILED
    return ResultStatus.SUCCEEDED if ended.code == 0 else ResultStatus.FAILED


def exit_records(
    sessions: Iterable[str], code: int | None, signal: str | None, line: int
) -> list[Record]:
    """The agent's exit as a record of each session it wrote (its output's ``line`` after
    the last): exit ``code`` and ``signal`` as the agent's command tells them."""
    return [AgentExited(Origin(session_id, None, line), code=code, signal=signal)
            for session_id in sessions]  # fmt: skip
