"""Following a JSON document its agent rewrites in place (a SWE-agent ``.traj``, a Gemini CLI
session file): in a followed folder beside a JSON Lines log and a file that is not a session,
rewritten with more of the session, its thread in the local Slack shows the same messages
updated and only the new ones posted, as if the final document had been read once; a restart
after a rewrite posts nothing twice."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from bot.checkpoints import Checkpoints
from bot.delivery import Delivery, SlackApi
from bot.follower import Follower, FollowerOptions
from bot.localslack import LocalSlack
from bot.sources.document import DocumentFollower
from bot.sources.folder import FolderOptions, FolderWatch
from bot.sources.position import DocumentPosition, stored_position
from bot.sources.watch import ChangeWatch
from bot.store import Store
from tests.conftest import FIXTURES, FakeClock, corpus_file
from tests.scenarios.channel import Channel, seen

TOKEN = "xoxb-documents"
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
TRAJ = FIXTURES / "swe_agent_calc_fix.traj"
STREAM = FIXTURES / "claude_stream_seed002.jsonl"
SESSION = "run-7"  # a .traj's session is its file's name


def document(history_until: int | None = None) -> bytes:
    """The trajectory as SWE-agent writes it after each step: the whole run, or its first
    messages only, with no outcome yet."""
    run: dict[str, Any] = orjson.loads(TRAJ.read_bytes())
    if history_until is not None:
        run = {**run, "history": run["history"][:history_until], "info": {}}
    return orjson.dumps(run, option=orjson.OPT_INDENT_2)


EARLY, FINAL = document(4), document()


def turn(follower: Follower, clock: FakeClock) -> None:
    """One turn of the loop, rendered at once and delivered to the end; then a second passes
    (every file is looked at again)."""
    follower.read()
    follower.render(force=True)
    follower.delivery.flush()
    clock.advance(1.0)


def posts(slack: LocalSlack) -> int:
    return sum(1 for r in slack.requests if r.method == "chat.postMessage" and r.error is None)


def read_once(data: bytes, tmp_path: Path, name: str = f"{SESSION}.traj") -> Channel:
    """What a reading of ``data`` alone, straight through, puts in a channel."""
    path = tmp_path / "once" / name
    path.parent.mkdir()
    path.write_bytes(data)
    clock = FakeClock()
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                            sleep=clock.sleep)  # fmt: skip
        follower = Follower(
            [DocumentFollower(path)], delivery, FollowerOptions(clock=clock, wall_clock=lambda: NOW)
        )
        turn(follower, clock)
        return seen(slack)


def thread_of(channel: Channel, root_text: str) -> list[tuple[str, Any]]:
    (thread,) = [thread for thread in channel if root_text in thread[0][0]]
    return thread


def test_a_rewritten_document_updates_its_thread_and_posts_only_what_is_new(
    tmp_path: Path,
) -> None:
    logs = tmp_path / "logs"
    (logs / "trajectories").mkdir(parents=True)
    (logs / "agent.jsonl").write_bytes(STREAM.read_bytes())
    (logs / "settings.json").write_bytes(b'{"theme": "dark"}')
    traj = logs / "trajectories" / f"{SESSION}.traj"
    traj.write_bytes(EARLY)
    clock = FakeClock()
    watch = ChangeWatch(events=False, poll_interval=1.0, clock=clock)
    folder = FolderWatch(str(logs), FolderOptions(clock=clock), watch=watch)
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                            sleep=clock.sleep)  # fmt: skip
        follower = Follower(
            [], delivery, FollowerOptions(clock=clock, wall_clock=lambda: NOW), folder=folder
        )
        turn(follower, clock)
        assert sorted(Path(name).name for name in follower.readers) == ["agent.jsonl", "run-7.traj"]
        before = thread_of(seen(slack), SESSION)
        stream_thread = thread_of(seen(slack), "session_abc123")
        ts_before = [m["ts"] for m in slack.thread(slack.channel_id(), _root_ts(slack, SESSION))]

        traj.write_bytes(FINAL)  # SWE-agent writes the whole trajectory again after a step
        turn(follower, clock)
        after = thread_of(seen(slack), SESSION)
        ts_after = [m["ts"] for m in slack.thread(slack.channel_id(), _root_ts(slack, SESSION))]
        assert len(slack.channel_messages()) == 2  # still one thread per session
        assert ts_after[: len(ts_before)] == ts_before  # the same messages, updated in place
        assert len(after) > len(before) and after != before[: len(after)]
        assert after == thread_of(read_once(FINAL, tmp_path), SESSION)  # as if read once
        assert thread_of(seen(slack), "session_abc123") == stream_thread  # the other untouched
        assert posts(slack) == sum(len(thread) for thread in seen(slack))  # nothing twice
    folder.close()
    watch.close()


def test_a_restart_after_a_rewrite_posts_nothing_twice(tmp_path: Path) -> None:
    traj = tmp_path / f"{SESSION}.traj"
    traj.write_bytes(EARLY)
    store = Store.open(tmp_path / "state")
    clock = FakeClock()
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:

        def started(resume: DocumentPosition | None) -> Follower:
            restored = Checkpoints(store, "job").restore()
            delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                                sleep=clock.sleep, ledger=store.ledger("local/C/"))  # fmt: skip
            return Follower(
                [DocumentFollower(traj, resume=resume)],
                delivery,
                FollowerOptions(
                    clock=clock,
                    wall_clock=lambda: NOW,
                    checkpoints=Checkpoints(store, "job", clock=clock),
                ),
                core=restored.core,
            )

        first = started(None)
        turn(first, clock)
        first.save_checkpoint(force=True)  # then slacktail stops (or is killed)
        traj.write_bytes(FINAL)  # the agent goes on meanwhile

        position = Checkpoints(store, "job").restore().positions[str(traj)]
        resumed = stored_position(position)
        assert isinstance(resumed, DocumentPosition)
        second = started(resumed)
        turn(second, clock)
        assert seen(slack) == read_once(FINAL, tmp_path)
        assert posts(slack) == sum(len(thread) for thread in seen(slack))
        (session,) = second.book.sessions.values()
        assert session.session_id == SESSION and session.result is not None

        second.save_checkpoint(force=True)
        updates = len(slack.requests)
        third = started(stored_position(Checkpoints(store, "job").restore().positions[str(traj)]))
        turn(third, clock)  # nothing changed: nothing is sent
        assert len(slack.requests) == updates
        assert SESSION in third.book.sessions
    store.close()


def _root_ts(slack: LocalSlack, text: str) -> str:
    (root,) = [m for m in slack.channel_messages() if text in m["text"]]
    return str(root["ts"])


GEMINI = ("gemini", "jnarowski__agentcmd__session-2025-10-27T19-55-981c87cb.json")


def test_a_gemini_session_file_rewritten_after_each_message_ends_as_read_once(
    tmp_path: Path,
) -> None:
    session: dict[str, Any] = orjson.loads(corpus_file(*GEMINI).read_bytes())
    messages = session["messages"]
    chats = tmp_path / "gemini" / "tmp" / session["projectHash"] / "chats"
    chats.mkdir(parents=True)
    (chats.parent / "logs.json").write_bytes(b"[]")  # Gemini's prompt log: not a session
    document = chats / "session-2025-10-27T19-55-981c87cb.json"
    clock = FakeClock()
    watch = ChangeWatch(events=False, poll_interval=1.0, clock=clock)
    folder = FolderWatch(str(tmp_path / "gemini"), FolderOptions(clock=clock), watch=watch)
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                            sleep=clock.sleep)  # fmt: skip
        follower = Follower(
            [], delivery, FollowerOptions(clock=clock, wall_clock=lambda: NOW), folder=folder
        )
        for count in range(1, len(messages) + 1):  # the CLI writes the file again as it goes
            so_far = {**session, "messages": messages[:count]}
            document.write_bytes(orjson.dumps(so_far, option=orjson.OPT_INDENT_2))
            turn(follower, clock)
        final = document.read_bytes()
        assert list(follower.readers) == [str(document)]
        assert seen(slack) == read_once(final, tmp_path, document.name)
        assert posts(slack) == sum(len(thread) for thread in seen(slack))  # nothing twice
    folder.close()
    watch.close()
