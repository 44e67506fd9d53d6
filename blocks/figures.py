"""How numbers, times and states read in a message."""

from __future__ import annotations

from datetime import datetime
from typing import Final

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
    SessionStatus.SUCCEEDED: "✅",
    SessionStatus.FAILED: "❌",
    SessionStatus.UNKNOWN: "⏸️",
}

SESSION_WORD: Final = {
    SessionStatus.RUNNING: "Running",
    SessionStatus.SUCCEEDED: "Succeeded",
    SessionStatus.FAILED: "Failed",
    SessionStatus.UNKNOWN: "No result recorded",
}

# Reaction names (not Unicode) for the root message, used by delivery.
SESSION_REACTION: Final = {
    SessionStatus.RUNNING: "hourglass_flowing_sand",
    SessionStatus.SUCCEEDED: "white_check_mark",
    SessionStatus.FAILED: "x",
    SessionStatus.UNKNOWN: "grey_question",
}


# Numbers are formatted with `%` rather than format specs in f-strings: compiled, a spec goes
# through `str.format` of a nested template, which costs nearly twice as much. Both round the
# same way (`%.1f` and `:.1f` are the same C conversion).


def duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 10:
        return "%.1fs" % seconds  # noqa: UP031 (see above)
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes}m"
    if minutes:
        return "%dm %02ds" % (minutes, secs)  # noqa: UP031 (see above)
    return f"{secs}s"


def cost(usd: float | None) -> str:
    if usd is None:
        return ""
    return "$%.4f" % usd if usd < 0.01 else f"${usd:,.2f}"  # noqa: UP031 (see above)


def count(n: int | None) -> str:
    if n is None:
        return ""
    if n >= 1_000_000:
        return "%.1fM" % (n / 1_000_000)
    if n >= 10_000:
        return "%.0fk" % (n / 1000)
    if n >= 1000:
        return "%.1fk" % (n / 1000)
    return str(n)


def slack_date(at: datetime) -> str:
    """Slack's date formatting, shown in each reader's own time zone (with a UTC fallback)."""
    year = at.year
    if year >= 1000:  # what strftime writes, at a fraction of its cost
        fields = (year, at.month, at.day, at.hour, at.minute)
        fallback = "%d-%02d-%02d %02d:%02d UTC" % fields  # noqa: UP031 (see above)
    else:
        fallback = at.strftime("%Y-%m-%d %H:%M UTC")
    return f"<!date^{int(at.timestamp())}^{{date_short_pretty}} {{time}}|{fallback}>"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
