"""How a session's turns and runs end: waiting for the user after a turn, idle when its log is
quiet, running again when the log moves, and ended by the agent's exit when it wrote no result."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.records import (
    AssistantText,
    Ignored,
    Notice,
    Origin,
    Record,
    SessionStarted,
    ToolCall,
    ToolResult,
    Usage,
    UserText,
)
from bot.result_records import AgentExited, ResultStatus, SessionResult, TurnEnded
from bot.session import Session, SessionSettings, SessionStatus, ToolStatus
from bot.session.ends import exit_status
from bot.session.thread import ResultItem

T0 = datetime(2026, 2, 10, 21, 0, tzinfo=UTC)
SID = "s1"
IDLE_AFTER = 600.0


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def origin(t: float | None, **kw: str) -> Origin:
    return Origin(SID, None if t is None else at(t), 1, kw.get("parent_call"), kw.get("subagent"))


def session_of(*records: Record, now: datetime | None = None) -> Session:
    session = Session(SID, SessionSettings(idle_after_s=IDLE_AFTER))
    for record in records:
        session.apply(record, now)
    return session


def turn(t: float = 0) -> list[Record]:
    """A user's prompt and the agent's answer: one turn, not ended yet."""
    return [
        SessionStarted(origin(t), agent="Claude Code"),
        UserText(origin(t), text="fix the tests"),
        AssistantText(origin(t + 5), text="Done."),
    ]


def exited(code: int | None = None, signal: str | None = None) -> AgentExited:
    return AgentExited(origin(None), code=code, signal=signal)


# -- waiting for the user ---------------------------------------------------------------------


def test_a_turn_end_makes_a_running_session_wait_for_the_user() -> None:
    assert session_of(*turn()).status is SessionStatus.RUNNING
    assert session_of(*turn(), TurnEnded(origin(6))).status is SessionStatus.WAITING


def test_the_users_next_words_make_a_waiting_session_run_again() -> None:
    session = session_of(*turn(), TurnEnded(origin(6)), UserText(origin(60), text="and docs"))
    assert session.status is SessionStatus.RUNNING


@pytest.mark.parametrize(
    "between",
    [
        Notice(origin(30), kind="command", text="/model"),
        Ignored(origin(30), kind="file-history-snapshot"),
        TurnEnded(origin(30)),
    ],
)
def test_what_comes_between_turns_leaves_the_session_waiting(between: Record) -> None:
    assert session_of(*turn(), TurnEnded(origin(6)), between).status is SessionStatus.WAITING


def test_a_subagents_turn_end_is_not_the_sessions() -> None:
    for subagent in (origin(6, parent_call="task-1"), origin(6, subagent="agent-a")):
        assert session_of(*turn(), TurnEnded(subagent)).status is SessionStatus.RUNNING


def test_the_user_interrupting_the_agent_ends_its_turn() -> None:
    interrupted = Notice(origin(7), kind="interrupted", text="[Request interrupted by user]")
    session = session_of(*turn(), ToolCall(origin(6), call_id="a", name="Bash"), interrupted)
    assert session.status is SessionStatus.WAITING
    assert session.calls["a"].status is ToolStatus.INTERRUPTED


def test_a_session_waiting_at_the_end_of_its_log_still_waits_not_unknown() -> None:
    waiting, cut_short = session_of(*turn(), TurnEnded(origin(6))), session_of(*turn())
    waiting.close(expects_result=False)
    cut_short.close(expects_result=False)
    assert (waiting.status, cut_short.status) == (SessionStatus.WAITING, SessionStatus.UNKNOWN)


def test_a_waiting_session_is_not_made_idle() -> None:
    session = session_of(*turn(), TurnEnded(origin(6)))
    assert not session.tick(at(6 + 10 * IDLE_AFTER))
    assert session.status is SessionStatus.WAITING


# -- idle -------------------------------------------------------------------------------------


def test_a_running_session_whose_log_is_quiet_long_enough_is_idle() -> None:
    session = session_of(*turn(), ToolCall(origin(6), call_id="a", name="Bash"))
    assert not session.tick(at(6 + IDLE_AFTER - 1))
    assert session.tick(at(6 + IDLE_AFTER))
    assert session.status is SessionStatus.IDLE
    assert session.calls["a"].status is not ToolStatus.INTERRUPTED  # it may still end


def test_a_log_read_long_after_it_was_written_is_quiet_since_it_was_written() -> None:
    session = session_of(*turn(), now=at(86_400))  # read a day later, all at once
    assert session.tick(at(86_400))
    assert session.status is SessionStatus.IDLE


def test_a_log_without_times_is_quiet_since_its_last_record_was_read() -> None:
    session = Session(SID, SessionSettings(idle_after_s=IDLE_AFTER))
    session.apply(UserText(origin(None), text="go"), at(0))
    session.apply(ToolCall(origin(None), call_id="a", name="Bash"), at(30))
    assert not session.tick(at(30 + IDLE_AFTER - 1))
    assert session.tick(at(30 + IDLE_AFTER))


def test_a_session_whose_records_are_still_being_read_is_not_made_idle() -> None:
    session = session_of(*turn(), now=at(86_400))
    assert not session.tick(at(86_400), idle=False)
    assert session.status is SessionStatus.RUNNING


@pytest.mark.parametrize(
    "next_record",
    [Ignored(origin(900), kind="hook_progress"), ToolResult(origin(900), call_id="a")],
)
def test_an_idle_session_runs_again_with_its_logs_next_record(next_record: Record) -> None:
    session = session_of(*turn(), ToolCall(origin(6), call_id="a", name="Bash"))
    session.tick(at(800))
    session.apply(next_record)
    assert session.status is SessionStatus.RUNNING


def test_a_session_is_live_only_while_it_runs_with_its_input_open_and_its_log_not_quiet() -> None:
    session = session_of(*turn())
    assert session.live(at(60)) and not session.live(None)
    assert not session.live(at(5 + IDLE_AFTER))  # quiet too long (even if not ticked yet)
    session.close()
    assert not session.live(at(60))  # its input ended
    session.apply(AssistantText(origin(70), text="more"))
    assert session.live(at(80))  # it went on after all


# -- the agent's exit -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ended", "outcome"),
    [
        (exited(code=3), ResultStatus.FAILED),
        (exited(code=0), ResultStatus.SUCCEEDED),
        (exited(signal="SIGINT"), ResultStatus.STOPPED),
        (exited(code=130, signal="SIGINT"), ResultStatus.STOPPED),  # it exited on our Ctrl-C
        (exited(signal="SIGTERM"), ResultStatus.STOPPED),
        (exited(signal="SIGSEGV"), ResultStatus.FAILED),  # a crash
    ],
)
def test_an_exit_gives_the_outcome_it_means(ended: AgentExited, outcome: ResultStatus) -> None:
    assert exit_status(ended) is outcome


def test_an_agent_that_exits_without_a_result_ends_its_session_on_the_exit() -> None:
    call = ToolCall(origin(6), call_id="a", name="Bash")
    session = session_of(*turn(), call, exited(code=3))
    assert session.status is SessionStatus.FAILED
    assert session.calls["a"].status is ToolStatus.INTERRUPTED
    (result,) = [item for item in session.items if isinstance(item, ResultItem)]
    assert result.exit == exited(code=3) and result.result.status is ResultStatus.FAILED
    assert session.exit == exited(code=3)


def test_an_agent_stopped_with_ctrl_c_leaves_its_session_stopped() -> None:
    for before in ([], [TurnEnded(origin(6))]):  # at work, or waiting for the user
        session = session_of(*turn(), *before, exited(signal="SIGINT"))
        assert session.status is SessionStatus.STOPPED


def test_an_agent_that_reported_its_result_keeps_it_and_its_exit_is_noted() -> None:
    done = SessionResult(origin(8), status=ResultStatus.SUCCEEDED, text="Done.")
    session = session_of(*turn(), done, exited(code=3))
    assert session.status is SessionStatus.SUCCEEDED
    assert [item.result for item in session.items if isinstance(item, ResultItem)] == [done]
    assert session.exit == exited(code=3)


def test_a_result_that_says_the_agent_was_stopped_stops_the_session() -> None:
    stopped = SessionResult(origin(8), status=ResultStatus.STOPPED)
    assert session_of(*turn(), stopped).status is SessionStatus.STOPPED


def test_a_session_of_several_results_spent_their_sum_and_a_bare_last_result_keeps_it() -> None:
    first = SessionResult(origin(1), input_tokens=100, output_tokens=10, cost_usd=0.5)
    second = SessionResult(origin(2), output_tokens=5, cache_read_tokens=40, cost_usd=0.25)
    failed = SessionResult(origin(3), status=ResultStatus.FAILED, error="quota")
    session = session_of(*turn(), first, UserText(origin(2), text="more"), second, failed)
    spent = session.spent
    assert spent is not None and session.result is failed
    assert (spent.input_tokens, spent.output_tokens, spent.cache_read_tokens) == (100, 15, 40)
    assert (spent.cost_usd, spent.reasoning_tokens, spent.status) == (0.75, None, failed.status)


def test_a_step_s_usage_is_spent_with_no_item_and_no_change_of_status() -> None:
    session = session_of(*turn())
    items, status = len(session.items), session.status
    session.apply(Usage(origin(6), cost_usd=0.5, output_tokens=10))
    session.apply(Usage(origin(7), input_tokens=30, output_tokens=5))
    spent = session.spent
    assert (len(session.items), session.status, session.result) == (items, status, None)
    assert spent is not None
    assert (spent.cost_usd, spent.input_tokens, spent.output_tokens) == (0.5, 30, 15)


def test_a_result_without_figures_shows_its_run_s_steps_and_is_not_spent_twice() -> None:
    steps = [Usage(origin(6), cost_usd=0.5, output_tokens=10), Usage(origin(7), output_tokens=5)]
    done = SessionResult(origin(8), text="Done.", duration_ms=4000)
    again = [UserText(origin(9), text="more"), Usage(origin(10), output_tokens=1)]
    later = SessionResult(origin(11), duration_ms=1000)
    session = session_of(*turn(), *steps, done, *again, later)
    first, second = [item.result for item in session.items if isinstance(item, ResultItem)]
    assert (first.cost_usd, first.output_tokens, first.text) == (0.5, 15, "Done.")
    assert (second.cost_usd, second.output_tokens) == (None, 1)  # only its own run's steps
    spent = session.spent
    assert spent is not None and (spent.cost_usd, spent.output_tokens) == (0.5, 16)
    assert spent.duration_ms == 5000  # each result's duration is its own run's
    assert session.result is later  # as the log said it (a repeat of it is known as such)


def test_a_result_with_figures_of_its_own_keeps_them() -> None:
    done = SessionResult(origin(8), output_tokens=99)
    session = session_of(*turn(), done)
    session_of_steps = session_of(*turn(), Usage(origin(7), output_tokens=3), done)
    (shown,) = [item.result for item in session.items if isinstance(item, ResultItem)]
    assert shown is done
    (shown,) = [i.result for i in session_of_steps.items if isinstance(i, ResultItem)]
    assert shown is done


def test_an_exit_with_no_result_shows_what_its_run_s_steps_spent() -> None:
    session = session_of(*turn(), Usage(origin(6), cost_usd=0.25), exited(code=1))
    (shown,) = [item.result for item in session.items if isinstance(item, ResultItem)]
    assert (shown.status, shown.cost_usd) == (ResultStatus.FAILED, 0.25)


def test_several_results_add_up_their_turns() -> None:
    results = [SessionResult(origin(1), num_turns=2), SessionResult(origin(2), num_turns=3)]
    session = session_of(*turn(), *results)
    assert session.spent is not None and session.spent.num_turns == 5


def test_a_result_line_said_twice_is_spent_once() -> None:
    done = SessionResult(origin(1), output_tokens=10)
    session = session_of(*turn(), done, SessionResult(origin(1), output_tokens=10))
    assert session.spent is not None and session.spent.output_tokens == 10
