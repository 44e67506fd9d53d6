"""`slacktail approvals` as Claude Code sees it: a real subprocess, driven by the mcp SDK's own
stdio client; the decisions made on the desk, as the control makes them."""

from __future__ import annotations

import time
from pathlib import Path

from bot.app.desk import ALLOW, DENY, Desk, Request

from .mcp_client import WAIT_S, approval_client


def request_on(desk: Desk) -> Request:
    """The request the server wrote (waits for it)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        found = desk.changed_since(0)
        if found:
            return found[-1]
        time.sleep(0.02)
    raise AssertionError("no request came")


def test_the_server_offers_one_tool_taking_what_claude_code_sends(tmp_path: Path) -> None:
    with approval_client(tmp_path) as client:
        (tool,) = client.tools()
    assert tool.name == "approve"
    properties = tool.input_schema["properties"]
    assert set(properties) == {"tool_name", "input", "tool_use_id"}
    assert set(tool.input_schema["required"]) == {"tool_name", "input"}


def test_an_approved_request_lets_the_call_run_with_its_input(tmp_path: Path) -> None:
    with approval_client(tmp_path) as client:
        answer = client.ask("Bash", {"command": "make test"}, "toolu_1")
        desk = Desk.open(tmp_path)
        request = request_on(desk)
        assert (request.tool, request.summary, request.tool_use_id) == (
            "Bash", "make test", "toolu_1")  # fmt: skip
        assert not answer.done()  # it waits for a person
        assert desk.decide(request.id, ALLOW, by="U0LOCALUSR")
        assert answer.result(WAIT_S) == {"behavior": "allow",
                                         "updatedInput": {"command": "make test"}}  # fmt: skip


def test_a_denied_request_tells_the_agent_who_denied_it(tmp_path: Path) -> None:
    with approval_client(tmp_path) as client:
        answer = client.ask("Write", {"file_path": "/etc/hosts", "content": "x"})
        desk = Desk.open(tmp_path)
        request = request_on(desk)
        assert request.summary == "/etc/hosts" and request.tool_use_id is None
        assert desk.decide(request.id, DENY, by="U0LOCALUSR")
        assert answer.result(WAIT_S) == {"behavior": "deny",
                                         "message": "Denied in Slack by U0LOCALUSR."}  # fmt: skip


def test_no_answer_within_the_timeout_denies(tmp_path: Path) -> None:
    with approval_client(tmp_path, "--approval-timeout", "0.5s") as client:
        answer = client.ask("Bash", {"command": "rm -rf /"}, "toolu_2").result(WAIT_S)
    assert answer["behavior"] == "deny" and "No answer in Slack" in answer["message"]
    (request,) = Desk.open(tmp_path).changed_since(0)
    assert request.decision == "timeout"


def test_a_secret_in_the_input_is_not_written_on_the_desk(tmp_path: Path) -> None:
    token = "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx"
    with approval_client(tmp_path, "--approval-timeout", "0.2s") as client:
        client.ask("Bash", {"command": f"curl -H 'Authorization: Bearer {token}'"}).result(WAIT_S)
    (request,) = Desk.open(tmp_path).changed_since(0)
    assert token not in request.summary and "curl" in request.summary
