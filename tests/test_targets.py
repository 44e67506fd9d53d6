"""What ``slacktail follow`` follows, end to end against a local Slack: a folder of session
files (subagent files included), a glob, and standard input spooled to the state directory so
that a restart resumes it."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.localslack import LocalSlack
from bot.store import default_state_dir
from tests.conftest import FIXTURES

TOKEN = "xoxb-targets-test"
SCALE = 40.0
MENTIONS = FIXTURES / "preview_mentions.jsonl"
STREAM = FIXTURES / "claude_stream_seed002.jsonl"


@pytest.fixture
def slack(monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalSlack]:
    with LocalSlack(token=TOKEN, scale=SCALE) as server:
        monkeypatch.setenv("SLACK_BOT_TOKEN", TOKEN)
        monkeypatch.setenv("SLACK_API_URL", server.base_url)
        monkeypatch.setenv("SLACKTAIL_RATE_SCALE", str(SCALE))
        monkeypatch.setenv("SLACKTAIL_CHANNEL", "agents")
        yield server


def roots(slack: LocalSlack) -> list[str]:
    return [message["text"] for message in slack.channel_messages()]


def stdin_with(data: bytes) -> io.TextIOWrapper:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, data)
    os.close(write_fd)
    return io.TextIOWrapper(os.fdopen(read_fd, "rb"))


def test_a_folder_is_followed_with_the_session_files_below_it(
    slack: LocalSlack, tmp_path: Path
) -> None:
    (tmp_path / "project" / "deep").mkdir(parents=True)
    (tmp_path / "project" / "one.jsonl").write_bytes(MENTIONS.read_bytes())
    (tmp_path / "project" / "deep" / "two.jsonl").write_bytes(STREAM.read_bytes())
    (tmp_path / "project" / "notes.txt").write_text("not a log")
    assert main(["follow", "--once", str(tmp_path / "project")]) == 0
    assert len(roots(slack)) == 2


def test_a_glob_follows_only_what_it_matches(slack: LocalSlack, tmp_path: Path) -> None:
    (tmp_path / "run-1.jsonl").write_bytes(MENTIONS.read_bytes())
    (tmp_path / "other.jsonl").write_bytes(STREAM.read_bytes())
    assert main(["follow", "--once", str(tmp_path / "run-*.jsonl")]) == 0
    assert roots(slack) == ["Claude Code session mention-test: succeeded"]


def test_standard_input_is_spooled_and_the_spool_removed_once_read(
    slack: LocalSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", stdin_with(MENTIONS.read_bytes()))
    assert main(["follow", "-"]) == 0
    assert len(roots(slack)) == 1
    spool = default_state_dir() / "spool"
    assert spool.is_dir() and list(spool.iterdir()) == []


def test_a_spool_left_by_a_killed_run_is_read_before_new_input(
    slack: LocalSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    spool = default_state_dir() / "spool"
    spool.mkdir(parents=True, mode=0o700)
    left = spool / "stdin-20261121T080000Z-1.jsonl"
    left.write_bytes(MENTIONS.read_bytes())  # spooled, never read: the run was killed
    monkeypatch.setattr(sys, "stdin", stdin_with(STREAM.read_bytes()))
    assert main(["follow", "-"]) == 0
    assert len(roots(slack)) == 2
    assert list(spool.iterdir()) == []


def test_a_folder_that_does_not_exist_in_a_glob_is_one_line_and_exit_2(
    slack: LocalSlack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["follow", "--once", str(tmp_path / "nowhere" / "*.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such folder" in err


def test_a_line_over_the_configured_size_is_counted_and_the_lines_after_it_are_read(
    slack: LocalSlack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setenv("SLACKTAIL_MAX_LINE_BYTES", "1024")
    lines = MENTIONS.read_bytes().splitlines(keepends=True)
    log = tmp_path / "agent.jsonl"
    log.write_bytes(lines[0] + b'{"huge": "' + b"x" * 5000 + b'"}\n' + b"".join(lines[1:]))
    assert main(["follow", "--once", str(log)]) == 0
    assert roots(slack) == ["Claude Code session mention-test: succeeded"]
    err = capsys.readouterr().err
    assert '"event":"long_line"' in err and '"bytes":5012' in err
