"""blocks.fit: any candidate list of blocks made to pass check_message."""

from __future__ import annotations

import copy
import re
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from blocks.fit import MIN_SHARE, PLACEHOLDER, fit_blocks
from blocks.limits import (
    block_text_size,
    check_message,
)
from blocks.sections import MessageBlocks
from tests.blocks.test_fast_paths import spaced_text


def section(text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}, **extra}


def texts(blocks: list[dict[str, Any]]) -> list[str]:
    return [block["text"]["text"] for block in blocks if block["type"] == "section"]


def passes(blocks: list[dict[str, Any]]) -> bool:
    return check_message({"text": "fallback", "blocks": blocks}) == []


def test_blocks_that_fit_come_back_unchanged() -> None:
    blocks = [{"type": "header", "text": {"type": "plain_text", "text": "Hi"}}, section("body")]
    assert fit_blocks(blocks) == blocks


def test_the_input_is_never_changed() -> None:
    blocks = [section("x" * 20_000) for _ in range(80)]
    before = copy.deepcopy(blocks)
    fit_blocks(blocks)
    assert blocks == before


def test_the_longest_text_is_cut_first_and_short_ones_are_kept_whole() -> None:
    blocks = [section("short one"), section("word " * 4000), section("short two")]
    fitted = fit_blocks(blocks, text_budget=2000)
    assert texts(fitted)[0] == "short one"
    assert texts(fitted)[2] == "short two"
    assert len(texts(fitted)[1]) <= 2000 - len("short one") - len("short two")
    assert passes(fitted)


def test_a_cut_text_says_how_much_of_its_original_was_cut() -> None:
    fitted = fit_blocks([section("x" * 20_000)])
    kept, _, note = texts(fitted)[0].partition("…")
    assert note == f"(+{20_000 - len(kept):,} chars)"


def test_a_cut_mrkdwn_text_keeps_its_entities_whole() -> None:
    fitted = fit_blocks([section("&lt;" * 1000)], text_budget=101)
    assert not re.search(r"&(?!amp;|lt;|gt;)", texts(fitted)[0])


def test_too_many_blocks_lose_their_middle_to_one_note() -> None:
    blocks = [section(f"block {i}") for i in range(80)]
    fitted = fit_blocks(blocks)
    assert len(fitted) == 50
    assert texts(fitted)[:25] == [f"block {i}" for i in range(25)]
    assert texts(fitted)[25:] == [f"block {i}" for i in range(56, 80)]
    assert fitted[25] == {
        "type": "context",
        "elements": [{"type": "mrkdwn", "text": "… 31 more not shown"}],
    }


def test_a_smaller_block_count_is_respected() -> None:
    fitted = fit_blocks([section(str(i)) for i in range(10)], max_blocks=5)
    assert [b["type"] for b in fitted] == ["section"] * 2 + ["context"] + ["section"] * 2


def test_blocks_are_dropped_rather_than_cut_too_short() -> None:
    blocks = [section("y" * 3000) for _ in range(50)]
    fitted = fit_blocks(blocks, text_budget=2000)
    assert passes(fitted)
    assert any(b["type"] == "context" for b in fitted)
    assert all(len(text) >= MIN_SHARE for text in texts(fitted))


def test_a_budget_above_slacks_is_capped_to_slacks() -> None:
    fitted = fit_blocks([section("z" * 3000) for _ in range(10)], text_budget=50_000)
    assert block_text_size(fitted) <= 11_000
    assert passes(fitted)


def test_fitting_is_deterministic() -> None:
    blocks = [section(f"{i} " + "w " * (i * 97 % 3000)) for i in range(70)]
    assert fit_blocks(blocks) == fit_blocks(copy.deepcopy(blocks))


def test_an_unknown_or_malformed_block_is_dropped() -> None:
    blocks = [{"type": "video"}, {"type": "section"}, "divider", section("kept")]
    assert fit_blocks(blocks) == [section("kept")]  # type: ignore[arg-type]


def test_a_header_in_mrkdwn_becomes_plain_text() -> None:
    header = {"type": "header", "text": {"type": "mrkdwn", "text": "Title", "verbatim": True}}
    assert fit_blocks([header]) == [
        {"type": "header", "text": {"type": "plain_text", "text": "Title"}}
    ]


def test_an_empty_text_becomes_a_dash() -> None:
    assert texts(fit_blocks([section(" ")])) == [PLACEHOLDER]


def test_items_past_a_count_limit_are_dropped() -> None:
    fields = [{"type": "mrkdwn", "text": str(i)} for i in range(12)]
    fitted = fit_blocks([{"type": "section", "fields": fields}])
    assert [f["text"] for f in fitted[0]["fields"]] == [str(i) for i in range(10)]


def test_a_malformed_element_is_dropped_and_the_rest_kept() -> None:
    good = {"type": "button", "text": {"type": "plain_text", "text": "ok"}, "action_id": "a"}
    bad = {**good, "value": "v" * 2001}
    assert fit_blocks([{"type": "actions", "elements": [bad, good]}]) == [
        {"type": "actions", "elements": [good]}
    ]


def test_invalid_or_duplicate_block_ids_are_removed() -> None:
    blocks = [
        section("a", block_id="x"),
        section("b", block_id="x"),
        section("c", block_id="i" * 300),
    ]
    assert fit_blocks(blocks) == [section("a", block_id="x"), section("b"), section("c")]


# property: whatever comes in, what goes out passes


def long_text(draw: st.DrawFn) -> str:
    """Up to 20,000 characters, built from a short drawn pattern (cheap to generate)."""
    pattern = draw(
        st.lists(
            st.sampled_from(["a", " ", "\n", "&amp;", "&lt;", "🇫🇷", "é", "```", "<u|l>", "é"])
            | st.text(max_size=3),
            min_size=1,
            max_size=8,
        ).map("".join)
    )
    length = draw(st.integers(0, 20_000))
    return (pattern * (length // max(len(pattern), 1) + 1))[:length]


@st.composite
def text_object(draw: st.DrawFn) -> dict[str, Any]:
    return {"type": draw(st.sampled_from(["mrkdwn", "plain_text"])), "text": long_text(draw)}


@st.composite
def any_block(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            [
                "section",
                "fields",
                "header",
                "context",
                "actions",
                "markdown",
                "divider",
                "rich_text",
                "image",
                "unknown",
            ]
        )
    )
    block: dict[str, Any]
    if kind == "section":
        block = {"type": "section", "text": draw(text_object())}
    elif kind == "fields":
        block = {"type": "section", "fields": draw(st.lists(text_object(), max_size=14))}
    elif kind == "header":
        block = {"type": "header", "text": draw(text_object())}
    elif kind == "context":
        block = {"type": "context", "elements": draw(st.lists(text_object(), max_size=14))}
    elif kind == "actions":
        buttons = st.builds(
            lambda text, value: {
                "type": "button",
                "text": {"type": "plain_text", "text": text},
                "value": value,
            },
            st.text(max_size=100),
            st.text(min_size=1, max_size=5) | st.just("v" * 2001),
        )
        block = {"type": "actions", "elements": draw(st.lists(buttons, max_size=30))}
    elif kind == "markdown":
        block = {"type": "markdown", "text": long_text(draw)}
    elif kind == "rich_text":
        parts = [{"type": "text", "text": long_text(draw)} for _ in range(draw(st.integers(0, 3)))]
        block = {
            "type": "rich_text",
            "elements": [{"type": "rich_text_section", "elements": parts}],
        }
    elif kind == "image":
        block = {"type": "image", "image_url": "https://a/i.png", "alt_text": long_text(draw)}
    else:
        block = {"type": kind}
    if draw(st.booleans()):
        block["block_id"] = draw(st.sampled_from(["a", "b", "", "i" * 256]))
    return block


@st.composite
def block_lists(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Up to 100 blocks, copies of a few drawn ones (drawing 100 distinct ones is too slow)."""
    kinds = draw(st.lists(any_block(), min_size=1, max_size=8))
    count = draw(st.integers(0, 100))
    picks = draw(st.lists(st.integers(0, len(kinds) - 1), min_size=count, max_size=count))
    return [copy.deepcopy(kinds[i]) for i in picks]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(block_lists(), st.integers(0, 20_000), st.integers(0, 100))
def test_fitted_blocks_always_pass_check_message(
    blocks: list[dict[str, Any]], text_budget: int, max_blocks: int
) -> None:
    fitted = fit_blocks(blocks, text_budget=text_budget, max_blocks=max_blocks)
    assert check_message({"text": "fallback", "blocks": fitted}) == []
    assert len(fitted) <= max_blocks
    assert block_text_size(fitted) <= text_budget


# Blocks added to `MessageBlocks` with every constructor, texts empty, blank, long and overlong.
edge_texts = st.sampled_from(["", " ", "\n", "x" * 150, "y" * 151, "v" * 2001, "w" * 3001])
some_texts = spaced_text | edge_texts
additions = st.lists(
    st.tuples(st.just("section"), some_texts)
    | st.tuples(st.just("context"), st.lists(some_texts, max_size=12))
    | st.tuples(st.just("fields"), st.lists(st.tuples(some_texts, some_texts), max_size=12))
    | st.tuples(st.just("header"), some_texts)
    | st.tuples(st.just("mrkdwn_sections"), some_texts, st.sampled_from([20, 3000])),
    max_size=60,
)


@given(additions)
@example([("fields", [])])
@example([("context", ["", ""])])
@example([("section", "x")] * 51)
@example([("context", ["x"] * 11)])
def test_a_messages_blocks_pass_check_message_and_are_kept_as_added_when_they_fit(
    added: list[tuple[Any, ...]],
) -> None:
    built = MessageBlocks()
    for kind, *args in added:
        if kind == "context":
            built.context(*args[0])
        else:
            getattr(built, kind)(*args)
    fitted = built.fitted()
    assert check_message({"text": "fallback", "blocks": list(fitted)}) == []
    if not check_message({"text": "fallback", "blocks": built.items}):
        assert fitted == tuple(built.items)
