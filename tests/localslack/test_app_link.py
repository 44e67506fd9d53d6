"""HTTP delivery to a request URL: form-encoded payloads and JSON events, signed as Slack signs
them, checked by bolt's own RequestVerification (a wrong secret is refused)."""

from __future__ import annotations

import json
import socket
from typing import Any
from urllib.parse import parse_qs

import pytest
from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.signature import SignatureVerifier

from bot.localslack import LocalSlack
from bot.localslack.app_link import signature

from .apps import SECRET, button, http_app, post_with_buttons, url_of
from .conftest import TOKEN


def bolt_app(slack: LocalSlack, secret: str = SECRET) -> App:
    return App(client=WebClient(token=TOKEN, base_url=slack.base_url), signing_secret=secret)


def test_the_signature_is_slack_sdks() -> None:
    body = b"payload=%7B%22type%22%3A%22block_actions%22%7D"
    expected = SignatureVerifier(SECRET).generate_signature(timestamp="1700000000", body=body)
    assert signature(SECRET, "1700000000", body) == expected


def test_a_click_is_posted_signed_and_bolt_accepts_it(slack: LocalSlack, client: WebClient) -> None:
    bolt = bolt_app(slack)
    clicked: list[dict[str, Any]] = []

    @bolt.action("approve")
    def approve(ack: Ack, body: dict[str, Any]) -> None:
        ack()
        clicked.append(body)

    with http_app(bolt) as server:
        slack.configure_app(request_url=url_of(server), signing_secret=SECRET)
        ts = post_with_buttons(client, button("approve", "Approve", value="call-7"))
        outcome = slack.click("agents", ts, "approve")
        assert outcome.acked and outcome.error is None
        [(headers, body)] = server.received
    assert headers["content-type"] == ["application/x-www-form-urlencoded"]
    assert headers["x-slack-signature"][0].startswith("v0=")
    assert int(headers["x-slack-request-timestamp"][0]) > 0
    [payload] = parse_qs(body)["payload"]
    assert json.loads(payload) == outcome.payload == clicked[0]
    assert clicked[0]["actions"][0]["value"] == "call-7"


def test_a_wrong_signing_secret_is_refused_by_bolt_and_the_click_shown_failed(
    slack: LocalSlack, client: WebClient
) -> None:
    bolt = bolt_app(slack, secret="the-apps-real-secret")

    @bolt.action("approve")
    def approve(ack: Ack) -> None:
        ack()
        raise AssertionError("an unsigned request reached the listener")

    with http_app(bolt) as server:
        slack.configure_app(request_url=url_of(server), signing_secret=SECRET)
        ts = post_with_buttons(client, button("approve"))
        outcome = slack.click("agents", ts, "approve")
    assert not outcome.acked
    assert outcome.error == "This app responded with Status Code 401"
    assert [w["text"] for w in slack.warnings()] == [outcome.error]


def test_a_submission_answered_with_errors_over_http_keeps_the_modal(
    slack: LocalSlack, client: WebClient
) -> None:
    bolt = bolt_app(slack)
    view = {
        "type": "modal", "callback_id": "deny", "title": {"type": "plain_text", "text": "Deny"},
        "submit": {"type": "plain_text", "text": "Deny"},
        "blocks": [{"type": "input", "block_id": "reason", "label": {"type": "plain_text",
                    "text": "Why"}, "element": {"type": "plain_text_input", "action_id": "text"}}],
    }  # fmt: skip

    @bolt.action("deny")
    def deny(ack: Ack, body: dict[str, Any], client: WebClient) -> None:
        ack()
        client.views_open(trigger_id=body["trigger_id"], view=view)

    @bolt.view("deny")
    def submitted(ack: Ack, view: dict[str, Any]) -> None:
        if view["state"]["values"]["reason"]["text"]["value"] == "no":
            ack(response_action="errors", errors={"reason": "Say why, please"})
        else:
            ack()

    with http_app(bolt) as server:
        slack.configure_app(request_url=url_of(server), signing_secret=SECRET)
        ts = post_with_buttons(client, button("deny"))
        assert slack.click("agents", ts, "deny").acked
        assert slack.wait_for(lambda: slack.modal() is not None)  # bolt opens it after ack()
        refused = slack.submit_view(values={"reason": {"text": "no"}})
        assert refused.acked and refused.input_errors == {"reason": "Say why, please"}
        assert slack.modal() is not None
        assert slack.submit_view(values={"reason": {"text": "it deletes files"}}).acked
        assert slack.modal() is None


def test_an_event_is_posted_as_json_and_bolt_handles_it(slack: LocalSlack) -> None:
    bolt = bolt_app(slack)

    @bolt.event("app_home_opened")
    def opened(event: dict[str, Any], client: WebClient) -> None:
        section = {"type": "section", "text": {"type": "mrkdwn", "text": "2 sessions running"}}
        client.views_publish(user_id=event["user"], view={"type": "home", "blocks": [section]})

    with http_app(bolt) as server:
        slack.configure_app(request_url=url_of(server), signing_secret=SECRET)
        assert slack.open_home().acked
        [(headers, body)] = server.received
        assert headers["content-type"] == ["application/json"]
        assert json.loads(body)["event"]["type"] == "app_home_opened"
        assert slack.wait_for(lambda: slack.home() is not None)
    home = slack.home()
    assert home is not None and home["blocks"][0]["text"]["text"] == "2 sessions running"


def test_an_app_that_does_not_answer_in_time_fails_the_click(
    slack: LocalSlack, client: WebClient
) -> None:
    with socket.socket() as silent:  # accepts connections (the backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/slack/events"
        slack.configure_app(request_url=url, signing_secret=SECRET, ack_timeout=0.2)
        ts = post_with_buttons(client, button("stop"))
        outcome = slack.click("agents", ts, "stop")
    assert not outcome.acked and outcome.error == "This app took too long to respond"


def test_an_app_that_cannot_be_reached_fails_the_click(
    slack: LocalSlack, client: WebClient
) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # bound, never listening: the connection is refused
        slack.configure_app(request_url=f"http://127.0.0.1:{port}/", signing_secret=SECRET)
        ts = post_with_buttons(client, button("stop"))
        outcome = slack.click("agents", ts, "stop")
    assert not outcome.acked and outcome.error == "This app could not be reached"


def test_a_request_url_needs_a_secret_and_http(slack: LocalSlack) -> None:
    with pytest.raises(ValueError, match="signing secret"):
        slack.configure_app(request_url="http://127.0.0.1:9/")
    with pytest.raises(ValueError, match="http"):
        slack.configure_app(request_url="file:///etc/passwd", signing_secret=SECRET)
    assert slack.link.settings.transport is None


def test_socket_mode_wins_over_a_request_url(slack: LocalSlack) -> None:
    slack.configure_app(request_url="http://127.0.0.1:9/", signing_secret=SECRET)
    assert slack.link.settings.transport == "http"
    slack.configure_app(app_token="xapp-1-local")
    assert slack.link.settings.transport == "socket_mode"
    slack.configure_app(app_token="")
    assert slack.link.settings.transport == "http"
