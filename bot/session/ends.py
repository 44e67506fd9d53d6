"""How a session's turns and runs end, as its records tell: what moves a session that waits for
the user on again, and what the agent's exit means for it (see ``Session``).

A session runs while its log moves. It waits for the user once a ``TurnEnded`` says the agent
answered, and runs again when the agent is at work again (the user's next words, the agent's
text or tools); it is idle when its log has said nothing for ``idle_after_s`` in the middle of
a turn (or with no sign that its turn ended), and runs again with the log's next record. Its
end is its result, or the agent's exit (``AgentExited``) when the agent wrote no result: the
open calls are interrupted, and the result is the thread's next item.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from enum import StrEnum
from typing import TYPE_CHECKING, Final

from bot.caps import RESULT_TEXT_CAP
from bot.records import (
    AssistantText,
    Delegation,
    Notice,
    Origin,
    Record,
    Thinking,
    TodoUpdate,
    ToolCall,
    ToolResult,
    Usage,
    UserText,
)
from bot.result_records import AgentExited, ResultStatus, SessionResult, TurnEnded
from bot.session import saying
from bot.session.calling import interrupt_open_calls
from bot.session.thread import ResultItem

if TYPE_CHECKING:
    from bot.session.state import Session


class SessionStatus(StrEnum):
    RUNNING = "running"
    WAITING = "waiting"  # the agent ended its turn: it waits for the user
    IDLE = "idle"  # its log said nothing for ``idle_after_s`` in the middle of a turn
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    STOPPED = "stopped"  # stopped by someone (Ctrl-C): neither done nor failed
    UNKNOWN = "unknown"


# The signals someone sends to stop a program (Ctrl-C is SIGINT): an agent ended by one was
# stopped. Any other signal that ended it (SIGSEGV, SIGABRT...) is a crash: it failed.
STOP_SIGNALS: Final = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGKILL")
# The records of an agent at work (see ``moves_on``).
_WORK: Final = (UserText, AssistantText, Thinking, ToolCall, ToolResult, TodoUpdate, Delegation)
_RUNNING: Final = SessionStatus.RUNNING  # bound once: compiled, a look-up on the class each use
# What a session's status is once a result of each outcome came.
_ENDED_AS: Final = {
    ResultStatus.SUCCEEDED: SessionStatus.SUCCEEDED,
    ResultStatus.FAILED: SessionStatus.FAILED,
    ResultStatus.STOPPED: SessionStatus.STOPPED,
}
ENDED: Final = (SessionStatus.SUCCEEDED, SessionStatus.FAILED, SessionStatus.STOPPED)


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


def session_result(session: Session, record: SessionResult) -> None:
    if session.parent_of(record) in session.calls:
        return
    ended = session.status in ENDED  # and no new run began since
    if ended and session.result is not None and same_outcome(session.result, record):
        return  # the same result line again: said once
    repeats = bool(record.text) and saying.said_already(session, record.text or "")
    if record.text is not None and len(record.text) > RESULT_TEXT_CAP:
        # keep what the result message shows, not the whole answer
        record = dataclasses.replace(record, text=record.text[:RESULT_TEXT_CAP])
    end(session, record, repeats, None)


def end(session: Session, result: SessionResult, repeats: bool, exit: AgentExited | None) -> None:
    """The session ends with ``result``: calls still open are interrupted, and the result
    is the thread's next item."""
    session.result = result
    session.spent = spent(session.spent, result)
    shown = with_run_usage(result, session.run_spent)
    session.run_spent = None
    session.status = _ENDED_AS.get(result.status, SessionStatus.FAILED)
    interrupt_open_calls(session)
    session.last_said = None
    session.results += 1
    key = "result" if session.results == 1 else f"result:{session.results}"
    session.add_item(ResultItem(key, shown, repeats, exit))


def spent(before: SessionResult | None, result: SessionResult) -> SessionResult:
    """What a session spent over its results so far: each result's cost, tokens, duration and
    turns are its own run's or turn's (a format whose log gives running totals reports each
    result's difference from the one before), so they add up; a figure a result does not give
    adds nothing (a failed last turn keeps what the earlier ones spent)."""
    if before is None:
        return result
    return SessionResult(
        result.origin,
        status=result.status,
        duration_ms=_add(before.duration_ms, result.duration_ms),
        num_turns=_add(before.num_turns, result.num_turns),
        cost_usd=_plus(before.cost_usd, result.cost_usd),
        input_tokens=_add(before.input_tokens, result.input_tokens),
        output_tokens=_add(before.output_tokens, result.output_tokens),
        cache_read_tokens=_add(before.cache_read_tokens, result.cache_read_tokens),
        cache_write_tokens=_add(before.cache_write_tokens, result.cache_write_tokens),
        reasoning_tokens=_add(before.reasoning_tokens, result.reasoning_tokens),
        premium_requests=_add(before.premium_requests, result.premium_requests),
    )


def usage(session: Session, record: Usage) -> None:
    """A step of the agent spent ``record``: the session spent it (the root says so), and
    so did its run, whose result shows it when it gives no figure of its own. No item, no
    change of status."""
    step = _as_result(record)
    session.spent = spent(session.spent, step)
    session.run_spent = spent(session.run_spent, step)


def with_run_usage(result: SessionResult, run: SessionResult | None) -> SessionResult:
    """``result`` as its message shows it: where it gives no cost and no tokens, what its
    run's steps spent (a family's steps or its results carry the figures, never both)."""
    if run is None or _gives_spending(result):
        return result
    return dataclasses.replace(
        result,
        cost_usd=run.cost_usd,
        input_tokens=run.input_tokens,
        output_tokens=run.output_tokens,
        cache_read_tokens=run.cache_read_tokens,
        cache_write_tokens=run.cache_write_tokens,
        reasoning_tokens=run.reasoning_tokens,
    )


def _gives_spending(result: SessionResult) -> bool:
    return (result.cost_usd is not None or result.input_tokens is not None
            or result.output_tokens is not None or result.cache_read_tokens is not None
            or result.cache_write_tokens is not None
            or result.reasoning_tokens is not None)  # fmt: skip


def _as_result(record: Usage) -> SessionResult:
    """A step's spending in the shape of a session's sums (no outcome of its own)."""
    return SessionResult(
        record.origin,
        cost_usd=record.cost_usd,
        input_tokens=record.input_tokens,
        output_tokens=record.output_tokens,
        cache_read_tokens=record.cache_read_tokens,
        cache_write_tokens=record.cache_write_tokens,
        reasoning_tokens=record.reasoning_tokens,
    )


def _add(total: int | None, more: int | None) -> int | None:
    if more is None:
        return total
    return more if total is None else total + more


def _plus(total: float | None, more: float | None) -> float | None:
    if more is None:
        return total
    return more if total is None else total + more


def turn_ended(session: Session, record: TurnEnded | Notice) -> None:
    """The agent answered (or the user interrupted it): the session waits for the user (a
    subagent's turn is not the session's)."""
    if record.parent_call is None and record.subagent is None and session.status is _RUNNING:
        session.status = SessionStatus.WAITING


def agent_exited(session: Session, record: AgentExited) -> None:
    """The agent's process ended. A session that reported no outcome (none since it last
    started) ends with the exit's; one that did keeps its own, the exit noted beside it."""
    session.exit = record
    if session.status in ENDED:
        return
    end(session, SessionResult(record.origin, status=exit_status(record)), False, record)


def same_outcome(kept: SessionResult, new: SessionResult) -> bool:
    """Whether ``new`` says what ``kept`` (the result already shown, its text cut to what is
    shown) says: the same line sent twice, not a new run's result."""
    text = new.text[:RESULT_TEXT_CAP] if new.text is not None else None
    return (kept.status, kept.subtype, kept.text, kept.error, kept.duration_ms, kept.cost_usd,
            kept.num_turns, kept.output_tokens) == (new.status, new.subtype, text, new.error,
            new.duration_ms, new.cost_usd, new.num_turns, new.output_tokens)  # fmt: skip
