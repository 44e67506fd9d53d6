"""The Full output modal: a tool's whole output in pages that each fit a view, with Previous /
Next between them; and the Full output button on a tool call whose output a message cuts, only
when the app can receive clicks."""

from __future__ import annotations

from datetime import UTC, datetime

from blocks.full_output import (
    changed_view,
    full_output_view,
    pages_of,
    reading_view,
)
from blocks.text import unescape_mrkdwn
from blocks.thread import thread_messages
from bot.caps import ERROR_PREVIEW, OUTPUT_PAGE_CHARS
from bot.controls import FULL_OUTPUT, read_value
from bot.localslack.limits import message_errors
from bot.localslack.limits_views import view_errors
from bot.records import Origin, SessionStarted, ToolCall, ToolResult
from bot.session import Session
from bot.session.settings import SessionSettings
from bot.session.tool_calls import OutputPosition

T0 = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)


def value(page: int) -> str:
    return f'{{"session":"s","call":"c","page":"{page}"}}'


def code_of(view: dict[str, object]) -> str:
    """The output a modal's code sections show, unescaped."""
    blocks = view["blocks"]
    assert isinstance(blocks, list)
    texts = [b["text"]["text"] for b in blocks if b["type"] == "section"]
    code = [t.removeprefix("```\n").removesuffix("\n```") for t in texts if t.startswith("```")]
    return unescape_mrkdwn("\n".join(code))


def buttons(view: dict[str, object]) -> list[tuple[str, str]]:
    blocks = view["blocks"]
    assert isinstance(blocks, list)
    return [(e["text"]["text"], e["value"]) for b in blocks if b["type"] == "actions"
            for e in b["elements"]]  # fmt: skip


def test_a_short_output_is_one_page_with_no_page_buttons() -> None:
    view = full_output_view("Bash", "ls", "a\nb <c> & d", 0, value)
    assert code_of(view) == "a\nb <c> & d"
    assert buttons(view) == []
    assert view_errors(view, ("modal",)) is None


def test_a_long_output_is_paged_and_its_pages_join_to_the_whole_output() -> None:
    output = "\n".join(f"line {n} " + "y" * 90 for n in range(1, 1001))
    pages = pages_of(output)
    assert len(pages) > 2 and "".join(pages) == output
    shown = []
    for page in range(len(pages)):
        view = full_output_view("Bash", "cat x", output, page, value)
        assert view_errors(view, ("modal",)) is None
        shown.append(code_of(view))
    assert "\n".join(shown) == output
    assert buttons(full_output_view("Bash", "x", output, 0, value)) == [("Next", value(1))]
    middle = buttons(full_output_view("Bash", "x", output, 1, value))
    assert middle == [("Previous", value(0)), ("Next", value(2))]
    last = buttons(full_output_view("Bash", "x", output, len(pages) - 1, value))
    assert last == [("Previous", value(len(pages) - 2))]


def test_the_worst_page_fits_a_view() -> None:
    page_chars = OUTPUT_PAGE_CHARS
    for text in ("&" * 3 * page_chars, "\U0001f600" * 3 * page_chars, "<>" * page_chars):
        for page in range(len(pages_of(text))):
            view = full_output_view("Bash", "x" * 5000, text, page, value)
            assert view_errors(view, ("modal",)) is None


def test_the_modal_counts_the_lines_a_person_sees() -> None:
    about = str(full_output_view("Bash", "seq 5", "1\n2\n3\n4\n5\n", 0, value)["blocks"])
    assert "10 characters · 5 lines" in about


def test_a_page_past_the_last_shows_the_last() -> None:
    view = full_output_view("Bash", "x", "one\ntwo", 7, value)
    assert code_of(view) == "one\ntwo"


def test_an_empty_output_says_so() -> None:
    view = full_output_view("Bash", "true", "", 0, value)
    assert "no output" in str(view["blocks"]) and view_errors(view, ("modal",)) is None


def test_a_changed_log_is_said_in_the_modal() -> None:
    view = changed_view("Bash", "ls", "the log changed since <rotated>")
    assert "changed since &lt;rotated&gt;" in str(view["blocks"])
    assert view_errors(view, ("modal",)) is None


LONG = "a line of the output\n" * 50


def session_with_call(
    output: str, controls: bool, kept: bool = True, failed: bool = False
) -> Session:
    session = Session("s1", SessionSettings(controls=controls))
    origin = Origin("s1", T0, 1)
    session.apply(SessionStarted(origin, agent="claude-code"))
    session.apply(ToolCall(Origin("s1", T0, 2), call_id="call_1", name="Bash",
                           input={"command": "cat log"}))  # fmt: skip
    session.apply(ToolResult(Origin("s1", T0, 3), call_id="call_1", output=output,
                             is_error=failed))  # fmt: skip
    if kept:
        session.calls["call_1"].output_at = OutputPosition("/l.jsonl", 3, 900, 800, "d")
    return session


def full_output_buttons(session: Session) -> list[dict[str, object]]:
    found = []
    for message in thread_messages(session):
        assert message_errors(list(message.blocks)) is None
        for block in message.blocks:
            if block["type"] == "actions":
                found.extend(e for e in block["elements"] if e["action_id"] == FULL_OUTPUT)
    return found


def test_a_cut_output_has_a_full_output_button_naming_its_session_and_call() -> None:
    [button] = full_output_buttons(session_with_call(LONG, controls=True))
    assert read_value(str(button["value"])) == ("s1", {"call": "call_1"})


def test_no_button_without_the_app() -> None:
    assert full_output_buttons(session_with_call(LONG, controls=False)) == []


def test_no_button_for_an_output_shown_whole() -> None:
    assert full_output_buttons(session_with_call("done", controls=True)) == []


def test_no_button_for_a_short_output_of_two_lines_shown_on_one() -> None:
    assert full_output_buttons(session_with_call("one\ntwo", controls=True)) == []


def test_a_success_shown_on_one_line_gets_a_button_only_past_the_lines_length() -> None:
    shown_whole = "x" * 80 + "\n" + "x" * 79  # 160 characters on one line (the newline a space)
    assert full_output_buttons(session_with_call(shown_whole, True)) == []
    assert len(full_output_buttons(session_with_call(shown_whole + "x", True))) == 1


def test_a_failure_shown_in_a_code_block_gets_a_button_only_past_the_blocks_length() -> None:
    fits = "e" * (ERROR_PREVIEW - 8)  # the block's fences and newlines take 8
    assert full_output_buttons(session_with_call(fits, True, failed=True)) == []
    assert len(full_output_buttons(session_with_call(fits + "e", True, failed=True))) == 1
    escaped = "<" * (ERROR_PREVIEW // 4)  # each `&lt;` in the block: 4 characters, cut
    assert len(full_output_buttons(session_with_call(escaped, True, failed=True))) == 1


def test_no_button_for_an_output_that_cannot_be_read_again() -> None:
    assert full_output_buttons(session_with_call(LONG, True, kept=False)) == []


def test_the_modal_while_the_log_is_read_says_so() -> None:
    view = reading_view("Bash", "cat big.log")
    assert "Reading the log" in str(view["blocks"]) and "cat big.log" in str(view["blocks"])
    assert view_errors(view, ("modal",)) is None
