"""The line under a running session's thread (assistant.threads.setStatus) and its agent
session (agents.sessions.setStatus), followed from a growing log into the local Slack."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from bot.config import Settings
from bot.delivery import Delivery, SlackApi
from bot.delivery.status import (
    AWAY_PAUSE_S,
    STATUS_GAP_S,
    STATUS_REFRESH_S,
    AgentSessions,
    ThreadStatus,
)
from bot.follower import Follower, FollowerOptions
from bot.localslack import LocalSlack
from bot.localslack.model import SlackError
from bot.logs import EventLog
from bot.redaction import Redactor
from bot.sources.follow import FileFollower
from tests.conftest import FakeClock
from tests.delivery.conftest import TOKEN

SID = "s-status"


def line(obj: dict[str, object]) -> bytes:
    return orjson.dumps(obj) + b"\n"


INIT = line({"type": "system", "subtype": "init", "session_id": SID, "cwd": "/w", "model": "m"})


def tool_use(call_id: str, command: str) -> bytes:
    use = {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}
    return line({"type": "assistant", "session_id": SID,
                 "message": {"id": f"m-{call_id}", "content": [use]}})  # fmt: skip


def tool_result(call_id: str) -> bytes:
    done = {"type": "tool_result", "tool_use_id": call_id, "content": "ok"}
    return line({"type": "user", "session_id": SID, "message": {"content": [done]}})


RESULT = line({"type": "result", "subtype": "success", "session_id": SID, "is_error": False,
               "result": "done", "duration_ms": 1000, "num_turns": 1})  # fmt: skip


class Run:
    def __init__(self, slack: LocalSlack, log: Path, clock: FakeClock, *, agent: bool) -> None:
        self.slack, self.log, self.clock = slack, log, clock
        log.touch()
        self.events = io.StringIO()
        redactor = Redactor(["hunter2-[a-z]+"])
        api = SlackApi(TOKEN, slack.base_url, redactor=redactor)
        self.delivery = Delivery(api, slack.channel_id(), clock=clock, sleep=clock.sleep)
        event_log = EventLog(self.events)
        self.status = ThreadStatus(self.delivery, log=event_log)
        surfaces = (self.status, AgentSessions(self.delivery, log=event_log)) if agent else (
            self.status,)  # fmt: skip
        self.follower = Follower([FileFollower(log)], self.delivery, FollowerOptions(
            clock=clock, log=event_log, surfaces=surfaces))  # fmt: skip

    def write(self, data: bytes) -> None:
        with self.log.open("ab") as file:
            file.write(data)

    def turn(self, seconds: float = 3.0) -> None:
        self.clock.advance(seconds)
        self.follower.read()
        self.follower.render(force=True)
        self.follower.delivery.flush()
        for surface in self.follower.surfaces:
            surface.step()

    @property
    def thread_ts(self) -> str:
        (root,) = self.slack.channel_messages()
        return str(root["ts"])

    def shown(self) -> str | None:
        return self.slack.status(self.slack.channel_id(), self.thread_ts)

    def calls(self, method: str) -> list[dict[str, object]]:
        return [r.params for r in self.slack.requests if r.method == method]


def test_the_line_under_the_thread_follows_the_open_call_then_thinking_then_clears(
    slack: LocalSlack, clock: FakeClock, tmp_path: Path
) -> None:
    run = Run(slack, tmp_path / "a.jsonl", clock, agent=False)
    run.write(INIT + tool_use("c1", "pytest -q"))
    run.turn()
    assert run.shown() == "running Bash: pytest -q"
    run.write(tool_result("c1"))
    run.turn()
    assert run.shown() == "thinking…"
    run.write(RESULT)
    run.turn()
    assert run.shown() is None  # the result's post cleared it: no call needed
    run.turn(seconds=STATUS_REFRESH_S)
    assert run.shown() is None


def test_a_post_into_the_thread_clears_the_line_and_it_is_sent_again(
    slack: LocalSlack, clock: FakeClock, tmp_path: Path
) -> None:
    run = Run(slack, tmp_path / "a.jsonl", clock, agent=False)
    run.write(INIT + tool_use("c1", "make"))
    run.turn()
    sent = len(run.calls("assistant.threads.setStatus"))
    run.write(line({"type": "user", "session_id": SID,
                    "message": {"role": "user", "content": "and the docs too"}}))
    run.follower.read()
    run.follower.render(force=True)
    run.delivery.flush()  # the prompt is posted into the thread: Slack clears the line
    assert run.shown() is None
    run.turn()
    assert run.shown() == "running Bash: make"
    assert len(run.calls("assistant.threads.setStatus")) == sent + 1


def test_a_still_true_line_is_sent_again_before_slack_lets_it_lapse_and_not_sooner(
    slack: LocalSlack, clock: FakeClock, tmp_path: Path
) -> None:
    run = Run(slack, tmp_path / "a.jsonl", clock, agent=False)
    run.write(INIT + tool_use("c1", "sleep 600"))
    run.turn()
    for _ in range(5):
        run.turn(seconds=10)
    assert len(run.calls("assistant.threads.setStatus")) == 1  # nothing changed: nothing sent
    run.turn(seconds=STATUS_REFRESH_S)
    assert len(run.calls("assistant.threads.setStatus")) == 2


def test_the_line_is_redacted(slack: LocalSlack, clock: FakeClock, tmp_path: Path) -> None:
    run = Run(slack, tmp_path / "a.jsonl", clock, agent=False)
    run.write(INIT + tool_use("c1", "login --password hunter2-secret"))
    run.turn()
    shown = run.shown()
    assert shown is not None and shown.startswith("running Bash: login")
    assert "hunter2" not in str(run.calls("assistant.threads.setStatus"))


def test_a_refused_status_turns_it_off_for_the_run_with_one_event(
    slack: LocalSlack, clock: FakeClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(params: dict[str, object]) -> dict[str, object]:
        raise SlackError("missing_scope")

    monkeypatch.setitem(slack.api.methods, "assistant.threads.setStatus", refuse)
    run = Run(slack, tmp_path / "a.jsonl", clock, agent=False)
    run.write(INIT + tool_use("c1", "make"))
    run.turn()
    run.write(tool_result("c1") + tool_use("c2", "make test"))
    run.turn()
    assert len(run.calls("assistant.threads.setStatus")) == 1
    events = [orjson.loads(x) for x in run.events.getvalue().splitlines()]
    off = [e for e in events if e["event"] == "surface_off"]
    assert len(off) == 1 and off[0]["surface"] == "status" and "missing_scope" in off[0]["error"]
    assert len(slack.channel_messages()) == 1  # the thread itself goes on


def test_an_agent_session_processes_while_running_is_active_while_waiting_and_closes(
    slack: LocalSlack, clock: FakeClock, tmp_path: Path
) -> None:
    run = Run(slack, tmp_path / "a.jsonl", clock, agent=True)
    run.write(INIT + tool_use("c1", "make"))
    run.turn()
    session = slack.agent_session(slack.channel_id(), run.thread_ts)
    assert session is not None and session["status"] == "processing"
    run.write(tool_result("c1"))
    run.turn()  # still processing: nothing is sent again
    assert len(run.calls("agents.sessions.setStatus")) == 1
    run.write(RESULT)
    run.turn()
    session = slack.agent_session(slack.channel_id(), run.thread_ts)
    assert session is not None and session["status"] == "closed"
    assert [c["status"] for c in run.calls("agents.sessions.setStatus")] == ["processing",
                                                                              "closed"]


def test_agent_sessions_are_off_unless_asked_for(
    slack: LocalSlack, clock: FakeClock, tmp_path: Path
) -> None:
    run = Run(slack, tmp_path / "a.jsonl", clock, agent=False)
    run.write(INIT + tool_use("c1", "make"))
    run.turn()
    assert slack.agent_session(slack.channel_id(), run.thread_ts) is None


def test_the_settings_choose_the_surfaces(
    monkeypatch: pytest.MonkeyPatch, follow_settings: Callable[[list[str]], Settings]
) -> None:
    from bot.config import load_settings
    from bot.delivery.status import surfaces_for

    delivery = Delivery(SlackApi(TOKEN, "http://127.0.0.1:9/api/"), "C1")
    log = EventLog(None)
    kinds = [type(s) for s in surfaces_for(load_settings({}), delivery, log)]
    assert kinds == [ThreadStatus]  # the status on, agent sessions off, by default
    flags = follow_settings(["--no-thread-status", "--agent-sessions", "--plan-blocks", "x.log"])
    assert [type(s) for s in surfaces_for(flags, delivery, log)] == [AgentSessions]
    assert flags.plan_blocks
    monkeypatch.setenv("SLACKTAIL_THREAD_STATUS", "false")
    assert surfaces_for(load_settings({}), delivery, log) == ()


def test_a_stop_clears_the_lines_it_showed(
    slack: LocalSlack, clock: FakeClock, tmp_path: Path
) -> None:
    run = Run(slack, tmp_path / "a.jsonl", clock, agent=False)
    run.write(INIT + tool_use("c1", "make"))
    run.turn()
    assert run.shown() == "running Bash: make"
    run.follower.finish(end_sessions=False)  # slacktail stops; the agent goes on
    assert run.shown() is None
    assert run.calls("assistant.threads.setStatus")[-1]["status"] == ""


def test_while_slack_is_away_the_line_waits_and_goes_once_slack_is_back(
    slack: LocalSlack, clock: FakeClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = Run(slack, tmp_path / "a.jsonl", clock, agent=False)
    tried: list[str] = []
    send = run.delivery.api.set_status

    def counted(channel: str, thread_ts: str, status: str) -> None:
        tried.append(status)
        send(channel, thread_ts, status)

    monkeypatch.setattr(run.delivery.api, "set_status", counted)
    run.write(INIT + tool_use("c1", "make"))
    run.turn()
    slack.faults.configure(error_rate=1.0)  # every call answers 5xx
    run.write(tool_result("c1") + tool_use("c2", "make test"))
    run.follower.read()
    run.follower.render(force=True)
    for _ in range(5):
        clock.advance(STATUS_GAP_S)
        run.status.step()  # tried once, then paused: not at every turn
    assert tried == ["running Bash: make", "running Bash: make test"]
    slack.faults.configure(error_rate=0.0)
    run.turn(seconds=AWAY_PAUSE_S)
    assert run.shown() == "running Bash: make test"
    assert "surface_off" not in run.events.getvalue()
