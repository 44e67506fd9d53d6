"""Reaching Slack at start-up: the token checked (``auth.test``) and the channel found, each
retried like any other call while Slack cannot be reached, answers 5xx, or asks to slow down.
Only a mistake the user must fix (a bad token, a missing channel, the app not in it) stops
slacktail here."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from tenacity import RetryCallState, Retrying, retry_if_exception_type

from bot import events
from bot.delivery.slack_api import SlackApi
from bot.errors import RateLimited, SlackUnavailable
from bot.logs import EventLog

FIRST_PAUSE_S = 2.0
MAX_PAUSE_S = 30.0
T = TypeVar("T")


def reach_slack(
    api: SlackApi,
    channel: str,
    *,
    log: EventLog,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[str, str]:
    """The bot's user id and the channel's id, once Slack answers both."""
    bot_user = _until_answered(api.check_auth, "auth.test", log, sleep)
    channel_id = _until_answered(lambda: api.find_channel(channel), "the channel", log, sleep)
    return bot_user, channel_id


def _until_answered(call: Callable[[], T], what: str, log: EventLog,
                    sleep: Callable[[float], None]) -> T:  # fmt: skip
    def pause(state: RetryCallState) -> float:
        outcome = state.outcome
        error = outcome.exception() if outcome is not None else None
        if isinstance(error, RateLimited):
            return max(error.retry_after, 1.0)
        return min(MAX_PAUSE_S, FIRST_PAUSE_S * 2.0 ** (state.attempt_number - 1))

    def say(state: RetryCallState) -> None:
        outcome = state.outcome
        error = outcome.exception() if outcome is not None else None
        seconds = float(state.next_action.sleep) if state.next_action is not None else 0.0
        log.event(events.SlackUnavailable(str(error), round(seconds, 1), call=what))

    retrying = Retrying(
        retry=retry_if_exception_type((SlackUnavailable, RateLimited)),
        wait=pause,
        sleep=sleep,
        before_sleep=say,
        reraise=True,
    )
    return retrying(call)
