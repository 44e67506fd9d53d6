"""The local Slack's workspace: its channels, messages, threads, reactions and statuses, with
Slack's rules about them (ts values, threads, own messages, metadata); no HTTP.

Every public method takes the one lock and returns fresh JSON-shaped dicts, so callers never hold
a reference into the model. A refused operation raises `SlackError` with Slack's error code.
"""

from __future__ import annotations

import copy
from typing import Any

from bot.localslack.channels import Channels
from bot.localslack.model import (
    BOT_NAME,
    BOT_USER_ID,
    JSON,
    MAX_DISTINCT_REACTIONS,
    STATUS_TIMEOUT_S,
    TEAM_ID,
    TEAM_NAME,
    Channel,
    Message,
    SlackError,
    Status,
    format_ts,
    is_ts,
    message_json,
)


class Workspace(Channels):
    """One Slack workspace with a bot user; thread-safe behind one lock."""

    # -- messages -------------------------------------------------------------------------

    def _next_ts(self, channel: Channel) -> str:
        micros = max(int(self._wall_clock() * 1_000_000), channel.last_micros + 1)
        channel.last_micros = micros
        return format_ts(micros)

    def new_ts(self, channel_ref: str) -> tuple[str, str]:
        """(channel id, a fresh ts in it) for something that is not a stored message (an
        ephemeral message), ordered with the channel's messages."""
        with self._lock:
            channel = self._channel(channel_ref, by_name=True)
            return channel.id, self._next_ts(channel)

    def _live(self, channel: Channel, ts: str) -> Message:
        message = channel.messages.get(ts)
        if message is None or message.deleted:
            raise SlackError("message_not_found")
        return message

    def post(
        self,
        channel_ref: str,
        *,
        user: str = BOT_USER_ID,
        text: str,
        blocks: list[JSON] | None = None,
        attachments: list[Any] | None = None,
        thread_ts: str | None = None,
        broadcast: bool = False,
        metadata: JSON | None = None,
        options: JSON | None = None,
    ) -> JSON:
        """Store a new message (a reply when `thread_ts` is given) and return it as Slack does."""
        with self._lock:
            channel = self._channel(channel_ref, by_name=True)
            if not channel.is_member and user == BOT_USER_ID:
                raise SlackError("not_in_channel")
            parent = self._parent_for_reply(channel, thread_ts) if thread_ts else None
            message = Message(
                ts=self._next_ts(channel),
                user=user,
                text=text,
                blocks=copy.deepcopy(blocks) if blocks else None,
                attachments=copy.deepcopy(attachments) if attachments else None,
                thread_ts=parent.ts if parent else None,
                broadcast=broadcast and parent is not None,
                metadata=copy.deepcopy(metadata),
                options=dict(options or {}),
            )
            channel.messages[message.ts] = message
            if parent is None or message.broadcast:
                channel.timeline.append(message.ts)
            if parent is not None:
                parent.replies.append(message.ts)
                if user == BOT_USER_ID:
                    channel.statuses.pop(parent.ts, None)
            result = message_json(channel, message, include_metadata=False)
            event = {"kind": "message_posted", "channel": channel.id, "ts": message.ts}
        self._emit(event)
        return result

    def _parent_for_reply(self, channel: Channel, thread_ts: str) -> Message:
        """Slack's thread rules: the parent must be a top-level message of this channel."""
        if not is_ts(thread_ts):
            raise SlackError("invalid_thread_ts")
        parent = channel.messages.get(thread_ts)
        if parent is None or parent.is_reply:
            raise SlackError("thread_not_found")
        if parent.deleted:
            raise SlackError("cannot_reply_to_message")
        return parent

    def update(
        self,
        channel_id: str,
        ts: str,
        *,
        user: str = BOT_USER_ID,
        text: str | None,
        blocks: list[JSON] | None,
        metadata: JSON | None = None,
        options: JSON | None = None,
    ) -> JSON:
        """chat.update: replace the message's content. `None` means "not sent".

        Blocks not sent are kept only when text is not sent either; text without blocks (or with
        an empty array) removes them and marks the message edited; an update that leaves blocks
        shows no `edited` mark (Slack's documented behaviour)."""
        with self._lock:
            channel = self._channel(channel_id)
            message = self._live(channel, ts)
            if message.user != user:
                raise SlackError("cant_update_message")
            if blocks is not None or text is not None:
                message.blocks = copy.deepcopy(blocks) or None
            if text is not None:
                message.text = text
                if message.blocks is None:
                    message.edited = {"user": user, "ts": self._next_ts(channel)}
            if metadata is not None:
                message.metadata = copy.deepcopy(metadata)
            if options:
                message.options.update(options)
            result = message_json(channel, message, include_metadata=False)
            event = {"kind": "message_updated", "channel": channel.id, "ts": ts}
        self._emit(event)
        return result

    def delete(self, channel_id: str, ts: str, *, user: str = BOT_USER_ID) -> None:
        """chat.delete: a parent with replies stays as a tombstone, as in Slack."""
        with self._lock:
            channel = self._channel(channel_id)
            message = self._live(channel, ts)
            if message.user != user:
                raise SlackError("cant_delete_message")
            if message.replies:
                message.deleted = True
                message.text = "This message was deleted."
                message.blocks = message.attachments = message.metadata = None
                message.reactions = {}
            else:
                del channel.messages[ts]
                if ts in channel.timeline:
                    channel.timeline.remove(ts)
                if message.is_reply and message.thread_ts is not None:
                    self._drop_reply(channel, message.thread_ts, ts)
            event = {"kind": "message_deleted", "channel": channel.id, "ts": ts}
        self._emit(event)

    def _drop_reply(self, channel: Channel, parent_ts: str, ts: str) -> None:
        parent = channel.messages[parent_ts]
        parent.replies.remove(ts)
        if parent.deleted and not parent.replies:
            del channel.messages[parent_ts]
            channel.timeline.remove(parent_ts)

    # -- reactions ------------------------------------------------------------------------

    def add_reaction(self, channel_id: str, ts: str, name: str, user: str = BOT_USER_ID) -> None:
        with self._lock:
            channel = self._channel(channel_id)
            message = self._live(channel, ts)
            users = message.reactions.get(name)
            if users is not None and user in users:
                raise SlackError("already_reacted")
            if users is None and len(message.reactions) >= MAX_DISTINCT_REACTIONS:
                raise SlackError("too_many_emoji")
            message.reactions.setdefault(name, []).append(user)
            event = {"kind": "reaction_added", "channel": channel.id, "ts": ts, "name": name}
        self._emit(event)

    def remove_reaction(self, channel_id: str, ts: str, name: str, user: str = BOT_USER_ID) -> None:
        with self._lock:
            channel = self._channel(channel_id)
            message = self._live(channel, ts)
            users = message.reactions.get(name)
            if users is None or user not in users:
                raise SlackError("no_reaction")
            users.remove(user)
            if not users:
                del message.reactions[name]
            event = {"kind": "reaction_removed", "channel": channel.id, "ts": ts, "name": name}
        self._emit(event)

    def message(self, channel_id: str, ts: str, *, include_metadata: bool = False) -> JSON:
        """One live message (a reply too), as Slack returns it."""
        with self._lock:
            channel = self._channel(channel_id)
            return message_json(channel, self._live(channel, ts), include_metadata=include_metadata)

    # -- assistant status -----------------------------------------------------------------

    def set_status(
        self, channel_id: str, thread_ts: str, status: str, loading_messages: list[str]
    ) -> None:
        with self._lock:
            channel = self._channel(channel_id)
            if not is_ts(thread_ts):
                raise SlackError("invalid_thread_ts")
            parent = channel.messages.get(thread_ts)
            if parent is None or parent.is_reply or parent.deleted:
                raise SlackError("invalid_thread_ts")
            if status:
                channel.statuses[thread_ts] = Status(status, loading_messages, self._wall_clock())
            else:
                channel.statuses.pop(thread_ts, None)
            event = {"kind": "status_set", "channel": channel.id, "ts": thread_ts}
        self._emit(event)

    def statuses(self, channel_id: str) -> dict[str, str]:
        """The live assistant statuses of a channel's threads (thread ts -> status)."""
        with self._lock:
            return self._statuses(self._channel(channel_id))

    def status(self, channel_ref: str, thread_ts: str) -> JSON | None:
        """A thread's live status (`status`, `loading_messages`, `expires_at`), if any."""
        with self._lock:
            channel = self._channel(channel_ref, by_name=True)
            self._statuses(channel)
            status = channel.statuses.get(thread_ts)
            return None if status is None else _status_json(status)

    def _statuses(self, channel: Channel) -> dict[str, str]:
        now = self._wall_clock()
        expired = [t for t, s in channel.statuses.items() if now - s.set_at >= STATUS_TIMEOUT_S]
        for thread_ts in expired:
            del channel.statuses[thread_ts]
        return {t: s.text for t, s in channel.statuses.items()}

    # -- whole views ----------------------------------------------------------------------

    def channel_messages(self, channel_ref: str) -> list[JSON]:
        """Every channel-level message, oldest first, with metadata (for tests)."""
        with self._lock:
            channel = self._channel(channel_ref, by_name=True)
            return [
                message_json(channel, channel.messages[ts], include_metadata=True)
                for ts in channel.timeline
            ]

    def thread(self, channel_ref: str, ts: str) -> list[JSON]:
        """A thread's parent then its replies, oldest first, with metadata (for tests)."""
        with self._lock:
            channel = self._channel(channel_ref, by_name=True)
            parent = channel.messages.get(ts)
            if parent is None:
                raise SlackError("thread_not_found")
            return [
                message_json(channel, m, include_metadata=True)
                for m in [parent, *(channel.messages[r] for r in parent.replies)]
            ]

    def snapshot(self) -> JSON:
        """Everything the page shows: channels, their messages with replies, statuses."""
        with self._lock:
            channels = []
            for channel in self._channels.values():
                messages = []
                for ts in channel.timeline:
                    message = message_json(channel, channel.messages[ts], include_metadata=True)
                    if not channel.messages[ts].is_reply:
                        message["replies"] = [
                            message_json(channel, channel.messages[r], include_metadata=True)
                            for r in channel.messages[ts].replies
                        ]
                    messages.append(message)
                channels.append(
                    {
                        "id": channel.id,
                        "name": channel.name,
                        "is_member": channel.is_member,
                        "messages": messages,
                        "statuses": self._statuses(channel),
                        "status_details": {
                            ts: _status_json(status) for ts, status in channel.statuses.items()
                        },
                    }
                )
            return {
                "team": {"id": TEAM_ID, "name": TEAM_NAME},
                "bot": {"user_id": BOT_USER_ID, "name": BOT_NAME},
                "channels": channels,
            }

def _status_json(status: Status) -> JSON:
    return {
        "status": status.text,
        "loading_messages": list(status.loading_messages),
        "expires_at": status.set_at + STATUS_TIMEOUT_S,
    }
