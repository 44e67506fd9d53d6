"""Slack's Socket Mode, server side: the app connects with a URL from `apps.connections.open`
and receives envelopes over a WebSocket, which it acknowledges by envelope id.

The wire, as Slack documents it and as slack_sdk's builtin client reads it
(`slack_sdk/socket_mode/builtin`, `request.py`): on connect the server says
`{"type": "hello", "num_connections", "debug_info", "connection_info": {"app_id"}}`; each message
to the app is an envelope `{"envelope_id", "type": "interactive" | "events_api" |
"slash_commands", "payload", "accepts_response_payload"}`; the app answers
`{"envelope_id", "payload"?}`; `{"type": "disconnect", "reason"}` asks it to reconnect (it calls
`apps.connections.open` again). A URL is good for one connection. Slack spreads envelopes over
the app's open connections (at most 10): here, in turn.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.localslack.model import APP_ID, JSON
from bot.localslack.websocket import Close, WebSocket

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 10
RECEIVED_KEEP = 1000
LINK_PATH = "/link/"


@dataclass
class Answer:
    """What became of one envelope: acknowledged (with the app's payload, if any), or not."""

    acked: bool
    payload: JSON | None = None
    error: str | None = None  # why it was not acknowledged, in the words the page shows


@dataclass
class _Waiter:
    done: threading.Event = field(default_factory=threading.Event)
    payload: JSON | None = None
    stopped: bool = False  # the server stopped before the app answered


@dataclass
class _Link:
    id: str
    socket: WebSocket


class SocketMode:
    """The app's Socket Mode connections; thread-safe."""

    def __init__(self, on_change: Callable[[JSON], None] | None = None) -> None:
        self._on_change = on_change  # told when a connection opens or closes
        self._lock = threading.Lock()
        self._tickets: set[str] = set()
        self._links: list[_Link] = []
        self._waiting: dict[str, _Waiter] = {}
        self._turn = itertools.count()
        self._closed = False
        self.received: deque[JSON] = deque(maxlen=RECEIVED_KEEP)  # what the app sent, for tests
        self.opened = 0  # connections accepted so far

    # -- connecting -----------------------------------------------------------------------

    def new_url(self, base: str) -> str:
        """A fresh WebSocket URL (what `apps.connections.open` answers), good for one connection."""
        ticket = uuid.uuid4().hex
        with self._lock:
            self._tickets.add(ticket)
        host = base.removeprefix("http://").rstrip("/")
        return f"ws://{host}{LINK_PATH}?ticket={ticket}&app_id={APP_ID}"

    def take_ticket(self, ticket: str) -> bool:
        """Whether `ticket` was issued and not used yet (it is used now)."""
        with self._lock:
            if ticket not in self._tickets or len(self._links) >= MAX_CONNECTIONS:
                return False
            self._tickets.discard(ticket)
            return True

    def serve(self, socket: WebSocket) -> None:
        """Run one connection to its end: hello, then read acknowledgements until it closes."""
        link = _Link(uuid.uuid4().hex, socket)
        with self._lock:
            if self._closed:
                socket.close(Close.GOING_AWAY, "server stopping")
                return
            self._links.append(link)
            self.opened += 1
            count = len(self._links)
        socket.send_text(json.dumps(_hello(count)))
        self._changed("app_connected", count)
        try:
            while (text := socket.receive()) is not None:
                self._received(text)
        finally:
            with self._lock:
                if link in self._links:
                    self._links.remove(link)
                count = len(self._links)
            self._changed("app_disconnected", count)

    def _changed(self, kind: str, count: int) -> None:
        if self._on_change is not None:
            self._on_change({"kind": kind, "connections": count})

    def _received(self, text: str) -> None:
        try:
            message = json.loads(text)
        except ValueError:
            log.debug("socket mode: not JSON from the app: %.200s", text)
            return
        if not isinstance(message, dict):
            return
        with self._lock:
            self.received.append(message)
            waiter = self._waiting.get(str(message.get("envelope_id")))
        if waiter is not None:
            payload = message.get("payload")
            waiter.payload = payload if isinstance(payload, dict) else None
            waiter.done.set()

    @property
    def connections(self) -> int:
        with self._lock:
            return len(self._links)

    # -- sending --------------------------------------------------------------------------

    def send(self, kind: str, payload: JSON, *, accepts_response: bool, timeout: float) -> Answer:
        """Send one envelope to one open connection and wait up to `timeout` for its ack."""
        envelope_id = str(uuid.uuid4())
        envelope: dict[str, Any] = {
            "envelope_id": envelope_id,
            "payload": payload,
            "type": kind,
            "accepts_response_payload": accepts_response,
        }
        if kind == "events_api":
            envelope.update(retry_attempt=0, retry_reason="")
        waiter = _Waiter()
        with self._lock:
            links = list(self._links)
            self._waiting[envelope_id] = waiter
            turn = next(self._turn)
        try:
            if not links:
                return Answer(False, error="The app is not connected (no Socket Mode connection)")
            if not links[turn % len(links)].socket.send_text(json.dumps(envelope)):
                return Answer(False, error="The app's Socket Mode connection was lost")
            if not waiter.done.wait(timeout) or waiter.stopped:
                return Answer(False, error="This app took too long to respond")
            return Answer(True, waiter.payload)
        finally:
            with self._lock:
                self._waiting.pop(envelope_id, None)

    def disconnect(self, reason: str = "refresh_requested") -> int:
        """Ask every connection to reconnect, as Slack does before it recycles one; how many."""
        with self._lock:
            links = list(self._links)
        message = json.dumps(
            {"type": "disconnect", "reason": reason, "debug_info": {"host": "applink-local"}}
        )
        return sum(link.socket.send_text(message) for link in links)

    def ping(self) -> int:
        """Ping every connection (Slack pings its clients too); how many were pinged."""
        with self._lock:
            links = list(self._links)
        return sum(link.socket.ping(b"local-slack") for link in links)

    def reopen(self) -> None:
        with self._lock:
            self._closed = False

    def close(self) -> None:
        """End every connection and every wait (the server is stopping)."""
        with self._lock:
            self._closed = True
            links, self._links = list(self._links), []
            waiters = list(self._waiting.values())
        for link in links:
            link.socket.close(Close.GOING_AWAY, "server stopping")
            link.socket.abort()
        for waiter in waiters:
            waiter.stopped = True
            waiter.done.set()


def _hello(count: int) -> JSON:
    return {
        "type": "hello",
        "num_connections": count,
        "debug_info": {
            "host": "applink-local",
            "build_number": 1,
            "approximate_connection_time": 18060,
        },
        "connection_info": {"app_id": APP_ID},
    }
