"""The follower's side of approvals: a request on the desk shown in the thread of the session
that asked (the follower's real path into the local Slack), and shown again once decided, timed
out, or redacted with the follower's own patterns."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.app.desk import TIMEOUT, Desk
from bot.controls import APPROVE, DENY
from bot.localslack import LocalSlack
from bot.redaction import Redactor
from tests.conftest import FakeClock

from .approval_helpers import (
    TOKEN,
    append,
    approvals_in,
    ask,
    follow,
    init,
    shown_outcome,
    tool_use,
    turn,
)


@pytest.fixture
def slack() -> Iterator[LocalSlack]:
    with LocalSlack(token=TOKEN, rate_limits=False) as server:
        yield server


def test_a_request_appears_in_the_thread_of_the_session_whose_tool_call_it_is(
    slack: LocalSlack, tmp_path: Path
) -> None:
    log = tmp_path / "agent.jsonl"
    append(log, init("s-a"), tool_use("s-a", "toolu_a", "Read", {"file_path": "a.py"}),
           init("s-b"), tool_use("s-b", "toolu_b", "Bash", {"command": "make deploy"}))  # fmt: skip
    follower = follow(slack, log, tmp_path)
    desk = Desk.open(tmp_path)
    ask(desk, "toolu_b")
    turn(follower)
    assert approvals_in(slack, "s-a") == []
    (shown,) = approvals_in(slack, "s-b")
    assert "`Bash`" in str(shown["blocks"]) and "make deploy" in str(shown["blocks"])
    actions = [b for b in shown["blocks"] if b["type"] == "actions"]
    assert [e["action_id"] for e in actions[0]["elements"]] == [APPROVE, DENY]
    assert shown_outcome(shown) is None


def test_a_request_whose_call_was_not_read_goes_to_the_only_session_running_there(
    slack: LocalSlack, tmp_path: Path
) -> None:
    log = tmp_path / "agent.jsonl"
    append(log, init("s-a", cwd="/w/other"), tool_use("s-a", "t1", "Read", {"file_path": "a"}))
    append(log, init("s-b", cwd="/w/app"), tool_use("s-b", "t2", "Read", {"file_path": "b"}))
    follower = follow(slack, log, tmp_path)
    ask(Desk.open(tmp_path), None)
    turn(follower)
    assert len(approvals_in(slack, "s-b")) == 1 and approvals_in(slack, "s-a") == []


def test_a_request_no_session_can_take_waits_for_its_call(
    slack: LocalSlack, tmp_path: Path
) -> None:
    log = tmp_path / "agent.jsonl"
    append(log, init("s-a", cwd="/w/other"), tool_use("s-a", "t1", "Read", {"file_path": "a"}))
    append(log, init("s-b", cwd="/w/else"), tool_use("s-b", "t2", "Read", {"file_path": "b"}))
    follower = follow(slack, log, tmp_path)
    ask(Desk.open(tmp_path), "toolu_late")
    turn(follower)
    assert approvals_in(slack, "s-a") == approvals_in(slack, "s-b") == []
    append(log, tool_use("s-a", "toolu_late", "Bash", {"command": "make deploy"}))
    turn(follower)
    assert len(approvals_in(slack, "s-a")) == 1


def test_a_request_that_timed_out_shows_it_was_denied_for_want_of_an_answer(
    slack: LocalSlack, tmp_path: Path
) -> None:
    log = tmp_path / "agent.jsonl"
    append(log, init("s-1"), tool_use("s-1", "toolu_1", "Bash", {"command": "make deploy"}))
    follower = follow(slack, log, tmp_path)
    desk = Desk.open(tmp_path)
    request_id = ask(desk, "toolu_1", timeout_s=300)
    turn(follower)
    assert desk.decide(request_id, TIMEOUT)
    turn(follower)
    (shown,) = approvals_in(slack, "s-1")
    assert shown_outcome(shown) == "⌛ Denied: no answer in 5 min"


def test_the_follower_times_out_a_request_whose_asker_is_gone(
    slack: LocalSlack, tmp_path: Path
) -> None:
    log = tmp_path / "agent.jsonl"
    append(log, init("s-1"), tool_use("s-1", "toolu_1", "Bash", {"command": "make deploy"}))
    clock = FakeClock(time.time())
    follower = follow(slack, log, tmp_path, clock)
    request_id = ask(Desk.open(tmp_path, clock), "toolu_1", timeout_s=90)
    turn(follower)
    (shown,) = approvals_in(slack, "s-1")
    assert shown_outcome(shown) is None
    clock.advance(90)  # the request's deadline: no server is left to time it out
    turn(follower)
    (shown,) = approvals_in(slack, "s-1")
    assert shown_outcome(shown) == "⌛ Denied: no answer in 90 s"
    decided = Desk.open(tmp_path).get(request_id)
    assert decided is not None and decided.decision == TIMEOUT


def test_the_summary_shown_is_redacted_with_the_followers_own_patterns(
    slack: LocalSlack, tmp_path: Path
) -> None:
    log = tmp_path / "agent.jsonl"
    append(log, init("s-1"), tool_use("s-1", "toolu_1", "Bash", {"command": "mysql -p x"}))
    follower = follow(slack, log, tmp_path, redactor=Redactor(["hunter[0-9]+"]))
    Desk.open(tmp_path).ask("Bash", "mysql -p hunter22 db", tool_use_id="toolu_1", hint=None,
                            timeout_s=300)  # fmt: skip
    turn(follower)
    (shown,) = approvals_in(slack, "s-1")
    assert "hunter22" not in str(shown) and "mysql -p [redacted:custom] db" in str(shown)


def test_a_desk_that_cannot_be_read_is_said_once_and_following_goes_on(
    slack: LocalSlack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "agent.jsonl"
    append(log, init("s-1"), tool_use("s-1", "toolu_1", "Bash", {"command": "ls"}))
    (tmp_path / "approvals.db").write_bytes(b"not a database, but a file of another kind" * 50)
    follower = follow(slack, log, tmp_path)
    turn(follower)
    turn(follower)
    said = capsys.readouterr().err
    assert said.count("slacktail: approvals: ") == 1 and "approvals.db" in said
    assert len(slack.thread(slack.channel_id(), slack.channel_messages()[0]["ts"])) == 2


def test_the_followers_loop_shows_requests_as_they_come(slack: LocalSlack, tmp_path: Path) -> None:
    log = tmp_path / "agent.jsonl"
    append(log, init("s-1"), tool_use("s-1", "toolu_1", "Bash", {"command": "make deploy"}))
    follower = follow(slack, log, tmp_path)
    stop = threading.Event()
    loop = threading.Thread(target=follower.run, args=(stop,), kwargs={"drain_s": 5.0})
    loop.start()
    try:
        assert slack.wait_for(lambda: bool(slack.channel_messages()))
        ask(Desk.open(tmp_path), "toolu_1")
        assert slack.wait_for(lambda: len(approvals_in(slack, "s-1")) == 1, timeout=10.0)
    finally:
        stop.set()
        loop.join(10.0)
    assert not loop.is_alive()
