"""The payloads' parts: made-up block ids and a view's state from what was typed."""

from __future__ import annotations

from bot.localslack.payloads import block_id_of, dm_channel, input_state, person

DIVIDER = {"type": "divider"}


def text_input(block_id: str | None = None, **extra: object) -> dict[str, object]:
    block: dict[str, object] = {
        "type": "input",
        "label": {"type": "plain_text", "text": "Why"},
        "element": {"type": "plain_text_input", "action_id": "text"},
        **extra,
    }
    if block_id is not None:
        block["block_id"] = block_id
    return block


def test_a_given_block_id_is_kept_and_a_missing_one_is_made_up_by_place_and_content() -> None:
    assert block_id_of({"type": "divider", "block_id": "mine"}, 3) == "mine"
    made_up = block_id_of(DIVIDER, 0)
    assert made_up == block_id_of(dict(DIVIDER), 0) and len(made_up) == 5
    assert made_up != block_id_of(DIVIDER, 1)
    assert made_up != block_id_of(
        {"type": "header", "text": {"type": "plain_text", "text": "h"}}, 0
    )


def test_the_state_holds_every_input_and_names_the_required_ones_left_empty() -> None:
    blocks = [DIVIDER, text_input("why"), text_input("note", optional=True)]
    values, missing = input_state(blocks, {"note": {"text": "fyi"}})
    assert values == {
        "why": {"text": {"type": "plain_text_input", "value": None}},
        "note": {"text": {"type": "plain_text_input", "value": "fyi"}},
    }
    assert list(missing) == ["why"]
    values, missing = input_state(blocks, {"why": {"text": "it deletes"}})
    assert values["why"]["text"]["value"] == "it deletes" and missing == {}


def test_a_person_and_their_direct_message_channel() -> None:
    assert person("U0LOCALALX") == {"id": "U0LOCALALX", "username": "alex", "name": "alex",
                                    "team_id": "T0LOCAL001"}  # fmt: skip
    assert dm_channel("U0LOCALALX") == "D0LOCALALX"
