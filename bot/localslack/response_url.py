"""What an app POSTs to a `response_url` (bolt's `respond()`), done as Slack does it.

The body is JSON: `text`, `blocks`, `response_type` (`ephemeral`, the default, or `in_channel`),
`replace_original`, `delete_original`, `thread_ts`. Replacing or deleting acts on the message
clicked (an ephemeral one for its person only); otherwise a new message is posted, seen by the
person alone unless `in_channel`. A URL answers 5 times in 30 minutes (docs.slack.dev, "Handling
user interaction"). Slack's answer to a refused body is not documented in detail: here it is
HTTP 400 (404 for a URL expired or used up) with `{"ok": false, "error": ...}`.
"""

from __future__ import annotations

import json
from typing import Any

from bot.localslack import limits
from bot.localslack.interactions import Interactions, ResponseTarget
from bot.localslack.model import BLOCKS_FALLBACK_TEXT, BOT_USER_ID, JSON, SlackError


def answer(interactions: Interactions, key: str, body: bytes) -> tuple[int, JSON]:
    """(HTTP status, JSON answer) for a POST to the response_url ending in `key`."""
    try:
        target = interactions.response_target(key)
    except SlackError as err:
        return 404, {"ok": False, "error": err.code}
    try:
        request = json.loads(body.decode("utf-8")) if body.strip() else {}
    except (UnicodeDecodeError, ValueError):
        return 400, {"ok": False, "error": "invalid_payload"}
    if not isinstance(request, dict):
        return 400, {"ok": False, "error": "invalid_payload"}
    try:
        _act(interactions, target, request)
    except SlackError as err:
        return 400, {"ok": False, "error": err.code, **err.extra}
    return 200, {"ok": True}


def _act(interactions: Interactions, target: ResponseTarget, request: JSON) -> None:
    workspace, ephemerals = interactions.workspace, interactions.ephemerals
    if _true(request.get("delete_original")):
        if target.ephemeral:
            ephemerals.delete(target.user, target.channel, target.ts)
        else:
            workspace.delete(target.channel, target.ts, user=BOT_USER_ID)
        return
    text, blocks = _content(request)
    if _true(request.get("replace_original")):
        if target.ephemeral:
            ephemerals.replace(target.user, target.channel, target.ts, text=text, blocks=blocks)
        else:
            workspace.update(target.channel, target.ts, text=text, blocks=blocks or [])
        return
    thread_ts = request.get("thread_ts")
    thread = str(thread_ts) if isinstance(thread_ts, (str, int, float)) and thread_ts else None
    if request.get("response_type") == "in_channel":
        workspace.post(target.channel, text=text, blocks=blocks, thread_ts=thread)
    else:
        _, ts = workspace.new_ts(target.channel)
        ephemerals.post(
            target.channel, ts, user=target.user, text=text, blocks=blocks, thread_ts=thread
        )


def _content(request: JSON) -> tuple[str, list[JSON] | None]:
    text, blocks = request.get("text"), request.get("blocks")
    if blocks is not None and not isinstance(blocks, list):
        raise SlackError("invalid_blocks_format")
    if blocks:
        refused = limits.message_errors(blocks)
        if refused is not None:
            raise SlackError(refused[0], errors=refused[1])
    if not isinstance(text, str) or not text.strip():
        if not blocks:
            raise SlackError("no_text")
        text = BLOCKS_FALLBACK_TEXT
    return text, blocks or None


def _true(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")
