"""A session's times: from its records when they carry times, else from when they were read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.records import AssistantText, Origin, ToolCall, ToolResult, UserText
from bot.session import Session

SID = "s1"
LOGGED = datetime(2025, 6, 14, 10, 0, tzinfo=UTC)
READ = datetime(2026, 11, 21, 8, 0, tzinfo=UTC)


def test_an_untimed_record_in_a_timed_log_does_not_move_the_session_end() -> None:
    session = Session(SID)
    session.apply(UserText(Origin(SID, LOGGED, 1), text="go"), READ)
    session.apply(AssistantText(Origin(SID, LOGGED + timedelta(seconds=30), 2), text="done"), READ)
    session.apply(AssistantText(Origin(SID, None, 3), text="a line with no time"), READ)
    assert (session.first_at, session.last_at) == (LOGGED, LOGGED + timedelta(seconds=30))


def test_times_read_before_the_first_timed_record_are_replaced_by_logged_ones() -> None:
    session = Session(SID)
    session.apply(UserText(Origin(SID, None, 1), text="a summary line"), READ)
    session.apply(AssistantText(Origin(SID, LOGGED, 2), text="first timed"), READ)
    assert (session.first_at, session.last_at) == (LOGGED, LOGGED)


def test_a_log_without_times_uses_the_time_each_record_was_read() -> None:
    session = Session(SID)
    session.apply(UserText(Origin(SID, None, 1), text="go"), READ)
    session.apply(AssistantText(Origin(SID, None, 2), text="done"), READ + timedelta(seconds=5))
    assert (session.first_at, session.last_at) == (READ, READ + timedelta(seconds=5))


def test_a_call_in_a_log_without_times_has_no_duration_from_read_times() -> None:
    session = Session(SID)
    session.apply(ToolCall(Origin(SID, None, 1), call_id="a", name="Bash"), READ)
    session.apply(ToolResult(Origin(SID, None, 2), call_id="a"), READ + timedelta(seconds=5))
    call = session.calls["a"]
    assert (call.started_at, call.ended_at, call.duration_s) == (None, None, None)


def test_a_call_whose_result_is_logged_at_its_own_time_has_no_duration() -> None:
    session = Session(SID)
    session.apply(ToolCall(Origin(SID, LOGGED, 1), call_id="a", name="Bash"), READ)
    session.apply(ToolResult(Origin(SID, LOGGED, 2), call_id="a"), READ)
    assert session.calls["a"].duration_s is None
