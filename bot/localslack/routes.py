"""The local Slack's HTTP side: each request routed to what answers it (the API, the page and
its state and events, response URLs, the page's person's clicks, the Socket Mode WebSocket).
The routes are listed in ``bot.localslack.server``'s docstring."""

from __future__ import annotations

import functools
import json
import logging
import socket
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from bot.localslack import people, response_url
from bot.localslack.model import HUMAN_USER_ID, JSON
from bot.localslack.page import page_asset, page_html, state_json, stream_events
from bot.localslack.socket_mode import LINK_PATH
from bot.localslack.websocket import WebSocket, accept_key, is_valid_key

if TYPE_CHECKING:
    from bot.localslack.server import LocalSlack

log = logging.getLogger(__name__)

MAX_BODY = 16 * 1024 * 1024


class HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = True
    app: LocalSlack


class Routes(BaseHTTPRequestHandler):
    server: HttpServer
    server_version = "LocalSlack/1"
    timeout = 30

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        self._route()

    def do_POST(self) -> None:
        self._route()

    def _route(self) -> None:
        app = self.server.app
        if not self._host_ok():
            self._send_json(403, {"ok": False, "error": "forbidden_host"})
            return
        url = urlsplit(self.path)
        body = self._body()
        if body is None:
            return
        if url.path.startswith("/api/"):
            self._api(url.path.removeprefix("/api/"), url.query, body)
        elif url.path in ("/", "/index.html") and self.command == "GET":
            self._send(200, page_html(), "text/html; charset=utf-8")
        elif url.path == "/page.js" and self.command == "GET":
            self._send(200, page_asset("page.js"), "text/javascript; charset=utf-8")
        elif url.path == LINK_PATH and self.command == "GET":
            self._websocket(url.query)
        elif url.path == "/_state" and self.command == "GET":
            seq = app.events.seq  # read first: the snapshot holds at least this much
            user = parse_qs(url.query).get("user", [HUMAN_USER_ID])[0]
            state = {**app.workspace.snapshot(), "seq": seq, "legend": app.legend}
            state["me"] = people.seen_by(app.interactions, user)
            state["agent_sessions"] = app.agents.sessions()
            self._send(200, state_json(state), "application/json; charset=utf-8")
        elif url.path.startswith("/actions/") and self.command == "POST":
            key = url.path.removeprefix("/actions/").partition("/")[2]
            self._send_json(*response_url.answer(app.interactions, key, body))
        elif url.path.startswith("/_page/") and self.command == "POST":
            self._page_action(url.path.removeprefix("/_page/"), body)
        elif url.path == "/_events" and self.command == "GET":
            self._events()
        elif url.path == "/_admin/faults" and self.command == "GET":
            self._send_json(200, {"ok": True, "faults": app.faults.state()})
        elif url.path.startswith("/_admin/") and self.command == "POST":
            if not self.headers.get("Content-Type", "").startswith("application/json"):
                self._send_json(415, {"ok": False, "error": "admin calls take application/json"})
                return
            self._send_json(*app.admin(url.path, body))
        else:
            self._send_json(404, {"ok": False, "error": "not_found"})

    def _page_action(self, name: str, body: bytes) -> None:
        """What the page's person does; JSON only, as the admin calls (a form posted from
        another site cannot click for them)."""
        if not self.headers.get("Content-Type", "").startswith("application/json"):
            self._send_json(415, {"ok": False, "error": "page calls take application/json"})
            return
        try:
            decoded = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self._send_json(400, {"ok": False, "error": "invalid_json"})
            return
        app = self.server.app
        if name == "stop":  # the native Stop under an agent session's thread
            self._send_json(*people.stop(app.interactions, app.agents, decoded))
            return
        self._send_json(*people.act(app.interactions, name, decoded))

    def _websocket(self, query: str) -> None:
        """The Socket Mode WebSocket: the opening handshake, then the connection to its end."""
        app = self.server.app
        key = self.headers.get("Sec-WebSocket-Key", "")
        version = self.headers.get("Sec-WebSocket-Version")
        upgrade = self.headers.get("Upgrade", "").lower() == "websocket"
        if not upgrade or not is_valid_key(key) or version != "13":
            self._send_json(400, {"ok": False, "error": "expected a WebSocket handshake"})
            return
        if not app.socket_mode.take_ticket(parse_qs(query).get("ticket", [""])[0]):
            self._send_json(401, {"ok": False, "error": "invalid_ticket"})
            return
        self.protocol_version = "HTTP/1.1"  # an upgrade is an HTTP/1.1 answer
        self.send_response(101, "Switching Protocols")
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept_key(key))
        self.end_headers()
        self.close_connection = True
        self.connection.settimeout(None)  # the app pings; the server's stop ends the wait
        shutdown = functools.partial(self.connection.shutdown, socket.SHUT_RDWR)
        app.socket_mode.serve(WebSocket(self.rfile, self.wfile, shutdown=shutdown))

    def _host_ok(self) -> bool:
        """Refuse other Host names (a web page rebinding its DNS to 127.0.0.1 reads nothing)."""
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        return host in ("127.0.0.1", "localhost", self.server.app.host)

    def _body(self) -> bytes | None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self._send_json(413, {"ok": False, "error": "request_too_large"})
            return None
        return self.rfile.read(length) if length else b""

    def _api(self, method: str, query: str, body: bytes) -> None:
        app = self.server.app
        response, drop, delay = app.handle_api(
            method,
            self.headers.get("Content-Type", ""),
            body,
            query,
            self.headers.get("Authorization", ""),
        )
        if delay:
            app.wait(delay)
        if drop:
            self._drop()
            return
        self._send_json(int(response.status), response.body, response.headers)

    def _drop(self) -> None:
        """Close the connection without a word: the call was done, the client never hears."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError as err:
            log.debug("dropping a connection that was already gone: %s", err)

    def _events(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()

        def write(chunk: bytes) -> None:
            self.wfile.write(chunk)
            self.wfile.flush()

        try:
            stream_events(self.server.app.events, write)
        except OSError as err:  # the page went away
            log.debug("event stream closed: %s", err)
        self.close_connection = True

    def _send_json(self, status: int, body: JSON, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self._send(status, data, "application/json; charset=utf-8", headers)

    def _send(
        self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError as err:  # the client hung up first
            log.debug("could not answer: %s", err)
