"""Slack's limits on a block's parts: elements (buttons, images, confirmation dialogs), text
objects and rich text, enforced the way Slack answers them (see ``bot.localslack.limits``, which
checks the blocks that hold them, and shares no code with ``blocks/limits.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

ACTION_ID_MAX = 255
BUTTON_TEXT_MAX = 75
BUTTON_VALUE_MAX = 2000
URL_MAX = 3000
ALT_TEXT_MAX = 2000
# A confirmation dialog: title, text, confirm and deny button texts.
CONFIRM_MAX = {"title": 100, "text": 300, "confirm": 30, "deny": 30}
TEXT_OBJECT_KEYS = {"plain_text": {"type", "text", "emoji"}, "mrkdwn": {"type", "text", "verbatim"}}
INTERACTIVE_ELEMENTS = {
    "button",
    "checkboxes",
    "datepicker",
    "datetimepicker",
    "overflow",
    "radio_buttons",
    "static_select",
    "external_select",
    "users_select",
    "conversations_select",
    "channels_select",
    "multi_static_select",
    "multi_external_select",
    "multi_users_select",
    "multi_conversations_select",
    "multi_channels_select",
    "timepicker",
    "workflow_button",
}
RICH_TEXT_CONTAINERS = {
    "rich_text_section",
    "rich_text_list",
    "rich_text_preformatted",
    "rich_text_quote",
}
RICH_TEXT_LEAVES = {"text", "link", "emoji", "user", "channel", "usergroup", "broadcast", "date"}


@dataclass
class Check:
    """The outcome of checking a message's blocks: Slack's refusals and the text it counts."""

    errors: list[str] = field(default_factory=list)
    block_text: int = 0  # characters of block text, for the whole-message budget
    markdown_text: int = 0
    markdown_block_over: bool = False  # one block past its own limit: no second refusal

    def fail(self, message: str, pointer: str) -> None:
        self.errors.append(f"{message} [json-pointer:{pointer}]")


# -- elements and text objects ------------------------------------------------------------


def check_element(check: Check, element: Any, at: str, action_ids: set[str]) -> None:
    if not isinstance(element, dict) or not isinstance(element.get("type"), str):
        check.fail("missing required field: type", at)
        return
    kind = element["type"]
    if kind == "image":
        check_image_element(check, element, at)
        return
    if kind not in INTERACTIVE_ELEMENTS:
        check.fail(f"unsupported type: {kind}", f"{at}/type")
        return
    action_id = element.get("action_id")
    if action_id is not None:
        if not isinstance(action_id, str):
            check.fail("must be a string", f"{at}/action_id")
        else:
            check_length(check, action_id, f"{at}/action_id", ACTION_ID_MAX)
            if action_id in action_ids:
                check.fail(f"duplicate action_id: {action_id}", f"{at}/action_id")
            action_ids.add(action_id)
    if kind == "button":
        _button(check, element, at)


def _button(check: Check, button: dict[str, Any], at: str) -> None:
    if "text" not in button:
        check.fail("missing required field: text", at)
    else:
        check_text_object(check, button["text"], f"{at}/text", BUTTON_TEXT_MAX, plain_only=True)
    for key, most in (("value", BUTTON_VALUE_MAX), ("url", URL_MAX)):
        if key in button:
            value = button[key]
            if isinstance(value, str):
                check_length(check, value, f"{at}/{key}", most)
            else:
                check.fail("must be a string", f"{at}/{key}")
    style = button.get("style")
    if style is not None and style not in ("primary", "danger"):
        check.fail("must be a valid enum value", f"{at}/style")
    if "confirm" in button:
        _confirm(check, button["confirm"], f"{at}/confirm")


def _confirm(check: Check, confirm: Any, at: str) -> None:
    """A confirmation dialog: plain_text title, confirm and deny; text plain or mrkdwn."""
    if not isinstance(confirm, dict):
        check.fail("must be an object", at)
        return
    for key, most in CONFIRM_MAX.items():
        if key not in confirm:
            check.fail(f"missing required field: {key}", at)
        else:
            plain_only = key != "text"
            check_text_object(check, confirm[key], f"{at}/{key}", most, plain_only=plain_only)
    style = confirm.get("style")
    if style is not None and style not in ("primary", "danger"):
        check.fail("must be a valid enum value", f"{at}/style")


def check_image_element(check: Check, image: dict[str, Any], at: str) -> None:
    url, slack_file = image.get("image_url"), image.get("slack_file")
    if url is None and slack_file is None:
        check.fail("must provide either image_url or slack_file", at)
    if url is not None:
        if isinstance(url, str):
            check_length(check, url, f"{at}/image_url", URL_MAX)
        else:
            check.fail("must be a string", f"{at}/image_url")
    alt = image.get("alt_text")
    if not isinstance(alt, str):
        check.fail("missing required field: alt_text", at)
    else:
        check_length(check, alt, f"{at}/alt_text", ALT_TEXT_MAX)


def check_text_object(
    check: Check, obj: Any, at: str, most: int, *, plain_only: bool = False
) -> None:
    if not isinstance(obj, dict):
        check.fail("must be an object", at)
        return
    kind = obj.get("type")
    allowed = ("plain_text",) if plain_only else ("plain_text", "mrkdwn")
    if not isinstance(kind, str) or kind not in allowed:
        check.fail("must be a valid enum value", f"{at}/type")
        return
    for key in obj:
        if key not in TEXT_OBJECT_KEYS[kind]:
            check.fail(f"unsupported property: {key}", f"{at}/{key}")
    text = obj.get("text")
    if not isinstance(text, str):
        check.fail("missing required field: text", at)
        return
    check_length(check, text, f"{at}/text", most)
    check.block_text += len(text)


def check_length(check: Check, text: str, at: str, most: int) -> None:
    """Slack's two length refusals; a blank text counts as empty (Slack refuses it too)."""
    if not text.strip():
        check.fail("must be more than 0 characters", at)
    elif len(text) > most:
        check.fail(f"must be less than {most + 1} characters", at)


# -- rich text ----------------------------------------------------------------------------


def check_rich_text(check: Check, block: dict[str, Any], at: str) -> None:
    elements = block.get("elements")
    if not isinstance(elements, list):
        check.fail("missing required field: elements", at)
        return
    for i, element in enumerate(elements):
        _rich_container(check, element, f"{at}/elements/{i}")


def _rich_container(check: Check, element: Any, at: str) -> None:
    if not isinstance(element, dict) or element.get("type") not in RICH_TEXT_CONTAINERS:
        check.fail("must be a valid enum value", f"{at}/type")
        return
    children = element.get("elements")
    if not isinstance(children, list):
        check.fail("missing required field: elements", at)
        return
    for i, child in enumerate(children):
        where = f"{at}/elements/{i}"
        if element["type"] == "rich_text_list":
            _rich_container(check, child, where)
        else:
            _rich_leaf(check, child, where)


def _rich_leaf(check: Check, leaf: Any, at: str) -> None:
    if not isinstance(leaf, dict) or leaf.get("type") not in RICH_TEXT_LEAVES:
        check.fail("must be a valid enum value", f"{at}/type")
        return
    for text in _leaf_texts(leaf):
        check.block_text += len(text)
    if leaf["type"] == "text" and not isinstance(leaf.get("text"), str):
        check.fail("missing required field: text", at)
    if leaf["type"] == "link" and not isinstance(leaf.get("url"), str):
        check.fail("missing required field: url", at)


def _leaf_texts(leaf: dict[str, Any]) -> Iterator[str]:
    for key in ("text", "url"):
        value = leaf.get(key)
        if isinstance(value, str):
            yield value
