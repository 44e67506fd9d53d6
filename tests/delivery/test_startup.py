"""Reaching Slack at start-up: a passing fault is waited out, a mistake the user must fix is not."""

from __future__ import annotations

import pytest

from bot.delivery import SlackApi
from bot.delivery.startup import reach_slack
from bot.errors import SlackSetupError
from bot.localslack import LocalSlack
from bot.localslack.model import BOT_USER_ID
from bot.logs import EventLog
from tests.conftest import Logged
from tests.delivery.conftest import TOKEN


class Pauses:
    """A ``sleep`` that records each pause and, after the first, lets Slack answer again."""

    def __init__(self, slack: LocalSlack) -> None:
        self.slack = slack
        self.seconds: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)
        self.slack.faults.reset()


def test_a_server_error_on_auth_test_is_retried_and_start_up_goes_on(slack: LocalSlack) -> None:
    slack.faults.configure(error_rate=1.0, error_methods=["auth.test"])
    pauses, logged = Pauses(slack), Logged()
    bot_user, channel = reach_slack(SlackApi(TOKEN, slack.base_url), "agents",
                                    log=logged.log, sleep=pauses)  # fmt: skip
    assert (bot_user, channel) == (BOT_USER_ID, slack.channel_id())
    assert pauses.seconds == [2.0]
    (unavailable,) = logged.named("slack_unavailable")
    assert (unavailable["call"], unavailable["retry_in_s"], unavailable["waiting"]) == (
        "auth.test", 2.0, None)  # fmt: skip


def test_a_dropped_connection_on_auth_test_is_retried(slack: LocalSlack) -> None:
    slack.faults.configure(drop_after_store={"auth.test": 1})
    pauses = Pauses(slack)
    reach_slack(SlackApi(TOKEN, slack.base_url), "agents", log=EventLog(None), sleep=pauses)
    assert len(pauses.seconds) == 1


def test_a_rate_limited_channel_lookup_waits_for_retry_after(slack: LocalSlack) -> None:
    slack.faults.configure(ratelimit_bursts={"conversations.list": 1}, retry_after=7)
    pauses = Pauses(slack)
    reach_slack(SlackApi(TOKEN, slack.base_url), "agents", log=EventLog(None), sleep=pauses)
    assert pauses.seconds == [7.0]


def test_a_bad_token_at_start_up_is_not_retried(slack: LocalSlack) -> None:
    pauses = Pauses(slack)
    with pytest.raises(SlackSetupError, match="invalid_auth"):
        reach_slack(SlackApi("xoxb-wrong", slack.base_url), "agents", log=EventLog(None),
                    sleep=pauses)  # fmt: skip
    assert pauses.seconds == []


def test_a_missing_channel_at_start_up_is_not_retried(slack: LocalSlack) -> None:
    pauses = Pauses(slack)
    with pytest.raises(SlackSetupError, match="no such channel"):
        reach_slack(SlackApi(TOKEN, slack.base_url), "nowhere", log=EventLog(None), sleep=pauses)
    assert pauses.seconds == []
