"""How numbers, times and states read in a message."""

from __future__ import annotations

from datetime import datetime

from bot.session import SessionStatus, ToolStatus

TOOL_EMOJI = {
    ToolStatus.PENDING: "🕓",
    ToolStatus.RUNNING: "⏳",
    ToolStatus.OK: "✅",
    ToolStatus.ERROR: "❌",
    ToolStatus.INTERRUPTED: "⏹️",
    ToolStatus.ORPHANED: "⌛",
}

SESSION_EMOJI = {
    SessionStatus.RUNNING: "⏳",
    SessionStatus.SUCCEEDED: "✅",
    SessionStatus.FAILED: "❌",
    SessionStatus.UNKNOWN: "⏸️",
}

SESSION_WORD = {
    SessionStatus.RUNNING: "Running",
    SessionStatus.SUCCEEDED: "Succeeded",
    SessionStatus.FAILED: "Failed",
    SessionStatus.UNKNOWN: "No result recorded",
}

# Reaction names (not Unicode) for the root message, used by delivery.
SESSION_REACTION = {
    SessionStatus.RUNNING: "hourglass_flowing_sand",
    SessionStatus.SUCCEEDED: "white_check_mark",
    SessionStatus.FAILED: "x",
    SessionStatus.UNKNOWN: "grey_question",
}


def duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 10:
        return f"{seconds:.1f}s"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes}m"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{secs}s"


def cost(usd: float | None) -> str:
    if usd is None:
        return ""
    return f"${usd:.4f}" if usd < 0.01 else f"${usd:,.2f}"


def count(n: int | None) -> str:
    if n is None:
        return ""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(n)


def slack_date(at: datetime) -> str:
    """Slack's date formatting, shown in each reader's own time zone (with a UTC fallback)."""
    fallback = at.strftime("%Y-%m-%d %H:%M UTC")
    return f"<!date^{int(at.timestamp())}^{{date_short_pretty}} {{time}}|{fallback}>"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
