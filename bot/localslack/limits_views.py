"""Slack's limits on view objects (modals and the App Home), checked like messages' blocks.

From docs.slack.dev, "Modal views" and "Home tab views": `type` is `modal` or `home`; a modal's
`title` (required), `close` and `submit` are plain_text of at most 24 characters, and `submit` is
required when the blocks hold an input block; a view holds at most 100 blocks;
`private_metadata` at most 3000 characters, `callback_id` and `external_id` at most 255; a view
past 250 kB is `view_too_large`. Other refusals are `invalid_arguments` with the details in
`response_metadata.messages`, each naming a JSON pointer under `/view`.
"""

from __future__ import annotations

import json
from typing import Any

from bot.localslack.limits import check_blocks
from bot.localslack.limits_elements import Check, check_text_object

VIEW_BLOCKS_MAX = 100
VIEW_TEXT_MAX = 24  # title, close, submit
PRIVATE_METADATA_MAX = 3000
CALLBACK_ID_MAX = 255
EXTERNAL_ID_MAX = 255
VIEW_BYTES_MAX = 250_000
COMMON_KEYS = {"type", "blocks", "private_metadata", "callback_id", "external_id"}
VIEW_KEYS: dict[str, set[str]] = {
    "modal": COMMON_KEYS
    | {"title", "close", "submit", "clear_on_close", "notify_on_close", "submit_disabled"},
    "home": COMMON_KEYS,
}


def view_errors(view: Any, kinds: tuple[str, ...]) -> tuple[str, list[str]] | None:
    """None when Slack takes `view` (one of `kinds`), else (error code, detail messages)."""
    if not isinstance(view, dict):
        return "invalid_arguments", ["must be an object [json-pointer:/view]"]
    if len(json.dumps(view, ensure_ascii=False).encode("utf-8")) > VIEW_BYTES_MAX:
        return "view_too_large", []
    check = Check()
    kind = view.get("type")
    if kind not in kinds:
        check.fail("must be a valid enum value", "/view/type")
        return "invalid_arguments", check.errors
    for key in view:
        if key not in VIEW_KEYS[str(kind)]:
            check.fail(f"unsupported property: {key}", f"/view/{key}")
    _view_blocks(check, view)
    for key, most in (
        ("private_metadata", PRIVATE_METADATA_MAX),
        ("callback_id", CALLBACK_ID_MAX),
        ("external_id", EXTERNAL_ID_MAX),
    ):
        value = view.get(key)
        if value is not None and not isinstance(value, str):
            check.fail("must be a string", f"/view/{key}")
        elif isinstance(value, str) and len(value) > most:
            check.fail(f"must be less than {most + 1} characters", f"/view/{key}")
    if kind == "modal":
        _modal(check, view)
    return ("invalid_arguments", check.errors) if check.errors else None


def _view_blocks(check: Check, view: dict[str, Any]) -> None:
    blocks = view.get("blocks")
    if not isinstance(blocks, list):
        check.fail("missing required field: blocks", "/view")
        return
    checked = check_blocks(blocks, at="/view/blocks", most=VIEW_BLOCKS_MAX)
    check.errors.extend(checked.errors)


def _modal(check: Check, view: dict[str, Any]) -> None:
    if "title" not in view:
        check.fail("missing required field: title", "/view")
    for key in ("title", "close", "submit"):
        if key in view:
            check_text_object(check, view[key], f"/view/{key}", VIEW_TEXT_MAX, plain_only=True)
    blocks = view.get("blocks")
    has_input = isinstance(blocks, list) and any(
        isinstance(b, dict) and b.get("type") == "input" for b in blocks
    )
    if has_input and "submit" not in view:
        check.fail("submit is required when the view has an input block", "/view")
    for key in ("clear_on_close", "notify_on_close", "submit_disabled"):
        if key in view and not isinstance(view[key], bool):
            check.fail("must be a boolean", f"/view/{key}")
