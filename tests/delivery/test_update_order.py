"""Which update goes first when the shared update budget is short: a running session's root
(a summary of its thread) waits behind the thread's own messages, but not for ever."""

from __future__ import annotations

import pytest

from bot.delivery import Delivery, SlackApi
from bot.delivery.wanted import ROOT_WAIT_S
from bot.localslack import LocalSlack
from tests.conftest import FakeClock
from tests.delivery.conftest import TOKEN
from tests.delivery.test_deliverer import calls, message


@pytest.fixture
def delivery(slack: LocalSlack, clock: FakeClock) -> Delivery:
    delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                        sleep=clock.sleep)  # fmt: skip
    delivery.want("s1", [message("root", "r1"), message("tools:1", "a1")])
    delivery.flush()
    return delivery


def send_what_may_go(delivery: Delivery) -> float | None:
    """What the follower does each turn: send until the budgets say wait."""
    while True:
        wait = delivery.step()
        if wait is None or wait > 0:
            return wait


def updated(slack: LocalSlack) -> list[str]:
    return [call["text"] for call in calls(slack, "chat.update")]


def test_a_running_sessions_root_waits_while_its_thread_is_updated_at_once(
    slack: LocalSlack, delivery: Delivery, clock: FakeClock
) -> None:
    delivery.want("s1", [message("root", "r2"), message("tools:1", "a2")])
    wait = send_what_may_go(delivery)
    assert updated(slack) == ["a2"]
    assert wait is not None and wait > 1.5  # not the update budget: the root is not due yet
    clock.advance(ROOT_WAIT_S)
    send_what_may_go(delivery)
    assert updated(slack) == ["a2", "r2"]


def test_a_root_goes_at_once_when_its_session_ended(
    slack: LocalSlack, delivery: Delivery
) -> None:
    delivery.want("s1", [message("root", "done", final=True), message("tools:1", "a1")])
    send_what_may_go(delivery)
    assert updated(slack) == ["done"]


def test_flush_sends_a_waiting_root_without_waiting_for_it_to_be_due(
    slack: LocalSlack, delivery: Delivery, clock: FakeClock
) -> None:
    started = clock.now
    delivery.want("s1", [message("root", "r2")])
    assert delivery.flush()
    assert updated(slack) == ["r2"]
    assert clock.now - started < ROOT_WAIT_S
