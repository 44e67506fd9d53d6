"""The app's transport, beside the follower: Socket Mode (an ``xapp-`` app token; no public
URL) or HTTP (requests to ``/slack/events`` on a port, each signed with the signing secret and
verified by Bolt). It runs on threads of its own and stops with the follower; a failure to
start is one line (``AppFailed``), never a hang."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from slack_bolt import App, BoltRequest
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk import WebClient

CLOSE_WAIT_S = 5.0


def bolt_app(client: WebClient, signing_secret: str | None) -> App:
    """A Bolt app posting with ``client``; requests verified when a signing secret is given
    (HTTP); Socket Mode's socket is authenticated by the app token instead."""
    return App(client=client, signing_secret=signing_secret or "",
               request_verification_enabled=signing_secret is not None,
               token_verification_enabled=False)  # fmt: skip


class SocketModeTransport:
    """Bolt's own Socket Mode handler, connected without blocking."""

    transport = "socket_mode"
    url: str | None = None

    def __init__(self, bolt: App, app_token: str) -> None:
        self.handler = SocketModeHandler(bolt, app_token)

    def start(self) -> None:
        self.handler.connect()  # type: ignore[no-untyped-call]

    def close(self) -> None:
        """Close the socket (slack_sdk's reader may wait a few seconds: not for long)."""
        closing = threading.Thread(target=self.handler.close, daemon=True)
        closing.start()
        deadline = time.monotonic() + CLOSE_WAIT_S
        while closing.is_alive() and time.monotonic() < deadline:
            self.handler.client.message_queue.put(None)  # wakes its queue's reader at once
            closing.join(0.05)


class HttpTransport:
    """Bolt behind a stdlib HTTP server on ``host:port`` (0: a free port)."""

    transport = "http"

    def __init__(self, bolt: App, port: int, host: str = "127.0.0.1") -> None:
        self.server = _BoltServer((host, port), _BoltHandler)
        self.server.bolt = bolt
        self.url = f"http://{host}:{self.server.server_address[1]}/slack/events"
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        if self._thread.is_alive():
            self.server.shutdown()
            self._thread.join()
        self.server.server_close()


class _BoltServer(ThreadingHTTPServer):
    daemon_threads = True
    bolt: App


class _BoltHandler(BaseHTTPRequestHandler):
    server: _BoltServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: what matters goes to the structured log."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(min(length, 1 << 20)).decode("utf-8", "replace")
        headers: dict[str, str | Sequence[str]] = {
            name.lower(): [value] for name, value in self.headers.items()
        }
        response = self.server.bolt.dispatch(BoltRequest(body=body, headers=headers))
        data = (response.body or "").encode("utf-8")
        self.send_response(response.status)
        for name, values in response.headers.items():
            if name.lower() != "content-length":
                for value in values:
                    self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
