"""Delivery's fixtures: a local Slack with Slack's rate limits, on a fake clock that delivery's
pacing also runs on (its ``sleep`` moves the clock), so tests run at Slack's rates at once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.localslack import LocalSlack
from tests.conftest import FakeClock

TOKEN = "xoxb-delivery-test"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def slack(clock: FakeClock) -> Iterator[LocalSlack]:
    with LocalSlack(token=TOKEN, rate_limits=True, clock=clock) as server:
        yield server
