"""The follow and run commands end to end, against a local Slack, as a user runs them."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from bot.cli import main
from bot.localslack import LocalSlack
from tests.conftest import FIXTURES

TOKEN = "xoxb-commands-test"
LOG = str(FIXTURES / "preview_mentions.jsonl")
SCALE = 40.0


@pytest.fixture
def slack(monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalSlack]:
    with LocalSlack(token=TOKEN, scale=SCALE) as server:
        monkeypatch.setenv("SLACK_BOT_TOKEN", TOKEN)
        monkeypatch.setenv("SLACK_API_URL", server.base_url)
        monkeypatch.setenv("SLACKTAIL_RATE_SCALE", str(SCALE))
        monkeypatch.delenv("SLACKTAIL_CHANNEL", raising=False)
        yield server


def thread_texts(slack: LocalSlack) -> list[list[str]]:
    channel = slack.channel_id()
    return [[m["text"] for m in slack.thread(channel, r["ts"])] for r in slack.channel_messages()]


def test_follow_once_delivers_the_final_thread_and_exits(slack: LocalSlack) -> None:
    log = FIXTURES / "preview_mentions.jsonl"
    assert main(["follow", "--once", "--channel", "agents", str(log)]) == 0
    (thread,) = thread_texts(slack)
    assert thread[0] == "Claude Code session mention-test: succeeded"
    assert thread[-1].startswith("Session succeeded")
    assert slack.answered_429 == 0


def test_follow_reads_standard_input(
    slack: LocalSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = (FIXTURES / "preview_mentions.jsonl").read_bytes()
    read_end = _pipe_with(data)
    monkeypatch.setattr(sys, "stdin", read_end)
    assert main(["follow", "-", "--channel", "agents"]) == 0
    assert len(thread_texts(slack)) == 1


def _pipe_with(data: bytes) -> object:
    import io
    import os

    read_fd, write_fd = os.pipe()
    os.write(write_fd, data)
    os.close(write_fd)
    return io.TextIOWrapper(os.fdopen(read_fd, "rb"))


def test_run_passes_the_agents_output_through_and_exits_with_its_code(
    slack: LocalSlack, capfd: pytest.CaptureFixture[str]
) -> None:
    lines = [orjson.loads(raw) for raw in Path(LOG).read_bytes().splitlines()]
    script = "import sys\n" + "".join(
        f"print({orjson.dumps(obj).decode()!r}, flush=True)\n" for obj in lines
    ) + "sys.exit(3)\n"
    code = main(["run", "--channel", "agents", "--", sys.executable, "-c", script])
    assert code == 3
    assert '"session_id":"mention-test"' in capfd.readouterr().out
    assert len(thread_texts(slack)) == 1


def test_a_bad_token_is_one_line_and_a_nonzero_exit(
    slack: LocalSlack, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-wrong")
    code = main(["follow", "--once", "--channel", "agents", LOG])
    err = capsys.readouterr().err
    assert code == 3
    assert "invalid_auth" in err and "SLACK_BOT_TOKEN" in err
    assert "xoxb-wrong" not in err


def test_a_missing_channel_is_one_line_and_a_nonzero_exit(
    slack: LocalSlack, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["follow", "--once", "--channel", "nowhere", LOG])
    assert code == 3
    assert "#nowhere: no such channel" in capsys.readouterr().err


def test_a_token_without_a_channel_asks_for_one(
    slack: LocalSlack, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["follow", "--once", LOG]) == 2
    assert "no channel" in capsys.readouterr().err


def test_a_missing_log_is_one_line_and_exit_2(
    slack: LocalSlack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["follow", "--once", "--channel", "agents", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_a_missing_agent_command_is_one_line_and_exit_2(
    slack: LocalSlack, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--channel", "agents", "--", "no-such-agent-xyz"]) == 2
    assert "no-such-agent-xyz" in capsys.readouterr().err
