"""The follower's memory over a long run: a finished, delivered session idle for a while leaves
memory for the store; a late record of it brings it back, and its thread goes on in place. A
document rewritten in place has its sessions built again from its new content, not added to.
What it reads on through (a file it cannot read for a while, a line with no end) is said once,
on stderr and in the log, and a file's events keep ``at`` for their time."""

from __future__ import annotations

import io
import os
import re
import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from bot.checkpoints import Checkpoints
from bot.delivery import Delivery, SlackApi
from bot.errors import Stopped
from bot.follower import Follower, FollowerOptions
from bot.localslack import LocalSlack
from bot.logs import EventLog
from bot.retiring import RETIRE_AFTER_S, RETIRE_EVERY_S
from bot.session import SessionStatus, ToolStatus
from bot.sources.document import DocumentFollower
from bot.sources.file_options import FileOptions
from bot.sources.folder import FolderOptions, FolderWatch
from bot.sources.follow import FileFollower
from bot.sources.opening import RETRY_S
from bot.sources.position import stored_position
from bot.sources.stream import StreamReader
from bot.sources.watch import ChangeWatch
from bot.store import Store
from tests.conftest import FIXTURES, FakeClock, Logged
from tests.sources.helpers import Denied, wait_until

TOKEN = "xoxb-follower"


class WallClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def line(obj: dict[str, object]) -> bytes:
    return orjson.dumps(obj) + b"\n"


def session_lines(sid: str, text: str) -> bytes:
    return (
        line({"type": "system", "subtype": "init", "session_id": sid, "cwd": "/w", "model": "m"})
        + line({"type": "assistant", "session_id": sid,
                "message": {"id": f"{sid}-m", "content": [{"type": "text", "text": text}]}})
        + line({"type": "result", "subtype": "success", "session_id": sid, "is_error": False,
                "result": text, "duration_ms": 1000, "num_turns": 1})
    )  # fmt: skip


def turn(follower: Follower) -> None:
    follower.read()
    follower.render(force=True)
    follower.delivery.flush()
    follower.retire()


def test_an_idle_finished_session_leaves_memory_and_comes_back_for_a_late_record(
    tmp_path: Path,
) -> None:
    log = tmp_path / "agent.jsonl"
    log.write_bytes(session_lines("old", "first answer"))
    clock, wall, logged = FakeClock(), WallClock(), Logged()
    store = Store.open(tmp_path / "state")
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                            sleep=clock.sleep, ledger=store.ledger("T/C/"))  # fmt: skip
        follower = Follower(
            [FileFollower(log)],
            delivery,
            FollowerOptions(
                clock=clock,
                wall_clock=wall,
                checkpoints=Checkpoints(store, "job", clock=clock),
                log=logged.log,
            ),
        )
        turn(follower)
        assert "old" in follower.book.sessions

        clock.advance(RETIRE_EVERY_S)
        wall.now += timedelta(seconds=RETIRE_AFTER_S / 2)
        turn(follower)
        assert "old" in follower.book.sessions  # not idle long enough yet

        clock.advance(RETIRE_EVERY_S)
        wall.now += timedelta(seconds=RETIRE_AFTER_S)
        turn(follower)
        assert "old" not in follower.book.sessions
        assert store.archived_ids("job") == {"old"}
        assert logged.named("session_retired") == [{"event": "session_retired", "session": "old"}]

        with log.open("ab") as more:  # the session is resumed days later, in the same file
            late = {"id": "old-m2", "content": [{"type": "text", "text": "a late word"}]}
            more.write(line({"type": "assistant", "session_id": "old", "message": late}))
        turn(follower)
        session = follower.book.sessions["old"]
        assert session.result is not None  # the state it had, not a new session
        (root,) = slack.channel_messages()
        replies = slack.thread(slack.channel_id(), root["ts"])[1:]
        texts = [reply["text"] for reply in replies]
        assert any("first answer" in text for text in texts)
        assert any("a late word" in text for text in texts)


def test_a_stop_leaves_running_sessions_running_for_the_next_start(tmp_path: Path) -> None:
    log = tmp_path / "agent.jsonl"
    log.write_bytes(
        line({"type": "system", "subtype": "init", "session_id": "s", "cwd": "/w", "model": "m"})
        + line({"type": "assistant", "session_id": "s", "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}]}})
    )  # fmt: skip
    clock = FakeClock()
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                            sleep=clock.sleep)  # fmt: skip
        follower = Follower(
            [FileFollower(log)], delivery, FollowerOptions(clock=clock, wall_clock=WallClock())
        )
        follower.read()
        stop = threading.Event()
        stop.set()  # SIGTERM: slacktail stops, the agent goes on
        follower.run(stop)
        session = follower.book.sessions["s"]
        assert session.status is SessionStatus.RUNNING
        assert session.calls["t1"].status is ToolStatus.RUNNING
        assert delivery.pending == 0  # what it had was delivered before it stopped


def trajectory(*more: dict[str, object]) -> bytes:
    """A finished SWE-agent run, with ``more`` messages at the end of its history."""
    run = orjson.loads((FIXTURES / "swe_agent_calc_fix.traj").read_bytes())
    return orjson.dumps({**run, "history": [*run["history"], *more]}, option=orjson.OPT_INDENT_2)


def kinds(follower: Follower, session_id: str) -> list[str]:
    return [item.key.split(":")[0] for item in follower.book.sessions[session_id].items]


def test_a_rewritten_document_builds_its_sessions_again_instead_of_adding_to_them(
    tmp_path: Path,
) -> None:
    traj = tmp_path / "run-7.traj"
    traj.write_bytes(trajectory())
    clock = FakeClock()
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                            sleep=clock.sleep)  # fmt: skip
        follower = Follower(
            [DocumentFollower(traj)], delivery, FollowerOptions(clock=clock, wall_clock=WallClock())
        )
        turn(follower)
        assert kinds(follower, "run-7") == ["user", "text", "tools", "result"]
        traj.write_bytes(trajectory({"role": "user", "content": "and add a test"}))
        turn(follower)
        assert kinds(follower, "run-7") == ["user", "text", "tools", "user", "result"]
        assert follower.core.produced == {str(traj): {"run-7"}}


def test_a_document_that_grows_is_not_said_rewritten_one_that_shrinks_is(tmp_path: Path) -> None:
    traj = tmp_path / "run-7.traj"
    traj.write_bytes(trajectory())
    logged = Logged()
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id())
        options = FollowerOptions(log=logged.log, wall_clock=WallClock())
        follower = Follower([DocumentFollower(traj)], delivery, options)
        turn(follower)
        asked = [{"role": "user", "content": "and add a test"}, {"role": "user", "content": "go"}]
        for more in (asked[:1], asked):  # the agent saves as it goes on
            traj.write_bytes(trajectory(*more))
            turn(follower)
        assert logged.named("rewritten") == []
        traj.write_bytes(trajectory())  # written again with less: news
        turn(follower)
        assert kinds(follower, "run-7") == ["user", "text", "tools", "result"]
    size = traj.stat().st_size
    assert logged.named("rewritten") == [
        {"event": "rewritten", "source": str(traj), "size": size, "sessions": 1}
    ]


def test_a_retired_session_of_a_rewritten_document_is_built_again_not_brought_back(
    tmp_path: Path,
) -> None:
    traj = tmp_path / "run-7.traj"
    traj.write_bytes(trajectory())
    clock, wall = FakeClock(), WallClock()
    store = Store.open(tmp_path / "state")
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                            sleep=clock.sleep, ledger=store.ledger("T/C/"))  # fmt: skip
        follower = Follower(
            [DocumentFollower(traj)],
            delivery,
            FollowerOptions(
                clock=clock, wall_clock=wall, checkpoints=Checkpoints(store, "job", clock=clock)
            ),
        )
        turn(follower)
        clock.advance(RETIRE_EVERY_S)
        wall.now += timedelta(seconds=RETIRE_AFTER_S)
        turn(follower)
        assert store.archived_ids("job") == {"run-7"}

        traj.write_bytes(trajectory({"role": "user", "content": "and add a test"}))
        turn(follower)
        assert store.archived_ids("job") == set()  # its old state cannot come back later
        assert kinds(follower, "run-7") == ["user", "text", "tools", "user", "result"]
        (root,) = slack.channel_messages()
        assert len(slack.thread(slack.channel_id(), root["ts"])) == 6  # root and five replies


def events(log: io.StringIO, name: str) -> list[dict[str, object]]:
    found = [orjson.loads(line) for line in log.getvalue().splitlines()]
    return [event for event in found if event["event"] == name]


def test_a_rotated_file_is_logged_with_its_offset_and_at_stays_the_time(tmp_path: Path) -> None:
    log_file = tmp_path / "agent.jsonl"
    log_file.write_bytes(session_lines("s1", "one"))
    written = io.StringIO()
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id())
        follower = Follower(
            [FileFollower(log_file)], delivery, FollowerOptions(log=EventLog(written))
        )
        follower.read()
        size = log_file.stat().st_size
        log_file.rename(tmp_path / "agent.jsonl.1")
        log_file.write_bytes(session_lines("s2", "two"))
        follower.read()
    (rotated,) = events(written, "rotated")
    assert rotated["offset"] == size
    assert rotated["size"] == log_file.stat().st_size
    assert isinstance(rotated["at"], float) and rotated["at"] > 1_700_000_000  # a time


def test_a_run_says_each_session_started_a_file_cut_and_what_it_delivered_once_each(
    tmp_path: Path,
) -> None:
    log_file = tmp_path / "agent.jsonl"
    log_file.write_bytes(session_lines("s1", "one") + session_lines("s2", "two"))
    logged = Logged()
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), log=logged.log)
        follower = Follower([FileFollower(log_file)], delivery, FollowerOptions(log=logged.log))
        follower.read()
        read = log_file.stat().st_size
        log_file.write_bytes(session_lines("s3", "three"))  # copytruncate, then written anew
        follower.read()
        follower.finish()
        posted = sum(r.method == "chat.postMessage" and r.error is None for r in slack.requests)
    started = [
        {"event": "session_started", "session": sid, "agent": "Claude Code",
         "source": str(log_file)} for sid in ("s1", "s2", "s3")
    ]  # fmt: skip
    assert logged.named("session_started") == started
    size = log_file.stat().st_size
    cut = {"event": "truncated", "source": str(log_file), "offset": read, "size": size}
    assert logged.named("truncated") == [cut]
    (delivered,) = logged.named("delivered")
    assert delivered == {
        "event": "delivered", "sessions": 3, "records": 9, "unparsed": 0, "posts": posted,
        "updates": delivery.counts.updates, "rate_limited": 0, "retries": 0, "waiting": 0,
    }  # fmt: skip
    assert [line["event"] for line in logged.all()] == [
        "session_started",
        "session_started",
        "truncated",
        "session_started",
        "delivered",
    ]


def test_a_file_in_a_followed_folder_it_cannot_read_is_said_once_and_read_once_it_can_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.jsonl").write_bytes(session_lines("readable", "fine"))
    locked = tmp_path / "b.jsonl"
    locked.write_bytes(session_lines("locked", "later"))
    denied = Denied(monkeypatch)
    denied.deny(locked)
    clock, written = FakeClock(), io.StringIO()
    watch = ChangeWatch(events=False, poll_interval=1.0, clock=clock)
    folder = FolderWatch(str(tmp_path), FolderOptions(clock=clock), watch=watch)
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                            sleep=clock.sleep)  # fmt: skip
        follower = Follower(
            [],
            delivery,
            FollowerOptions(clock=clock, wall_clock=WallClock(), log=EventLog(written)),
            folder=folder,
        )
        for _ in range(3):  # turns go on, the file is tried again, and said only once
            turn(follower)
            clock.advance(RETRY_S)
        assert set(follower.book.sessions) == {"readable"}
        denied.allow(locked)
        turn(follower)
        assert set(follower.book.sessions) == {"readable", "locked"}
        folder.close()
    warned = [line for line in capsys.readouterr().err.splitlines() if "b.jsonl" in line]
    assert warned == [
        f"slacktail: warning: {locked}: cannot read it (Permission denied); reading on, and this "
        "file once it can be read",
        f"slacktail: {locked}: can be read again; reading it",
    ]
    (unreadable,) = events(written, "unreadable")
    assert unreadable["source"] == str(locked)
    assert unreadable["error"] == f"{locked}: cannot read it (Permission denied)"
    assert len(events(written, "readable")) == 1


def test_a_line_with_no_end_is_said_while_it_lasts_and_memory_stays_bounded(
    capsys: pytest.CaptureFixture[str],
) -> None:
    read_end, write_end = os.pipe()
    written = io.StringIO()
    with os.fdopen(read_end, "rb") as pipe, LocalSlack(token=TOKEN, rate_limits=False) as slack:
        stream = StreamReader(pipe, name="agent", max_line_bytes=1024)
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id())
        follower = Follower([stream], delivery, FollowerOptions(log=EventLog(written)))
        os.write(write_end, b"\0" * 4096)  # /dev/zero, as ``run -- cat /dev/zero`` gives it
        wait_until(lambda: follower.read() > 0 or bool(events(written, "line_over_limit")))
        os.close(write_end)
    (over,) = events(written, "line_over_limit")
    assert (over["source"], over["line"], over["limit"]) == ("agent", 1, 1024)
    assert capsys.readouterr().err == (
        "slacktail: warning: agent: line 1 is over the limit of 1,024 bytes "
        "(SLACKTAIL_MAX_LINE_BYTES): skipping it to its end\n"
    )


# -- a stop while delivering a backlog ---------------------------------------------------------

BACKLOG = 40  # sessions: 120 messages and 40 reactions, minutes at Slack's rates


class Backlog:
    """A log of ``BACKLOG`` finished sessions, followed into a rate-limited local Slack by a
    follower that keeps its state in a store; one fake clock for both."""

    def __init__(self, tmp_path: Path, slack: LocalSlack, clock: FakeClock) -> None:
        self.log = tmp_path / "agent.jsonl"
        sessions = [session_lines(f"s{i}", f"answer {i}") for i in range(BACKLOG)]
        self.log.write_bytes(b"".join(sessions))
        self.store = Store.open(tmp_path / "state")
        self.slack, self.clock = slack, clock

    def follower(self, sleep: Callable[[float], None], *, restored: bool = False) -> Follower:
        checkpoints = Checkpoints(self.store, "job", clock=self.clock)
        resume = core = None
        if restored:
            last = checkpoints.restore()
            core, resume = last.core, stored_position(last.positions[str(self.log)])
        api = SlackApi(TOKEN, self.slack.base_url)
        delivery = Delivery(api, self.slack.channel_id(), clock=self.clock, sleep=sleep,
                            ledger=self.store.ledger("T/C/"))  # fmt: skip
        source = FileFollower(self.log, FileOptions(stop_at_end=restored), resume=resume)  # type: ignore[arg-type]
        return Follower(
            [source],
            delivery,
            FollowerOptions(clock=self.clock, wall_clock=WallClock(), checkpoints=checkpoints),
            core=core,
        )


def stopped_run(follower: Follower) -> None:
    """The first Ctrl-C comes while the backlog is being read."""
    follower.read()
    stop = threading.Event()
    stop.set()
    follower.run(stop)


def test_a_first_ctrl_c_says_what_it_still_sends_and_for_how_long(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = FakeClock()
    with LocalSlack(token=TOKEN, rate_limits=True, clock=clock) as slack:
        follower = Backlog(tmp_path, slack, clock).follower(clock.sleep)
        began = clock()
        stopped_run(follower)
        assert 30 <= clock() - began < 35  # it drained for 30 s, then stopped
    err = capsys.readouterr().err
    assert re.search(r"slacktail: stopping: sending the \d+ changes still waiting for Slack, "
                     r"for at most 30 s; Ctrl-C again stops at once \(the next start sends the "
                     r"rest\)", err), err  # fmt: skip
    waiting = follower.delivery.pending
    assert waiting > 0 and f"slacktail: stopped with {waiting} changes not sent to Slack" in err


def test_a_second_ctrl_c_stops_at_once_and_the_next_start_sends_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = FakeClock()
    with LocalSlack(token=TOKEN, rate_limits=True, clock=clock) as slack:
        backlog = Backlog(tmp_path, slack, clock)
        sleeps = 0

        def second_ctrl_c(seconds: float) -> None:  # the handler raises where slacktail waits
            nonlocal sleeps
            sleeps += 1
            if sleeps == 5:
                raise Stopped("stopped at once")
            clock.sleep(seconds)

        with pytest.raises(Stopped):
            stopped_run(backlog.follower(second_ctrl_c))
        assert "changes not sent to Slack; the next start sends them" in capsys.readouterr().err
        sent_before = len(slack.channel_messages())
        assert 0 < sent_before < BACKLOG

        follower = backlog.follower(clock.sleep, restored=True)
        follower.run()
        assert follower.delivery.pending == 0
        channel = slack.channel_id()
        threads = [slack.thread(channel, root["ts"]) for root in slack.channel_messages()]
        assert len(threads) == BACKLOG and all(len(thread) == 3 for thread in threads)
        posts = [r for r in slack.requests if r.method == "chat.postMessage" and r.error is None]
        assert len(posts) == 3 * BACKLOG  # nothing posted twice


class WantedKeys(Delivery):
    """A delivery that notes the keys of the messages each render hands it."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.keys: list[list[str]] = []

    def want(self, session_id: str, messages: Iterable[Any], reaction: str | None = None) -> None:
        given = list(messages)
        self.keys.append([message.key for message in given])
        super().want(session_id, given, reaction)


def tool_use(sid: str, call_id: str) -> bytes:
    use = {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": "ls"}}
    return line({"type": "assistant", "session_id": sid,
                 "message": {"id": f"m-{call_id}", "content": [use]}})  # fmt: skip


def test_a_result_rebuilds_only_its_calls_message_and_the_root(tmp_path: Path) -> None:
    log = tmp_path / "agent.jsonl"
    init = {"type": "system", "subtype": "init", "session_id": "s", "cwd": "/w", "model": "m"}
    log.write_bytes(line(init) + b"".join(tool_use("s", f"t{n}") for n in range(30)))
    clock = FakeClock()
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = WantedKeys(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                              sleep=clock.sleep)  # fmt: skip
        follower = Follower([FileFollower(log)], delivery, FollowerOptions(clock=clock))
        turn(follower)
        assert delivery.keys == [["root", "tools:1", "tools:2", "tools:3"]]
        with log.open("ab") as more:
            first = {"type": "tool_result", "tool_use_id": "t0", "content": "fine"}
            more.write(line({"type": "user", "session_id": "s", "message": {"content": [first]}}))
        turn(follower)
        assert delivery.keys[1:] == [["root", "tools:1"]]
        (root,) = slack.channel_messages()
        group = slack.thread(slack.channel_id(), root["ts"])[1]
        assert "fine" in str(group["blocks"])


def test_a_session_whose_first_line_names_no_agent_is_said_started_by_its_familys_agent(
    tmp_path: Path,
) -> None:
    log_file = tmp_path / "q1.jsonl"
    queued = {"type": "queue-operation", "operation": "dequeue", "sessionId": "q1",
              "timestamp": "2026-01-21T06:19:38.048Z"}  # fmt: skip
    asked = {"type": "user", "sessionId": "q1", "uuid": "u1", "cwd": "/w",
             "timestamp": "2026-01-21T06:19:38.056Z",
             "message": {"role": "user", "content": "add a test"}}  # fmt: skip
    log_file.write_bytes(orjson.dumps(queued) + b"\n" + orjson.dumps(asked) + b"\n")
    logged = Logged()
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), log=logged.log)
        follower = Follower([FileFollower(log_file)], delivery, FollowerOptions(log=logged.log))
        follower.read()
    (started,) = logged.named("session_started")
    assert started["agent"] == "Claude Code"
