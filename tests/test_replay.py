"""``follow --replay-speed N``: records applied at N times their log's own pace, untimed ones
with the record before them, each source in its own order on one shared timeline."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest

from bot.checkpoints import Checkpoints
from bot.delivery import Delivery, SlackApi
from bot.follower import Follower, FollowerOptions
from bot.formats.reader import SourceReader
from bot.localslack import LocalSlack
from bot.records import Origin, Record, UserText
from bot.replay import Released, Replay
from bot.sources.file_options import FileOptions
from bot.sources.follow import FileFollower
from bot.store import Store
from tests.conftest import FakeClock

START = datetime(2025, 6, 2, 9, 0, tzinfo=UTC)
TOKEN = "xoxb-replay"


def said(text: str, seconds: float | None) -> Record:
    at = None if seconds is None else START + timedelta(seconds=seconds)
    return UserText(Origin("s", at, 1), text=text)


def texts(released: Released) -> list[str]:
    return [getattr(record, "text", "") for _, records, _ in released for record in records]


def test_records_are_released_at_the_logs_pace_divided_by_the_speed() -> None:
    clock = FakeClock()
    replay = Replay(10, clock=clock)
    replay.hold(SourceReader("a"), [said("one", 0), said("two", 20), said("three", 50)])
    assert texts(replay.due()) == ["one"]
    assert replay.next_in() == pytest.approx(2.0)
    clock.advance(1.9)
    assert texts(replay.due()) == []
    clock.advance(0.1)
    assert texts(replay.due()) == ["two"]
    clock.advance(3.0)
    assert texts(replay.due()) == ["three"]
    assert not replay.holding and replay.next_in() is None


def test_a_record_without_a_time_goes_with_the_one_before_it() -> None:
    clock = FakeClock()
    replay = Replay(1, clock=clock)
    replay.hold(SourceReader("a"), [said("first", None), said("timed", 0), said("later", 5),
                                    said("untimed", None)])  # fmt: skip
    assert texts(replay.due()) == ["first", "timed"]
    clock.advance(5)
    assert texts(replay.due()) == ["later", "untimed"]


def test_a_log_without_times_is_read_as_it_comes() -> None:
    replay = Replay(2, clock=FakeClock())
    replay.hold(SourceReader("a"), [said("one", None), said("two", None)])
    assert texts(replay.due()) == ["one", "two"]


def test_each_source_keeps_its_order_on_one_shared_timeline() -> None:
    clock = FakeClock()
    replay = Replay(1, clock=clock)
    first, second = SourceReader("a"), SourceReader("b")
    replay.hold(first, [said("a0", 0), said("a10", 10)])
    replay.hold(second, [said("b5", 5), said("b-early", 1)])  # a time going back waits its turn
    assert texts(replay.due()) == ["a0"]
    clock.advance(5)
    released = replay.due()
    assert [(reader.source, texts([(reader, records, at)])) for reader, records, at in released
            ] == [("b", ["b5", "b-early"])]  # fmt: skip
    clock.advance(5)
    assert texts(replay.due()) == ["a10"]


def test_release_all_gives_every_record_held_and_forget_drops_a_sources() -> None:
    replay = Replay(1, clock=FakeClock())
    replay.hold(SourceReader("a"), [said("a0", 0), said("a9", 900)])
    replay.hold(SourceReader("b"), [said("b9", 900)])
    replay.forget("b")
    assert texts(replay.release_all()) == ["a0", "a9"]


def test_the_speed_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        Replay(0)


def _timed_log(path: Path) -> None:
    lines = [
        {"type": "system", "subtype": "init", "session_id": "s", "cwd": "/w", "model": "m",
         "timestamp": "2025-06-02T09:00:00Z"},
        {"type": "assistant", "session_id": "s", "timestamp": "2025-06-02T09:00:30Z",
         "message": {"id": "m1", "content": [{"type": "text", "text": "half way"}]}},
        {"type": "result", "subtype": "success", "session_id": "s", "is_error": False,
         "result": "done", "timestamp": "2025-06-02T09:01:00Z"},
    ]  # fmt: skip
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


def test_a_follower_replaying_applies_the_log_as_it_ran_and_commits_no_position_ahead(
    tmp_path: Path,
) -> None:
    log = tmp_path / "agent.jsonl"
    _timed_log(log)
    clock = FakeClock()
    store = Store.open(tmp_path / "state")
    checkpoints = Checkpoints(store, "job", clock=clock)
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                            sleep=clock.sleep)  # fmt: skip
        follower = Follower(
            [FileFollower(log, FileOptions(stop_at_end=True))],
            delivery,
            FollowerOptions(clock=clock, checkpoints=checkpoints, replay=Replay(30, clock=clock)),
        )
        follower.read()
        follower.read()  # the file's end: the source closes, two records still held
        assert follower.counts.records == 1
        assert not follower.input_ended
        follower.save_checkpoint(force=True)
        assert checkpoints.restore().positions == {}  # the file's position is past them
        clock.advance(1.0)
        follower.read()
        assert follower.counts.records == 2
        clock.advance(1.0)
        follower.read()
        assert follower.counts.records == 3 and follower.input_ended
        follower.save_checkpoint(force=True)
        assert str(log) in checkpoints.restore().positions
    store.close()


def test_the_replay_is_at_the_logs_time_that_its_pace_has_reached() -> None:
    clock = FakeClock()
    replay = Replay(10, clock=clock)
    assert replay.log_now() is None  # no record with a time yet
    replay.hold(SourceReader("a"), [said("one", 0), said("two", 600)])
    clock.advance(3)
    assert replay.log_now() == START + timedelta(seconds=30)


def test_a_replayed_session_runs_in_its_logs_time_not_idle_for_being_old(tmp_path: Path) -> None:
    log = tmp_path / "agent.jsonl"
    _timed_log(log)  # written in 2025: by the wall clock, quiet for over a year
    clock = FakeClock()
    with LocalSlack(token=TOKEN, rate_limits=False) as slack:
        delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                            sleep=clock.sleep)  # fmt: skip
        follower = Follower(
            [FileFollower(log, FileOptions(stop_at_end=True))],
            delivery,
            FollowerOptions(clock=clock, replay=Replay(30, clock=clock)),
        )
        follower.read()
        clock.advance(1.5)  # 45 s into the log: its second record came at 30 s
        follower.read()
        follower.render(force=True)
        delivery.flush()
        (root,) = slack.channel_messages()
        status = root["blocks"][-1]["elements"][0]["text"]
        assert status == "⏳ *Running* · no tools yet · under a minute"
