"""Slack's Block Kit limits (shared/SLACK_FACTS.md) and a strict checker of message payloads.

`check_message` lists every violation as `"<json-pointer>: <what>"`. The walk that finds the
text of a message (`scan_blocks`) is shared by the checker, `block_text_size` and `blocks.fit`,
so what is measured is exactly what is checked and what is trimmed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

MAX_BLOCKS: Final = 50
TEXT_OBJECT_MAX: Final = 3000
SECTION_TEXT_MAX: Final = 3000
FIELDS_MAX: Final = 10
FIELD_TEXT_MAX: Final = 2000
HEADER_TEXT_MAX: Final = 150
CONTEXT_ELEMENTS_MAX: Final = 10
ACTIONS_ELEMENTS_MAX: Final = 25
BLOCK_ID_MAX: Final = 255
ACTION_ID_MAX: Final = 255
BUTTON_TEXT_MAX: Final = 75
BUTTON_VALUE_MAX: Final = 2000
BUTTON_URL_MAX: Final = 3000
IMAGE_URL_MAX: Final = 3000
IMAGE_ALT_TEXT_MAX: Final = 2000
IMAGE_TITLE_MAX: Final = 2000
MARKDOWN_BLOCK_MAX: Final = 12000
MARKDOWN_TOTAL_MAX: Final = 12000
MESSAGE_TEXT_BUDGET: Final = 11000
TOP_LEVEL_TEXT_MAX: Final = 40000
FALLBACK_TEXT_BUDGET: Final = 3000  # ours: a notification, not a copy of the message
BLOCK_TYPES = frozenset(
    {"header", "section", "context", "divider", "actions", "markdown", "rich_text", "image"}
)
Block = dict[str, Any]


class TextSlot:
    """One text of a message: `owner[\"text\"]`, `owner` being at `at` in block `block`, of at
    most `limit` characters, and that text as it was when the blocks were scanned.

    `kind` is `plain_text`, `mrkdwn`, `markdown` (a markdown block) or `rich_text`."""

    def __init__(
        self, block: int, at: str, owner: dict[str, Any], limit: int, kind: str, text: str
    ):
        self.block = block
        self.at = at
        self.owner = owner
        self.limit = limit
        self.kind = kind
        self.text = text

    @property
    def pointer(self) -> str:
        """Where the text is (built only when a problem is reported)."""
        return f"/blocks/{self.block}{self.at}/text"

    @property
    def empty(self) -> bool:
        """Empty or blank (a rich_text run may be a single space, nothing else may be blank)."""
        text = self.text
        return not text or (self.kind != "rich_text" and text.isspace())


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Scan:
    """What a walk over blocks found: their texts, and what is wrong with their shape. `block`:
    the index of the block being walked (pointers are built only when a problem is found)."""

    def __init__(self) -> None:
        self.slots: list[TextSlot] = []
        self.problems: list[str] = []
        self.block = 0

    def wrong(self, at: str, what: str) -> None:
        """A problem at `at` in the block being walked."""
        self.problems.append(f"/blocks/{self.block}{at}: {what}")

    def add(self, at: str, owner: dict[str, Any], limit: int, kind: str, text: str) -> None:
        self.slots.append(TextSlot(self.block, at, owner, limit, kind, text))


def check_message(payload: Mapping[str, Any]) -> list[str]:
    """Every limit a chat.postMessage / chat.update payload breaks; empty when it is fine."""
    problems = _check_fallback(payload.get("text"))
    if "blocks" in payload:
        problems.extend(check_blocks(payload["blocks"]))
    return problems


def _check_fallback(text: object) -> list[str]:
    if not isinstance(text, str) or not text.strip():
        return ["/text: missing or empty fallback text"]
    if len(text) > FALLBACK_TEXT_BUDGET:
        return [f"/text: {len(text)} chars, over the {FALLBACK_TEXT_BUDGET}-char fallback budget"]
    return []


def check_blocks(blocks: object, text_budget: int = MESSAGE_TEXT_BUDGET) -> list[str]:
    """Every limit a list of blocks breaks, pointers relative to the payload (`/blocks/…`);
    `text_budget` may be set below Slack's to check a builder's own budget."""
    if not isinstance(blocks, list):
        return ["/blocks: not a list"]
    scan = scan_blocks(blocks)
    problems = scan.problems
    if len(blocks) > MAX_BLOCKS:
        problems.append(f"/blocks: {len(blocks)} blocks, over {MAX_BLOCKS}")
    total = markdown = 0
    for slot in scan.slots:
        size = len(slot.text)
        total += size
        if slot.kind == "markdown":
            markdown += size
        if slot.empty:
            problems.append(f"{slot.pointer}: empty")
        elif size > slot.limit:
            problems.append(f"{slot.pointer}: {size} chars, over {slot.limit}")
    if markdown > MARKDOWN_TOTAL_MAX:
        problems.append(f"/blocks: {markdown} chars in markdown blocks, over {MARKDOWN_TOTAL_MAX}")
    if total > min(text_budget, MESSAGE_TEXT_BUDGET):
        problems.append(
            f"/blocks: {total} chars of block text, over {min(text_budget, MESSAGE_TEXT_BUDGET)}"
        )
    return problems


def block_text_size(blocks: Sequence[object]) -> int:
    """Characters of text in all blocks: text objects, markdown blocks, rich_text texts."""
    return sum(len(slot.text) for slot in scan_blocks(blocks).slots)


def scan_blocks(blocks: Sequence[object]) -> Scan:
    """Walk blocks: collect their text slots and their shape problems (not lengths)."""
    scan = Scan()
    seen_ids: set[str] = set()
    for index, block in enumerate(blocks):
        scan.block = index
        if not isinstance(block, dict):
            scan.wrong("", "not an object")
            continue
        _check_block_id(block.get("block_id"), seen_ids, scan)
        _check_block(block, scan)
    return scan


def _check_block(block: Block, scan: Scan) -> None:
    """One block checked by the rules of its type."""
    kind = block.get("type")
    if kind == "section":
        _section(block, scan)
    elif kind == "context":
        _context(block, scan)
    elif kind == "header":
        _header(block, scan)
    elif kind == "actions":
        _actions(block, scan)
    elif kind == "divider":
        _divider(block, scan)
    elif kind == "markdown":
        _markdown(block, scan)
    elif kind == "rich_text":
        _rich_text(block, scan)
    elif kind == "image":
        _image(block, "", scan)
    else:
        scan.wrong("/type", f"unknown block type {kind!r}")


def _check_block_id(block_id: object, seen: set[str], scan: Scan) -> None:
    if block_id is None:
        return
    if not isinstance(block_id, str) or not block_id:
        scan.wrong("/block_id", "not a non-empty string")
    elif len(block_id) > BLOCK_ID_MAX:
        scan.wrong("/block_id", f"{len(block_id)} chars, over {BLOCK_ID_MAX}")
    elif block_id in seen:
        scan.wrong("/block_id", f"duplicate {block_id!r}")
    else:
        seen.add(block_id)


def _text_object(
    obj: object, pointer: str, limit: int, scan: Scan, *, plain_only: bool = False
) -> None:
    if not isinstance(obj, dict):
        scan.wrong(pointer, "not a text object")
        return
    kind, text = obj.get("type"), obj.get("text")
    if kind != "plain_text" and (plain_only or kind != "mrkdwn"):
        kinds = "plain_text" if plain_only else "plain_text or mrkdwn"
        scan.wrong(f"{pointer}/type", f"{kind!r}, not {kinds}")
    elif not isinstance(text, str):
        scan.wrong(f"{pointer}/text", "missing")
    else:
        scan.add(pointer, obj, limit, kind, text)


def _elements(block: Block, most: int, scan: Scan) -> list[Any]:
    elements = block.get("elements")
    if not isinstance(elements, list) or not elements:
        scan.wrong("/elements", "missing or empty")
        return []
    if len(elements) > most:
        scan.wrong("/elements", f"{len(elements)} elements, over {most}")
    return elements


def _header(block: Block, scan: Scan) -> None:
    _text_object(block.get("text"), "/text", HEADER_TEXT_MAX, scan, plain_only=True)


def _section(block: Block, scan: Scan) -> None:
    if "text" not in block and "fields" not in block:
        scan.wrong("", "section with neither text nor fields")
    if "text" in block:
        _text_object(block["text"], "/text", SECTION_TEXT_MAX, scan)
    if "fields" in block:
        fields = block["fields"]
        if not isinstance(fields, list) or not fields:
            scan.wrong("/fields", "missing or empty")
            fields = []
        elif len(fields) > FIELDS_MAX:
            scan.wrong("/fields", f"{len(fields)} fields, over {FIELDS_MAX}")
        for i, item in enumerate(fields):
            _text_object(item, f"/fields/{i}", FIELD_TEXT_MAX, scan)
    accessory = block.get("accessory")
    if isinstance(accessory, dict) and accessory.get("type") == "button":
        _button(accessory, "/accessory", scan)
    elif isinstance(accessory, dict) and accessory.get("type") == "image":
        _image(accessory, "/accessory", scan)
    elif accessory is not None and not isinstance(accessory, dict):
        scan.wrong("/accessory", "not an object")


def _context(block: Block, scan: Scan) -> None:
    for i, element in enumerate(_elements(block, CONTEXT_ELEMENTS_MAX, scan)):
        if isinstance(element, dict) and element.get("type") == "image":
            _image(element, f"/elements/{i}", scan)
        else:
            _text_object(element, f"/elements/{i}", TEXT_OBJECT_MAX, scan)


def _actions(block: Block, scan: Scan) -> None:
    for i, element in enumerate(_elements(block, ACTIONS_ELEMENTS_MAX, scan)):
        where = f"/elements/{i}"
        if not isinstance(element, dict) or not isinstance(element.get("type"), str):
            scan.wrong(where, "not an interactive element")
        elif element["type"] == "button":
            _button(element, where, scan)
        else:
            _limited(element, "action_id", ACTION_ID_MAX, where, scan)


def _button(button: Block, pointer: str, scan: Scan) -> None:
    _text_object(button.get("text"), f"{pointer}/text", BUTTON_TEXT_MAX, scan, plain_only=True)
    _limited(button, "value", BUTTON_VALUE_MAX, pointer, scan)
    _limited(button, "url", BUTTON_URL_MAX, pointer, scan)
    _limited(button, "action_id", ACTION_ID_MAX, pointer, scan)


def _limited(owner: Block, key: str, limit: int, pointer: str, scan: Scan) -> None:
    """An optional string attribute: when present, non-empty and at most `limit` long."""
    value = owner.get(key)
    if value is None:
        return
    if not isinstance(value, str) or not value:
        scan.wrong(f"{pointer}/{key}", "not a non-empty string")
    elif len(value) > limit:
        scan.wrong(f"{pointer}/{key}", f"{len(value)} chars, over {limit}")


def _required(owner: Block, key: str, limit: int, pointer: str, scan: Scan) -> None:
    if key not in owner:
        scan.wrong(f"{pointer}/{key}", "missing")
    else:
        _limited(owner, key, limit, pointer, scan)


def _image(image: Block, pointer: str, scan: Scan) -> None:
    """An image block or image element: a URL (or slack_file) and alt text."""
    if not isinstance(image.get("slack_file"), dict):
        _required(image, "image_url", IMAGE_URL_MAX, pointer, scan)
    _required(image, "alt_text", IMAGE_ALT_TEXT_MAX, pointer, scan)
    if "title" in image:
        title = image["title"]
        _text_object(title, f"{pointer}/title", IMAGE_TITLE_MAX, scan, plain_only=True)


def _markdown(block: Block, scan: Scan) -> None:
    if not isinstance(block.get("text"), str):
        scan.wrong("/text", "missing")
    else:
        scan.add("", block, MARKDOWN_BLOCK_MAX, "markdown", block["text"])


def _rich_text(block: Block, scan: Scan) -> None:
    """Every `{"type": "text", "text": ...}` nested anywhere in a rich_text block."""
    pending: list[tuple[object, str]] = [
        (element, f"/elements/{i}") for i, element in enumerate(_elements(block, 10**9, scan))
    ]
    while pending:
        node, where = pending.pop()
        if isinstance(node, dict):
            if node.get("type") == "text" and isinstance(node.get("text"), str):
                text = node["text"]
                scan.add(where, node, MESSAGE_TEXT_BUDGET, "rich_text", text)
            pending.extend((value, f"{where}/{key}") for key, value in node.items())
        elif isinstance(node, list):
            pending.extend((value, f"{where}/{i}") for i, value in enumerate(node))


def _divider(block: Block, scan: Scan) -> None:
    """A divider has nothing to check."""
