"""Scenario tests: every corpus file followed to its end into the local Slack, and the final
channel asserted as a person sees it. One fake clock drives the local Slack's rate limits and
delivery's pacing, so the replay runs at Slack's real rates without waiting."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from blocks.thread import thread_messages
from bot.delivery import Delivery, SlackApi
from bot.follower import Follower, FollowerOptions
from bot.localslack import LocalSlack
from bot.sources.document import DocumentFollower, DocumentOptions
from bot.sources.file_options import FileOptions
from bot.sources.files import is_document
from bot.sources.follow import FileFollower
from bot.sources.source import Source
from tests.conftest import CORPUS_MISSING, FakeClock, corpus_files
from tests.scenarios.channel import seen
from tests.unread import corpus_cases

TOKEN = "xoxb-scenario"
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
JSON_LINES = [path for path in corpus_files()]
needs_corpus = pytest.mark.skipif(not JSON_LINES, reason=CORPUS_MISSING)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def slack(clock: FakeClock) -> Iterator[LocalSlack]:
    with LocalSlack(token=TOKEN, rate_limits=True, clock=clock) as server:
        yield server


def follow_once(path: Path, slack: LocalSlack, clock: FakeClock) -> Follower:
    """``slacktail follow --once PATH``, with the fake clock."""
    delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                        sleep=clock.sleep)  # fmt: skip
    source: Source = (
        DocumentFollower(path, DocumentOptions(stop_at_end=True))
        if is_document(path.read_bytes())
        else FileFollower(path, FileOptions(stop_at_end=True))
    )
    follower = Follower([source], delivery, FollowerOptions(clock=clock, wall_clock=lambda: NOW))
    follower.run()
    return follower



def wanted(follower: Follower) -> list[list[tuple[str, Any]]]:
    """What the threads should finally show: every session's final messages."""
    return [
        [(m.text, list(m.blocks)) for m in thread_messages(session, NOW)]
        for session in follower.book.sessions.values()
    ]


@needs_corpus
@pytest.mark.parametrize("path", corpus_cases(JSON_LINES, "thread"))
def test_every_corpus_file_ends_as_one_current_thread_per_session(
    path: Path, slack: LocalSlack, clock: FakeClock
) -> None:
    follower = follow_once(path, slack, clock)
    assert follower.book.sessions, "every corpus file holds at least one session"
    assert follower.delivery.pending == 0
    assert len(slack.channel_messages()) == len(follower.book.sessions)
    assert seen(slack) == wanted(follower)
    assert slack.answered_429 == 0


FAULTY = [p for p in JSON_LINES if p.stat().st_size < 200_000][:8]


@needs_corpus
@pytest.mark.parametrize("path", corpus_cases(FAULTY, "faults"))
def test_with_faults_the_final_channel_is_the_same_and_nothing_is_posted_twice(
    path: Path, clock: FakeClock
) -> None:
    with LocalSlack(token=TOKEN, rate_limits=True, clock=clock) as calm:
        expected = seen(calm) if follow_once(path, calm, clock) else []
    with LocalSlack(token=TOKEN, rate_limits=True, clock=clock) as stormy:
        stormy.faults.configure(
            seed=7, error_rate=0.2, ratelimit_bursts={"chat.postMessage": 3, "chat.update": 3},
            retry_after=2, drop_after_store={"chat.postMessage": 3, "chat.update": 2},
        )  # fmt: skip
        follower = follow_once(path, stormy, clock)
        stormy.faults.reset()
        assert seen(stormy) == expected
        assert follower.delivery.counts.retries > 0 or follower.delivery.counts.rate_limited > 0
