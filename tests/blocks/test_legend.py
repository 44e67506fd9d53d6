"""The legend of the status emoji is read from the tables the messages are written from, and
the README shows it as it is."""

from __future__ import annotations

from blocks.figures import SESSION_EMOJI, TOOL_EMOJI
from blocks.legend import status_legend
from bot.session import SessionStatus, ToolStatus
from tests.conftest import ROOT

START, END = "<!-- status legend:", "<!-- end of status legend -->"


def test_the_legend_has_a_row_for_every_session_and_tool_call_status() -> None:
    rows = status_legend()
    assert len(rows) == len(SessionStatus) + len(ToolStatus)
    assert [emoji for emoji, _ in rows] == [*SESSION_EMOJI.values(), *TOOL_EMOJI.values()]
    assert ("✅", "session: succeeded") in rows
    assert ("⌛", "tool call: no result came (orphaned)") in rows


def test_the_readme_shows_the_legend_the_messages_are_written_from() -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index(START):readme.index(END)]
    table = [line for line in block.splitlines() if line.startswith("| ") and "---" not in line]
    assert table[1:] == [f"| {emoji} | {meaning} |" for emoji, meaning in status_legend()]
