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
    decode_cursor,
    encode_cursor,
    is_ts,
    ts_micros,
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


# -- arguments ----------------------------------------------------------------------------


def _str(params: dict[str, Any], name: str) -> str | None:
    """A string argument; numbers are taken as their text (a JSON ts may be a number)."""
    value = params.get(name)
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return str(value)
    return value if isinstance(value, str) else None


def _bool(params: dict[str, Any], name: str, default: bool = False) -> bool:
    value = params.get(name)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true")


def _limit(params: dict[str, Any], bounds: tuple[int, int]) -> int:
    default, most = bounds
    value = params.get("limit")
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except (TypeError, ValueError) as err:
        raise SlackError("invalid_limit") from err
    return default if number <= 0 else min(number, most)


def _json_value(params: dict[str, Any], name: str) -> Any:
    """A JSON argument: as sent in a JSON body, or decoded from a form's string."""
    value = params.get(name)
    if isinstance(value, str):
        return json.loads(value)
    return value


def _blocks(params: dict[str, Any]) -> list[Any] | None:
    if params.get("blocks") is None:
        return None
    try:
        blocks = _json_value(params, "blocks")
    except ValueError as err:
        raise SlackError("invalid_blocks_format") from err
    if not isinstance(blocks, list):
        raise SlackError("invalid_blocks_format")
    return blocks


def _attachments(params: dict[str, Any]) -> list[Any] | None:
    if params.get("attachments") is None:
        return None
    try:
        attachments = _json_value(params, "attachments")
    except ValueError as err:
        raise SlackError("invalid_attachments") from err
    if not isinstance(attachments, list):
        raise SlackError("invalid_attachments")
    return attachments


def _metadata(params: dict[str, Any]) -> JSON | None:
    if params.get("metadata") is None:
        return None
    try:
        metadata = _json_value(params, "metadata")
    except ValueError as err:
        raise SlackError("invalid_metadata_format") from err
    if not isinstance(metadata, dict):
        raise SlackError("invalid_metadata_format")
    event_type, payload = metadata.get("event_type"), metadata.get("event_payload")
    if not isinstance(event_type, str) or not event_type or not isinstance(payload, dict):
        raise SlackError("invalid_metadata_schema")
    return {"event_type": event_type, "event_payload": payload}


def _check_blocks(blocks: list[Any] | None) -> None:
    if not blocks:
        return
    refused = limits.message_errors(blocks)
    if refused is None:
        return
    code, details = refused
    if details:
        raise SlackError(
            code,
            errors=details,
            response_metadata={"messages": [f"[ERROR] {d}" for d in details]},
        )
    raise SlackError(code)


def _bounds(params: dict[str, Any]) -> tuple[int | None, int | None]:
    bounds: list[int | None] = []
    for name in ("oldest", "latest"):
        raw = _str(params, name)
        micros = None if raw in (None, "") else ts_micros(raw or "")
        if raw not in (None, "") and micros is None:
            raise SlackError(f"invalid_ts_{name}")
        bounds.append(micros)
    return bounds[0], bounds[1]


def _cursor(params: dict[str, Any]) -> int | None:
    raw = _str(params, "cursor")
    return decode_cursor(raw) if raw else None


def _page(messages: list[JSON], has_more: bool) -> JSON:
    body: JSON = {"ok": True, "messages": messages, "has_more": has_more}
    if has_more:
        body["response_metadata"] = {"next_cursor": encode_cursor(messages[-1]["ts"])}
    return body


def _with_warning(body: JSON, truncated: bool) -> JSON:
    if truncated:
        body["warning"] = "message_truncated"
        body["response_metadata"] = {"warnings": ["message_truncated"]}
    return body


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
        types = (_str(params, "types") or "public_channel").split(",")
        channels = self.workspace.channels() if "public_channel" in types else []
        start = 0
        cursor = _str(params, "cursor")
        if cursor:
            try:
                kind, _, offset = base64.b64decode(cursor, validate=True).decode().partition(":")
                start = int(offset) if kind == "offset" else -1
            except (ValueError, UnicodeDecodeError) as err:
                raise SlackError("invalid_cursor") from err
            if not 0 <= start <= len(channels):
                raise SlackError("invalid_cursor")
        end = start + _limit(params, LIST_LIMIT)
        more = end < len(channels)
        next_cursor = base64.b64encode(f"offset:{end}".encode()).decode() if more else ""
        return {
            "ok": True,
            "channels": channels[start:end],
            "response_metadata": {"next_cursor": next_cursor},
        }

    def conversations_info(self, params: dict[str, Any]) -> JSON:
        return {"ok": True, "channel": self.workspace.channel_info(_str(params, "channel") or "")}

    def conversations_members(self, params: dict[str, Any]) -> JSON:
        """Every person of the local workspace is a member of every channel."""
        self.workspace.channel_info(_str(params, "channel") or "")  # channel_not_found
        return {"ok": True, "members": list(PEOPLE), "response_metadata": {"next_cursor": ""}}

    def conversations_history(self, params: dict[str, Any]) -> JSON:
        channel = _str(params, "channel") or ""
        self.workspace.channel_info(channel)  # channel_not_found comes first
        oldest, latest = _bounds(params)
        messages, more = self.workspace.history(
            channel,
            oldest=oldest,
            latest=latest,
            inclusive=_bool(params, "inclusive"),
            limit=_limit(params, HISTORY_LIMIT),
            cursor=_cursor(params),
            include_metadata=_bool(params, "include_all_metadata"),
        )
        return {**_page(messages, more), "pin_count": 0, "channel_actions_count": 0}

    def conversations_replies(self, params: dict[str, Any]) -> JSON:
        channel = _str(params, "channel") or ""
        self.workspace.channel_info(channel)
        ts = _str(params, "ts") or ""
        if not is_ts(ts):
            raise SlackError("thread_not_found")
        oldest, latest = _bounds(params)
        messages, more = self.workspace.replies(
            channel,
            ts,
            oldest=oldest,
            latest=latest,
            inclusive=_bool(params, "inclusive"),
            limit=_limit(params, REPLIES_LIMIT),
            cursor=_cursor(params),
            include_metadata=_bool(params, "include_all_metadata"),
        )
        return _page(messages, more)

    def chat_post_message(self, params: dict[str, Any]) -> JSON:
        channel = self.workspace.channel_id(_str(params, "channel") or "", by_name=True)
        text, blocks, attachments = _str(params, "text"), _blocks(params), _attachments(params)
        if not blocks and not attachments and not (text or "").strip():
            raise SlackError("no_text")
        _check_blocks(blocks)
        metadata = _metadata(params)
        kept, truncated = limits.truncate_text(text or "")
        if not kept and blocks:
            kept = BLOCKS_FALLBACK_TEXT
        message = self.workspace.post(
            channel,
            text=kept,
            blocks=blocks,
            attachments=attachments,
            thread_ts=_str(params, "thread_ts") or None,
            broadcast=_bool(params, "reply_broadcast"),
            metadata=metadata,
            options={k: params[k] for k in POST_OPTIONS if k in params},
        )
        body = {"ok": True, "channel": channel, "ts": message["ts"], "message": message}
        return _with_warning(body, truncated)

    def chat_update(self, params: dict[str, Any]) -> JSON:
        channel = self.workspace.channel_id(_str(params, "channel") or "")
        ts = _str(params, "ts") or ""
        text, blocks, attachments = _str(params, "text"), _blocks(params), _attachments(params)
        if not blocks and not attachments and not (text or "").strip():
            raise SlackError("no_text")
        _check_blocks(blocks)
        metadata = _metadata(params)
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
        return _with_warning(body, truncated)

    def chat_delete(self, params: dict[str, Any]) -> JSON:
        channel = self.workspace.channel_id(_str(params, "channel") or "")
        ts = _str(params, "ts") or ""
        self.workspace.delete(channel, ts)
        return {"ok": True, "channel": channel, "ts": ts}

    def _reaction_target(self, params: dict[str, Any]) -> tuple[str, str]:
        channel, ts = _str(params, "channel"), _str(params, "timestamp")
        if not channel or not ts:
            raise SlackError("no_item_specified")
        channel_id = self.workspace.channel_id(channel)
        if not is_ts(ts):
            raise SlackError("bad_timestamp")
        return channel_id, ts

    def _reaction_name(self, params: dict[str, Any]) -> str:
        name = _str(params, "name") or ""
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
        channel = self.workspace.channel_id(_str(params, "channel_id") or "")
        thread_ts = _str(params, "thread_ts") or ""
        status = _str(params, "status")
        if status is None:
            raise _missing("status")
        try:
            loading = _json_value(params, "loading_messages") or []
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


def _missing(name: str) -> SlackError:
    detail = f"missing required field: {name}"
    return SlackError("invalid_arguments", response_metadata={"messages": [f"[ERROR] {detail}"]})
