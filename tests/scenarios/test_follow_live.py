"""Following a log while it is written: a tool's message changes in place when it completes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

from bot.delivery import Delivery, Pacing, SlackApi
from bot.follower import Follower, FollowerOptions
from bot.localslack import LocalSlack
from bot.sources.follow import FileFollower
from tests.conftest import corpus_file

TOKEN = "xoxb-live"
SID = "live-1"


def line(obj: dict[str, object]) -> bytes:
    return orjson.dumps(obj) + b"\n"


def turn(follower: Follower) -> None:
    """One turn of the loop, rendered at once and delivered to the end."""
    follower.read()
    follower.render(force=True)
    follower.delivery.flush()


def test_a_tool_message_is_updated_in_place_when_the_tool_completes(tmp_path: Path) -> None:
    log = tmp_path / "agent.jsonl"
    log.write_bytes(
        line({"type": "system", "subtype": "init", "session_id": SID, "cwd": "/w", "model": "m"})
        + line({"type": "assistant", "session_id": SID, "message": {"id": "m1", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}]}})
    )  # fmt: skip
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id())
        options = FollowerOptions(wall_clock=lambda: datetime(2026, 1, 1, tzinfo=UTC))
        follower = Follower([FileFollower(log)], delivery, options)
        turn(follower)
        root = slack.channel_messages()[0]
        (running,) = slack.thread(slack.channel_id(), root["ts"])[1:]
        assert running["blocks"][0]["text"]["text"].startswith("⏳ *Bash* `make`")

        with log.open("ab") as more:  # the agent goes on writing
            more.write(line({"type": "user", "session_id": SID, "message": {"content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "built"}]}}))  # fmt: skip
        turn(follower)
        (done,) = slack.thread(slack.channel_id(), root["ts"])[1:]
        assert done["ts"] == running["ts"]
        assert done["blocks"][0]["text"]["text"].startswith("✅ *Bash* `make`")
        assert not follower.input_ended  # still following


def _session_lines(sid: str) -> bytes:
    return line({"type": "system", "subtype": "init", "session_id": sid, "cwd": "/w"}) + line(
        {"type": "assistant", "session_id": sid,
         "message": {"id": f"{sid}-m1", "content": [{"type": "text", "text": f"Hello from {sid}"}]}}
    )  # fmt: skip


def test_a_session_whose_root_a_person_deleted_gets_its_thread_again_and_others_never_notice(
    tmp_path: Path,
) -> None:
    log = tmp_path / "agent.jsonl"
    log.write_bytes(_session_lines("a") + _session_lines("b"))
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), pacing=Pacing(50))
        options = FollowerOptions(wall_clock=lambda: datetime(2026, 1, 1, tzinfo=UTC))
        follower = Follower([FileFollower(log)], delivery, options)
        turn(follower)
        first_a, first_b = (m["ts"] for m in slack.channel_messages())
        slack.api.chat_delete({"channel": slack.channel_id(), "ts": first_a, "token": TOKEN})
        with log.open("ab") as more:  # both sessions go on
            for sid in ("a", "b"):
                more.write(line({"type": "assistant", "session_id": sid, "message": {
                    "id": f"{sid}-m2", "content": [{"type": "tool_use", "id": f"{sid}-t",
                    "name": "Bash", "input": {"command": "make"}}]}}))  # fmt: skip
        turn(follower)
        turn(follower)  # the lost thread is rendered whole and sent again
        roots = [m for m in slack.channel_messages() if m.get("subtype") != "tombstone"]
        assert [m["ts"] == first_b for m in roots] == [True, False]  # b kept its thread
        for root in roots:
            texts = [r["text"] for r in slack.thread(slack.channel_id(), root["ts"])[1:]]
            assert len(texts) == 2 and texts[0].startswith("Hello from")
        assert follower.delivery.counts.restarts == 1


# -- a transcript's session: running, waiting for the user, running again, idle --------------

TRANSCRIPT_START = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)


def transcript_line(seconds: float, kind: str, **fields: object) -> bytes:
    """A Claude Code transcript line, written ``seconds`` after the session began."""
    at = TRANSCRIPT_START + timedelta(seconds=seconds)
    return line({"type": kind, "sessionId": "t-1", "uuid": f"u{seconds}", "cwd": "/w",
                 "timestamp": at.isoformat().replace("+00:00", "Z"), **fields})  # fmt: skip


def said(seconds: float, text: str) -> bytes:
    return transcript_line(seconds, "user", message={"role": "user", "content": text})


def bash(seconds: float, call_id: str) -> bytes:
    use = {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": "make"}}
    return transcript_line(seconds, "assistant", message={"id": f"m{seconds}", "content": [use]})


def root_now(slack: LocalSlack) -> tuple[str, list[str]]:
    """The root's status line and its reactions."""
    (root,) = slack.channel_messages()
    status = root["blocks"][-1]["elements"][0]["text"]
    return status, [reaction["name"] for reaction in root.get("reactions", [])]


def test_a_followed_transcript_runs_waits_for_the_user_runs_again_and_goes_idle(
    tmp_path: Path,
) -> None:
    log = tmp_path / "t-1.jsonl"
    clock = [TRANSCRIPT_START]
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "built"}
    answer = {"id": "m40", "content": [{"type": "text", "text": "Built."}]}
    log.write_bytes(said(0, "build it") + bash(5, "t1")
                    + transcript_line(20, "user", message={"role": "user", "content": [result]})
                    + transcript_line(40, "assistant", message=answer))  # fmt: skip
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id())
        options = FollowerOptions(wall_clock=lambda: clock[0])
        follower = Follower([FileFollower(log)], delivery, options)

        def at(seconds: float, *lines: bytes) -> tuple[str, list[str]]:
            """The agent writes ``lines``; slacktail's turn at ``seconds`` into the session."""
            with log.open("ab") as more:
                more.write(b"".join(lines))
            clock[0] = TRANSCRIPT_START + timedelta(seconds=seconds)
            turn(follower)
            return root_now(slack)

        assert at(45) == ("⏳ *Running* · 1 tool call · under a minute", ["hourglass_flowing_sand"])
        turn_ended = transcript_line(41, "system", subtype="turn_duration", durationMs=41000)
        assert at(50, turn_ended) == (
            "💬 *Waiting for the user* · 1 tool call · 41s", ["speech_balloon"]
        )  # its time ends at its last record, however long it waits
        assert at(290)[0].startswith("💬 *Waiting for the user*")
        assert at(300, said(290, "and test it"), bash(295, "t2")) == (
            "⏳ *Running* · 2 tool calls (1 running) · 5m", ["hourglass_flowing_sand"]
        )
        assert at(894)[0].startswith("⏳ *Running*")  # quiet for 599 s: not yet idle
        assert at(895) == ("💤 *Idle* · 2 tool calls (1 running) · 4m 55s", ["zzz"])


def test_a_subagents_file_followed_without_its_parents_shows_its_work_once_it_is_quiet(
    tmp_path: Path,
) -> None:
    # A Claude subagent's own transcript (its records wait for the call that started it, in a
    # parent transcript that is not followed here); its last record at 21:24:52.186.
    log = tmp_path / "agent-a881341.jsonl"
    log.write_bytes(corpus_file("claude-transcript", "marot__spotter__agent-a881341.jsonl")
                    .read_bytes())  # fmt: skip
    last = datetime(2026, 2, 11, 21, 24, 52, tzinfo=UTC)
    clock = [last + timedelta(seconds=60)]
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id())
        options = FollowerOptions(wall_clock=lambda: clock[0])
        follower = Follower([FileFollower(log)], delivery, options)
        turn(follower)
        (root,) = slack.channel_messages()
        assert slack.thread(slack.channel_id(), root["ts"])[1:] == []  # its call may yet come
        clock[0] = last + timedelta(seconds=601)  # quiet for idle_after_s
        turn(follower)
        replies = slack.thread(slack.channel_id(), root["ts"])[1:]
        shown = orjson.dumps([reply["blocks"] for reply in replies]).decode()
        assert "WebFetch" in shown and "SessionStart Hook Output Contract" in shown
        assert root_now(slack)[1] == ["zzz"]
