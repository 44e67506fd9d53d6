"""A tool group's message made of what the session keeps of a successful call's output (the
start of its one line, ``one_line_start``) is the message made of the readable start it kept
before: the same note, the same Full output button, on each side of the line's length."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from blocks.thread import thread_messages
from blocks.tools import result_note
from bot.caps import OK_PREVIEW_LIMIT, RESULT_PREVIEW
from bot.preview import build_preview
from bot.records import Origin, SessionStarted, ToolCall, ToolResult
from bot.session import Session
from bot.session.settings import SessionSettings
from bot.session.tool_calls import OutputPosition, result_preview
from tests.conftest import corpus_file

AMP = "empathic__toolpath__stream.jsonl"
T0 = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)
# Pieces of output around which a line is cleaned, collapsed or cut differently: white space
# runs, a carriage return, terminal escapes, an entity to escape, wide and joined characters.
PIECES = (
    "x", "word", " ", "  ", "\n", "\n\n", "\t", "\r", "\r\n", "\x1b[31m", "\x1b[0m", "&", "<b>",
    "é", "e\u0301", "👍🏽", "🇫🇷", "\u00a0", "\u200b", "\u202e", "…", "`", "*", "a" * 40,
)  # fmt: skip


def outputs() -> list[str]:
    """Outputs on each side of the line's length (``RESULT_PREVIEW``) and of the kept start's
    (``OK_PREVIEW_LIMIT``), then random ones made of ``PIECES``."""
    found = []
    for length in range(RESULT_PREVIEW - 3, RESULT_PREVIEW + 4):
        found += ["x" * length, "x" * (length - 1) + " ", "x " * (length // 2), "x\n" * length]
        found.append("x" * (length - 2) + "  " + "y" * 5)
    for length in range(OK_PREVIEW_LIMIT - 2, OK_PREVIEW_LIMIT + 3):
        found += ["x" * length, " " * 50 + "x" * length, "x" * length + "\x1b[0m"]
    chosen = random.Random(14)
    for _ in range(400):
        found.append("".join(chosen.choice(PIECES) for _ in range(chosen.randint(1, 120))))
    return found


def session_with(output: str, name: str = "Bash") -> Session:
    session = Session("s1", SessionSettings(controls=True))
    session.apply(SessionStarted(Origin("s1", T0, 1), agent="claude-code"))
    call = ToolCall(Origin("s1", T0, 2), call_id="c1", name=name, input={"command": "make"})
    session.apply(call)
    session.apply(ToolResult(Origin("s1", T0, 3), call_id="c1", output=output))
    session.calls["c1"].output_at = OutputPosition("/l.jsonl", 3, 900, 800, "d")
    return session


@pytest.mark.parametrize("output", outputs())
def test_a_success_keeps_only_its_lines_start_and_its_message_is_the_same(output: str) -> None:
    kept = session_with(output)
    before = session_with(output)  # what the session kept before: the readable start
    before.calls["c1"].output = result_preview(output, OK_PREVIEW_LIMIT, failed=False)[0]
    assert len(kept.calls["c1"].output) <= len(before.calls["c1"].output)
    assert [m.payload() for m in thread_messages(kept)] == [
        m.payload() for m in thread_messages(before)
    ]


@pytest.mark.parametrize(
    ("output", "note"), [("1\n2\n3\n4\n5\n", "→ 1 2 3 4 5 _(5 lines)_"), ("done\n", "→ done")]
)
def test_a_success_line_count_note_counts_the_lines_seen_and_only_past_one(
    output: str, note: str
) -> None:
    assert result_note(session_with(output).calls["c1"]) == note


@pytest.mark.parametrize(
    ("name", "note"),
    [
        ("Task", "→ `notes.md` contains *11 words*. Done. _(2 lines)_"),  # an agent's answer: read
        ("Agent", "→ `notes.md` contains *11 words*. Done. _(2 lines)_"),
        ("Bash", "→ `notes.md` contains **11 words**. Done. _(2 lines)_"),  # a command's: as it is
    ],
)
def test_an_agents_answer_is_previewed_with_its_markdown_marks_read(name: str, note: str) -> None:
    output = "`notes.md` contains **11 words**.\nDone."
    assert result_note(session_with(output, name).calls["c1"]) == note


def test_geminis_topic_card_is_previewed_with_its_markdown_marks_read() -> None:
    card = "## 📂 Topic: **Reading M**\n\n**Summary:**\nI will read M.\n\n> **Intent:** Read M."
    assert result_note(session_with(card, "update_topic").calls["c1"]) == (
        "→ *📂 Topic: Reading M* *Summary:* I will read M. *Intent:* Read M. _(6 lines)_"
    )


@pytest.mark.parametrize(
    ("output", "line"),
    [
        ("# Plan & <notes>", "*Plan &amp; &lt;notes&gt;*"),
        ("- [docs](https://x.test/d) updated", "• <https://x.test/d|docs> updated"),
        ("```py\nprint(1)\n```", "`print(1)`"),  # a code block: inline code on one line
        ("Run:\n~~~\nmake  test\n~~~\nThen `ls`.", "Run: `make test` Then `ls`."),
        ("```\nx = `y`\n", "`x = ˋyˋ`"),  # a backtick in the code; a block never closed
        ("```py", "```py"),  # a fence's opening alone: it leaves nothing, so kept as said
        ("Done.\n\n> **Intent:** a > b", "Done. *Intent:* a &gt; b"),  # no quote mark in a line
    ],
)
def test_an_agents_answer_line_stays_escaped_and_one_line(output: str, line: str) -> None:
    assert result_note(session_with(output, "Task").calls["c1"]).split(" _(")[0] == f"→ {line}"


@pytest.mark.parametrize("output", outputs())
def test_an_agents_answer_preview_is_one_line_no_longer_than_a_commands(output: str) -> None:
    answer, command = (result_note(session_with(output, name).calls["c1"])
                       for name in ("Task", "Bash"))  # fmt: skip
    assert "\n" not in answer and "<" not in answer
    assert len(answer) <= len(command)


def test_the_amp_corpus_task_answer_is_previewed_bold_and_its_commands_as_they_are() -> None:
    (session,) = build_preview([corpus_file("amp-stream-json", AMP)]).sessions()
    notes = {call.name: result_note(call) for call in session.calls.values()}
    assert notes["Task"] == "→ `notes.md` contains *11 words*."  # said `**11 words**`
    assert notes["shell_command"] == "→ 1 2 3 4 5 _(5 lines)_"  # `bash count.sh`, the last


def test_a_success_keeps_no_more_than_its_line_needs() -> None:
    output = "\n".join(f"line {n}: ok" for n in range(100))
    assert len(session_with(output).calls["c1"].output) == RESULT_PREVIEW + 2
