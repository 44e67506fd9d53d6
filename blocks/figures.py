"""How numbers, times and states read in a message."""

from __future__ import annotations

from datetime import datetime
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


def duration(seconds: float | None) -> str:
    """``2.5s``, ``1m 05s``, ``2h 2m``; a time shorter than its tenth would read as none
    (``0.0s``) reads ``under 0.1s`` (no ``<``: mrkdwn would read it as markup)."""
    if seconds is None:
        return ""
    if 0 < seconds < 0.05:
        return "under 0.1s"
    if seconds < 10:
        return f"{seconds:.1f}s"
    hours, rest = divmod(round(seconds), 3600)
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
