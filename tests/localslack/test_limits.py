"""Slack's block and text limits: each accepted at the limit and refused one past it, with
Slack's error shape (`invalid_blocks`, `errors`, `response_metadata.messages`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.localslack import LocalSlack
from bot.localslack.limits import check_blocks, message_errors

from .conftest import TOKEN

Blocks = list[dict[str, Any]]


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[LocalSlack, WebClient]]:
    server = LocalSlack(token=TOKEN, rate_limits=False)
    server.start()
    try:
        yield server, WebClient(token=TOKEN, base_url=server.base_url, retry_handlers=[])
    finally:
        server.stop()


def mrkdwn(text: str) -> dict[str, str]:
    return {"type": "mrkdwn", "text": text}


def plain(text: str) -> dict[str, str]:
    return {"type": "plain_text", "text": text}


def section(text: str) -> Blocks:
    return [{"type": "section", "text": mrkdwn(text)}]


def button(i: int, **extra: Any) -> dict[str, Any]:
    return {"type": "button", "text": plain("go"), "action_id": f"a{i}", **extra}


def confirm(**texts: str) -> dict[str, Any]:
    """A confirmation dialog; `texts` replace its title, text, confirm or deny."""
    words = {"title": "Stop?", "text": "The agent stops.", "confirm": "Stop", "deny": "Keep"}
    words.update(texts)
    return {key: mrkdwn(v) if key == "text" else plain(v) for key, v in words.items()}


def text_input(**extra: Any) -> dict[str, Any]:
    element = {"type": "plain_text_input", "action_id": "t", **extra.pop("element", {})}
    return {"type": "input", "label": plain("Why"), "element": element, **extra}


def task(status: str = "complete", **extra: Any) -> dict[str, Any]:
    return {"type": "task_card", "task_id": "t1", "title": "Run tests", "status": status, **extra}


# (name, payload at the limit given n = limit or limit + 1, limit, refusal past it)
LIMITS: list[tuple[str, Callable[[int], Blocks], int, str]] = [
    (
        "50 blocks",
        lambda n: [{"type": "divider"}] * n,
        50,
        "no more than 50 items allowed [json-pointer:/blocks]",
    ),
    (
        "section text",
        lambda n: section("s" * n),
        3000,
        "must be less than 3001 characters [json-pointer:/blocks/0/text/text]",
    ),
    (
        "plain_text section text",
        lambda n: [{"type": "section", "text": plain("p" * n)}],
        3000,
        "must be less than 3001 characters [json-pointer:/blocks/0/text/text]",
    ),
    (
        "header",
        lambda n: [{"type": "header", "text": plain("h" * n)}],
        150,
        "must be less than 151 characters [json-pointer:/blocks/0/text/text]",
    ),
    (
        "section fields",
        lambda n: [{"type": "section", "fields": [mrkdwn("f")] * n}],
        10,
        "no more than 10 items allowed [json-pointer:/blocks/0/fields]",
    ),
    (
        "section field text",
        lambda n: [{"type": "section", "fields": [mrkdwn("f" * n)]}],
        2000,
        "must be less than 2001 characters [json-pointer:/blocks/0/fields/0/text]",
    ),
    (
        "context elements",
        lambda n: [{"type": "context", "elements": [mrkdwn("c")] * n}],
        10,
        "no more than 10 items allowed [json-pointer:/blocks/0/elements]",
    ),
    (
        "context element text",
        lambda n: [{"type": "context", "elements": [mrkdwn("c" * n)]}],
        3000,
        "must be less than 3001 characters [json-pointer:/blocks/0/elements/0/text]",
    ),
    (
        "actions elements",
        lambda n: [{"type": "actions", "elements": [button(i) for i in range(n)]}],
        25,
        "no more than 25 items allowed [json-pointer:/blocks/0/elements]",
    ),
    (
        "button text",
        lambda n: [{"type": "actions", "elements": [{**button(0), "text": plain("b" * n)}]}],
        75,
        "must be less than 76 characters [json-pointer:/blocks/0/elements/0/text/text]",
    ),
    (
        "button value",
        lambda n: [{"type": "actions", "elements": [button(0, value="v" * n)]}],
        2000,
        "must be less than 2001 characters [json-pointer:/blocks/0/elements/0/value]",
    ),
    (
        "button url",
        lambda n: [
            {"type": "actions", "elements": [button(0, url="https://x.test/" + "u" * (n - 15))]}
        ],
        3000,
        "must be less than 3001 characters [json-pointer:/blocks/0/elements/0/url]",
    ),
    (
        "action_id",
        lambda n: [{"type": "actions", "elements": [{**button(0), "action_id": "a" * n}]}],
        255,
        "must be less than 256 characters [json-pointer:/blocks/0/elements/0/action_id]",
    ),
    (
        "block_id",
        lambda n: [{"type": "divider", "block_id": "b" * n}],
        255,
        "must be less than 256 characters [json-pointer:/blocks/0/block_id]",
    ),
    (
        "markdown block",
        lambda n: [{"type": "markdown", "text": "m" * n}],
        12000,
        "must be less than 12001 characters [json-pointer:/blocks/0/text]",
    ),
    (
        "confirm dialog title",
        lambda n: [{"type": "actions", "elements": [button(0, confirm=confirm(title="t" * n))]}],
        100,
        "must be less than 101 characters [json-pointer:/blocks/0/elements/0/confirm/title/text]",
    ),
    (
        "confirm dialog text",
        lambda n: [{"type": "actions", "elements": [button(0, confirm=confirm(text="t" * n))]}],
        300,
        "must be less than 301 characters [json-pointer:/blocks/0/elements/0/confirm/text/text]",
    ),
    (
        "input label",
        lambda n: [text_input(label=plain("l" * n))],
        2000,
        "must be less than 2001 characters [json-pointer:/blocks/0/label/text]",
    ),
    (
        "input placeholder",
        lambda n: [text_input(element={"placeholder": plain("p" * n)})],
        150,
        "must be less than 151 characters [json-pointer:/blocks/0/element/placeholder/text]",
    ),
    (
        "markdown blocks together",
        lambda n: [
            {"type": "markdown", "text": "m" * 6000},
            {"type": "markdown", "text": "m" * (n - 6000)},
        ],
        12000,
        "markdown blocks must total less than 12001 characters [json-pointer:/blocks]",
    ),
]


def post(client: WebClient, blocks: Blocks) -> dict[str, Any]:
    """The answer to posting `blocks`: the ok body, or the refusal's body."""
    try:
        data = client.chat_postMessage(channel="#agents", text="fallback", blocks=blocks).data
    except SlackApiError as err:
        assert err.response.status_code == 200
        data = err.response.data
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize(("name", "build", "limit", "refusal"), LIMITS, ids=[c[0] for c in LIMITS])
def test_each_limit_is_accepted_at_the_limit_and_refused_one_past_it(
    shared: tuple[LocalSlack, WebClient],
    name: str,
    build: Callable[[int], Blocks],
    limit: int,
    refusal: str,
) -> None:
    _, client = shared
    assert post(client, build(limit))["ok"] is True, name
    assert post(client, build(limit + 1)) == {
        "ok": False,
        "error": "invalid_blocks",
        "errors": [refusal],
        "response_metadata": {"messages": [f"[ERROR] {refusal}"]},
    }


def test_the_whole_message_budget_answers_msg_blocks_too_long(
    shared: tuple[LocalSlack, WebClient],
) -> None:
    _, client = shared
    at_budget = [section("x" * 2400)[0] for _ in range(5)]  # 12,000 characters of block text
    assert post(client, at_budget)["ok"] is True
    past = [*at_budget, {"type": "context", "elements": [mrkdwn("y")]}]
    assert post(client, past) == {"ok": False, "error": "msg_blocks_too_long"}


@pytest.mark.parametrize(
    ("blocks", "refusal"),
    [
        (section(""), "must be more than 0 characters [json-pointer:/blocks/0/text/text]"),
        (section("  \n"), "must be more than 0 characters [json-pointer:/blocks/0/text/text]"),
        (
            [{"type": "header", "text": mrkdwn("*h*")}],
            "must be a valid enum value [json-pointer:/blocks/0/text/type]",
        ),
        ([{"type": "video"}], "unsupported type: video [json-pointer:/blocks/0/type]"),
        (
            [{"type": "section"}],
            "must define either `text` or `fields` [json-pointer:/blocks/0/type]",
        ),
        (
            [{"type": "section", "text": {**mrkdwn("x"), "emoji": True}}],
            "unsupported property: emoji [json-pointer:/blocks/0/text/emoji]",
        ),
        (
            [{"type": "divider", "block_id": "a"}, {"type": "divider", "block_id": "a"}],
            "duplicate block_id: a [json-pointer:/blocks/1/block_id]",
        ),
        (
            [{"type": "actions", "elements": [button(1), button(1)]}],
            "duplicate action_id: a1 [json-pointer:/blocks/0/elements/1/action_id]",
        ),
        (
            [{"type": "context", "elements": []}],
            "must provide at least 1 items [json-pointer:/blocks/0/elements]",
        ),
        (
            [{"type": "actions", "elements": [button(0, style="loud")]}],
            "must be a valid enum value [json-pointer:/blocks/0/elements/0/style]",
        ),
        (
            [{"type": "actions", "elements": [button(0, confirm={**confirm(), "deny": None})]}],
            "must be an object [json-pointer:/blocks/0/elements/0/confirm/deny]",
        ),
        ([task("done")], "must be a valid enum value [json-pointer:/blocks/0/status]"),
        ([task(title=" ")], "must be more than 0 characters [json-pointer:/blocks/0/title]"),
        ([{**task(), "task_id": 7}], "missing required field: task_id [json-pointer:/blocks/0]"),
        (
            [task(output={"type": "section", "text": mrkdwn("x")})],
            "must be a rich_text block [json-pointer:/blocks/0/output]",
        ),
        (
            [task(sources=[{"type": "url", "text": "docs"}])],
            "missing required field: url [json-pointer:/blocks/0/sources/0]",
        ),
        (
            [{"type": "plan", "title": "Plan", "tasks": [{"type": "section"}]}],
            "must be a task_card block [json-pointer:/blocks/0/tasks/0/type]",
        ),
        ([{"type": "plan", "tasks": []}], "missing required field: title [json-pointer:/blocks/0]"),
        (
            [{"type": "input", "element": {"type": "plain_text_input"}}],
            "missing required field: label [json-pointer:/blocks/0]",
        ),
        (
            [text_input(element={"type": "button", "text": plain("b")})],
            "unsupported type: button [json-pointer:/blocks/0/element/type]",
        ),
        (
            [text_input(element={"max_length": 3001})],
            "must be at most 3000 [json-pointer:/blocks/0/element/max_length]",
        ),
    ],
)
def test_malformed_blocks_are_refused_with_a_pointer(
    shared: tuple[LocalSlack, WebClient], blocks: Blocks, refusal: str
) -> None:
    _, client = shared
    answer = post(client, blocks)
    assert answer["error"] == "invalid_blocks" and answer["errors"] == [refusal]


def test_every_refusal_of_a_payload_is_listed(shared: tuple[LocalSlack, WebClient]) -> None:
    _, client = shared
    blocks = [*section("x" * 3001), {"type": "header", "text": plain("h" * 151)}]
    assert post(client, blocks)["errors"] == [
        "must be less than 3001 characters [json-pointer:/blocks/0/text/text]",
        "must be less than 151 characters [json-pointer:/blocks/1/text/text]",
    ]


def test_a_message_using_every_supported_block_is_accepted(
    shared: tuple[LocalSlack, WebClient],
) -> None:
    _, client = shared
    blocks: Blocks = [
        {"type": "header", "text": plain("Session started"), "block_id": "h"},
        {
            "type": "section",
            "text": mrkdwn("*Bash* `ls`"),
            "fields": [mrkdwn("*Status*"), mrkdwn("running")],
            "accessory": button(9, url="https://example.test", style="primary"),
        },
        {
            "type": "context",
            "elements": [
                mrkdwn("3 tools"),
                {"type": "image", "image_url": "https://example.test/i.png", "alt_text": "icon"},
            ],
        },
        {"type": "divider"},
        {"type": "actions", "elements": [button(1), button(2, style="danger", value="v")]},
        {"type": "markdown", "text": "# Title\n**bold** and a [link](https://example.test)"},
        {
            "type": "rich_text",
            "elements": [
                {
                    "type": "rich_text_section",
                    "elements": [{"type": "text", "text": " ", "style": {"bold": True}}],
                },
                {
                    "type": "rich_text_list",
                    "style": "bullet",
                    "elements": [
                        {
                            "type": "rich_text_section",
                            "elements": [{"type": "link", "url": "https://example.test"}],
                        }
                    ],
                },
                {"type": "rich_text_preformatted", "elements": [{"type": "text", "text": "code"}]},
            ],
        },
        {
            "type": "image",
            "image_url": "https://example.test/p.png",
            "alt_text": "picture",
            "title": plain("t"),
        },
        {"type": "actions", "elements": [button(3, confirm={**confirm(), "style": "danger"})]},
        text_input(hint=plain("one line"), optional=True, element={"multiline": True}),
        task(
            "in_progress",
            block_id="task",
            details={"type": "rich_text", "elements": []},
            sources=[{"type": "url", "url": "https://example.test", "text": "example"}],
        ),
        {"type": "plan", "title": "Plan", "tasks": [task("pending"), task("error")]},
    ]
    assert post(client, blocks)["ok"] is True


def test_the_checker_counts_block_text_for_the_budget() -> None:
    check = check_blocks([*section("abc"), {"type": "markdown", "text": "de"}])
    assert (check.errors, check.block_text, check.markdown_text) == ([], 5, 2)
    assert message_errors([{"type": "divider"}]) is None
