"""Slack's message limits, enforced the way Slack answers them.

Written on its own, from Slack's reference pages and the refusals people recorded, not from
`blocks/limits.py`: this server is the oracle that checks slacktail's builders, so it must not
share their checker. Every refusal names a JSON pointer like Slack's:
`"must be less than 3001 characters [json-pointer:/blocks/0/text/text]"`.
"""

from __future__ import annotations

from typing import Any

from bot.localslack.limits_elements import (
    ACTION_ID_MAX,
    ALT_TEXT_MAX,
    Check,
    check_element,
    check_image_element,
    check_length,
    check_rich_text,
    check_text_object,
)

MAX_BLOCKS = 50
TEXT_MAX = 3000  # any text object
FIELD_MAX = 2000  # one section field
FIELDS_MAX = 10
HEADER_MAX = 150
CONTEXT_ELEMENTS_MAX = 10
ACTIONS_ELEMENTS_MAX = 25
BLOCK_ID_MAX = 255
MARKDOWN_MAX = 12000  # one markdown block, and all markdown blocks of a message together
MESSAGE_BLOCK_TEXT_MAX = 12000  # undocumented whole-message budget -> msg_blocks_too_long
TOP_LEVEL_TEXT_MAX = 40000  # past this Slack truncates `text` and warns `message_truncated`
LABEL_MAX = 2000  # an input block's label and hint
PLACEHOLDER_MAX = 150
INPUT_LENGTH_MAX = 3000  # plain_text_input's min_length / max_length
TASK_STATUSES = ("pending", "in_progress", "complete", "error")

BLOCK_KEYS: dict[str, set[str]] = {
    "section": {"type", "block_id", "text", "fields", "accessory", "expand"},
    "header": {"type", "block_id", "text"},
    "context": {"type", "block_id", "elements"},
    "divider": {"type", "block_id"},
    "actions": {"type", "block_id", "elements"},
    "markdown": {"type", "block_id", "text"},
    "rich_text": {"type", "block_id", "elements"},
    "image": {"type", "block_id", "image_url", "slack_file", "alt_text", "title"},
    "input": {"type", "block_id", "label", "element", "hint", "optional", "dispatch_action"},
    # The agent blocks (slack_sdk's TaskCardBlock and PlanBlock; docs.slack.dev, "Task card
    # block", "Plan block"): titles are plain strings; details and output one rich_text each.
    "task_card": {"type", "block_id", "task_id", "title", "details", "output", "sources", "status"},
    "plan": {"type", "block_id", "title", "tasks"},
}


def check_blocks(blocks: list[Any], *, at: str = "/blocks", most: int = MAX_BLOCKS) -> Check:
    """Every refusal Slack would give for `blocks` (already parsed from JSON); `at` is where they
    stand in the payload (a view's are at `/view/blocks`), `most` how many it may hold."""
    check = Check()
    if len(blocks) > most:
        check.fail(f"no more than {most} items allowed", at)
    block_ids: set[str] = set()
    for index, block in enumerate(blocks):
        _block(check, block, f"{at}/{index}", block_ids)
    if check.markdown_text > MARKDOWN_MAX and not check.markdown_block_over:
        check.fail(f"markdown blocks must total less than {MARKDOWN_MAX + 1} characters", at)
    return check


def message_errors(blocks: list[Any]) -> tuple[str, list[str]] | None:
    """None when Slack takes these blocks, else (error code, detail messages)."""
    check = check_blocks(blocks)
    if check.errors:
        return "invalid_blocks", check.errors
    if check.block_text > MESSAGE_BLOCK_TEXT_MAX:
        return "msg_blocks_too_long", []
    return None


def truncate_text(text: str) -> tuple[str, bool]:
    """Slack keeps the first 40,000 characters of `text`; (kept text, whether it was cut)."""
    if len(text) > TOP_LEVEL_TEXT_MAX:
        return text[:TOP_LEVEL_TEXT_MAX], True
    return text, False


# -- blocks -------------------------------------------------------------------------------


def _block(check: Check, block: Any, at: str, block_ids: set[str]) -> None:
    if not isinstance(block, dict):
        check.fail("must be an object", at)
        return
    kind = block.get("type")
    if not isinstance(kind, str):
        check.fail("missing required field: type", at)
        return
    allowed = BLOCK_KEYS.get(kind)
    if allowed is None:
        check.fail(f"unsupported type: {kind}", f"{at}/type")
        return
    for key in block:
        if key not in allowed:
            check.fail(f"unsupported property: {key}", f"{at}/{key}")
    if "block_id" in block:
        _block_id(check, block["block_id"], f"{at}/block_id", block_ids)
    {
        "section": _section,
        "header": _header,
        "context": _context,
        "divider": _divider,
        "actions": _actions,
        "markdown": _markdown,
        "rich_text": check_rich_text,
        "image": _image,
        "input": _input,
        "task_card": _task_card,
        "plan": _plan,
    }[kind](check, block, at)


def _block_id(check: Check, value: Any, at: str, seen: set[str]) -> None:
    if not isinstance(value, str):
        check.fail("must be a string", at)
        return
    check_length(check, value, at, BLOCK_ID_MAX)
    if value in seen:
        check.fail(f"duplicate block_id: {value}", at)
    seen.add(value)


def _divider(check: Check, block: dict[str, Any], at: str) -> None:
    """A divider has nothing but its type and block_id."""


def _section(check: Check, block: dict[str, Any], at: str) -> None:
    has_text, has_fields = "text" in block, "fields" in block
    if not has_text and not has_fields:
        check.fail("must define either `text` or `fields`", f"{at}/type")
    if has_text:
        check_text_object(check, block["text"], f"{at}/text", TEXT_MAX)
    if has_fields:
        fields = block["fields"]
        if not isinstance(fields, list) or not fields:
            check.fail("must provide at least 1 items", f"{at}/fields")
        else:
            if len(fields) > FIELDS_MAX:
                check.fail(f"no more than {FIELDS_MAX} items allowed", f"{at}/fields")
            for i, item in enumerate(fields):
                check_text_object(check, item, f"{at}/fields/{i}", FIELD_MAX)
    if "accessory" in block:
        check_element(check, block["accessory"], f"{at}/accessory", set())
    if "expand" in block and not isinstance(block["expand"], bool):
        check.fail("must be a boolean", f"{at}/expand")


def _header(check: Check, block: dict[str, Any], at: str) -> None:
    if "text" not in block:
        check.fail("missing required field: text", at)
        return
    check_text_object(check, block["text"], f"{at}/text", HEADER_MAX, plain_only=True)


def _context(check: Check, block: dict[str, Any], at: str) -> None:
    elements = _elements(check, block, at, CONTEXT_ELEMENTS_MAX)
    for i, element in enumerate(elements):
        where = f"{at}/elements/{i}"
        if isinstance(element, dict) and element.get("type") == "image":
            check_image_element(check, element, where)
        else:
            check_text_object(check, element, where, TEXT_MAX)


def _actions(check: Check, block: dict[str, Any], at: str) -> None:
    action_ids: set[str] = set()
    for i, element in enumerate(_elements(check, block, at, ACTIONS_ELEMENTS_MAX)):
        check_element(check, element, f"{at}/elements/{i}", action_ids)


def _elements(check: Check, block: dict[str, Any], at: str, most: int) -> list[Any]:
    elements = block.get("elements")
    if not isinstance(elements, list):
        check.fail("missing required field: elements", at)
        return []
    if not elements:
        check.fail("must provide at least 1 items", f"{at}/elements")
    if len(elements) > most:
        check.fail(f"no more than {most} items allowed", f"{at}/elements")
    return elements


def _markdown(check: Check, block: dict[str, Any], at: str) -> None:
    text = block.get("text")
    if not isinstance(text, str):
        check.fail("missing required field: text", at)
        return
    check_length(check, text, f"{at}/text", MARKDOWN_MAX)
    check.markdown_block_over |= len(text) > MARKDOWN_MAX
    check.markdown_text += len(text)
    check.block_text += len(text)


def _image(check: Check, block: dict[str, Any], at: str) -> None:
    check_image_element(check, block, at)
    if "title" in block:
        check_text_object(check, block["title"], f"{at}/title", ALT_TEXT_MAX, plain_only=True)


def _input(check: Check, block: dict[str, Any], at: str) -> None:
    """An input block: a label, one input element, an optional hint."""
    if "label" not in block:
        check.fail("missing required field: label", at)
    else:
        check_text_object(check, block["label"], f"{at}/label", LABEL_MAX, plain_only=True)
    if "hint" in block:
        check_text_object(check, block["hint"], f"{at}/hint", LABEL_MAX, plain_only=True)
    for key in ("optional", "dispatch_action"):
        if key in block and not isinstance(block[key], bool):
            check.fail("must be a boolean", f"{at}/{key}")
    element = block.get("element")
    if not isinstance(element, dict):
        check.fail("missing required field: element", at)
    elif element.get("type") == "plain_text_input":
        _plain_text_input(check, element, f"{at}/element")
    elif element.get("type") in ("button", "overflow", "workflow_button"):
        check.fail(f"unsupported type: {element['type']}", f"{at}/element/type")
    else:
        check_element(check, element, f"{at}/element", set())


def _plain_text_input(check: Check, element: dict[str, Any], at: str) -> None:
    if isinstance(element.get("action_id"), str):
        check_length(check, element["action_id"], f"{at}/action_id", ACTION_ID_MAX)
    if "placeholder" in element:
        check_text_object(
            check, element["placeholder"], f"{at}/placeholder", PLACEHOLDER_MAX, plain_only=True
        )
    for key in ("min_length", "max_length"):
        value = element.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            check.fail("must be an integer", f"{at}/{key}")
        elif not (key == "min_length") <= value <= INPUT_LENGTH_MAX:
            check.fail(f"must be at most {INPUT_LENGTH_MAX}", f"{at}/{key}")
    if "multiline" in element and not isinstance(element["multiline"], bool):
        check.fail("must be a boolean", f"{at}/multiline")


def _task_card(check: Check, block: dict[str, Any], at: str) -> None:
    """A task card: task_id and a plain-string title; status one of four; details and output a
    rich_text block each; sources URL source elements ({type: url, url, text})."""
    for key in ("task_id", "title"):
        _plain_string(check, block, key, at)
    status = block.get("status")
    if status is not None and status not in TASK_STATUSES:
        check.fail("must be a valid enum value", f"{at}/status")
    for key in ("details", "output"):
        if key in block:
            rich = block[key]
            if not isinstance(rich, dict) or rich.get("type") != "rich_text":
                check.fail("must be a rich_text block", f"{at}/{key}")
            else:
                check_rich_text(check, rich, f"{at}/{key}")
    if "sources" in block:
        _sources(check, block["sources"], f"{at}/sources")


def _sources(check: Check, sources: Any, at: str) -> None:
    if not isinstance(sources, list):
        check.fail("must be an array", at)
        return
    for i, source in enumerate(sources):
        where = f"{at}/{i}"
        if not isinstance(source, dict) or source.get("type") != "url":
            check.fail("must be a valid enum value", f"{where}/type")
            continue
        for key in ("url", "text"):
            _plain_string(check, source, key, where)


def _plan(check: Check, block: dict[str, Any], at: str) -> None:
    """A plan: a plain-string title and task cards."""
    _plain_string(check, block, "title", at)
    tasks = block.get("tasks", [])
    if not isinstance(tasks, list):
        check.fail("must be an array", f"{at}/tasks")
        return
    for i, task in enumerate(tasks):
        where = f"{at}/tasks/{i}"
        if not isinstance(task, dict) or task.get("type") != "task_card":
            check.fail("must be a task_card block", f"{where}/type")
            continue
        for key in task:
            if key not in BLOCK_KEYS["task_card"]:
                check.fail(f"unsupported property: {key}", f"{where}/{key}")
        _task_card(check, task, where)


def _plain_string(check: Check, obj: dict[str, Any], key: str, at: str) -> None:
    """A required non-blank string field (the agent blocks' titles: Slack documents no maximum,
    so none is made up; the text counts toward the whole message's budget)."""
    value = obj.get(key)
    if not isinstance(value, str):
        check.fail(f"missing required field: {key}", at)
    elif not value.strip():
        check.fail("must be more than 0 characters", f"{at}/{key}")
    else:
        check.block_text += len(value)
