"""Socket Mode: apps.connections.open and the WebSocket, with slack_sdk's own SocketModeClient
and bolt's SocketModeHandler connecting to the local Slack and receiving clicks."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
from typing import Any
from urllib.parse import urlsplit

import pytest
from slack_bolt import Ack, App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.localslack import LocalSlack
from bot.localslack.model import APP_ID

from .apps import APP_TOKEN, button, close_quickly, post_with_buttons, socket_app
from .conftest import TOKEN


def app_client(slack: LocalSlack, token: str = APP_TOKEN) -> WebClient:
    return WebClient(base_url=slack.base_url, retry_handlers=[], timeout=10)


def open_error(slack: LocalSlack, token: str) -> str:
    with pytest.raises(SlackApiError) as caught:
        app_client(slack).apps_connections_open(app_token=token)
    return str(caught.value.response["error"])


def test_apps_connections_open_answers_a_loopback_websocket_url(slack: LocalSlack) -> None:
    slack.configure_app(app_token=APP_TOKEN)
    url = app_client(slack).apps_connections_open(app_token=APP_TOKEN)["url"]
    parts = urlsplit(url)
    assert (parts.scheme, parts.hostname, parts.port) == ("ws", "127.0.0.1", slack.port)
    assert parts.path == "/link/" and "ticket=" in parts.query and f"app_id={APP_ID}" in url


def test_apps_connections_open_takes_the_app_token_only(slack: LocalSlack) -> None:
    assert open_error(slack, APP_TOKEN) == "invalid_auth"  # no Socket Mode configured yet
    slack.configure_app(app_token=APP_TOKEN)
    assert open_error(slack, TOKEN) == "not_allowed_token_type"  # a bot token
    assert open_error(slack, "xapp-1-someone-else") == "invalid_auth"
    bot_with_app_token = WebClient(token=APP_TOKEN, base_url=slack.base_url, retry_handlers=[])
    with pytest.raises(SlackApiError) as caught:
        bot_with_app_token.chat_postMessage(channel="#agents", text="x")
    assert caught.value.response["error"] == "not_allowed_token_type"


def test_an_app_token_must_look_like_one(slack: LocalSlack) -> None:
    with pytest.raises(ValueError, match="xapp-"):
        slack.configure_app(app_token="xoxb-not-an-app-token")


def handshake(slack: LocalSlack, path: str) -> tuple[socket.socket, bytes]:
    """A raw WebSocket handshake on `path`; (the socket, the server's answer head)."""
    key = base64.b64encode(os.urandom(16)).decode()
    conn = socket.create_connection(("127.0.0.1", slack.port), timeout=5)
    conn.sendall(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += conn.recv(1)
    return conn, head


def read_text(conn: socket.socket) -> tuple[int, bytes]:
    first, size = conn.recv(2)
    if size == 126:
        (size,) = struct.unpack("!H", conn.recv(2))
    data = b""
    while len(data) < size:
        data += conn.recv(size - len(data))
    return first & 0x0F, data


def test_a_url_is_good_for_one_connection_and_says_hello(slack: LocalSlack) -> None:
    slack.configure_app(app_token=APP_TOKEN)
    url = app_client(slack).apps_connections_open(app_token=APP_TOKEN)["url"]
    path = url.split(str(slack.port), 1)[1]
    first, head = handshake(slack, path)
    try:
        assert head.startswith(b"HTTP/1.1 101")
        opcode, data = read_text(first)
        hello = json.loads(data)
        assert opcode == 1 and hello["type"] == "hello"
        assert hello["num_connections"] == 1 and hello["connection_info"] == {"app_id": APP_ID}
        second, refused = handshake(slack, path)
        second.close()
        assert refused.startswith(b"HTTP/1.0 401") or refused.startswith(b"HTTP/1.1 401")
        # a masked ping is answered with a pong carrying the same bytes
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i] for i, b in enumerate(b"ping"))
        first.sendall(bytes([0x89, 0x84]) + mask + masked)
        assert read_text(first) == (0xA, b"ping")
    finally:
        first.close()


def test_slack_sdks_socket_mode_client_receives_a_click(
    slack: LocalSlack, client: WebClient
) -> None:
    slack.configure_app(app_token=APP_TOKEN)
    with socket_app(slack) as app:
        assert slack.socket_mode.connections == 1
        ts = post_with_buttons(client, button("stop", "Stop", value="session-1", style="danger"))
        outcome = slack.click("agents", ts, "stop")
        assert outcome.acked and outcome.error is None
        [request] = app.requests
        assert request.type == "interactive" and request.accepts_response_payload is False
        assert request.payload == outcome.payload
        assert request.payload["actions"][0]["value"] == "session-1"
    assert slack.wait_for(lambda: slack.socket_mode.connections == 0)
    assert slack.warnings() == []


def test_a_click_not_acknowledged_in_time_is_shown_failed(
    slack: LocalSlack, client: WebClient
) -> None:
    slack.configure_app(app_token=APP_TOKEN, ack_timeout=0.2)
    with socket_app(slack, ack=False) as app:
        ts = post_with_buttons(client, button("stop"))
        outcome = slack.click("agents", ts, "stop")
        assert not outcome.acked and outcome.error == "This app took too long to respond"
        assert len(app.requests) == 1
    [warning] = slack.warnings()
    assert warning["ts"] == ts and warning["text"] == "This app took too long to respond"


def test_a_click_with_no_app_connected_fails(slack: LocalSlack, client: WebClient) -> None:
    slack.configure_app(app_token=APP_TOKEN)
    ts = post_with_buttons(client, button("stop"))
    outcome = slack.click("agents", ts, "stop", user="U0LOCALALX")
    assert not outcome.acked and "not connected" in str(outcome.error)
    assert slack.warnings() == [] and len(slack.warnings("U0LOCALALX")) == 1


def test_a_disconnect_makes_the_client_reconnect_with_a_new_url(
    slack: LocalSlack, client: WebClient
) -> None:
    slack.configure_app(app_token=APP_TOKEN)
    with socket_app(slack) as app:
        assert slack.disconnect_sockets() == 1
        # The client closes its old connection once its reader wakes up: pings wake it.
        assert slack.wait_for(
            lambda: (
                slack.socket_mode.ping() > 0
                and slack.socket_mode.opened == 2
                and slack.socket_mode.connections == 1
            ),
            10,
        )
        opens = [r for r in slack.requests if r.method == "apps.connections.open"]
        assert len(opens) == 2
        ts = post_with_buttons(client, button("stop"))
        assert slack.click("agents", ts, "stop").acked and len(app.requests) == 1


def test_the_apps_response_payload_reaches_the_local_slack(
    slack: LocalSlack, client: WebClient
) -> None:
    """An ack's payload (here to a block action, which Slack ignores) is what the app sent."""
    slack.configure_app(app_token=APP_TOKEN)
    with socket_app(slack, answer=lambda request: {"seen": request.envelope_id}) as app:
        ts = post_with_buttons(client, button("stop"))
        outcome = slack.click("agents", ts, "stop")
        assert outcome.response == {"seen": app.requests[0].envelope_id}


def test_bolts_socket_mode_handler_acks_a_click_and_opens_a_modal(
    slack: LocalSlack, client: WebClient
) -> None:
    slack.configure_app(app_token=APP_TOKEN)
    bolt = App(client=WebClient(token=TOKEN, base_url=slack.base_url))
    seen: list[dict[str, Any]] = []

    @bolt.action("full_output")
    def full_output(ack: Ack, body: dict[str, Any], client: WebClient) -> None:
        ack()
        seen.append(body)
        client.views_open(trigger_id=body["trigger_id"], view={
            "type": "modal", "title": {"type": "plain_text", "text": "Full output"},
            "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "42 passed"}}],
        })  # fmt: skip

    handler = SocketModeHandler(bolt, APP_TOKEN)
    handler.connect()
    try:
        assert slack.wait_for(lambda: slack.socket_mode.connections == 1)
        ts = post_with_buttons(client, button("full_output", "Full output", value="t1"))
        assert slack.click("agents", ts, "full_output").acked
        assert slack.wait_for(lambda: slack.modal() is not None)
        modal = slack.modal()
        assert modal is not None and modal["title"]["text"] == "Full output"
        assert seen[0]["actions"][0]["value"] == "t1"
        assert slack.modal("U0LOCALALX") is None  # the modal is the clicker's alone
    finally:
        close_quickly(slack, handler.client)
