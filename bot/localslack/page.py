"""The local Slack's web page: the HTML (page.html, beside this file), the state it shows
(`GET /_state`) and the live change stream (`GET /_events`, Server-Sent Events).

The page renders untrusted message text with DOM nodes and `textContent` only; nothing here
ever carries the token (the state is the workspace's channels and messages, nothing else).
On each change it redraws only the messages that changed, each inside its own element
(`article#msg-<ts>`), which it keeps for as long as the message is shown: an edit is seen in place.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

PAGE_FILE = Path(__file__).with_name("page.html")
ASSETS = ("page.js",)  # the page's other files, served at /<name>
HEARTBEAT_S = 15.0
Event = dict[str, Any]


def page_html() -> bytes:
    """The page, one HTML file with its CSS and JavaScript inline."""
    return PAGE_FILE.read_bytes()


def page_asset(name: str) -> bytes:
    """One of the page's other files (its interactive part: page.js)."""
    if name not in ASSETS:
        raise FileNotFoundError(name)
    return PAGE_FILE.with_name(name).read_bytes()


def state_json(snapshot: dict[str, Any]) -> bytes:
    return json.dumps(snapshot, ensure_ascii=False).encode("utf-8")


class EventBus:
    """Change events, numbered, for the page's stream; keeps the last few for late readers."""

    def __init__(self, keep: int = 1024) -> None:
        self._cond = threading.Condition()
        self._events: deque[Event] = deque(maxlen=keep)
        self._seq = 0
        self._closed = False

    @property
    def seq(self) -> int:
        with self._cond:
            return self._seq

    def publish(self, event: Event) -> None:
        with self._cond:
            self._seq += 1
            self._events.append({**event, "seq": self._seq})
            self._cond.notify_all()

    def wait(self, after: int, timeout: float) -> list[Event] | None:
        """Events numbered past `after` (waiting up to `timeout` for one); None once closed.

        If some were already forgotten, a `resync` event stands first: the reader reloads."""
        with self._cond:
            self._cond.wait_for(lambda: self._closed or self._seq > after, timeout)
            if self._closed:
                return None
            events = [e for e in self._events if e["seq"] > after]
            if events and events[0]["seq"] > after + 1:
                events.insert(0, {"kind": "resync", "seq": events[0]["seq"] - 1})
            return events

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def reopen(self) -> None:
        with self._cond:
            self._closed = False


def stream_events(bus: EventBus, write: Callable[[bytes], None]) -> None:
    """Write Server-Sent Events to `write` until the bus closes (or `write` raises, when the
    reader has gone: OSError, which the caller handles)."""
    last = bus.seq
    write(f"retry: 1000\nevent: hello\ndata: {json.dumps({'seq': last})}\n\n".encode())
    while True:
        events = bus.wait(last, HEARTBEAT_S)
        if events is None:
            return
        if not events:
            write(b": ping\n\n")
            continue
        for event in events:
            last = max(last, event["seq"])
            data = json.dumps(event, ensure_ascii=False)
            write(f"id: {event['seq']}\nevent: change\ndata: {data}\n\n".encode())
