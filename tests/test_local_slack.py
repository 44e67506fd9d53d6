"""The local Slack that slacktail starts with no token: it stays up after the work until Ctrl-C
on a terminal (saying so), stops with slacktail in a script (saying so), makes the channel
asked for, and its page says what the status emoji mean."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from blocks.legend import status_legend
from bot.cli import main
from bot.commands import Slack
from bot.delivery import SlackApi
from bot.local_slack import local_channel
from bot.localslack import LocalSlack
from tests.conftest import FIXTURES, ROOT, WORKSPACE_SCALE

LOG = FIXTURES / "preview_mentions.jsonl"
KEEPS_SERVING = b"until you press Ctrl-C"


def _agent_script() -> str:
    return f"import sys\nsys.stdout.write(open({str(LOG)!r}).read())\n"


COMMANDS = {
    "follow --once": (["follow", "--once", str(LOG)], None),
    "follow - (standard input)": (["follow", "-"], LOG),
    "run": (["run", "--", sys.executable, "-c", _agent_script()], None),
}


def _read_until(fd: int, wanted: bytes, timeout: float = 60.0) -> bytes:
    said, deadline = b"", time.monotonic() + timeout
    while wanted not in said and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            try:
                said += os.read(fd, 65536)
            except OSError:  # the other end closed: slacktail exited
                break
    return said


def _state(page_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(page_url + "_state", timeout=10) as answer:
        state: dict[str, Any] = json.load(answer)
        return state


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_on_a_terminal_the_local_slack_stays_up_after_the_work_until_ctrl_c(
    command: str, tmp_path: Path
) -> None:
    args, stdin_file = COMMANDS[command]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SLACKTAIL_RATE_SCALE": str(WORKSPACE_SCALE)}
    env.pop("SLACK_BOT_TOKEN", None)
    leader, terminal = pty.openpty()
    with open(stdin_file or os.devnull, "rb") as stdin:
        process = subprocess.Popen([sys.executable, "-m", "bot.cli", *args], stdin=stdin,
                                   stdout=subprocess.DEVNULL, stderr=terminal, env=env,
                                   cwd=tmp_path)  # fmt: skip
    os.close(terminal)
    try:
        said = _read_until(leader, KEEPS_SERVING)
        assert KEEPS_SERVING in said, said.decode(errors="replace")
        url = re.search(rb"keeps serving at (http://127\.0\.0\.1:\d+/)", said)
        assert url is not None
        state = _state(url.group(1).decode())
        (agents,) = state["channels"]
        assert len(agents["messages"]) == 1  # the session's thread, there to be read
        assert state["legend"] == [list(row) for row in status_legend()]
        assert process.poll() is None  # still serving
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(leader)


def test_in_a_script_it_stops_with_slacktail_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    monkeypatch.setenv("SLACKTAIL_RATE_SCALE", str(WORKSPACE_SCALE))
    assert main(["follow", "--once", str(LOG)]) == 0
    err = capsys.readouterr().err
    assert "slacktail: done; the local Slack stops with slacktail (run on a terminal, it stays " \
        "up until Ctrl-C)\n" in err


def test_work_stopped_by_ctrl_c_does_not_keep_the_local_slack_up(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("bot.commands.stays_up", lambda: True)
    with LocalSlack() as local:
        slack = Slack(SlackApi(local.token, local.base_url), "C0LOCAL0001", local)
        slack.work_done(interrupted=True)
        assert not slack.keep_serving
        slack.work_done(interrupted=False)
        assert slack.keep_serving
    assert capsys.readouterr().err == ""


def test_the_channel_asked_for_is_made_in_the_local_slack() -> None:
    with LocalSlack() as local:
        api = SlackApi(local.token, local.base_url)
        made = local_channel(local, api, "#builds")
        assert made == local.channel_id("builds") != local.channel_id("agents")
        assert local_channel(local, api, "agents") == local.channel_id("agents")
        assert local_channel(local, api, made) == made
