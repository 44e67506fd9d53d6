"""How numbers, times and states read in a message."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Final

from bot.result_records import AgentExited
from bot.session import SessionStatus, ToolStatus

TOOL_EMOJI: Final = {
    ToolStatus.PENDING: "🕓",
    ToolStatus.RUNNING: "⏳",
    ToolStatus.OK: "✅",
    ToolStatus.ERROR: "❌",
    ToolStatus.INTERRUPTED: "⏹️",
    ToolStatus.ORPHANED: "⌛",
}

SESSION_EMOJI: Final = {
    SessionStatus.RUNNING: "⏳",
    SessionStatus.WAITING: "💬",
    SessionStatus.IDLE: "💤",
    SessionStatus.STOPPED: "⏹️",
    SessionStatus.SUCCEEDED: "✅",
    SessionStatus.FAILED: "❌",
    SessionStatus.UNKNOWN: "❔",
}

SESSION_WORD: Final = {
    SessionStatus.RUNNING: "Running",
    SessionStatus.WAITING: "Waiting for the user",
    SessionStatus.IDLE: "Idle",
    SessionStatus.STOPPED: "Stopped",
    SessionStatus.SUCCEEDED: "Succeeded",
    SessionStatus.FAILED: "Failed",
    SessionStatus.UNKNOWN: "No result recorded",
}

# Reaction names (not Unicode) for the root message, used by delivery: each the name of the
# status line's emoji above (a reader sees the same mark on the root and in its status line).
SESSION_REACTION: Final = {
    SessionStatus.RUNNING: "hourglass_flowing_sand",
    SessionStatus.WAITING: "speech_balloon",
    SessionStatus.IDLE: "zzz",
    SessionStatus.STOPPED: "black_square_for_stop",
    SessionStatus.SUCCEEDED: "white_check_mark",
    SessionStatus.FAILED: "x",
    SessionStatus.UNKNOWN: "grey_question",
}

# Signals that stop a program on purpose, by what a person calls them (see ``exit_words``).
_SIGNAL_WORDS: Final = {"SIGINT": "Ctrl-C", "SIGTERM": "SIGTERM", "SIGHUP": "SIGHUP",
                        "SIGQUIT": "SIGQUIT", "SIGKILL": "SIGKILL"}  # fmt: skip


def exit_words(ended: AgentExited) -> str:
    """How the agent's process ended: ``exited with code 3``, ``Ctrl-C`` (the status says it
    stopped), ``killed by SIGSEGV``."""
    if ended.signal is not None:
        said = _SIGNAL_WORDS.get(ended.signal)
        return said if said is not None else f"killed by {ended.signal}"
    return "exited" if ended.code is None else f"exited with code {ended.code}"


def notable_exit(ended: AgentExited) -> bool:
    """Whether an exit is worth a word beside a session's status: not a plain code 0."""
    return ended.signal is not None or ended.code != 0


# Numbers are written without `%` or format specs where an exact fast path exists: compiled,
# `"%.1f" % x` or `f"{x:,.2f}"` costs 1.5 to 4k instructions, native integer arithmetic and a
# table look-up a few dozen. Each fast path gives the string the plain way gives (the tests
# compare them on adversarial values); wherever that is not certain, the plain way is taken.
# Where it is taken, `%` rather than a format spec: a spec goes through `str.format` of a nested
# template, which costs nearly twice as much (`%.1f` and `:.1f` are the same C conversion).

# "00" to "99": the two digits `%02d` writes (and the cents or tenths after a point).
_TWO_DIGITS: Final = tuple([str(n // 10) + str(n % 10) for n in range(100)])
# What `"%.1fs" % (n / 10)` writes for n tenths of a second, 0 to 100 ("0.0s" to "10.0s").
_TENTHS: Final = tuple([f"{n // 10}.{n % 10}s" for n in range(101)])
# What `"$%.4f" % (n / 10_000)` writes for n ten-thousandths of a dollar, 0 to 100.
_SMALL_COSTS: Final = tuple(["$0.00" + _TWO_DIGITS[n] for n in range(100)] + ["$0.0100"])
# How far from a half a scaled float must be for its nearest integer to be that of the exact
# product: the products scaled here are under 1e5, off by at most half an ulp (under 1e-11).
_MARGIN: Final = 1e-6
_ROUND_MAX: Final = 1e15  # `round` by hand below this (past it, and for inf and nan, `round`)


def _nearest(scaled: float) -> int:
    """The integer nearest ``scaled`` (0 <= scaled < 1e5), or -1 when ``scaled`` is
    within `_MARGIN` of a half: there the float product may round the other way than the
    exact one, and the caller takes the plain way. (``scaled - whole`` is exact.)"""
    whole = int(scaled)  # not negative: truncating is flooring
    fraction = scaled - whole
    if fraction < 0.5 - _MARGIN:
        return whole
    if fraction > 0.5 + _MARGIN:
        return whole + 1
    return -1


def _positive(value: float) -> bool:
    """0 < value, or +0.0 (`%` writes -0.0 as "-0.0"); not nan."""
    return value > 0.0 or (value == 0.0 and math.copysign(1.0, value) > 0.0)


def _round(seconds: float) -> int:
    """`round(seconds)` for 10 <= seconds < `_ROUND_MAX`: to the nearest whole, a half to
    the even one. (``seconds - whole`` is exact, so the half is told exactly.)"""
    whole = int(seconds)
    fraction = seconds - whole
    if fraction > 0.5 or (fraction == 0.5 and whole % 2 == 1):
        return whole + 1
    return whole


def duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 10:
        if _positive(seconds) and (tenths := _nearest(seconds * 10)) >= 0:
            return _TENTHS[tenths]  # as "%.1fs": the tenths are those of the exact product
        return "%.1fs" % seconds  # noqa: UP031 (see above)
    whole = _round(seconds) if seconds < _ROUND_MAX else round(seconds)
    hours, rest = whole // 3600, whole % 3600
    minutes, secs = rest // 60, rest % 60
    if hours:
        return f"{hours}h {minutes}m"
    if minutes:
        return f"{minutes}m {_TWO_DIGITS[secs]}s"  # as "%dm %02ds"
    return f"{secs}s"


def cost(usd: float | None) -> str:
    if usd is None:
        return ""
    if usd < 0.01:
        if _positive(usd) and (units := _nearest(usd * 10_000)) >= 0:
            return _SMALL_COSTS[units]  # as "$%.4f"
        return "$%.4f" % usd  # noqa: UP031 (see above)
    if usd < 1000.0 and (cents := _nearest(usd * 100)) >= 0 and cents < 100_000:
        return f"${cents // 100}.{_TWO_DIGITS[cents % 100]}"  # as "${:,.2f}": no comma yet
    return f"${usd:,.2f}"


def count(n: int | None) -> str:
    """Counts as "%.1fM", "%.0fk" or "%.1fk" of ``n`` scaled write them. The fast paths round
    the integer itself: unless it lies exactly on a half, the float quotient (off by far less
    than the distance to the half) rounds the same way; on a half, the plain way decides."""
    if n is None:
        return ""
    if n >= 1_000_000:
        rest = n % 100_000
        if n < 10**15 and rest != 50_000:
            tenths = n // 100_000 + (1 if rest > 50_000 else 0)
            return f"{tenths // 10}.{tenths % 10}M"
        return "%.1fM" % (n / 1_000_000)
    if n >= 10_000:
        rest = n % 1000
        if rest != 500:
            return f"{n // 1000 + (1 if rest > 500 else 0)}k"
        return "%.0fk" % (n / 1000)
    if n >= 1000:
        rest = n % 100
        if rest != 50:
            tenths = n // 100 + (1 if rest > 50 else 0)
            return f"{tenths // 10}.{tenths % 10}k"
        return "%.1fk" % (n / 1000)
    return str(n)


_UTC: Final = UTC
_EPOCH_DAYS: Final = 719_163  # `date(1970, 1, 1).toordinal()`


def slack_date(at: datetime) -> str:
    """Slack's date formatting, shown in each reader's own time zone (with a UTC fallback)."""
    year, month, day, hour, minute = at.year, at.month, at.day, at.hour, at.minute
    if year >= 1000:  # what strftime writes, at a fraction of its cost
        two = _TWO_DIGITS
        fallback = f"{year}-{two[month]}-{two[day]} {two[hour]}:{two[minute]} UTC"
    else:
        fallback = at.strftime("%Y-%m-%d %H:%M UTC")
    if at.tzinfo is _UTC and 1970 <= year < 2100:
        # `int(at.timestamp())` from the fields: the whole seconds since the epoch (a float of
        # them plus under a second, below 2**32, stays under the next whole, so `int` of the
        # float gives them too).
        days = _days_before(year, month) + day - _EPOCH_DAYS
        seconds = days * 86_400 + hour * 3600 + minute * 60 + at.second
    else:
        seconds = int(at.timestamp())
    return f"<!date^{seconds}^{{date_short_pretty}} {{time}}|{fallback}>"


def _days_before(year: int, month: int) -> int:
    """`date(year, month, 1).toordinal() - 1`: the days from 0001-01-01 to the month's start."""
    before = year - 1
    days = before * 365 + before // 4 - before // 100 + before // 400
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return days + _DAYS_BEFORE_MONTH[month] + (1 if leap and month > 2 else 0)


# Days in the year before each month (1-based; a leap day is added after February).
# (Typed of any length: compiled, a tuple of fixed length is unboxed, and boxed again whole
# for each look-up by a variable index.)
_DAYS_BEFORE_MONTH: Final[tuple[int, ...]] = (
    (0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
