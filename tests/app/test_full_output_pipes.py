"""Full output for what has no log file of its own to read again, or is replayed: the output
``slacktail run`` reads from its agent (a pipe), standard input piped to ``follow -`` (spooled
for a real workspace; copied on the embedded local Slack, which keeps no state on disk), and
``follow --replay-speed``. In each, the tool call whose output was cut shows the button (the
short one shows none), and a click opens a modal with the whole output, redacted, page by page.
A pipe's copy in the state directory is redacted and removed when the run ends."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

import bot.commands
from bot.app.running import Receiving
from bot.cli import main
from bot.commands import Slack
from bot.config import load_settings
from bot.controls import FULL_OUTPUT, FULL_OUTPUT_NEXT
from bot.delivery import SlackApi
from bot.localslack import LocalSlack
from bot.localslack.model import HUMAN_USER_ID
from bot.pipe_copies import copy_pipes
from bot.sources.stream import StreamReader
from tests.conftest import wait_until
from tests.test_outputs import SECRET, claude_stream, long_output

TOKEN = "xoxb-full-output-pipes-7c1d"
APP_TOKEN = "xapp-1-A0LOCALAPP-1-full-output-pipes"
ROOT = Path(__file__).parents[2]
WAIT_S = 30.0
REDACTED = "[redacted:github-token]"
# A test agent: writes the log it is given (argv[1]) to stdout, then runs until argv[2] exists.
AGENT = """
import sys, time
from pathlib import Path
sys.stdout.buffer.write(Path(sys.argv[1]).read_bytes())
sys.stdout.flush()
while not Path(sys.argv[2]).exists():
    time.sleep(0.05)
"""


@pytest.fixture
def slack() -> Iterator[LocalSlack]:
    with LocalSlack(token=TOKEN, rate_limits=False) as server:
        server.configure_app(app_token=APP_TOKEN)
        yield server


def slacktail(
    slack: LocalSlack, tmp_path: Path, *args: str, stdin: int | None = None
) -> subprocess.Popen[bytes]:
    """``slacktail ARGS`` posting to ``slack`` as a workspace, its app on Socket Mode."""
    env = {**os.environ, "SLACK_BOT_TOKEN": TOKEN, "SLACK_APP_TOKEN": APP_TOKEN,
           "SLACK_API_URL": slack.base_url, "SLACKTAIL_CHANNEL": "agents",
           "SLACKTAIL_ALLOW_USERS": HUMAN_USER_ID, "SLACKTAIL_STATE_DIR": str(tmp_path / "state"),
           "PYTHONPATH": str(ROOT)}  # fmt: skip
    stderr = (tmp_path / "stderr").open("ab")
    return subprocess.Popen([sys.executable, "-m", "bot.cli", *args], env=env, cwd=ROOT,
                            stdin=stdin, stdout=subprocess.DEVNULL, stderr=stderr)  # fmt: skip


def the_log(tmp_path: Path) -> Path:
    """A Claude Code stream: a Bash call with 400 lines of output (a secret on line 7), and
    one with a short output."""
    log = tmp_path / "agent.jsonl"
    log.write_bytes(claude_stream(long_output()))
    return log


def buttons(slack: LocalSlack) -> list[str]:
    """The ts of each reply carrying a Full output button."""
    found = []
    for root in slack.channel_messages():
        for message in slack.thread(slack.channel_id(), str(root["ts"])):
            if FULL_OUTPUT in orjson.dumps(message.get("blocks", [])).decode():
                found.append(str(message["ts"]))
    return found


def modal_text(slack: LocalSlack) -> str:
    return orjson.dumps(slack.modal() or {}).decode()


def whole_output_shown(slack: LocalSlack) -> None:
    """The app connects, one button shows; a click opens the modal at the output's first
    page, redacted, and Next turns the pages to its last line."""
    assert slack.wait_for(lambda: slack.socket_mode.connections >= 1, WAIT_S)
    assert slack.wait_for(lambda: len(buttons(slack)) == 1, WAIT_S), "no Full output button"
    (ts,) = buttons(slack)
    assert slack.click(slack.channel_id(), ts, FULL_OUTPUT).acked
    assert slack.wait_for(lambda: "row 0001" in modal_text(slack), WAIT_S), modal_text(slack)
    seen = modal_text(slack)
    assert SECRET not in seen and REDACTED in seen
    for _ in range(30):
        if "row 0400" in seen:
            break
        assert slack.click_view(FULL_OUTPUT_NEXT).acked
        assert slack.wait_for(lambda: modal_text(slack) != seen, WAIT_S)  # noqa: B023
        seen = modal_text(slack)
    assert "row 0400" in seen


def ended(process: subprocess.Popen[bytes]) -> int:
    try:
        return process.wait(WAIT_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def test_runs_own_agent_output_opens_whole_and_its_copy_is_redacted_then_removed(
    slack: LocalSlack, tmp_path: Path
) -> None:
    done = tmp_path / "done"
    run = slacktail(slack, tmp_path, "run", "--", sys.executable, "-c", AGENT,
                    str(the_log(tmp_path)), str(done))  # fmt: skip
    spool = tmp_path / "state" / "spool"
    try:
        whole_output_shown(slack)
        (copy,) = spool.glob("copy-*.jsonl")
        assert oct(copy.stat().st_mode & 0o777) == "0o600"
        kept = copy.read_bytes()
        assert SECRET.encode() not in kept and REDACTED.encode() in kept
        assert kept.count(b"\n") == claude_stream(long_output()).count(b"\n")
    finally:
        done.touch()
        assert ended(run) == 0
    assert list(spool.glob("copy-*")) == []


def test_stdin_piped_to_follow_opens_whole(slack: LocalSlack, tmp_path: Path) -> None:
    follow = slacktail(slack, tmp_path, "follow", "-", stdin=subprocess.PIPE)
    assert follow.stdin is not None
    try:
        follow.stdin.write(the_log(tmp_path).read_bytes())
        follow.stdin.flush()
        whole_output_shown(slack)
        (spooled,) = (tmp_path / "state" / "spool").glob("stdin-*.jsonl")
        assert SECRET.encode() not in spooled.read_bytes()  # spooled redacted
    finally:
        follow.stdin.close()  # the input ends: follow ends
        assert ended(follow) == 0


def test_a_replayed_log_opens_whole(slack: LocalSlack, tmp_path: Path) -> None:
    follow = slacktail(slack, tmp_path, "follow", "--replay-speed", "5", str(the_log(tmp_path)))
    try:
        whole_output_shown(slack)
    finally:
        follow.terminate()
        ended(follow)


def test_stdin_on_the_embedded_local_slack_opens_whole_from_its_copy(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    started: list[LocalSlack] = []

    def start_local_slack(token: str, port: int) -> LocalSlack:
        local = LocalSlack(token=token, port=port, rate_limits=False)
        local.start()
        started.append(local)
        return local

    monkeypatch.setattr(bot.commands, "start_local_slack", start_local_slack)
    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACKTAIL_STATE_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    read_end, write_end = os.pipe()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(os.fdopen(read_end, "rb")))
    codes: list[int] = []
    follow = threading.Thread(target=lambda: codes.append(main(["follow", "-"])), daemon=True)
    follow.start()
    try:
        assert wait_until(lambda: bool(started), WAIT_S)
        os.write(write_end, the_log(tmp_path).read_bytes())
        whole_output_shown(started[0])
        (copy,) = (tmp_path / "xdg" / "slacktail" / "spool").glob("copy-stdin-*.jsonl")
        assert SECRET.encode() not in copy.read_bytes()
    finally:
        os.close(write_end)
        follow.join(WAIT_S)
    assert codes == [0]
    assert list((tmp_path / "xdg" / "slacktail" / "spool").glob("copy-*")) == []


def test_a_state_directory_that_cannot_hold_a_copy_is_said_and_reading_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_bytes(b"")
    settings = load_settings({"state_dir": str(blocked)})
    slack = Slack(SlackApi("xoxb-unused", "http://127.0.0.1:9/api/"), "C1",
                  receiving=Receiving(APP_TOKEN))  # fmt: skip
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as stream:
        reader = StreamReader(stream, name="stdin")
        assert copy_pipes(settings, slack, [reader]) == []
        assert reader.copy is None
        os.close(write_end)
    assert "cannot keep a copy of what stdin writes there" in capsys.readouterr().err
