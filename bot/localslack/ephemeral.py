"""Ephemeral messages (`chat.postEphemeral`, `response_url` answers): shown to one person, in a
channel or a thread, never stored in the channel's history (conversations.history and replies
do not return them), and gone when that person's client reloads in Slack; here they stay until
replaced, deleted or the workspace is reset (the last `KEEP` per person).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable

from bot.localslack.model import BOT_ID, BOT_USER_ID, JSON, TEAM_ID, SlackError

KEEP = 100
Listener = Callable[[JSON], None]


class Ephemerals:
    """Every person's ephemeral messages; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []
        self._messages: dict[str, list[JSON]] = {}  # user -> messages, oldest first

    def subscribe(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.append(listener)

    def reset(self) -> None:
        with self._lock:
            self._messages = {}
        self._emit({"kind": "ephemerals_reset"})

    def post(
        self,
        channel: str,
        ts: str,
        *,
        user: str,
        text: str,
        blocks: list[JSON] | None = None,
        thread_ts: str | None = None,
    ) -> JSON:
        """Show a message from the app to `user` alone; the message as the page gets it."""
        message: JSON = {
            "type": "message",
            "subtype": "bot_message",
            "is_ephemeral": True,
            "channel": channel,
            "text": text,
            "user": BOT_USER_ID,
            "bot_id": BOT_ID,
            "ts": ts,
            "team": TEAM_ID,
        }
        if blocks:
            message["blocks"] = copy.deepcopy(blocks)
        if thread_ts:
            message["thread_ts"] = thread_ts
        with self._lock:
            kept = self._messages.setdefault(user, [])
            kept.append(message)
            del kept[:-KEEP]
        self._emit({"kind": "ephemeral_posted", "channel": channel, "user": user, "ts": ts})
        return copy.deepcopy(message)

    def replace(
        self, user: str, channel: str, ts: str, *, text: str, blocks: list[JSON] | None
    ) -> None:
        """Replace one (`response_url` with `replace_original`)."""
        with self._lock:
            message = self._find(user, channel, ts)
            message["text"] = text
            message.pop("blocks", None)
            if blocks:
                message["blocks"] = copy.deepcopy(blocks)
        self._emit({"kind": "ephemeral_replaced", "channel": channel, "user": user, "ts": ts})

    def delete(self, user: str, channel: str, ts: str) -> None:
        with self._lock:
            self._messages[user].remove(self._find(user, channel, ts))
        self._emit({"kind": "ephemeral_deleted", "channel": channel, "user": user, "ts": ts})

    def get(self, user: str, channel: str, ts: str) -> JSON | None:
        with self._lock:
            try:
                return copy.deepcopy(self._find(user, channel, ts))
            except SlackError:
                return None

    def seen_by(self, user: str, channel: str | None = None) -> list[JSON]:
        """What `user` sees (in `channel`, or everywhere), oldest first."""
        with self._lock:
            return [
                copy.deepcopy(m)
                for m in self._messages.get(user, [])
                if channel is None or m["channel"] == channel
            ]

    def _find(self, user: str, channel: str, ts: str) -> JSON:
        for message in self._messages.get(user, []):
            if message["channel"] == channel and message["ts"] == ts:
                return message
        raise SlackError("message_not_found")

    def _emit(self, event: JSON) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(event)
