"""The root's status line: what the session spent, as its steps and results say, and how long
its runs took."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from blocks.root import elapsed_s, root_message, status_line
from bot.records import Origin, Record, SessionStarted, Usage, UserText
from bot.result_records import SessionResult
from bot.session import Session, SessionSettings

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def at(seconds: float) -> Origin:
    return Origin("s1", T0 + timedelta(seconds=seconds), 1)


def session_of(*records: Record) -> Session:
    session = Session("s1", SessionSettings(idle_after_s=600.0))
    session.apply(SessionStarted(at(0), agent="OpenCode"))
    for record in records:
        session.apply(record)
    return session


def test_a_running_session_shows_what_its_steps_spent_so_far() -> None:
    session = session_of(Usage(at(1), cost_usd=0.02, output_tokens=1200),
                         Usage(at(2), cost_usd=0.03, output_tokens=300))  # fmt: skip
    line = status_line(session, T0 + timedelta(seconds=3))
    assert line.startswith("⏳ *Running*")
    assert line.endswith(" · $0.05 · 1.5k tokens out")
    blocks = root_message(session, T0 + timedelta(seconds=3)).payload()["blocks"]
    assert any("1.5k tokens out" in str(block) for block in blocks)


def test_steps_that_give_only_tokens_in_show_them_and_never_a_zero_cost() -> None:
    line = status_line(session_of(Usage(at(1), input_tokens=900)))
    assert line.endswith(" · 900 tokens in") and "$" not in line


def test_a_session_of_several_results_shows_the_sum_of_their_durations() -> None:
    first = SessionResult(at(10), duration_ms=4000)
    second = SessionResult(at(100), duration_ms=2500)
    session = session_of(first, UserText(at(50), text="more"), second)
    assert elapsed_s(session, None) == 6.5
    assert " · 6.5s" in status_line(session)


def test_a_result_with_no_duration_keeps_the_earlier_results_sum() -> None:
    session = session_of(SessionResult(at(10), duration_ms=4000), UserText(at(50), text="more"),
                         SessionResult(at(100)))  # fmt: skip
    assert elapsed_s(session, None) == 4.0
