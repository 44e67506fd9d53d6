"""The seam to Slack: ``slack_sdk.WebClient`` calls, with slack_sdk's errors translated into
slacktail's (``bot.errors``). Nothing else in slacktail talks to Slack.

Every post and update passes ``unfurl_links=False``, ``unfurl_media=False``, ``parse="none"``
and ``link_names=False``: no link previews that fetch a URL, no mentions made by Slack's
parsing. Every payload is redacted once more just before it is sent (its fallback text and
every string in its blocks): the last pass over what leaves for Slack, whatever rendered it.
The client makes no retries of its own: a retried post could appear twice, so the
caller decides (see ``bot.delivery.deliverer``).
"""

from __future__ import annotations

import http.client
import re
import urllib.error
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web import SlackResponse

from bot.errors import (
    MessageGone,
    PayloadRejected,
    RateLimited,
    SlackCallFailed,
    SlackSetupError,
    SlackUnavailable,
    ThreadGone,
)
from bot.redaction import Redactor, redact_value

METADATA_EVENT = "slacktail_message"
# What a call raises when Slack could not be reached or the connection broke mid-answer.
_UNREACHABLE = (SlackClientError, urllib.error.URLError, http.client.HTTPException, OSError)
_SAFE = {"unfurl_links": False, "unfurl_media": False, "parse": "none", "link_names": False}
_CHANNEL_ID = re.compile(r"[CGD][A-Z0-9]{6,}")
_THREAD_GONE = frozenset({"thread_not_found", "cannot_reply_to_message", "invalid_thread_ts"})
_REJECTED = frozenset({"invalid_blocks", "invalid_blocks_format", "msg_blocks_too_long",
                       "msg_too_long", "no_text", "invalid_metadata_format"})  # fmt: skip
_FIXES = {
    "invalid_auth": "the token in SLACK_BOT_TOKEN was rejected: copy the app's Bot User OAuth "
    "Token (xoxb-…) from its OAuth & Permissions page",
    "not_authed": "no token reached Slack: set SLACK_BOT_TOKEN",
    "account_inactive": "the token's app or user was deactivated: reinstall the app",
    "token_revoked": "the token was revoked: reinstall the app and set the new SLACK_BOT_TOKEN",
    "missing_scope": "the app lacks a scope it needs (chat:write, reactions:write, "
    "channels:read, channels:history): add it and reinstall the app",
    "channel_not_found": "no such channel, or the app cannot see it: check --channel",
    "not_in_channel": "the app is not in the channel: invite it there with /invite @slacktail",
    "is_archived": "the channel is archived: unarchive it or pick another with --channel",
}


class SlackApi:
    """The Web API methods slacktail uses, on one channel."""

    def __init__(
        self, token: str, base_url: str, *, timeout: int = 15, redactor: Redactor | None = None
    ) -> None:
        self.redactor = redactor or Redactor()
        self.team_id = ""  # known after check_auth
        self.team_url = ""  # the workspace's address (https://acme.slack.com/), likewise
        self.client = WebClient(token=token, base_url=base_url, timeout=timeout, retry_handlers=[])

    # --- start-up -------------------------------------------------------------------------

    def check_auth(self) -> str:
        """The bot's user id; a bad token is a ``SlackSetupError`` saying how to fix it."""
        response = self._call("auth.test")
        self.team_id = str(response.get("team_id") or "")
        self.team_url = str(response.get("url") or "")
        return str(response.get("user_id") or "")

    def find_channel(self, channel: str) -> str:
        """The id of ``channel`` (an id, or a name with or without ``#``), checked to exist
        and to have the app as a member."""
        name = channel.lstrip("#")
        if _CHANNEL_ID.fullmatch(name):
            info = self._call("conversations.info", channel=name)["channel"]
        else:
            info = self._channel_named(name)
        if not info.get("is_member", True):
            raise SlackSetupError(f"#{info.get('name', name)}: {_FIXES['not_in_channel']}")
        return str(info["id"])

    def _channel_named(self, name: str) -> dict[str, Any]:
        cursor = None
        while True:
            page = self._call(
                "conversations.list",
                types="public_channel,private_channel",
                exclude_archived=True,
                limit=200,
                cursor=cursor,
            )
            for info in page.get("channels") or []:
                if info.get("name") == name:
                    return dict(info)
            cursor = (page.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                raise SlackSetupError(f"#{name}: {_FIXES['channel_not_found']}")

    # --- messages -------------------------------------------------------------------------

    def post(
        self,
        channel: str,
        payload: dict[str, Any],
        *,
        thread_ts: str | None,
        key: dict[str, str],
        broadcast: bool = False,
    ) -> str:
        """Post a message (in ``thread_ts``'s thread when given) carrying ``key`` in its
        metadata, so that a post of unknown outcome can be found before it is sent again."""
        arguments: dict[str, Any] = {
            "channel": channel,
            **redact_value(payload, self.redactor),
            **_SAFE,
            "metadata": {"event_type": METADATA_EVENT, "event_payload": key},
        }
        if thread_ts is not None:
            arguments["thread_ts"] = thread_ts
            if broadcast:
                arguments["reply_broadcast"] = True
        return str(self._call("chat.postMessage", **arguments)["ts"])

    def update(self, channel: str, ts: str, payload: dict[str, Any]) -> None:
        payload = redact_value(payload, self.redactor)
        self._call("chat.update", channel=channel, ts=ts, **payload, **_SAFE)

    def find_posted(self, channel: str, thread_ts: str | None, key: dict[str, str]) -> str | None:
        """The ts of a message slacktail posted with ``key``, in the thread (or among the
        channel's recent messages when there is no thread yet), or None."""
        if thread_ts is None:
            page = self._call("conversations.history", channel=channel, limit=100,
                              include_all_metadata=True)  # fmt: skip
            return _with_key(page.get("messages") or [], key)
        cursor = None
        while True:
            page = self._call("conversations.replies", channel=channel, ts=thread_ts, limit=200,
                              include_all_metadata=True, cursor=cursor)  # fmt: skip
            found = _with_key(page.get("messages") or [], key)
            cursor = (page.get("response_metadata") or {}).get("next_cursor")
            if found is not None or not cursor:
                return found

    def react(self, channel: str, ts: str, name: str, *, add: bool) -> None:
        """Add or remove a reaction (by name: ``white_check_mark``); idempotent."""
        try:
            method = "reactions.add" if add else "reactions.remove"
            self._call(method, channel=channel, timestamp=ts, name=name)
        except SlackCallFailed as error:
            if str(error) not in ("already_reacted", "no_reaction"):
                raise

    # --- agent surfaces (bot.delivery.status, bot.delivery.home) ---------------------------

    def set_status(self, channel: str, thread_ts: str, status: str) -> None:
        """The line under a thread ("is running Bash: …"); an empty one clears it."""
        status = redact_value(status, self.redactor)
        self._call("assistant.threads.setStatus", channel_id=channel, thread_ts=thread_ts,
                   status=status)  # fmt: skip

    def set_agent_session(
        self, channel: str, thread_ts: str, status: str, title: str | None = None
    ) -> None:
        """A thread's agent session: processing, active or closed (``title`` names a new one)."""
        title = None if title is None else redact_value(title, self.redactor)
        self._call("agents.sessions.setStatus", channel_id=channel, thread_ts=thread_ts,
                   status=status, title=title)  # fmt: skip

    def publish_home(self, user: str, view: dict[str, Any]) -> None:
        self._call("views.publish", user_id=user, view=redact_value(view, self.redactor))

    # --- the seam -------------------------------------------------------------------------

    def _call(self, method: str, **arguments: Any) -> SlackResponse:
        """Writes go as JSON (blocks and metadata as objects); reads as form fields, the
        only encoding Slack's read methods take."""
        body = {key: value for key, value in arguments.items() if value is not None}
        try:
            if method.startswith(("chat.", "reactions.", "assistant.", "agents.", "views.")):
                return self.client.api_call(method, json=body)
            return self.client.api_call(method, params=body)
        except SlackApiError as error:
            raise _translated(method, error) from None
        except _UNREACHABLE as error:
            raise SlackUnavailable(f"{method}: {type(error).__name__}: {error}") from None


def _translated(method: str, error: SlackApiError) -> Exception:
    response = error.response
    status = response.status_code
    code = str(response.get("error") or "") if isinstance(response.data, dict) else ""
    if status == 429 or code == "ratelimited":
        retry_after = response.headers.get("Retry-After") or response.headers.get("retry-after")
        return RateLimited(method, float(retry_after or 1))
    if status >= 500:
        return SlackUnavailable(f"{method}: HTTP {status}")
    if code == "message_not_found":
        return MessageGone(code)
    if code in _THREAD_GONE:
        return ThreadGone(code)
    if code in _REJECTED:
        return PayloadRejected(code)
    if code in _FIXES:
        return SlackSetupError(f"{code}: {_FIXES[code]}")
    return SlackCallFailed(code or f"HTTP {status}")


def _with_key(messages: list[dict[str, Any]], key: dict[str, str]) -> str | None:
    for message in messages:
        metadata = message.get("metadata") or {}
        if metadata.get("event_type") == METADATA_EVENT and metadata.get("event_payload") == key:
            return str(message["ts"])
    return None
