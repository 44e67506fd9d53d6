"""The local Slack workspace's channels: its state behind one lock, channels made and found by
id or name, read as conversations.history and conversations.replies read them, and the change
events every change emits (``Workspace`` adds messages, reactions and statuses)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from bot.localslack.model import (
    CHANNEL_NAME_RE,
    DEFAULT_CHANNEL,
    JSON,
    Channel,
    SlackError,
    message_json,
    ts_micros,
)

Listener = Callable[[JSON], None]


class Channels:
    """The workspace's channels and their readers; thread-safe behind one lock."""

    def __init__(self, wall_clock: Callable[[], float] = time.time) -> None:
        self._wall_clock = wall_clock
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self._channels: dict[str, Channel] = {}
        self._next_channel = 1
        self.reset()

    # -- channels -------------------------------------------------------------------------

    def reset(self) -> None:
        """Forget every channel and message; the default channel is there again, empty."""
        with self._lock:
            self._channels = {}
            self._next_channel = 1
            self._create(DEFAULT_CHANNEL, is_member=True)
        self._emit({"kind": "reset"})

    def create_channel(self, name: str, *, is_member: bool = True) -> str:
        """Create a public channel (or return the existing one's id) and return its id."""
        name = name.lstrip("#")
        if not CHANNEL_NAME_RE.match(name):
            raise SlackError("invalid_name_specials")
        with self._lock:
            existing = self._by_name(name)
            channel = existing or self._create(name, is_member=is_member)
            channel_id = channel.id
        if existing is None:
            self._emit({"kind": "channel_created", "channel": channel_id})
        return channel_id

    def _create(self, name: str, *, is_member: bool) -> Channel:
        channel_id = f"C0LOCAL{self._next_channel:04d}"
        self._next_channel += 1
        channel = Channel(channel_id, name, int(self._wall_clock()), is_member=is_member)
        self._channels[channel_id] = channel
        return channel

    def _by_name(self, name: str) -> Channel | None:
        return next((c for c in self._channels.values() if c.name == name), None)

    def _channel(self, ref: str, *, by_name: bool = False) -> Channel:
        """A channel by id, or (for chat.postMessage) also by `#name` or `name`."""
        channel = self._channels.get(ref)
        if channel is None and by_name:
            channel = self._by_name(ref.removeprefix("#"))
        if channel is None:
            raise SlackError("channel_not_found")
        return channel

    def channel_id(self, ref: str, *, by_name: bool = False) -> str:
        with self._lock:
            return self._channel(ref, by_name=by_name).id

    def channel_info(self, channel_id: str) -> JSON:
        with self._lock:
            return self._channel(channel_id).info()

    def channels(self) -> list[JSON]:
        with self._lock:
            return [c.info() for c in self._channels.values()]

    # -- reading --------------------------------------------------------------------------

    def history(
        self,
        channel_id: str,
        *,
        oldest: int | None = None,
        latest: int | None = None,
        inclusive: bool = False,
        limit: int = 100,
        cursor: int | None = None,
        include_metadata: bool = False,
    ) -> tuple[list[JSON], bool]:
        """conversations.history: channel-level messages, newest first; (page, has_more)."""
        with self._lock:
            channel = self._channel(channel_id)
            selected = [
                channel.messages[ts]
                for ts in reversed(channel.timeline)
                if _within(ts, oldest, latest, inclusive)
                and (cursor is None or _micros(ts) < cursor)
            ]
            page = selected[:limit]
            return (
                [message_json(channel, m, include_metadata=include_metadata) for m in page],
                len(selected) > limit,
            )

    def replies(
        self,
        channel_id: str,
        ts: str,
        *,
        oldest: int | None = None,
        latest: int | None = None,
        inclusive: bool = False,
        limit: int = 1000,
        cursor: int | None = None,
        include_metadata: bool = False,
    ) -> tuple[list[JSON], bool]:
        """conversations.replies: the parent then its replies, oldest first; (page, has_more).

        A reply's ts answers that reply alone, as Slack does."""
        with self._lock:
            channel = self._channel(channel_id)
            root = channel.messages.get(ts)
            if root is None:
                raise SlackError("thread_not_found")
            thread = [root]
            if not root.is_reply:
                thread.extend(channel.messages[r] for r in root.replies)
            selected = [
                m
                for m in thread
                if (m is root or _within(m.ts, oldest, latest, inclusive))
                and (cursor is None or _micros(m.ts) > cursor)
            ]
            page = selected[:limit]
            return (
                [message_json(channel, m, include_metadata=include_metadata) for m in page],
                len(selected) > limit,
            )

    # -- change events --------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        """Call `listener(event)` after every change (outside the lock)."""
        with self._lock:
            self._listeners.append(listener)

    def _emit(self, event: JSON) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(event)


def _micros(ts: str) -> int:
    micros = ts_micros(ts)
    if micros is None:  # stored ts values are always well-formed
        raise ValueError(f"not a ts: {ts!r}")
    return micros


def _within(ts: str, oldest: int | None, latest: int | None, inclusive: bool) -> bool:
    micros = _micros(ts)
    if oldest is not None and (micros < oldest or (micros == oldest and not inclusive)):
        return False
    return not (latest is not None and (micros > latest or (micros == latest and not inclusive)))
