"""Fixtures: a local Slack on a free loopback port, and the real slack_sdk client against it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slack_sdk import WebClient

from bot.localslack import LocalSlack
from tests.conftest import FakeClock

TOKEN = "xoxb-test-token-1234"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def slack(clock: FakeClock) -> Iterator[LocalSlack]:
    """A local Slack with rate limits off (tests/localslack/test_rates.py turns them on)."""
    server = LocalSlack(token=TOKEN, rate_limits=False, clock=clock)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def client(slack: LocalSlack) -> WebClient:
    """slack_sdk's client with no retry handlers: each call is exactly one request."""
    return WebClient(token=TOKEN, base_url=slack.base_url, retry_handlers=[], timeout=10)


@pytest.fixture
def channel(slack: LocalSlack) -> str:
    return slack.channel_id("agents")
