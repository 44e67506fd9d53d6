"""How numbers, times, dates and states read in a message."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from blocks.figures import (
    SESSION_EMOJI,
    SESSION_REACTION,
    SESSION_WORD,
    cost,
    count,
    duration,
    exit_words,
    slack_date,
)
from bot.records import Origin
from bot.result_records import AgentExited
from bot.session import SessionStatus


def test_an_unknown_figure_reads_as_nothing() -> None:
    assert duration(None) == cost(None) == count(None) == ""


def test_a_short_duration_reads_in_tenths_rounded_as_printf_rounds_them() -> None:
    assert [duration(s) for s in (0.0, -0.0, 0.25, 0.35, 2.45, 9.95, 9.96)] == [
        "0.0s", "-0.0s", "0.2s", "0.3s", "2.5s", "9.9s", "10.0s"
    ]


def test_a_duration_shorter_than_its_tenth_reads_as_under_a_tenth_not_as_none() -> None:
    assert [duration(s) for s in (0.001, 0.0499, 0.05, 0.0)] == [
        "under 0.1s", "under 0.1s", "0.1s", "0.0s"
    ]


def test_a_long_duration_reads_in_whole_seconds_minutes_and_hours_halves_to_even() -> None:
    assert [duration(s) for s in (10.5, 11.5, 59.5, 61.0, 3599.5, 7322.0)] == [
        "10s", "12s", "1m 00s", "1m 01s", "1h 0m", "2h 2m"
    ]


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_a_duration_of_no_number_fails_as_round_does(value: float) -> None:
    with pytest.raises((ValueError, OverflowError)):
        duration(value)


def test_a_cost_reads_in_ten_thousandths_under_a_cent_else_in_cents_with_commas() -> None:
    assert [cost(u) for u in (0.0, -0.0, 0.00005, 0.00995, 0.125, 999.996, 1234.5)] == [
        "$0.0000", "$-0.0000", "$0.0001", "$0.0100", "$0.12", "$1,000.00", "$1,234.50"
    ]


def test_a_count_reads_in_thousands_and_millions() -> None:
    assert [count(n) for n in (999, 1050, 1250, 9_960, 10_500, 999_999, 1_250_000)] == [
        "999", "1.1k", "1.2k", "10.0k", "10k", "1000k", "1.2M"
    ]


def test_a_slack_date_is_the_epoch_second_with_a_utc_fallback() -> None:
    assert slack_date(datetime(2026, 2, 3, 4, 5, 59, 999_999, tzinfo=UTC)) == (
        "<!date^1770091559^{date_short_pretty} {time}|2026-02-03 04:05 UTC>"
    )
    india = timezone(timedelta(hours=5, minutes=30))
    assert slack_date(datetime(1970, 1, 1, 5, 30, tzinfo=india)).startswith("<!date^0^")


def slack_emoji_names() -> dict[str, str]:
    """Slack's emoji names and their characters, as the local Slack's page draws them."""
    page = (Path(__file__).parents[2] / "bot" / "localslack" / "page.html").read_text()
    table = page[page.index("const EMOJI = {") : page.index("};", page.index("const EMOJI = {"))]
    pairs = re.findall(r'("?[\w+-]+"?): "([^"]+)"', table)
    return {name.strip('"'): glyph for name, glyph in pairs}


@pytest.mark.parametrize("status", list(SessionStatus))
def test_a_sessions_reaction_is_the_emoji_of_its_status_line(status: SessionStatus) -> None:
    assert slack_emoji_names()[SESSION_REACTION[status]] == SESSION_EMOJI[status]


def test_every_session_status_has_an_emoji_a_word_and_a_reaction() -> None:
    for table in (SESSION_EMOJI, SESSION_WORD, SESSION_REACTION):
        assert set(table) == set(SessionStatus)


@pytest.mark.parametrize(
    ("code", "signal", "words"),
    [
        (3, None, "exited with code 3"),
        (0, None, "exited with code 0"),
        (130, "SIGINT", "Ctrl-C"),
        (None, "SIGTERM", "SIGTERM"),
        (None, "SIGSEGV", "killed by SIGSEGV"),
        (None, None, "exited"),
    ],
)
def test_an_agents_exit_reads_as_a_person_says_it(
    code: int | None, signal: str | None, words: str
) -> None:
    ended = AgentExited(Origin("s", None, 1), code=code, signal=signal)
    assert exit_words(ended) == words

