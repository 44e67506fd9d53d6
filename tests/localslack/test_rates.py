"""Rate limits at Slack's rates: 429, `{"ok": false, "error": "ratelimited"}`, Retry-After."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.localslack import LocalSlack
from bot.localslack.rates import RateLimiter

from .conftest import TOKEN, FakeClock
from .helpers import admin


@pytest.fixture
def limited(clock: FakeClock) -> Iterator[LocalSlack]:
    server = LocalSlack(token=TOKEN, clock=clock)  # rate limits on, time stands still
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def limited_client(limited: LocalSlack) -> WebClient:
    return WebClient(token=TOKEN, base_url=limited.base_url, retry_handlers=[])


def calls_allowed(limiter: RateLimiter, method: str, n: int, **scope: str) -> int:
    return sum(limiter.check(method, **scope) is None for _ in range(n))


def test_posts_allow_a_burst_of_three_then_one_per_second_per_channel(clock: FakeClock) -> None:
    limiter = RateLimiter(clock=clock)
    assert calls_allowed(limiter, "chat.postMessage", 3, channel="C1") == 3
    assert limiter.check("chat.postMessage", channel="C1") == 1
    assert limiter.check("chat.postMessage", channel="C2") is None  # another channel
    clock.advance(1.0)
    assert limiter.check("chat.postMessage", channel="C1") is None
    assert limiter.check("chat.postMessage", channel="C1") == 1


def test_updates_share_one_workspace_budget_of_50_a_minute(clock: FakeClock) -> None:
    limiter = RateLimiter(clock=clock)
    allowed = sum(limiter.check("chat.update", channel=f"C{i % 7}") is None for i in range(50))
    assert allowed == 50
    assert limiter.check("chat.update", channel="C99") == 60
    clock.advance(59.5)
    assert limiter.check("chat.update") == 1  # whole seconds, rounded up
    clock.advance(0.5)
    assert limiter.check("chat.update") is None


@pytest.mark.parametrize(
    ("method", "per_minute"),
    [
        ("reactions.add", 50),
        ("reactions.remove", 50),
        ("conversations.history", 50),
        ("conversations.replies", 50),
        ("conversations.info", 50),
        ("conversations.list", 20),
    ],
)
def test_tiered_methods_allow_their_tier_per_minute(
    clock: FakeClock, method: str, per_minute: int
) -> None:
    limiter = RateLimiter(clock=clock)
    assert calls_allowed(limiter, method, per_minute + 5) == per_minute


def test_set_status_allows_60_a_minute_per_thread(clock: FakeClock) -> None:
    limiter = RateLimiter(clock=clock)
    scope = {"channel": "C1", "thread": "1.000001"}
    assert calls_allowed(limiter, "assistant.threads.setStatus", 61, **scope) == 60
    other = {"channel": "C1", "thread": "1.000002"}
    assert limiter.check("assistant.threads.setStatus", **other) is None


@pytest.mark.parametrize(
    "method", ["views.open", "views.push", "views.update", "views.publish", "chat.postEphemeral"]
)
def test_interactive_methods_are_tier_4(clock: FakeClock, method: str) -> None:
    assert calls_allowed(RateLimiter(clock=clock), method, 105) == 100


def test_apps_connections_open_is_tier_1_with_a_small_burst(clock: FakeClock) -> None:
    limiter = RateLimiter(clock=clock)
    assert calls_allowed(limiter, "apps.connections.open", 10) == 5
    clock.advance(60)
    assert calls_allowed(limiter, "apps.connections.open", 10) == 1


def test_the_off_switch_never_refuses(clock: FakeClock) -> None:
    limiter = RateLimiter(clock=clock, enabled=False)
    assert calls_allowed(limiter, "chat.update", 500) == 500


def test_scale_makes_every_limit_that_many_times_faster(clock: FakeClock) -> None:
    limiter = RateLimiter(clock=clock, scale=10)
    assert calls_allowed(limiter, "chat.update", 51) == 50
    clock.advance(6.0)  # a minute at ten times the speed
    assert calls_allowed(limiter, "chat.update", 51) == 50
    assert calls_allowed(limiter, "chat.postMessage", 4, channel="C1") == 3
    clock.advance(0.1)
    assert limiter.check("chat.postMessage", channel="C1") is None
    with pytest.raises(ValueError):
        RateLimiter(scale=0)


def test_a_post_over_the_limit_answers_429_with_retry_after_and_is_not_stored(
    limited: LocalSlack, limited_client: WebClient
) -> None:
    for i in range(3):
        limited_client.chat_postMessage(channel="#agents", text=str(i))
    with pytest.raises(SlackApiError) as caught:
        limited_client.chat_postMessage(channel="#agents", text="too fast")
    response = caught.value.response
    assert response.status_code == 429
    assert response.data == {"ok": False, "error": "ratelimited"}
    assert response.headers["Retry-After"] == "1"
    assert [m["text"] for m in limited.channel_messages()] == ["0", "1", "2"]
    assert limited.rate_limited == {"chat.postMessage": 1}
    assert limited.answered_429 == 1


def test_posts_paced_at_one_a_second_are_never_refused(
    limited: LocalSlack, limited_client: WebClient, clock: FakeClock
) -> None:
    for i in range(10):
        limited_client.chat_postMessage(channel="#agents", text=str(i))
        clock.advance(1.0)
    assert limited.answered_429 == 0


def test_updates_over_the_workspace_budget_answer_429_with_retry_after(
    limited: LocalSlack, limited_client: WebClient, clock: FakeClock
) -> None:
    ts = limited_client.chat_postMessage(channel="#agents", text="t")["ts"]
    channel = limited.channel_id()
    for i in range(50):
        limited_client.chat_update(channel=channel, ts=ts, text=str(i))
        clock.advance(0.5)  # 50 in 25 s: still one minute's budget
    with pytest.raises(SlackApiError) as caught:
        limited_client.chat_update(channel=channel, ts=ts, text="one too many")
    assert caught.value.response.status_code == 429
    assert caught.value.response.headers["Retry-After"] == "35"
    clock.advance(35)
    limited_client.chat_update(channel=channel, ts=ts, text="after waiting")
    assert limited.channel_messages()[0]["text"] == "after waiting"


def test_limits_can_be_switched_off_and_scaled_over_http(
    limited: LocalSlack, limited_client: WebClient
) -> None:
    assert admin(limited, "/_admin/limits", {"enabled": False}) == (200, {"ok": True})
    for i in range(10):
        limited_client.chat_postMessage(channel="#agents", text=str(i))
    assert limited.answered_429 == 0
    assert admin(limited, "/_admin/limits", {"enabled": True, "scale": 10})[0] == 200
    assert limited.limiter.scale == 10
    assert admin(limited, "/_admin/limits", {"scale": -1})[0] == 400
    assert admin(limited, "/_admin/limits", {"speed": 2})[0] == 400
