"""A Web API method's arguments, read as Slack reads them (strings, flags, limits, JSON values:
blocks, attachments, metadata, time bounds, cursors), and the shapes of its answers that several
methods share (a page of messages, the truncation warning). Used by ``api``, ``api_app`` and
``agents``."""

from __future__ import annotations

import json
from typing import Any

from bot.localslack import limits
from bot.localslack.model import JSON, SlackError, decode_cursor, encode_cursor, ts_micros


def text_arg(params: dict[str, Any], name: str) -> str | None:
    """A string argument; numbers are taken as their text (a JSON ts may be a number)."""
    value = params.get(name)
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return str(value)
    return value if isinstance(value, str) else None


def flag_arg(params: dict[str, Any], name: str, default: bool = False) -> bool:
    value = params.get(name)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true")


def limit_arg(params: dict[str, Any], bounds: tuple[int, int]) -> int:
    default, most = bounds
    value = params.get("limit")
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except (TypeError, ValueError) as err:
        raise SlackError("invalid_limit") from err
    return default if number <= 0 else min(number, most)


def json_arg(params: dict[str, Any], name: str) -> Any:
    """A JSON argument: as sent in a JSON body, or decoded from a form's string."""
    value = params.get(name)
    if isinstance(value, str):
        return json.loads(value)
    return value


def blocks_arg(params: dict[str, Any]) -> list[Any] | None:
    if params.get("blocks") is None:
        return None
    try:
        blocks = json_arg(params, "blocks")
    except ValueError as err:
        raise SlackError("invalid_blocks_format") from err
    if not isinstance(blocks, list):
        raise SlackError("invalid_blocks_format")
    return blocks


def attachments_arg(params: dict[str, Any]) -> list[Any] | None:
    if params.get("attachments") is None:
        return None
    try:
        attachments = json_arg(params, "attachments")
    except ValueError as err:
        raise SlackError("invalid_attachments") from err
    if not isinstance(attachments, list):
        raise SlackError("invalid_attachments")
    return attachments


def metadata_arg(params: dict[str, Any]) -> JSON | None:
    if params.get("metadata") is None:
        return None
    try:
        metadata = json_arg(params, "metadata")
    except ValueError as err:
        raise SlackError("invalid_metadata_format") from err
    if not isinstance(metadata, dict):
        raise SlackError("invalid_metadata_format")
    event_type, payload = metadata.get("event_type"), metadata.get("event_payload")
    if not isinstance(event_type, str) or not event_type or not isinstance(payload, dict):
        raise SlackError("invalid_metadata_schema")
    return {"event_type": event_type, "event_payload": payload}


def refuse_invalid_blocks(blocks: list[Any] | None) -> None:
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


def time_bounds(params: dict[str, Any]) -> tuple[int | None, int | None]:
    bounds: list[int | None] = []
    for name in ("oldest", "latest"):
        raw = text_arg(params, name)
        micros = None if raw in (None, "") else ts_micros(raw or "")
        if raw not in (None, "") and micros is None:
            raise SlackError(f"invalid_ts_{name}")
        bounds.append(micros)
    return bounds[0], bounds[1]


def cursor_arg(params: dict[str, Any]) -> int | None:
    raw = text_arg(params, "cursor")
    return decode_cursor(raw) if raw else None


def history_page(messages: list[JSON], has_more: bool) -> JSON:
    body: JSON = {"ok": True, "messages": messages, "has_more": has_more}
    if has_more:
        body["response_metadata"] = {"next_cursor": encode_cursor(messages[-1]["ts"])}
    return body


def with_warning(body: JSON, truncated: bool) -> JSON:
    if truncated:
        body["warning"] = "message_truncated"
        body["response_metadata"] = {"warnings": ["message_truncated"]}
    return body


def missing_arg(name: str) -> SlackError:
    detail = f"missing required field: {name}"
    return SlackError("invalid_arguments", response_metadata={"messages": [f"[ERROR] {detail}"]})
