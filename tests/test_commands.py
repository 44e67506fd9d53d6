"""The follow and run commands end to end, against a local Slack, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest

from bot.cli import main
from bot.config import time_back
from bot.follower import Follower
from bot.formats import FAMILIES
from bot.localslack import LocalSlack
from tests.conftest import FIXTURES, ROOT, WORKSPACE_TOKEN, wait_until

TOKEN = WORKSPACE_TOKEN
LOG = str(FIXTURES / "preview_mentions.jsonl")


@pytest.fixture
def slack(workspace: LocalSlack) -> LocalSlack:
    return workspace


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


# An agent that starts a session and a tool call, writes no result, and then ends as told.
AGENT_AT_WORK = """
import json, os, signal, sys
for line in (
    {"type": "system", "subtype": "init", "session_id": "run-1", "cwd": "/w", "model": "m"},
    {"type": "assistant", "session_id": "run-1", "message": {"id": "m1", "content": [
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}]}},
):
    print(json.dumps(line), flush=True)
"""


def root_and_result(slack: LocalSlack) -> tuple[str, list[str], str]:
    """The root's status line and reactions, and the head of the thread's last message."""
    (root,) = slack.channel_messages()
    last = slack.thread(slack.channel_id(), root["ts"])[-1]
    reactions = [reaction["name"] for reaction in root.get("reactions", [])]
    return root["blocks"][-1]["elements"][0]["text"], reactions, last["blocks"][0]["text"]["text"]


def test_run_shows_an_agent_that_exits_with_code_3_in_its_thread(slack: LocalSlack) -> None:
    script = AGENT_AT_WORK + "sys.exit(3)\n"
    assert main(["run", "--channel", "agents", "--", sys.executable, "-c", script]) == 3
    status, reactions, result = root_and_result(slack)
    assert status.startswith("❌ *Failed* · exited with code 3 · 1 tool call (1 interrupted)")
    assert reactions == ["x"]
    assert result == "❌ *Session failed* · exited with code 3"


def test_run_shows_an_agent_stopped_with_ctrl_c_in_its_thread(slack: LocalSlack) -> None:
    script = AGENT_AT_WORK + "signal.signal(signal.SIGINT, signal.SIG_DFL)\n"
    script += "os.kill(os.getpid(), signal.SIGINT)\n"
    assert main(["run", "--channel", "agents", "--", sys.executable, "-c", script]) == 130
    status, reactions, result = root_and_result(slack)
    assert status.startswith("⏹️ *Stopped* · Ctrl-C · 1 tool call (1 interrupted)")
    assert reactions == ["black_square_for_stop"]
    assert result == "⏹️ *Session stopped* · Ctrl-C"


def test_an_agents_exit_is_said_in_every_session_it_wrote(slack: LocalSlack) -> None:
    lines = Path(LOG).read_bytes().splitlines()
    finished = "".join(f"print({line.decode()!r})\n" for line in lines)
    script = "import sys\n" + finished + AGENT_AT_WORK + "sys.exit(3)\n"
    assert main(["run", "--channel", "agents", "--", sys.executable, "-c", script]) == 3
    roots = [root["blocks"][-1]["elements"][0]["text"] for root in slack.channel_messages()]
    assert [root.split(" · ")[:2] for root in roots] == [
        ["✅ *Succeeded*", "exited with code 3"],  # its own result stands, the exit beside it
        ["❌ *Failed*", "exited with code 3"],
    ]


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


def _posts(slack: LocalSlack) -> int:
    return sum(1 for r in slack.requests if r.method == "chat.postMessage" and r.error is None)


def test_following_the_same_log_again_posts_nothing_twice(slack: LocalSlack) -> None:
    assert main(["follow", "--once", "--channel", "agents", LOG]) == 0
    posted = _posts(slack)
    assert main(["follow", "--once", "--channel", "agents", LOG]) == 0
    assert _posts(slack) == posted
    assert len(thread_texts(slack)) == 1


def test_the_state_directory_holds_only_private_files(
    slack: LocalSlack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    assert main(["follow", "--once", "--channel", "agents", "--state-dir", str(state), LOG]) == 0
    assert oct(state.stat().st_mode & 0o777) == "0o700"
    files = list(state.iterdir())
    assert any(path.name == "state.db" for path in files)
    assert all(path.stat().st_mode & 0o077 == 0 for path in files)
    assert all(TOKEN.encode() not in path.read_bytes() for path in files)


def test_a_corrupt_state_file_is_reported_set_aside_and_nothing_is_posted_twice(
    slack: LocalSlack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    flags = ["follow", "--once", "--channel", "agents", "--state-dir", str(state), LOG]
    assert main(flags) == 0
    posted = _posts(slack)
    (state / "state.db").write_bytes(b"garbage, not SQLite" * 64)
    for extra in ("state.db-wal", "state.db-shm"):
        (state / extra).unlink(missing_ok=True)
    capsys.readouterr()
    assert main(flags) == 0
    err = capsys.readouterr().err
    assert "state file was unreadable and was set aside" in err
    assert any(p.name.startswith("state.db.corrupt-") for p in state.iterdir())
    assert _posts(slack) == posted  # each message was found in the channel, not posted again
    assert len(thread_texts(slack)) == 1


def test_follow_once_of_a_log_no_family_reads_says_so_in_one_line_and_exits_2(
    slack: LocalSlack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "rollout-like.jsonl"
    log.write_bytes(b'{"timestamp": "2025", "kind": "mystery", "payload": {}}\n' * 3)
    assert main(["follow", "--once", "--channel", "agents", str(log)]) == 2
    said = [line for line in capsys.readouterr().err.splitlines() if line.startswith("slacktail:")]
    assert said == [
        f'slacktail: {log}: not a log slacktail reads (its first line: {{"kind": "mystery", '
        '"timestamp": …, "payload": {}}); if it is one, name its format with --format, one of: '
        + ", ".join(FAMILIES)
    ]
    assert thread_texts(slack) == []


def test_follow_once_with_the_wrong_format_names_it_and_exits_2(
    slack: LocalSlack, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["follow", "--once", "--channel", "agents", "--format", "agno", LOG]) == 2
    err = capsys.readouterr().err
    assert f"slacktail: {LOG}: nothing could be read as agno (its first line: " in err
    assert '"event": "not_understood"' in err.replace('"event":"', '"event": "')


@pytest.mark.parametrize("target", ["empty", "empty/*.jsonl"])
def test_follow_once_of_an_empty_folder_or_a_glob_matching_nothing_exits_2(
    slack: LocalSlack, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, target: str,
) -> None:  # fmt: skip
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["follow", "--once", "--channel", "agents", target]) == 2
    assert f"slacktail: error: {target}: nothing to read (no log lines; looked for" in (
        capsys.readouterr().err
    )


def test_idle_after_is_a_flag_of_follow_and_run(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["follow", LOG], ["run", "--", "true"]):
        assert main([command[0], "--idle-after", "soon", *command[1:]]) == 2
        assert "invalid setting idle_after" in capsys.readouterr().err


# An agent that writes a session, then more output after slacktail's own loop failed.
AGENT_GOING_ON = """
import json, sys, time
print(json.dumps({"type": "system", "subtype": "init", "session_id": "on-1", "cwd": "/w"}),
      flush=True)
time.sleep(0.5)
for n in range(3):
    print(f"still working {n}", flush=True)
sys.exit(4)
"""


def test_a_failure_of_slacktails_own_leaves_the_agent_running_and_says_so_once(
    slack: LocalSlack, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    def broken(self: Follower, stop: object = None) -> None:
        raise RuntimeError("the loop broke")

    monkeypatch.setattr(Follower, "run", broken)
    code = main(["run", "--channel", "agents", "--", sys.executable, "-c", AGENT_GOING_ON])
    out, err = capfd.readouterr()
    assert code == 4  # the agent's own exit code
    assert "still working 2" in out  # its output kept flowing after the failure
    said = [line for line in err.splitlines() if "stopped posting to Slack" in line]
    assert len(said) == 1 and "RuntimeError: the loop broke" in said[0]
    assert '"event":"posting_stopped"' in err


AGENT_WAITING = """
import os, sys, time
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(60)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux parent-death signal")
def test_an_agent_whose_slacktail_is_killed_outright_is_ended_not_orphaned(
    workspace: LocalSlack, tmp_path: Path
) -> None:
    pid_file = tmp_path / "agent.pid"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SLACKTAIL_STATE_DIR": str(tmp_path / "state")}
    slacktail = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "run", "--channel", "agents", "--",
         sys.executable, "-c", AGENT_WAITING, str(pid_file)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert wait_until(lambda: pid_file.exists() and pid_file.read_text() != "", 30)
        agent = int(pid_file.read_text())
        slacktail.kill()  # SIGKILL: slacktail has no chance to do anything
        slacktail.wait(10)
        assert wait_until(lambda: not _alive(agent), 10)
    finally:
        slacktail.kill()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and " Z " not in stat.read_text()  # a zombie has ended


UNTIMED_NO_UUID = [  # stream-json of an older CLI: no uuid on its lines
    {"type": "system", "subtype": "init", "session_id": "pipe-1", "cwd": "/w", "tools": ["Bash"]},
    {"type": "assistant", "session_id": "pipe-1",
     "message": {"id": "m1", "content": [{"type": "text", "text": "Working on it."}]}},
    {"type": "assistant", "session_id": "pipe-1",
     "message": {"id": "m2", "content": [{"type": "text", "text": "Still on it."}]}},
    {"type": "result", "subtype": "success", "session_id": "pipe-1", "is_error": False,
     "result": "Done."},
]  # fmt: skip


def test_the_same_log_piped_in_twice_is_applied_once(
    slack: LocalSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"".join(orjson.dumps(line) + b"\n" for line in UNTIMED_NO_UUID)
    for _ in range(2):
        monkeypatch.setattr(sys, "stdin", _pipe_with(data))
        assert main(["follow", "-", "--channel", "agents"]) == 0
    (thread,) = thread_texts(slack)
    assert sum("Working on it." in text for text in thread) == 1
    assert sum(text.startswith("Session succeeded") for text in thread) == 1


def _transcript(path: Path, session: str, at: datetime, said: str) -> None:
    lines = [
        {"type": "user", "sessionId": session, "uuid": f"{session}-1", "parentUuid": None,
         "timestamp": at.isoformat(), "cwd": "/w", "message": {"role": "user", "content": said}},
        {"type": "assistant", "sessionId": session, "uuid": f"{session}-2",
         "parentUuid": f"{session}-1", "timestamp": (at + timedelta(seconds=5)).isoformat(),
         "message": {"id": f"{session}-m", "role": "assistant", "model": "m",
                     "content": [{"type": "text", "text": f"On it: {said}"}]}},
    ]  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


def test_follow_since_reads_old_sessions_but_posts_only_recent_ones(
    slack: LocalSlack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    now = datetime.now(UTC)
    projects = tmp_path / "projects"
    _transcript(projects / "old" / "a.jsonl", "old-session", now - timedelta(days=3), "ancient")
    _transcript(projects / "new" / "b.jsonl", "new-session", now - timedelta(hours=1), "fresh")
    code = main(["follow", "--once", "--since", "1d", "--channel", "agents", str(projects)])
    assert code == 0
    threads = thread_texts(slack)
    assert len(threads) == 1 and any("On it: fresh" in text for text in threads[0])
    assert "1 session(s) last active before" in capsys.readouterr().err


def test_since_takes_a_duration_or_a_date() -> None:
    now = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
    assert time_back("7d", now) == datetime(2026, 11, 17, 12, 0, tzinfo=UTC)
    assert time_back("90m", now) == datetime(2026, 11, 24, 10, 30, tzinfo=UTC)
    assert time_back("2026-11-01", now) == datetime(2026, 11, 1, tzinfo=UTC)
    assert time_back("2026-11-01T09:00+02:00", now) == datetime(2026, 11, 1, 7, 0, tzinfo=UTC)
    assert time_back("last tuesday", now) == "last tuesday"


def test_a_resumed_sessions_copied_history_is_not_posted_twice(
    slack: LocalSlack, tmp_path: Path
) -> None:
    projects = tmp_path / "projects"
    at = datetime.now(UTC) - timedelta(minutes=5)
    _transcript(projects / "p" / "first.jsonl", "first", at, "fix the build")
    copied = (projects / "p" / "first.jsonl").read_bytes().replace(b'"first"', b'"second"')
    more = orjson.dumps({
        "type": "user", "sessionId": "second", "uuid": "second-3", "parentUuid": "first-2",
        "timestamp": (at + timedelta(minutes=1)).isoformat(), "cwd": "/w",
        "message": {"role": "user", "content": "and now the docs"}})  # fmt: skip
    (projects / "p" / "second.jsonl").write_bytes(copied + more + b"\n")
    assert main(["follow", "--once", "--channel", "agents", str(projects)]) == 0
    texts = [text for thread in thread_texts(slack) for text in thread]
    assert sum("On it: fix the build" in text for text in texts) == 1
    assert sum("and now the docs" in text for text in texts) == 1
