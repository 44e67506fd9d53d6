"""Fault injection: 5xx at a rate, 429 bursts, slow answers, connections dropped after the
call was done."""

from __future__ import annotations

import threading
import time

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.localslack import Faults, LocalSlack

from .conftest import TOKEN
from .helpers import admin, call


def status_of(client: WebClient, text: str) -> int:
    try:
        return int(client.chat_postMessage(channel="#agents", text=text).status_code)
    except SlackApiError as err:
        return int(err.response.status_code)


def test_an_error_rate_of_one_answers_every_call_5xx_and_stores_nothing(
    slack: LocalSlack, client: WebClient
) -> None:
    slack.faults.configure(error_rate=1.0, error_status=503)
    with pytest.raises(SlackApiError) as caught:
        client.chat_postMessage(channel="#agents", text="x")
    assert caught.value.response.status_code == 503
    assert slack.channel_messages() == []


def test_5xx_faults_follow_the_seed(slack: LocalSlack, client: WebClient) -> None:
    slack.faults.configure(seed=7, error_rate=0.5)
    first = [status_of(client, str(i)) for i in range(20)]
    slack.faults.configure(seed=7)
    again = [status_of(client, str(i)) for i in range(20)]
    assert first == again
    assert set(first) == {200, 500}
    assert len(slack.channel_messages()) == 2 * first.count(200)


def test_5xx_faults_can_target_some_methods_only(slack: LocalSlack, client: WebClient) -> None:
    slack.faults.configure(error_rate=1.0, error_methods=["chat.update"])
    ts = client.chat_postMessage(channel="#agents", text="x")["ts"]
    with pytest.raises(SlackApiError):
        client.chat_update(channel=slack.channel_id(), ts=ts, text="y")


def test_a_429_burst_answers_the_next_calls_of_a_method_then_stops(
    slack: LocalSlack, client: WebClient
) -> None:
    slack.faults.configure(ratelimit_bursts={"chat.postMessage": 2}, retry_after=3)
    client.auth_test()  # other methods are not affected
    for _ in range(2):
        with pytest.raises(SlackApiError) as caught:
            client.chat_postMessage(channel="#agents", text="x")
        assert caught.value.response.status_code == 429
        assert caught.value.response.headers["Retry-After"] == "3"
        assert caught.value.response.data == {"ok": False, "error": "ratelimited"}
    client.chat_postMessage(channel="#agents", text="through")
    assert [m["text"] for m in slack.channel_messages()] == ["through"]
    assert slack.answered_429 == 2 and sum(slack.rate_limited.values()) == 0


def test_a_slow_answer_arrives_after_the_delay(slack: LocalSlack, client: WebClient) -> None:
    slack.faults.configure(delay=0.3, delay_methods=["chat.postMessage"])
    started = time.monotonic()
    client.chat_postMessage(channel="#agents", text="slow")
    elapsed = time.monotonic() - started
    assert 0.3 <= elapsed < 5.0
    started = time.monotonic()
    client.auth_test()
    assert time.monotonic() - started < 0.3


def test_a_dropped_post_is_stored_and_the_client_gets_a_connection_error(
    slack: LocalSlack, client: WebClient
) -> None:
    slack.faults.configure(drop_after_store={"chat.postMessage": 1})
    with pytest.raises(ConnectionError):
        client.chat_postMessage(channel="#agents", text="did it land?")
    assert [m["text"] for m in slack.channel_messages()] == ["did it land?"]
    client.chat_postMessage(channel="#agents", text="next one answers")
    assert slack.requests[0].status == 200 and slack.faults.state()["injected"]["drop"] == 1


def test_a_naive_retrying_client_posts_twice_after_a_drop(slack: LocalSlack) -> None:
    naive = WebClient(token=TOKEN, base_url=slack.base_url)  # slack_sdk's default: retry once
    slack.faults.configure(drop_after_store={"chat.postMessage": 1})
    naive.chat_postMessage(channel="#agents", text="once, I hope")
    assert [m["text"] for m in slack.channel_messages()] == ["once, I hope", "once, I hope"]


def test_a_drop_waits_for_a_call_that_succeeds(slack: LocalSlack, client: WebClient) -> None:
    slack.faults.configure(drop_after_store={"chat.postMessage": 1})
    with pytest.raises(SlackApiError):
        client.chat_postMessage(channel="#nowhere", text="refused, so answered")
    with pytest.raises(ConnectionError):
        client.chat_postMessage(channel="#agents", text="stored, then dropped")


def test_faults_given_at_start_are_in_force() -> None:
    faults = Faults(seed=1)
    faults.configure(ratelimit_bursts={"auth.test": 1})
    with LocalSlack(token=TOKEN, faults=faults) as server:
        client = WebClient(token=TOKEN, base_url=server.base_url, retry_handlers=[])
        with pytest.raises(SlackApiError):
            client.auth_test()
        assert client.auth_test()["ok"] is True


def test_faults_are_configured_over_http(slack: LocalSlack, client: WebClient) -> None:
    status, body = admin(
        slack, "/_admin/faults", {"ratelimit_bursts": {"chat.update": 1}, "delay": 0.01}
    )
    assert status == 200 and body["faults"]["ratelimit_bursts"] == {"chat.update": 1}
    _, state, _ = call(slack, "/_admin/faults", method="GET")
    assert state["faults"]["delay"] == 0.01
    assert admin(slack, "/_admin/faults", {"error_rate": 2})[0] == 400
    assert admin(slack, "/_admin/faults", {"explode": True})[0] == 400
    assert admin(slack, "/_admin/faults", {"ratelimit_bursts": {"x": "many"}})[0] == 400
    status, _, _ = call(slack, "/_admin/faults", b"{}", {"Content-Type": "text/plain"})
    assert status == 415


def test_reset_over_http_empties_the_workspace_and_the_faults(
    slack: LocalSlack, client: WebClient
) -> None:
    client.chat_postMessage(channel="#agents", text="x")
    slack.faults.configure(error_rate=1.0)
    assert admin(slack, "/_admin/reset", {}) == (200, {"ok": True})
    assert slack.channel_messages() == [] and slack.requests == []
    assert client.chat_postMessage(channel="#agents", text="y")["ok"] is True


def test_stopping_cuts_a_slow_answer_short(slack: LocalSlack, client: WebClient) -> None:
    slack.faults.configure(delay=30.0)
    stored = threading.Event()
    slack.workspace.subscribe(lambda event: stored.set())
    answers: list[object] = []

    def slow_call() -> None:
        try:
            answers.append(client.chat_postMessage(channel="#agents", text="slow").status_code)
        except (SlackApiError, OSError) as err:
            answers.append(err)

    caller = threading.Thread(target=slow_call)
    caller.start()
    assert stored.wait(5)  # the post is done; its answer now waits out the delay
    started = time.monotonic()
    slack.stop()
    caller.join(timeout=10)
    assert time.monotonic() - started < 5.0 and not caller.is_alive() and answers
