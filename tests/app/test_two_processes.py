"""Two ``slacktail run`` processes share one app (and a state directory): the local Slack
gives clicks to their Socket Mode connections in turn, as Slack spreads them, so a click for
B's session reaches A, which hands it to B over B's socket; B stops its agent."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.controls import STOP
from bot.localslack import LocalSlack
from bot.localslack.model import HUMAN_USER_ID

TOKEN = "xoxb-two-processes-test-81c4"
APP_TOKEN = "xapp-1-A0LOCALAPP-1-two-processes"
AGENT = Path(__file__).parents[1] / "fixtures" / "stubborn_agent.py"
ROOT = Path(__file__).parents[2]
WAIT_S = 20.0


@pytest.fixture
def slack() -> Iterator[LocalSlack]:
    with LocalSlack(token=TOKEN, rate_limits=False) as server:
        server.configure_app(app_token=APP_TOKEN)
        server.create_channel("agents-b")
        yield server


def slacktail_run(slack: LocalSlack, channel: str, marker: Path, session: str,
                  state: Path) -> subprocess.Popen[bytes]:  # fmt: skip
    env = {**os.environ, "SLACK_BOT_TOKEN": TOKEN, "SLACK_APP_TOKEN": APP_TOKEN,
           "SLACK_API_URL": slack.base_url, "SLACKTAIL_CHANNEL": channel,
           "SLACKTAIL_ALLOW_USERS": HUMAN_USER_ID, "SLACKTAIL_STATE_DIR": str(state),
           "PYTHONPATH": str(ROOT)}  # fmt: skip
    command = [sys.executable, "-m", "bot.cli", "run", "--",
               sys.executable, str(AGENT), str(marker), "obey", session]  # fmt: skip
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)  # fmt: skip


def root_with_stop(slack: LocalSlack, channel: str) -> str | None:
    for message in slack.channel_messages(channel):
        if any(block.get("type") == "actions" for block in message.get("blocks", [])):
            return str(message["ts"])
    return None


def test_a_click_reaching_the_process_that_does_not_follow_its_session_is_handed_over(
    slack: LocalSlack, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    marker_a, marker_b = tmp_path / "a", tmp_path / "b"
    a = slacktail_run(slack, "agents", marker_a, "session-a", state)
    b = None
    try:
        assert slack.wait_for(lambda: slack.socket_mode.connections == 1, WAIT_S)
        b = slacktail_run(slack, "agents-b", marker_b, "session-b", state)
        assert slack.wait_for(lambda: slack.socket_mode.connections == 2, WAIT_S)
        both = ("agents", "agents-b")
        assert slack.wait_for(lambda: all(root_with_stop(slack, c) for c in both), WAIT_S)
        a_ts, b_ts = root_with_stop(slack, "agents"), root_with_stop(slack, "agents-b")
        assert a_ts is not None and b_ts is not None
        # Clicks go to the connections in turn, A's (the first) first: B's Stop reaches A.
        assert slack.click("agents-b", b_ts, STOP).acked
        assert b.wait(WAIT_S) == 130 and a.poll() is None
        assert slack.click("agents", a_ts, STOP).acked  # B has exited: A alone is connected
        assert a.wait(WAIT_S) == 130
        assert marker_a.read_text().split() == marker_b.read_text().split() == ["SIGINT"]
        said = lambda: [str(m.get("text")) for m in slack.thread("agents-b", b_ts)]  # noqa: E731
        assert slack.wait_for(lambda: any("Stop asked by" in text for text in said()), WAIT_S)
    finally:
        for run in (a, b):
            if run is not None and run.poll() is None:
                run.kill()
                run.wait(10)
    said_a = a.stderr.read().decode() if a.stderr else ""
    said_b = b.stderr.read().decode() if b is not None and b.stderr else ""
    assert '"session":"session-b"' in said_a  # A received B's click
    assert '"agent_signalled"' in said_b and '"agent_signalled"' in said_a  # each stopped its own
