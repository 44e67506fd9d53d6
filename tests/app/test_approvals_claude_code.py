"""`slacktail approvals` driven with the very messages Claude Code sends its permission prompt
tool: ``tests/fixtures/claude_code_permission_prompt.jsonl`` is what the real ``claude``
2.1.328 (npm @anthropic-ai/claude-code) wrote to the server's stdin, run as the README says
(``claude -p … --output-format stream-json --verbose --mcp-config slacktail-mcp.json
--permission-prompt-tool mcp__slacktail__approve``) against a stand-in Messages API that asked
for ``Bash`` ``touch created-by-bash.txt``. The server answers every message, lists its
``approve`` tool, and answers the ``tools/call`` with the text Claude Code reads: with that
capture, ``{"behavior":"allow","updatedInput":…}`` let the command run (the file was made) and
``{"behavior":"deny","message":…}`` was shown to the model as the tool's error and listed in
the result's ``permission_denials``."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest

from bot.app.approval_server import SERVER, TOOL
from bot.app.desk import ALLOW, DENY, Desk
from tests.conftest import FIXTURES, wait_until

pytest.importorskip("mcp", reason="slacktail approvals needs the mcp package (pip install mcp)")

ROOT = Path(__file__).resolve().parents[2]
SENT = [orjson.loads(line) for line in
        (FIXTURES / "claude_code_permission_prompt.jsonl").read_bytes().splitlines()]  # fmt: skip
CALL = next(message for message in SENT if message.get("method") == "tools/call")
WAIT_S = 20.0


class Server:
    """``slacktail approvals`` on pipes, its stdout read line by line on a thread."""

    def __init__(self, state: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "SLACKTAIL_COMPILE": "0"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "approvals", "--state-dir", str(state)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
        )  # fmt: skip
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send_all(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"".join(orjson.dumps(message) + b"\n" for message in SENT))
        self.process.stdin.flush()

    def answer_to(self, message_id: object) -> dict[str, Any]:
        while True:
            answer = orjson.loads(self.lines.get(timeout=WAIT_S))
            if answer.get("id") == message_id:
                return dict(answer)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(WAIT_S)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()


def decided(state: Path, decision: str) -> dict[str, Any]:
    """Claude Code's messages sent; its request decided on the desk; the answer to its call."""
    server = Server(state)
    try:
        server.send_all()
        desk = Desk.open(state)
        assert wait_until(lambda: bool(desk.changed_since(0)), WAIT_S)
        (request,) = desk.changed_since(0)
        assert (request.tool, request.tool_use_id) == ("Bash", "toolu_fake_1")
        desk.decide(request.id, decision, by="U0TESTER")
        desk.close()
        return server.answer_to(CALL["id"])
    finally:
        server.close()


def text_of(answer: dict[str, Any]) -> dict[str, Any]:
    (content,) = answer["result"]["content"]
    assert content["type"] == "text" and not answer["result"].get("isError")
    return dict(orjson.loads(content["text"]))


def test_claude_code_calls_our_tool_by_the_readmes_name_with_what_the_server_takes() -> None:
    assert CALL["params"]["name"] == TOOL and SERVER == "slacktail"
    assert set(CALL["params"]["arguments"]) == {"tool_name", "input", "tool_use_id"}


def test_the_server_lists_the_tool_claude_code_asks_for(tmp_path: Path) -> None:
    server = Server(tmp_path)
    try:
        server.send_all()
        listed = next(message for message in SENT if message.get("method") == "tools/list")
        (tool,) = server.answer_to(listed["id"])["result"]["tools"]
        assert tool["name"] == TOOL
        assert {"tool_name", "input"} <= set(tool["inputSchema"]["required"])
    finally:
        server.close()


def test_an_approval_answers_claude_codes_call_with_allow_and_its_input(tmp_path: Path) -> None:
    answer = text_of(decided(tmp_path, ALLOW))
    assert answer == {"behavior": "allow", "updatedInput": CALL["params"]["arguments"]["input"]}


def test_a_denial_answers_claude_codes_call_with_deny_and_who(tmp_path: Path) -> None:
    denied = {"behavior": "deny", "message": "Denied in Slack by U0TESTER."}
    assert text_of(decided(tmp_path, DENY)) == denied
