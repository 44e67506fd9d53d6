"""Apps for the interactive tests, made of slack_sdk's and bolt's own parts (no mocks):
`SocketApp`, slack_sdk's builtin SocketModeClient recording what it receives and acknowledging
it as told; `HttpApp`, a bolt App behind a stdlib HTTP server (its RequestVerification on)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from slack_bolt import App, BoltRequest
from slack_sdk import WebClient
from slack_sdk.socket_mode import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from bot.localslack import LocalSlack

from .conftest import TOKEN

APP_TOKEN = "xapp-1-A0LOCALAPP-1-test-app-token"
SECRET = "local-signing-secret-for-tests"

Answer = Callable[[SocketModeRequest], dict[str, Any] | None]


def button(action_id: str, text: str = "Go", **extra: Any) -> dict[str, Any]:
    return {"type": "button", "text": {"type": "plain_text", "text": text},
            "action_id": action_id, **extra}  # fmt: skip


def post_with_buttons(client: WebClient, *buttons: dict[str, Any], **args: Any) -> str:
    """Post a message with one actions block (block_id "controls"); its ts."""
    blocks = [{"type": "actions", "block_id": "controls", "elements": list(buttons)}]
    return str(client.chat_postMessage(channel="#agents", text="controls", blocks=blocks,
                                       **args)["ts"])  # fmt: skip


class SocketApp:
    """slack_sdk's own Socket Mode client: every request kept; acknowledged unless `ack` is
    False, with `answer(request)` as the response payload."""

    def __init__(self, slack: LocalSlack, *, ack: bool = True, answer: Answer | None = None):
        self.slack = slack
        self.ack = ack
        self.answer = answer
        self.requests: list[SocketModeRequest] = []
        self.web = WebClient(token=TOKEN, base_url=slack.base_url, retry_handlers=[])
        self.client = SocketModeClient(app_token=APP_TOKEN, web_client=self.web)
        self.client.socket_mode_request_listeners.append(self._on_request)

    def _on_request(self, client: SocketModeClient, request: SocketModeRequest) -> None:
        self.requests.append(request)
        if self.ack:
            payload = self.answer(request) if self.answer else None
            client.send_socket_mode_response(SocketModeResponse(request.envelope_id, payload))

    @property
    def payloads(self) -> list[dict[str, Any]]:
        return [r.payload for r in self.requests]

    def connect(self) -> None:
        opened = self.slack.socket_mode.opened
        self.client.connect()
        assert self.slack.wait_for(lambda: self.slack.socket_mode.opened > opened)

    def close(self) -> None:
        close_quickly(self.slack, self.client)


def close_quickly(slack: LocalSlack, client: SocketModeClient) -> None:
    """Close slack_sdk's client. Its reader holds a lock while it waits (up to 3 s) for data,
    and its queue reader waits a second for a message: the server's pings and an empty message
    wake them, so closing takes a moment instead of seconds."""
    closing = threading.Thread(target=client.close)
    closing.start()
    while closing.is_alive():
        slack.socket_mode.ping()
        client.message_queue.put(None)
        closing.join(0.05)


@contextmanager
def socket_app(slack: LocalSlack, **options: Any) -> Iterator[SocketApp]:
    app = SocketApp(slack, **options)
    app.connect()
    try:
        yield app
    finally:
        app.close()


class _BoltHandler(BaseHTTPRequestHandler):
    server: _BoltServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8")
        headers = {name.lower(): [value] for name, value in self.headers.items()}
        self.server.received.append((headers, body))
        response = self.server.bolt.dispatch(BoltRequest(body=body, headers=headers))
        data = (response.body or "").encode("utf-8")
        self.send_response(response.status)
        for name, values in response.headers.items():
            for value in values:
                if name.lower() != "content-length":
                    self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _BoltServer(ThreadingHTTPServer):
    daemon_threads = True
    bolt: App
    received: list[tuple[dict[str, list[str]], str]]


@contextmanager
def http_app(bolt: App) -> Iterator[_BoltServer]:
    """`bolt` serving its request URL on a free loopback port (`server.url`)."""
    server = _BoltServer(("127.0.0.1", 0), _BoltHandler)
    server.bolt, server.received = bolt, []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def url_of(server: _BoltServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/slack/events"
