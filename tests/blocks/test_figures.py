"""Numbers, times and dates read exactly as the plain formatting writes them.

The figures take fast paths (integer arithmetic and tables) where `%` or a format spec would
cost thousands of instructions; each is compared here with the plain way, on values chosen to
sit on and next to the halves where rounding is decided.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

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


def plain_duration(seconds: float) -> str:
    if seconds < 10:
        return "%.1fs" % seconds  # noqa: UP031 (the plain way, as it was written)
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes}m"
    if minutes:
        return "%dm %02ds" % (minutes, secs)  # noqa: UP031
    return f"{secs}s"


def plain_cost(usd: float) -> str:
    return "$%.4f" % usd if usd < 0.01 else f"${usd:,.2f}"  # noqa: UP031


def plain_count(n: int) -> str:
    if n >= 1_000_000:
        return "%.1fM" % (n / 1_000_000)
    if n >= 10_000:
        return "%.0fk" % (n / 1000)
    if n >= 1000:
        return "%.1fk" % (n / 1000)
    return str(n)


def plain_slack_date(at: datetime) -> str:
    fallback = at.strftime("%Y-%m-%d %H:%M UTC")
    return f"<!date^{int(at.timestamp())}^{{date_short_pretty}} {{time}}|{fallback}>"


def near(values: st.SearchStrategy[float]) -> st.SearchStrategy[float]:
    """Each value, or one of the floats right next to it."""
    return st.tuples(values, st.integers(-3, 3)).map(lambda pair: _step(*pair))


def _step(value: float, steps: int) -> float:
    for _ in range(abs(steps)):
        value = math.nextafter(value, math.inf if steps > 0 else -math.inf)
    return value


# Halves of the last digit shown (`k / 20` is a tenth's half, `k / 200` a cent's), the
# milliseconds and microdollars real records carry, and any float at all.
seconds_values = near(
    st.integers(0, 2400).map(lambda k: k / 20)
    | st.integers(0, 10**8).map(lambda ms: ms / 1000)
    | st.integers(0, 10**6).map(lambda k: k / 2 + 0.5)
    | st.floats(min_value=-20, max_value=1e16, allow_nan=False)
)
usd_values = near(
    st.integers(0, 200).map(lambda k: k / 20_000)
    | st.integers(0, 400_000).map(lambda k: k / 200)
    | st.integers(0, 10**9).map(lambda k: k / 10**6)
    | st.floats(min_value=-1, max_value=1e9, allow_nan=False)
)


@given(seconds_values)
@example(0.0)
@example(-0.0)
@example(-0.04)
@example(9.95)
@example(2.45)
@example(10.5)
@example(11.5)
@example(3599.5)
@example(1e15)
def test_durations_read_as_the_plain_formatting_writes_them(seconds: float) -> None:
    assert duration(seconds) == plain_duration(seconds)


@given(usd_values)
@example(0.0)
@example(-0.0)
@example(0.00005)
@example(0.00995)
@example(0.125)
@example(999.995)
@example(999.994)
@example(999.996)
@example(1234.5)
def test_costs_read_as_the_plain_formatting_writes_them(usd: float) -> None:
    assert cost(usd) == plain_cost(usd)


def halves(unit: int, most: int) -> st.SearchStrategy[int]:
    """Counts on and around the half of ``unit`` (the last digit shown), up to ``most``."""
    wholes, offsets = st.integers(0, most // unit), st.integers(-300, 300)
    return st.builds(lambda whole, off: whole * unit + unit // 2 + off, wholes, offsets)


# Counts below 2**53, where `n / 1000` is the same compiled and interpreted (compiled, a larger
# int is made a float before it is divided, so the plain way itself reads otherwise there; the
# fast paths stop at 10**15 and leave such counts to it).
count_values = (
    st.integers(-(10**6), 2**53)
    | st.integers(0, 20_000)
    | halves(100, 10_000)
    | halves(1000, 10**6)
    | halves(100_000, 2**53 - 10**6)
)


@given(count_values)
@example(1050)
@example(1250)
@example(10_500)
@example(11_500)
@example(999_999)
@example(1_050_000)
@example(1_250_000)
@example(10**15 - 50_000)
@example(10**15 + 50_000)
def test_counts_read_as_the_plain_formatting_writes_them(n: int) -> None:
    assert count(n) == plain_count(n)


zones = st.sampled_from([UTC, timezone(timedelta(hours=5.5)), timezone(timedelta(hours=-8))])
# Any time of any zone, and UTC times (the records' own) in and around the fast path's years.
any_time = st.datetimes(datetime(1000, 1, 2), datetime(9999, 12, 30), timezones=zones)
utc_time = st.datetimes(datetime(1969, 12, 31), datetime(2100, 1, 2), timezones=st.just(UTC))


@given(any_time | utc_time)
@example(datetime(1970, 1, 1, tzinfo=UTC))
@example(datetime(2099, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC))
@example(datetime(2100, 1, 1, tzinfo=UTC))
@example(datetime(2000, 2, 29, 12, 0, 0, 999_999, tzinfo=UTC))
@example(datetime(1969, 12, 31, 23, 59, 59, 500_000, tzinfo=UTC))
def test_slack_dates_read_as_strftime_and_timestamp_write_them(at: datetime) -> None:
    assert slack_date(at) == plain_slack_date(at)


def test_figures_on_the_edges_of_their_fast_paths() -> None:
    assert duration(None) == cost(None) == count(None) == ""
    assert [duration(s) for s in (0.0, -0.0, 0.25, 0.35, 2.45, 9.95, 9.96)] == [
        "0.0s", "-0.0s", "0.2s", "0.3s", "2.5s", "9.9s", "10.0s"
    ]
    assert [duration(s) for s in (10.5, 11.5, 59.5, 3599.5, 7322.0)] == [
        "10s", "12s", "1m 00s", "1h 0m", "2h 2m"
    ]
    assert [cost(u) for u in (0.0, -0.0, 0.00005, 0.00995, 0.125, 999.996, 1234.5)] == [
        "$0.0000", "$-0.0000", "$0.0001", "$0.0100", "$0.12", "$1,000.00", "$1,234.50"
    ]
    assert [count(n) for n in (999, 1050, 1250, 9_960, 10_500, 999_999, 1_250_000)] == [
        "999", "1.1k", "1.2k", "10.0k", "10k", "1000k", "1.2M"
    ]


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_a_duration_of_no_number_fails_as_round_does(value: float) -> None:
    with pytest.raises((ValueError, OverflowError)):
        plain_duration(value)
    with pytest.raises((ValueError, OverflowError)):
        duration(value)


# The same, against format specs (`:.1f` and `%.1f` are the same C conversion).


@given(st.floats(min_value=0, max_value=1e6, allow_nan=False))
def test_figures_read_as_format_specs_write_them(value: float) -> None:
    assert duration(value) == _plain_duration(value)
    assert cost(value) == (f"${value:.4f}" if value < 0.01 else f"${value:,.2f}")


def _plain_duration(seconds: float) -> str:
    if seconds < 10:
        return f"{seconds:.1f}s"
    hours, rest = divmod(round(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


@given(st.integers(min_value=0, max_value=10**12))
def test_counts_read_as_format_specs_write_them(n: int) -> None:
    if n >= 1_000_000:
        assert count(n) == f"{n / 1_000_000:.1f}M"
    elif n >= 10_000:
        assert count(n) == f"{n / 1000:.0f}k"
    elif n >= 1000:
        assert count(n) == f"{n / 1000:.1f}k"


@given(
    st.datetimes(min_value=datetime(1, 1, 2), timezones=st.just(UTC))
    | st.datetimes(timezones=st.just(timezone(timedelta(hours=5, minutes=30))))
)
def test_slack_date_fallback_reads_as_strftime_writes_it(at: datetime) -> None:
    assert slack_date(at).endswith("|" + at.strftime("%Y-%m-%d %H:%M UTC") + ">")


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

