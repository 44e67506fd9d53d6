"""Outages: the local Slack answers 5xx, then refuses connections, then comes back. Following
goes on throughout, what must be sent is kept (the latest state of each message only), and the
final channel is right. A revoked token stops delivery with a clear error, keeping state."""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from blocks.thread import thread_messages
from bot.checkpoints import Checkpoints
from bot.delivery import Delivery, SlackApi
from bot.errors import SlackSetupError
from bot.follower import Follower, FollowerOptions
from bot.localslack import LocalSlack
from bot.logs import EventLog
from bot.sources.follow import FileFollower
from bot.store import Store
from tests.conftest import FakeClock, corpus_file
from tests.scenarios.channel import Channel, seen

TOKEN = "xoxb-outage"
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
LOG = ("claude-transcript", "marot__spotter__tool_heavy.jsonl")


def turns(follower: Follower, clock: FakeClock, count: int) -> None:
    """``count`` turns of the follower's loop, the clock moving a second each."""
    for _ in range(count):
        follower.read()
        follower.render(force=True)
        follower.deliver()
        clock.advance(1.0)


def follower_for(slack: LocalSlack, log: Path, clock: FakeClock, out: io.StringIO) -> Follower:
    delivery = Delivery(SlackApi(TOKEN, slack.base_url, timeout=2), slack.channel_id(),
                        clock=clock, sleep=clock.sleep, log=EventLog(out))  # fmt: skip
    return Follower(
        [FileFollower(log)],
        delivery,
        FollowerOptions(clock=clock, wall_clock=lambda: NOW, log=EventLog(out)),
    )


def expected_channel(tmp_path: Path, lines: list[bytes]) -> Channel:
    log = tmp_path / "calm.jsonl"
    log.write_bytes(b"".join(lines))
    clock = FakeClock()
    with LocalSlack(token=TOKEN, clock=clock) as calm:
        follower = follower_for(calm, log, clock, io.StringIO())
        turns(follower, clock, 3)
        follower.finish()
        return seen(calm)


def test_following_goes_on_through_an_outage_and_the_channel_ends_right(tmp_path: Path) -> None:
    lines = corpus_file(*LOG).read_bytes().splitlines(keepends=True)
    third = len(lines) // 3
    expected = expected_channel(tmp_path, lines)
    log = tmp_path / "agent.jsonl"
    log.write_bytes(b"".join(lines[:third]))
    clock, out = FakeClock(), io.StringIO()
    with LocalSlack(token=TOKEN, clock=clock) as slack:
        follower = follower_for(slack, log, clock, out)
        turns(follower, clock, 3)
        assert slack.channel_messages(), "the first third is in the channel"

        slack.faults.configure(error_rate=1.0, error_status=503)  # Slack answers 5xx
        with log.open("ab") as file:
            file.writelines(lines[third : 2 * third])
        turns(follower, clock, 40)
        read_during_5xx = follower.counts.lines
        assert read_during_5xx == 2 * third  # reading went on
        assert follower.delivery.outage_since is not None
        assert follower.delivery.counts.gave_up > 0

        slack.stop()  # connections refused
        with log.open("ab") as file:
            file.writelines(lines[2 * third :])
        turns(follower, clock, 40)
        assert follower.counts.lines == len(lines)
        wanted = {(s.session_id, m.key) for s in follower.book.sessions.values()
                  for m in thread_messages(s, NOW)}  # fmt: skip
        assert follower.delivery.pending <= len(wanted) + len(follower.book.sessions)

        slack.faults.reset()
        slack.start()  # back, on the same port
        clock.advance(60)
        follower.finish()
        assert follower.delivery.outage_since is None
        assert seen(slack) == expected
    events = out.getvalue()
    assert '"slack_unavailable"' in events and '"slack_back"' in events


def _revoke_token(slack: LocalSlack, follower: Follower) -> None:
    slack.api.token = "xoxb-someone-else"  # the app was reinstalled: our token is gone


def _remove_channel(slack: LocalSlack, follower: Follower) -> None:
    follower.delivery.channel = "C0GONE0001"  # the channel was deleted while following


@pytest.mark.parametrize(
    ("what_happens", "error"),
    [(_revoke_token, "invalid_auth: .*SLACK_BOT_TOKEN"), (_remove_channel, "channel_not_found")],
    ids=["token revoked", "channel removed"],
)
def test_delivery_stops_with_a_clear_error_and_keeps_state(
    tmp_path: Path, what_happens: Callable[[LocalSlack, Follower], None], error: str
) -> None:
    lines = corpus_file(*LOG).read_bytes().splitlines(keepends=True)
    log = tmp_path / "agent.jsonl"
    log.write_bytes(b"".join(lines))
    clock, out = FakeClock(), io.StringIO()
    store = Store.open(tmp_path / "state")
    with LocalSlack(token=TOKEN, clock=clock) as slack:
        follower = follower_for(slack, log, clock, out)
        follower.checkpoints = Checkpoints(store, "job", clock=clock)
        what_happens(slack, follower)
        with pytest.raises(SlackSetupError, match=error):
            follower.run()
    checkpoint = store.checkpoint("job")
    assert checkpoint is not None and checkpoint.positions  # what was read is kept
    assert follower.stopped is not None and '"delivery_stopped"' in out.getvalue()
