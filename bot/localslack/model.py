"""The local Slack's stored things: ids, ts values, messages, channels, and Slack's JSON for them.

Plain data with no lock: `workspace.Workspace` owns the lock and Slack's rules.
"""

from __future__ import annotations

import base64
import copy
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

JSON = dict[str, Any]

TEAM_ID = "T0LOCAL001"
TEAM_NAME = "Local Slack"
BOT_USER_ID = "U0LOCALBOT"
BOT_ID = "B0LOCALBOT"
APP_ID = "A0LOCALAPP"
BOT_NAME = "slacktail"
HUMAN_USER_ID = "U0LOCALUSR"
# The workspace's people (id -> name): the page's "who am I" choices, so that an app's "not
# allowed" answers can be tried with someone other than the first user.
PEOPLE: dict[str, str] = {HUMAN_USER_ID: "local user", "U0LOCALALX": "alex", "U0LOCALSAM": "sam"}
VERIFICATION_TOKEN = "LocalSlackVerificationToken"  # the legacy `token` field of app payloads
DEFAULT_CHANNEL = "agents"
BLOCKS_FALLBACK_TEXT = "This content can't be displayed."
STATUS_TIMEOUT_S = 120.0  # assistant.threads.setStatus clears itself after two minutes
MAX_DISTINCT_REACTIONS = 23  # Slack's help centre: up to 23 different emoji on a message

_TS_RE = re.compile(r"^\d{1,10}\.\d{1,6}$")
CHANNEL_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,79}$")


class SlackError(Exception):
    """A refusal in Slack's words: `code` is the `error` field; `extra` is merged into the body."""

    def __init__(self, code: str, **extra: Any) -> None:
        super().__init__(code)
        self.code = code
        self.extra = extra


def ts_micros(value: str) -> int | None:
    """A ts (or an `oldest`/`latest` bound) as integer microseconds; None if it is no number."""
    try:
        number = Decimal(value.strip())
    except (InvalidOperation, AttributeError):
        return None
    if not number.is_finite() or number < 0:
        return None
    return int(number * 1_000_000)


def format_ts(micros: int) -> str:
    """Slack's ts format: whole seconds, a dot, six digits."""
    return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"


def is_ts(value: str) -> bool:
    """Whether `value` has the form of a message ts (`"1700000000.000100"`)."""
    return bool(_TS_RE.match(value))


def encode_cursor(ts: str) -> str:
    return base64.b64encode(f"next_ts:{ts}".encode()).decode()


def decode_cursor(cursor: str) -> int:
    """The ts a cursor continues after, in microseconds; `invalid_cursor` if it is none of ours."""
    try:
        raw = base64.b64decode(cursor.encode(), validate=True).decode()
    except (ValueError, UnicodeDecodeError) as err:
        raise SlackError("invalid_cursor") from err
    prefix, _, ts = raw.partition(":")
    micros = ts_micros(ts) if prefix == "next_ts" and is_ts(ts) else None
    if micros is None:
        raise SlackError("invalid_cursor")
    return micros


@dataclass
class Message:
    ts: str
    user: str
    text: str
    blocks: list[JSON] | None = None
    attachments: list[Any] | None = None
    thread_ts: str | None = None  # the parent's ts, for a reply
    broadcast: bool = False
    metadata: JSON | None = None
    reactions: dict[str, list[str]] = field(default_factory=dict)
    edited: JSON | None = None
    deleted: bool = False  # a tombstone: a deleted parent that still has replies
    replies: list[str] = field(default_factory=list)
    options: JSON = field(default_factory=dict)  # parse, link_names, unfurl_* as received

    @property
    def is_reply(self) -> bool:
        return self.thread_ts is not None and self.thread_ts != self.ts


@dataclass
class Status:
    text: str
    loading_messages: list[str]
    set_at: float


@dataclass
class Channel:
    id: str
    name: str
    created: int
    is_member: bool = True
    messages: dict[str, Message] = field(default_factory=dict)
    timeline: list[str] = field(default_factory=list)  # channel-level ts, oldest first
    last_micros: int = 0
    statuses: dict[str, Status] = field(default_factory=dict)  # thread ts -> status

    def info(self) -> JSON:
        return {
            "id": self.id,
            "name": self.name,
            "name_normalized": self.name,
            "is_channel": True,
            "is_group": False,
            "is_im": False,
            "is_mpim": False,
            "is_private": False,
            "is_archived": False,
            "is_general": self.name == DEFAULT_CHANNEL,
            "is_shared": False,
            "is_ext_shared": False,
            "is_org_shared": False,
            "is_member": self.is_member,
            "created": self.created,
            "creator": HUMAN_USER_ID,
            "context_team_id": TEAM_ID,
            "topic": {"value": "", "creator": "", "last_set": 0},
            "purpose": {"value": "", "creator": "", "last_set": 0},
            "num_members": 2 if self.is_member else 1,
        }


def message_json(channel: Channel, message: Message, *, include_metadata: bool) -> JSON:
    """A stored message as Slack's API returns it (metadata only when asked for)."""
    if message.deleted:
        out: JSON = {
            "type": "message",
            "subtype": "tombstone",
            "text": message.text,
            "user": "USLACKBOT",
            "hidden": True,
            "ts": message.ts,
        }
    else:
        out = {"type": "message", "text": message.text, "user": message.user}
        if message.user == BOT_USER_ID:
            out.update(bot_id=BOT_ID, app_id=APP_ID, bot_profile=bot_profile())
        out.update(ts=message.ts, team=TEAM_ID)
        if message.blocks:
            out["blocks"] = copy.deepcopy(message.blocks)
        if message.attachments:
            out["attachments"] = copy.deepcopy(message.attachments)
    if message.thread_ts is not None:
        out["thread_ts"] = message.thread_ts
        parent = channel.messages.get(message.thread_ts)
        if parent is not None:
            out["parent_user_id"] = parent.user
        if message.broadcast:
            out["subtype"] = "thread_broadcast"
    if message.replies:
        users = list(dict.fromkeys(channel.messages[r].user for r in message.replies))
        out.update(
            thread_ts=message.ts,
            reply_count=len(message.replies),
            reply_users_count=len(users),
            latest_reply=message.replies[-1],
            reply_users=users,
            is_locked=False,
            subscribed=False,
        )
    if message.edited is not None:
        out["edited"] = dict(message.edited)
    if message.reactions:
        out["reactions"] = [
            {"name": name, "users": list(users), "count": len(users)}
            for name, users in message.reactions.items()
        ]
    if include_metadata and message.metadata is not None:
        out["metadata"] = copy.deepcopy(message.metadata)
    return out


def bot_profile() -> JSON:
    return {
        "id": BOT_ID,
        "app_id": APP_ID,
        "name": BOT_NAME,
        "deleted": False,
        "team_id": TEAM_ID,
        "icons": {},
    }
