"""What ``slacktail follow`` follows, end to end against a local Slack: a folder of session
files (subagent files included), a glob, standard input spooled to the state directory so that
a restart resumes it, and a pipe (a named pipe, ``<(cmd)``) read as a stream."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest

from bot.cli import main
from bot.delivery import Delivery, Pacing, SlackApi
from bot.follower import Follower
from bot.localslack import LocalSlack
from bot.sources.folder import FolderOptions, FolderWatch
from bot.store import default_state_dir
from tests.conftest import FIXTURES, WORKSPACE_TOKEN, corpus_file
from tests.sources.helpers import Denied

TOKEN = WORKSPACE_TOKEN
MENTIONS = FIXTURES / "preview_mentions.jsonl"
STREAM = FIXTURES / "claude_stream_seed002.jsonl"
TRAJ = FIXTURES / "swe_agent_calc_fix.traj"


@pytest.fixture
def slack(workspace: LocalSlack, monkeypatch: pytest.MonkeyPatch) -> LocalSlack:
    monkeypatch.setenv("SLACKTAIL_CHANNEL", "agents")
    return workspace


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


def test_a_folder_follows_session_documents_but_not_other_json_files(
    slack: LocalSlack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "trajectories").mkdir()
    (tmp_path / "one.jsonl").write_bytes(MENTIONS.read_bytes())
    (tmp_path / "trajectories" / "run-7.traj").write_bytes(TRAJ.read_bytes())
    (tmp_path / "settings.json").write_bytes(b'{"theme": "dark"}')
    assert main(["follow", "--once", str(tmp_path)]) == 0
    assert sorted(roots(slack)) == ["Claude Code session mention-test: succeeded",
                                    "SWE-agent session run-7: succeeded"]  # fmt: skip
    assert "settings.json" not in capsys.readouterr().err


def test_patterns_name_the_files_followed_under_a_folder(
    slack: LocalSlack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "agent.log").write_bytes(MENTIONS.read_bytes())
    (tmp_path / "other.jsonl").write_bytes(STREAM.read_bytes())
    assert main(["follow", "--once", "--pattern", "*.log", str(tmp_path)]) == 0
    assert roots(slack) == ["Claude Code session mention-test: succeeded"]
    monkeypatch.setenv("SLACKTAIL_PATTERNS", '["*.jsonl"]')
    assert main(["follow", "--once", "--state-dir", str(tmp_path / "s2"), str(tmp_path)]) == 0
    assert len(roots(slack)) == 2  # the other file too, from the environment's pattern


def test_a_document_rewritten_between_two_runs_is_updated_not_posted_again(
    slack: LocalSlack, tmp_path: Path
) -> None:
    run = orjson.loads(TRAJ.read_bytes())
    traj = tmp_path / "run-7.traj"
    early = {**run, "history": run["history"][:4], "info": {}}
    traj.write_bytes(orjson.dumps(early, option=orjson.OPT_INDENT_2))
    assert main(["follow", "--once", str(traj)]) == 0
    traj.write_bytes(TRAJ.read_bytes())  # SWE-agent went on, and wrote the whole run again
    assert main(["follow", "--once", str(traj)]) == 0
    assert roots(slack) == ["SWE-agent session run-7: succeeded"]
    (root,) = slack.channel_messages()
    thread = slack.thread(slack.channel_id(), root["ts"])
    posts = [r for r in slack.requests if r.method == "chat.postMessage" and r.error is None]
    assert len(posts) == len(thread) == 5  # root, user, text, tools, result: each posted once


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


def _transcript(**fields: object) -> bytes:
    base = {"sessionId": PARENT_SESSION, "isSidechain": False, "cwd": "/w", "version": "2.1.38",
            "timestamp": "2026-01-01T10:00:00.000Z"}  # fmt: skip
    return orjson.dumps({**base, **fields}) + b"\n"


PARENT_SESSION = "6c2214d7-b87e-4432-8e41-22ba294ea584"  # the corpus subagent file's session
TASK = "toolu_task_1"


def test_a_subagents_file_in_a_followed_folder_is_attached_to_its_task(tmp_path: Path) -> None:
    subagent = corpus_file("claude-transcript", "marot__spotter__agent-afc096d.jsonl")
    project = tmp_path / "projects" / "spotter"
    (project / PARENT_SESSION / "subagents").mkdir(parents=True)
    (project / PARENT_SESSION / "subagents" / "agent-afc096d.jsonl").write_bytes(
        subagent.read_bytes()
    )
    task = {"type": "tool_use", "id": TASK, "name": "Task",
            "input": {"description": "Explore", "prompt": "Explore the project",
                      "subagent_type": "Explore"}}  # fmt: skip
    result = {"type": "tool_result", "tool_use_id": TASK, "content": "explored"}
    (project / f"{PARENT_SESSION}.jsonl").write_bytes(
        _transcript(type="user", uuid="u1", parentUuid=None,
                    message={"role": "user", "content": "look around"})
        + _transcript(type="assistant", uuid="u2", parentUuid="u1",
                      message={"id": "m1", "role": "assistant", "content": [task]})
        + _transcript(type="user", uuid="u3", parentUuid="u2",
                      message={"role": "user", "content": [result]},
                      toolUseResult={"status": "completed", "agentId": "afc096d"})
    )  # fmt: skip
    folder = FolderWatch(str(tmp_path / "projects"), FolderOptions(stop_at_end=True))
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(),
                            pacing=Pacing(scale=100))  # fmt: skip
        follower = Follower([], delivery, folder=folder)
        follower.run()
        folder.close()
        (session,) = follower.book.sessions.values()
        under_task = [call for call in session.calls.values() if call.parent == TASK]
        assert len(under_task) >= 40  # the subagent's Read and Bash calls, under its Task
        assert len(slack.channel_messages()) == 1  # one thread: the subagent's is not its own


def test_a_file_in_a_followed_folder_it_cannot_read_is_said_and_the_rest_followed(
    slack: LocalSlack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    (tmp_path / "one.jsonl").write_bytes(MENTIONS.read_bytes())
    locked = tmp_path / "two.jsonl"
    locked.write_bytes(STREAM.read_bytes())
    Denied(monkeypatch).deny(locked)
    assert main(["follow", "--once", str(tmp_path)]) == 0  # not exit 2: systemd restarts
    assert roots(slack) == ["Claude Code session mention-test: succeeded"]
    err = capsys.readouterr().err
    assert err.count(f"slacktail: warning: {locked}: cannot read it (Permission denied)") == 1
    assert err.count('"event":"unreadable"') == 1


def test_a_process_substitution_is_read_as_a_stream(slack: LocalSlack) -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, MENTIONS.read_bytes())
    os.close(write_end)  # ``follow <(cat log)``: cat wrote and exited
    try:
        assert main(["follow", "--once", f"/dev/fd/{read_end}"]) == 0
    finally:
        os.close(read_end)
    assert roots(slack) == ["Claude Code session mention-test: succeeded"]


def test_a_named_pipe_is_waited_for_saying_so_once_then_read_to_its_end(
    slack: LocalSlack, tmp_path: Path
) -> None:
    fifo = tmp_path / "agent.pipe"
    os.mkfifo(fifo)
    command = [sys.executable, "-m", "bot.cli", "follow", "--once", str(fifo)]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    said: list[str] = []

    def read_stderr() -> None:  # the writer comes once the wait was said
        assert process.stderr is not None
        for line in process.stderr:
            said.append(line)
            if "waiting for a program to write" in line:
                fifo.write_bytes(MENTIONS.read_bytes())

    reading = threading.Thread(target=read_stderr, daemon=True)
    reading.start()
    try:
        assert process.wait(timeout=60) == 0, "".join(said)
    finally:
        process.kill()
    reading.join(10)
    waits = [line for line in said if "waiting for a program to write" in line]
    assert waits == [f"slacktail: {fifo}: waiting for a program to write to this pipe "
                     "(Ctrl-C to stop)\n"]  # fmt: skip
    assert roots(slack) == ["Claude Code session mention-test: succeeded"]
