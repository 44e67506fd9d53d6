"""What each status emoji means, read from the tables the messages are written from
(``blocks.figures``): the README's legend and the local Slack's page show these rows, so they
stay in step with what the threads show."""

from __future__ import annotations

from typing import Final

from blocks.figures import SESSION_EMOJI, SESSION_WORD, TOOL_EMOJI
from bot.session import ToolStatus

TOOL_WORD: Final = {
    ToolStatus.PENDING: "waiting to start",
    ToolStatus.RUNNING: "running",
    ToolStatus.OK: "succeeded",
    ToolStatus.ERROR: "failed",
    ToolStatus.INTERRUPTED: "interrupted (its session stopped first)",
    ToolStatus.ORPHANED: "no result came (orphaned)",
}


def status_legend() -> list[tuple[str, str]]:
    """``(emoji, meaning)`` rows: a session's (its root's status line and reaction), then a
    tool call's."""
    rows = [
        (emoji, "session: " + SESSION_WORD.get(status, status.value).lower())
        for status, emoji in SESSION_EMOJI.items()
    ]
    rows.extend(
        (emoji, "tool call: " + TOOL_WORD.get(status, status.value))
        for status, emoji in TOOL_EMOJI.items()
    )
    return rows
