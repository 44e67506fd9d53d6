"""`slacktail follow` with the app: the controls its messages carry are carried out by the
follower's own app (a real `slacktail follow` process against the local Slack over Socket
Mode): Full output opens the call's whole output, and its modal turns pages."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from bot.controls import FULL_OUTPUT, FULL_OUTPUT_NEXT
from bot.localslack import LocalSlack
from bot.localslack.model import HUMAN_USER_ID

TOKEN = "xoxb-follow-controls-test-4d2e"
APP_TOKEN = "xapp-1-A0LOCALAPP-1-follow-controls"
ROOT = Path(__file__).parents[2]
WAIT_S = 20.0
SID = "follow-controls-1"
OUTPUT = "\n".join(f"line {n:05d} of the test output" for n in range(1, 2001))


def log_lines() -> bytes:
    lines = [
        {"type": "system", "subtype": "init", "session_id": SID, "cwd": "/w", "model": "m"},
        {"type": "assistant", "session_id": SID, "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "Bash",
             "input": {"command": "seq 2000"}}]}},
        {"type": "user", "session_id": SID, "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": OUTPUT}]}},
        {"type": "result", "subtype": "success", "session_id": SID, "is_error": False,
         "result": "done", "duration_ms": 1000, "num_turns": 1},
    ]  # fmt: skip
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


@pytest.fixture
def slack() -> Iterator[LocalSlack]:
    with LocalSlack(token=TOKEN, rate_limits=False) as server:
        server.configure_app(app_token=APP_TOKEN)
        yield server


def button_message(slack: LocalSlack, action_id: str) -> str | None:
    """The ts of the reply carrying the control ``action_id``."""
    for root in slack.channel_messages():
        for message in slack.thread(slack.channel_id(), str(root["ts"])):
            if action_id in orjson.dumps(message.get("blocks", [])).decode():
                return str(message["ts"])
    return None


def modal_text(slack: LocalSlack) -> str:
    return orjson.dumps(slack.modal() or {}).decode()


def test_full_output_clicked_in_a_followed_thread_opens_the_whole_output_page_by_page(
    slack: LocalSlack, tmp_path: Path
) -> None:
    log = tmp_path / "agent.jsonl"
    log.write_bytes(log_lines())
    env = {**os.environ, "SLACK_BOT_TOKEN": TOKEN, "SLACK_APP_TOKEN": APP_TOKEN,
           "SLACK_API_URL": slack.base_url, "SLACKTAIL_CHANNEL": "agents",
           "SLACKTAIL_ALLOW_USERS": HUMAN_USER_ID, "SLACKTAIL_STATE_DIR": str(tmp_path / "state"),
           "PYTHONPATH": str(ROOT)}  # fmt: skip
    command = [sys.executable, "-m", "bot.cli", "follow", str(log)]
    follow = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)  # fmt: skip
    try:
        assert slack.wait_for(lambda: slack.socket_mode.connections == 1, WAIT_S)
        assert slack.wait_for(lambda: button_message(slack, FULL_OUTPUT) is not None, WAIT_S)
        ts = button_message(slack, FULL_OUTPUT)
        assert ts is not None
        assert slack.click(slack.channel_id(), ts, FULL_OUTPUT).acked
        assert slack.wait_for(lambda: "line 00001 of" in modal_text(slack), WAIT_S)
        assert "line 02000 of" not in modal_text(slack)  # the rest is on later pages
        seen = modal_text(slack)
        while "line 02000 of" not in seen:
            assert slack.click_view(FULL_OUTPUT_NEXT).acked
            assert slack.wait_for(lambda: modal_text(slack) != seen, WAIT_S)  # noqa: B023
            seen = modal_text(slack)
    finally:
        follow.terminate()
        follow.wait(10)
