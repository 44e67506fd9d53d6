"""The Web API methods slacktail uses, with Slack's argument rules and its error shapes.

An API refusal is HTTP 200 with `{"ok": false, "error": "..."}` (plus `errors` and
`response_metadata.messages` for invalid blocks). Arguments come as a form
(`application/x-www-form-urlencoded`, `blocks`/`metadata` as JSON strings), as a JSON body
(`application/json`, as slack_sdk sends chat.* calls), or in the query string. The token is an
`Authorization: Bearer` header or a `token` form field (never a JSON field: Slack ignores it).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from bot.localslack import limits
from bot.localslack.api_arguments import (
    attachments_arg,
    blocks_arg,
    cursor_arg,
    flag_arg,
    history_page,
    json_arg,
    limit_arg,
    metadata_arg,
    missing_arg,
    refuse_invalid_blocks,
    text_arg,
    time_bounds,
    with_warning,
)
from bot.localslack.model import (
    APP_ID,
    BLOCKS_FALLBACK_TEXT,
    BOT_ID,
    BOT_NAME,
    BOT_USER_ID,
    JSON,
    PEOPLE,
    TEAM_ID,
    TEAM_NAME,
    SlackError,
    is_ts,
)
from bot.localslack.workspace import Workspace

_REACTION_RE = re.compile(r"^[a-z0-9_+'-]{1,100}(::skin-tone-[2-6])?$")
MAX_LOADING_MESSAGES = 10
HISTORY_LIMIT = (100, 999)  # (default, most) for conversations.history
REPLIES_LIMIT = (1000, 1000)
LIST_LIMIT = (100, 1000)
POST_OPTIONS = ("parse", "link_names", "unfurl_links", "unfurl_media", "mrkdwn")


@dataclass
class ApiRequest:
    """One decoded call: its arguments and the token it carried (None if none)."""

    method: str
    params: dict[str, Any]
    token: str | None
    is_json: bool = False


@dataclass
class ApiResponse:
    status: int
    body: JSON
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return bool(self.body.get("ok"))


def error(code: str, **extra: Any) -> ApiResponse:
    return ApiResponse(200, {"ok": False, "error": code, **extra})


def parse_request(
    method: str, content_type: str, body: bytes, query: str, authorization: str
) -> ApiRequest:
    """Decode a call as Slack does; SlackError (`invalid_json`, `invalid_form_data`,
    `invalid_post_type`, `missing_post_type`) when it cannot be read."""
    params: dict[str, Any] = dict(parse_qsl(query, keep_blank_values=True))
    token: str | None = params.pop("token", None)
    media = content_type.split(";", 1)[0].strip().lower()
    is_json = False
    if body:
        if not media:
            raise SlackError("missing_post_type")
        if media == "application/json":
            try:
                decoded = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as err:
                raise SlackError("invalid_json") from err
            if not isinstance(decoded, dict):
                raise SlackError("invalid_json")
            decoded.pop("token", None)  # Slack takes a JSON call's token from the header only
            params.update(decoded)
            is_json = True
        elif media == "application/x-www-form-urlencoded":
            try:
                form = dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
            except (UnicodeDecodeError, ValueError) as err:
                raise SlackError("invalid_form_data") from err
            token = form.pop("token", token)
            params.update(form)
        else:
            raise SlackError("invalid_post_type")
    scheme, _, credential = authorization.strip().partition(" ")
    if scheme.lower() == "bearer" and credential.strip():
        token = credential.strip()
    return ApiRequest(method, params, token or None, is_json)


# -- the methods --------------------------------------------------------------------------


class Api:
    """Slack's Web API over one workspace, for one bot token."""

    def __init__(self, workspace: Workspace, token: str) -> None:
        self.workspace = workspace
        self.token = token
        self.app_token: str | None = None  # the app-level token (xapp-), for Socket Mode
        self.app_token_methods: frozenset[str] = frozenset()  # the methods that take it
        self.url = "http://127.0.0.1/"
        self.methods: dict[str, Callable[[dict[str, Any]], JSON]] = {
            "auth.test": self.auth_test,
            "conversations.list": self.conversations_list,
            "conversations.info": self.conversations_info,
            "conversations.members": self.conversations_members,
            "conversations.history": self.conversations_history,
            "conversations.replies": self.conversations_replies,
            "chat.postMessage": self.chat_post_message,
            "chat.update": self.chat_update,
            "chat.delete": self.chat_delete,
            "reactions.add": self.reactions_add,
            "reactions.remove": self.reactions_remove,
            "reactions.get": self.reactions_get,
            "assistant.threads.setStatus": self.assistant_set_status,
        }

    def authorize(self, request: ApiRequest) -> ApiResponse | None:
        """None if the call may proceed, else Slack's refusal (unknown method, bad token)."""
        if request.method not in self.methods:
            return error("unknown_method", req_method=request.method)
        if request.token is None:
            return error("not_authed")
        wants_app_token = request.method in self.app_token_methods
        if request.token == (self.token if wants_app_token else self.app_token):
            return error("not_allowed_token_type")  # a bot token for an app-token method, or back
        if request.token != (self.app_token if wants_app_token else self.token):
            return error("invalid_auth")
        return None

    def handle(self, request: ApiRequest) -> ApiResponse:
        refused = self.authorize(request)
        if refused is not None:
            return refused
        try:
            return ApiResponse(200, self.methods[request.method](request.params))
        except SlackError as err:
            return error(err.code, **err.extra)

    def auth_test(self, params: dict[str, Any]) -> JSON:
        return {
            "ok": True,
            "url": self.url,
            "team": TEAM_NAME,
            "user": BOT_NAME,
            "team_id": TEAM_ID,
            "user_id": BOT_USER_ID,
            "bot_id": BOT_ID,
            "app_id": APP_ID,
            "is_enterprise_install": False,
        }

    def conversations_list(self, params: dict[str, Any]) -> JSON:
        types = (text_arg(params, "types") or "public_channel").split(",")
        channels = self.workspace.channels() if "public_channel" in types else []
        start = 0
        cursor = text_arg(params, "cursor")
        if cursor:
            try:
                kind, _, offset = base64.b64decode(cursor, validate=True).decode().partition(":")
                start = int(offset) if kind == "offset" else -1
            except (ValueError, UnicodeDecodeError) as err:
                raise SlackError("invalid_cursor") from err
            if not 0 <= start <= len(channels):
                raise SlackError("invalid_cursor")
        end = start + limit_arg(params, LIST_LIMIT)
        more = end < len(channels)
        next_cursor = base64.b64encode(f"offset:{end}".encode()).decode() if more else ""
        return {
            "ok": True,
            "channels": channels[start:end],
            "response_metadata": {"next_cursor": next_cursor},
        }

    def conversations_info(self, params: dict[str, Any]) -> JSON:
        channel = self.workspace.channel_info(text_arg(params, "channel") or "")
        return {"ok": True, "channel": channel}

    def conversations_members(self, params: dict[str, Any]) -> JSON:
        """Every person of the local workspace is a member of every channel."""
        self.workspace.channel_info(text_arg(params, "channel") or "")  # channel_not_found
        return {"ok": True, "members": list(PEOPLE), "response_metadata": {"next_cursor": ""}}

    def conversations_history(self, params: dict[str, Any]) -> JSON:
        channel = text_arg(params, "channel") or ""
        self.workspace.channel_info(channel)  # channel_not_found comes first
        oldest, latest = time_bounds(params)
        messages, more = self.workspace.history(
            channel,
            oldest=oldest,
            latest=latest,
            inclusive=flag_arg(params, "inclusive"),
            limit=limit_arg(params, HISTORY_LIMIT),
            cursor=cursor_arg(params),
            include_metadata=flag_arg(params, "include_all_metadata"),
        )
        return {**history_page(messages, more), "pin_count": 0, "channel_actions_count": 0}

    def conversations_replies(self, params: dict[str, Any]) -> JSON:
        channel = text_arg(params, "channel") or ""
        self.workspace.channel_info(channel)
        ts = text_arg(params, "ts") or ""
        if not is_ts(ts):
            raise SlackError("thread_not_found")
        oldest, latest = time_bounds(params)
        messages, more = self.workspace.replies(
            channel,
            ts,
            oldest=oldest,
            latest=latest,
            inclusive=flag_arg(params, "inclusive"),
            limit=limit_arg(params, REPLIES_LIMIT),
            cursor=cursor_arg(params),
            include_metadata=flag_arg(params, "include_all_metadata"),
        )
        return history_page(messages, more)

    def chat_post_message(self, params: dict[str, Any]) -> JSON:
        channel = self.workspace.channel_id(text_arg(params, "channel") or "", by_name=True)
        text, blocks = text_arg(params, "text"), blocks_arg(params)
        attachments = attachments_arg(params)
        if not blocks and not attachments and not (text or "").strip():
            raise SlackError("no_text")
        refuse_invalid_blocks(blocks)
        metadata = metadata_arg(params)
        kept, truncated = limits.truncate_text(text or "")
        if not kept and blocks:
            kept = BLOCKS_FALLBACK_TEXT
        message = self.workspace.post(
            channel,
            text=kept,
            blocks=blocks,
            attachments=attachments,
            thread_ts=text_arg(params, "thread_ts") or None,
            broadcast=flag_arg(params, "reply_broadcast"),
            metadata=metadata,
            options={k: params[k] for k in POST_OPTIONS if k in params},
        )
        body = {"ok": True, "channel": channel, "ts": message["ts"], "message": message}
        return with_warning(body, truncated)

    def chat_update(self, params: dict[str, Any]) -> JSON:
        channel = self.workspace.channel_id(text_arg(params, "channel") or "")
        ts = text_arg(params, "ts") or ""
        text, blocks = text_arg(params, "text"), blocks_arg(params)
        attachments = attachments_arg(params)
        if not blocks and not attachments and not (text or "").strip():
            raise SlackError("no_text")
        refuse_invalid_blocks(blocks)
        metadata = metadata_arg(params)
        kept, truncated = limits.truncate_text(text) if text is not None else (None, False)
        message = self.workspace.update(
            channel,
            ts,
            text=kept,
            blocks=blocks,
            metadata=metadata,
            options={k: params[k] for k in POST_OPTIONS if k in params},
        )
        body = {"ok": True, "channel": channel, "ts": ts, "text": message["text"]}
        body["message"] = message
        return with_warning(body, truncated)

    def chat_delete(self, params: dict[str, Any]) -> JSON:
        channel = self.workspace.channel_id(text_arg(params, "channel") or "")
        ts = text_arg(params, "ts") or ""
        self.workspace.delete(channel, ts)
        return {"ok": True, "channel": channel, "ts": ts}

    def _reaction_target(self, params: dict[str, Any]) -> tuple[str, str]:
        channel, ts = text_arg(params, "channel"), text_arg(params, "timestamp")
        if not channel or not ts:
            raise SlackError("no_item_specified")
        channel_id = self.workspace.channel_id(channel)
        if not is_ts(ts):
            raise SlackError("bad_timestamp")
        return channel_id, ts

    def _reaction_name(self, params: dict[str, Any]) -> str:
        name = text_arg(params, "name") or ""
        if not _REACTION_RE.match(name):
            raise SlackError("invalid_name")
        return name

    def reactions_add(self, params: dict[str, Any]) -> JSON:
        channel, ts = self._reaction_target(params)
        self.workspace.add_reaction(channel, ts, self._reaction_name(params))
        return {"ok": True}

    def reactions_remove(self, params: dict[str, Any]) -> JSON:
        channel, ts = self._reaction_target(params)
        self.workspace.remove_reaction(channel, ts, self._reaction_name(params))
        return {"ok": True}

    def reactions_get(self, params: dict[str, Any]) -> JSON:
        channel, ts = self._reaction_target(params)
        message = self.workspace.message(channel, ts)
        return {"ok": True, "type": "message", "channel": channel, "message": message}

    def assistant_set_status(self, params: dict[str, Any]) -> JSON:
        channel = self.workspace.channel_id(text_arg(params, "channel_id") or "")
        thread_ts = text_arg(params, "thread_ts") or ""
        status = text_arg(params, "status")
        if status is None:
            raise missing_arg("status")
        try:
            loading = json_arg(params, "loading_messages") or []
        except ValueError as err:
            raise SlackError("invalid_arguments") from err
        if (
            not isinstance(loading, list)
            or len(loading) > MAX_LOADING_MESSAGES
            or not all(isinstance(m, str) for m in loading)
        ):
            raise SlackError("invalid_arguments")
        self.workspace.set_status(channel, thread_ts, status, loading)
        return {"ok": True}
