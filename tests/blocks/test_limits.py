"""blocks.limits: Slack's limits, and a checker that finds every violation of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ContextBlock,
    HeaderBlock,
    MarkdownBlock,
    MarkdownTextObject,
    SectionBlock,
)

from blocks import limits
from blocks.limits import BLOCK_TYPES, block_text_size, check_message


def section(text: str = "hello", **extra: Any) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}, **extra}


def mrkdwn(text: str) -> dict[str, str]:
    return {"type": "mrkdwn", "text": text}


def plain(text: str) -> dict[str, str]:
    return {"type": "plain_text", "text": text}


def button(text: str = "Stop", **extra: Any) -> dict[str, Any]:
    return {"type": "button", "text": plain(text), "action_id": "stop", **extra}


def message(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"text": "fallback", "blocks": list(blocks)}


VALID_EXAMPLES: dict[str, dict[str, Any]] = {
    "header": {"type": "header", "text": plain("Session started")},
    "section": {
        "type": "section",
        "text": mrkdwn("*Bash* `ls`"),
        "fields": [mrkdwn("a"), plain("b")],
        "accessory": button(value="v", url="https://a.example"),
        "block_id": "tools:1",
    },
    "context": {
        "type": "context",
        "elements": [
            mrkdwn("ok"),
            {"type": "image", "image_url": "https://a/i.png", "alt_text": "i"},
        ],
    },
    "divider": {"type": "divider"},
    "actions": {"type": "actions", "elements": [button(), {"type": "overflow", "action_id": "o"}]},
    "markdown": {"type": "markdown", "text": "**done**"},
    "rich_text": {
        "type": "rich_text",
        "elements": [{"type": "rich_text_section", "elements": [{"type": "text", "text": " "}]}],
    },
    "image": {
        "type": "image",
        "image_url": "https://a/i.png",
        "alt_text": "chart",
        "title": plain("t"),
    },
}


def test_every_allowed_block_type_has_a_valid_example() -> None:
    assert set(VALID_EXAMPLES) == BLOCK_TYPES


@pytest.mark.parametrize("kind", sorted(VALID_EXAMPLES))
def test_a_valid_block_of_each_allowed_type_passes(kind: str) -> None:
    assert check_message(message(VALID_EXAMPLES[kind])) == []


def test_a_message_with_text_only_passes() -> None:
    assert check_message({"text": "hi"}) == []


# the fallback text


@pytest.mark.parametrize(
    "payload", [{"blocks": [section()]}, {"text": ""}, {"text": " \n"}, {"text": 3}]
)
def test_missing_or_empty_fallback_text_is_reported(payload: dict[str, Any]) -> None:
    assert check_message(payload) == ["/text: missing or empty fallback text"]


def test_fallback_text_over_our_budget_is_reported() -> None:
    assert check_message({"text": "x" * 3000}) == []
    assert check_message({"text": "x" * 3001}) == [
        "/text: 3001 chars, over the 3000-char fallback budget"
    ]


# counts and shapes


def test_more_than_fifty_blocks_is_reported() -> None:
    assert check_message(message(*[{"type": "divider"}] * 50)) == []
    assert check_message(message(*[{"type": "divider"}] * 51)) == ["/blocks: 51 blocks, over 50"]


def test_blocks_that_are_not_a_list_are_reported() -> None:
    assert check_message({"text": "x", "blocks": '[{"type": "divider"}]'}) == [
        "/blocks: not a list"
    ]


def test_a_block_that_is_not_an_object_is_reported() -> None:
    assert check_message(message({"type": "divider"}, "divider")) == ["/blocks/1: not an object"]  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["video", "input", "file", None])
def test_an_unknown_block_type_is_reported(kind: str | None) -> None:
    assert check_message(message({"type": kind})) == [
        f"/blocks/0/type: unknown block type {kind!r}"
    ]


def test_a_section_with_neither_text_nor_fields_is_reported() -> None:
    assert check_message(message({"type": "section"})) == [
        "/blocks/0: section with neither text nor fields"
    ]


@pytest.mark.parametrize("text", ["", " ", "\n"])
def test_an_empty_text_object_is_reported(text: str) -> None:
    assert check_message(message(section(text))) == ["/blocks/0/text/text: empty"]


def test_a_text_object_that_is_not_an_object_is_reported() -> None:
    assert check_message(message({"type": "section", "text": "hi"})) == [
        "/blocks/0/text: not a text object"
    ]


def test_a_text_object_of_an_unknown_type_is_reported() -> None:
    assert check_message(message({"type": "section", "text": {"type": "md", "text": "x"}})) == [
        "/blocks/0/text/type: 'md', not plain_text or mrkdwn"
    ]


def test_a_header_that_is_not_plain_text_is_reported() -> None:
    assert check_message(message({"type": "header", "text": mrkdwn("*x*")})) == [
        "/blocks/0/text/type: 'mrkdwn', not plain_text"
    ]


# lengths, with the pointer Slack would give


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        (section("x" * 3001), "/blocks/0/text/text: 3001 chars, over 3000"),
        ({"type": "header", "text": plain("x" * 151)}, "/blocks/0/text/text: 151 chars, over 150"),
        (
            {"type": "section", "fields": [mrkdwn("a"), mrkdwn("x" * 2001)]},
            "/blocks/0/fields/1/text: 2001 chars, over 2000",
        ),
        (
            {"type": "section", "fields": [mrkdwn("a")] * 11},
            "/blocks/0/fields: 11 fields, over 10",
        ),
        (
            {"type": "context", "elements": [mrkdwn("a")] * 11},
            "/blocks/0/elements: 11 elements, over 10",
        ),
        (
            {"type": "context", "elements": [mrkdwn("x" * 3001)]},
            "/blocks/0/elements/0/text: 3001 chars, over 3000",
        ),
        (
            {"type": "actions", "elements": [button()] * 26},
            "/blocks/0/elements: 26 elements, over 25",
        ),
        (
            {"type": "actions", "elements": [button("x" * 76)]},
            "/blocks/0/elements/0/text/text: 76 chars, over 75",
        ),
        (
            {"type": "actions", "elements": [button(value="v" * 2001)]},
            "/blocks/0/elements/0/value: 2001 chars, over 2000",
        ),
        (
            {"type": "actions", "elements": [button(url="u" * 3001)]},
            "/blocks/0/elements/0/url: 3001 chars, over 3000",
        ),
        (
            {"type": "actions", "elements": [button(action_id="a" * 256)]},
            "/blocks/0/elements/0/action_id: 256 chars, over 255",
        ),
        (section(block_id="b" * 256), "/blocks/0/block_id: 256 chars, over 255"),
        ({"type": "markdown", "text": "x" * 12001}, "/blocks/0/text: 12001 chars, over 12000"),
        ({"type": "actions", "elements": []}, "/blocks/0/elements: missing or empty"),
        ({"type": "image", "image_url": "https://a/i.png"}, "/blocks/0/alt_text: missing"),
    ],
)
def test_a_limit_broken_inside_a_block_is_reported_with_its_pointer(
    block: dict[str, Any], problem: str
) -> None:
    assert problem in check_message(message(block))


def test_a_duplicate_block_id_is_reported() -> None:
    assert check_message(message(section(block_id="a"), section(block_id="a"))) == [
        "/blocks/1/block_id: duplicate 'a'"
    ]


def test_markdown_blocks_over_twelve_thousand_chars_together_are_reported() -> None:
    halves = [{"type": "markdown", "text": "x" * 6000}, {"type": "markdown", "text": "x" * 6001}]
    problems = check_message(message(*halves))
    assert "/blocks: 12001 chars in markdown blocks, over 12000" in problems


def test_block_text_over_the_message_budget_is_reported() -> None:
    blocks = [section("x" * 2750) for _ in range(4)]
    assert check_message(message(*blocks)) == []
    blocks.append(section("x"))
    assert check_message(message(*blocks)) == ["/blocks: 11001 chars of block text, over 11000"]


def test_every_violation_is_reported_not_only_the_first() -> None:
    problems = check_message({"text": "", "blocks": [section(""), {"type": "nope"}]})
    assert len(problems) == 3


# block_text_size


def test_block_text_size_counts_every_text_in_every_block() -> None:
    blocks = [
        {"type": "header", "text": plain("12345")},
        {
            "type": "section",
            "text": mrkdwn("12"),
            "fields": [mrkdwn("123")],
            "accessory": button("1"),
        },
        {"type": "context", "elements": [mrkdwn("1234")]},
        {"type": "actions", "elements": [button("12")]},
        {"type": "markdown", "text": "123"},
        VALID_EXAMPLES["rich_text"],
        {"type": "divider"},
    ]
    assert block_text_size(blocks) == 5 + 2 + 3 + 1 + 4 + 2 + 3 + 1


# agreement with slack_sdk's own validation


SdkCase = tuple[str, int, Callable[[int], Any]]
SDK_CASES: list[SdkCase] = [
    ("section text", limits.SECTION_TEXT_MAX, lambda n: SectionBlock(text="x" * n)),
    ("header text", limits.HEADER_TEXT_MAX, lambda n: HeaderBlock(text="x" * n)),
    ("markdown text", limits.MARKDOWN_BLOCK_MAX, lambda n: MarkdownBlock(text="x" * n)),
    ("fields", limits.FIELDS_MAX, lambda n: SectionBlock(fields=["f"] * n)),
    (
        "context elements",
        limits.CONTEXT_ELEMENTS_MAX,
        lambda n: ContextBlock(elements=[MarkdownTextObject(text="c")] * n),
    ),
    (
        "actions elements",
        limits.ACTIONS_ELEMENTS_MAX,
        lambda n: ActionsBlock(elements=[ButtonElement(text="b", action_id="a")] * n),
    ),
    ("block_id", limits.BLOCK_ID_MAX, lambda n: SectionBlock(text="x", block_id="b" * n)),
    (
        "button text",
        limits.BUTTON_TEXT_MAX,
        lambda n: ActionsBlock(elements=[ButtonElement(text="x" * n, action_id="a")]),
    ),
    (
        "button value",
        limits.BUTTON_VALUE_MAX,
        lambda n: ActionsBlock(elements=[ButtonElement(text="b", value="v" * n, action_id="a")]),
    ),
    (
        "button url",
        limits.BUTTON_URL_MAX,
        lambda n: ActionsBlock(elements=[ButtonElement(text="b", url="u" * n, action_id="a")]),
    ),
]


@pytest.mark.parametrize(("what", "limit", "build"), SDK_CASES, ids=[c[0] for c in SDK_CASES])
def test_our_limit_is_the_one_slack_sdk_enforces(
    what: str, limit: int, build: Callable[[int], Any]
) -> None:
    at_limit = build(limit).to_dict()
    assert _block_problems(message(at_limit)) == []
    with pytest.raises(SlackObjectFormationError):
        build(limit + 1).to_dict()


@pytest.mark.parametrize(("what", "limit", "build"), SDK_CASES, ids=[c[0] for c in SDK_CASES])
def test_we_report_one_past_the_limit_slack_sdk_rejects(
    what: str, limit: int, build: Callable[[int], Any]
) -> None:
    over = _one_past(build(limit).to_dict())
    assert len(_block_problems(message(over))) == 1


def _block_problems(payload: dict[str, Any]) -> list[str]:
    """Problems inside the first block (not message-wide ones such as the text budget)."""
    return [problem for problem in check_message(payload) if problem.startswith("/blocks/0")]


def _one_past(block: dict[str, Any]) -> dict[str, Any]:
    """The same block with its one long string, or its one long list, made one longer."""
    longest: tuple[int, Any, Any] = (-1, None, None)
    pending: list[Any] = [block]
    while pending:
        node = pending.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            if isinstance(value, str | list) and len(value) > longest[0]:
                longest = (len(value), node, key)
            if isinstance(value, dict | list):
                pending.append(value)
    _, owner, key = longest
    value = owner[key]
    owner[key] = value + (value[-1:] if isinstance(value, str) else [value[-1]])
    return block
