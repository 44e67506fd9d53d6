from datetime import UTC, datetime

from blocks.approval import ApprovalView, approval_message
from bot.controls import APPROVE, DENY, button_value, read_value

VALUE = button_value("s-1", request="r1")


def test_a_waiting_request_shows_the_tool_its_summary_and_approve_and_deny() -> None:
    message = approval_message(ApprovalView("r1", "Bash", "rm -rf build", 300), VALUE)
    head, actions = message.blocks
    assert "`Bash`" in head["text"]["text"] and "rm -rf build" in head["text"]["text"]
    buttons = actions["elements"]
    assert [b["action_id"] for b in buttons] == [APPROVE, DENY]
    assert [read_value(b["value"]) for b in buttons] == [("s-1", {"request": "r1"})] * 2
    assert message.key == "approval:r1" and not message.final


def test_a_decided_request_shows_who_decided_and_when_and_no_buttons() -> None:
    at = datetime(2026, 1, 1, 10, 21, 5, tzinfo=UTC)
    view = ApprovalView("r1", "Bash", "ls", 300, "allow", "U0LOCALUSR", at)
    message = approval_message(view, VALUE)
    assert [b["type"] for b in message.blocks] == ["section", "context"]
    said = message.blocks[1]["elements"][0]["text"]
    assert said == "✅ Approved by <@U0LOCALUSR> at 10:21:05 UTC" and message.final


def test_a_request_with_no_answer_in_time_shows_it_was_denied() -> None:
    view = ApprovalView("r1", "Bash", "ls", 300, "timeout")
    said = approval_message(view, VALUE).blocks[1]["elements"][0]["text"]
    assert said == "⌛ Denied: no answer in 5 min"


def test_the_summary_is_escaped_and_cut() -> None:
    view = ApprovalView("r1", "Bash", "echo <!channel> " + "x" * 2000, 300)
    text = approval_message(view, VALUE).blocks[0]["text"]["text"]
    assert "<!channel>" not in text and "&lt;!channel&gt;" in text and len(text) < 700
