"""Fixtures: a local Slack on a free loopback port, and the real slack_sdk client against it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from slack_sdk import WebClient

from bot.localslack import LocalSlack
from tests.conftest import FakeClock

if TYPE_CHECKING:
    from .apps import SocketApp

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


@pytest.fixture
def app(slack: LocalSlack) -> Iterator[SocketApp]:
    """The app, connected by Socket Mode: slack_sdk's own client, acknowledging everything."""
    from .apps import APP_TOKEN, socket_app  # apps.py imports this module

    slack.configure_app(app_token=APP_TOKEN)
    with socket_app(slack) as connected:
        yield connected
