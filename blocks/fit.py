"""The last safety net: any candidate list of blocks made to pass `check_message`.

Deterministic. A list that already fits is returned as is (a shallow copy); otherwise the
blocks are copied, never changed in place, and:
1. each block is repaired or dropped: items past a count limit (fields, context and actions
   elements) are dropped, as are elements, fields and block_ids that are malformed; a block
   still malformed after that is dropped whole; an empty text becomes `—`;
2. past `max_blocks`, blocks are dropped from the middle (the first and last are kept) and
   one context block `… N more not shown` takes their place;
3. the longest texts are truncated first, all to one common length (and each to its own
   limit), so the whole fits the text budget; when that length would fall under
   `MIN_SHARE`, one more block is dropped from the middle instead, and so on. Each text is
   cut once, from its original, so its `(+N chars)` note counts everything cut.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from blocks.limits import (
    ACTIONS_ELEMENTS_MAX,
    BLOCK_ID_MAX,
    CONTEXT_ELEMENTS_MAX,
    FIELDS_MAX,
    MAX_BLOCKS,
    MESSAGE_TEXT_BUDGET,
    Block,
    TextSlot,
    check_blocks,
    scan_blocks,
)
from blocks.text import truncate, truncate_escaped

MIN_SHARE = 100  # a text cut shorter than this says too little to be worth its block
PLACEHOLDER = "—"
_NOTE_FROM = 40  # texts cut to at least this length say how much was cut


def fit_blocks(
    blocks: Sequence[Block], text_budget: int = MESSAGE_TEXT_BUDGET, max_blocks: int = MAX_BLOCKS
) -> list[Block]:
    """Blocks that pass `check_message` (see the module docstring). The budget and block count
    are capped at Slack's own (`MESSAGE_TEXT_BUDGET`, `MAX_BLOCKS`)."""
    budget = min(text_budget, MESSAGE_TEXT_BUDGET)
    most = min(max_blocks, MAX_BLOCKS)
    copied = list(blocks)
    if len(copied) <= most and not check_blocks(copied, budget):
        return copied
    if most <= 0:
        return []
    repaired = _repaired(blocks)
    keep = len(repaired) if len(repaired) <= most else most - 1
    while True:
        chosen = _keep_ends(repaired, keep)
        slots = scan_blocks(chosen).slots
        share = _fair_share([min(len(slot.text), slot.limit) for slot in slots], budget)
        if share is None or share >= MIN_SHARE or keep <= 0:
            break
        keep -= 1
    if share is not None and share < 1:
        return []
    for slot in slots:
        cap = slot.limit if share is None else min(share, slot.limit)
        if len(slot.text) > cap:
            slot.owner["text"] = _shortened(slot, cap)
    return chosen


def _repaired(blocks: Sequence[object]) -> list[Block]:
    """Copies of the blocks, each repaired (or dropped), block_ids unique. (Typed ``object``:
    a block may be anything.)"""
    out: list[Block] = []
    seen_ids: set[str] = set()
    for block in blocks:
        fixed = _repair(copy.deepcopy(block)) if isinstance(block, dict) else None
        if fixed is None:
            continue
        block_id = fixed.get("block_id")
        if block_id in seen_ids:
            del fixed["block_id"]
        elif isinstance(block_id, str):
            seen_ids.add(block_id)
        out.append(fixed)
    return out


def _repair(block: Block) -> Block | None:
    block_id = block.get("block_id")
    if "block_id" in block and not (
        isinstance(block_id, str) and 0 < len(block_id) <= BLOCK_ID_MAX
    ):
        del block["block_id"]
    kind = block.get("type")
    if kind == "header" and isinstance(block.get("text"), dict):
        block["text"]["type"] = "plain_text"
        block["text"].pop("verbatim", None)
    elif kind == "section" and isinstance(block.get("fields"), list):
        block["fields"] = _valid_items(block, "fields", FIELDS_MAX)
        if not block["fields"]:
            del block["fields"]
    elif kind == "context" and isinstance(block.get("elements"), list):
        block["elements"] = _valid_items(block, "elements", CONTEXT_ELEMENTS_MAX)
    elif kind == "actions" and isinstance(block.get("elements"), list):
        block["elements"] = _valid_items(block, "elements", ACTIONS_ELEMENTS_MAX)
    scan = scan_blocks([block])
    if scan.problems:
        return None
    for slot in scan.slots:
        if slot.empty:
            slot.owner["text"] = PLACEHOLDER
    return block


def _valid_items(block: Block, key: str, most: int) -> list[Any]:
    """The first `most` items of `block[key]` that are well formed on their own."""
    items: list[Any] = []
    for item in block[key]:
        alone = {"type": block["type"], key: [item]}
        if not scan_blocks([alone]).problems:
            items.append(item)
            if len(items) == most:
                break
    return items


def _keep_ends(blocks: list[Block], keep: int) -> list[Block]:
    """The first and last blocks, `keep` in all, around a note of how many were left out."""
    if keep >= len(blocks):
        return list(blocks)
    head = (keep + 1) // 2
    left_out = len(blocks) - keep
    note = {
        "type": "context",
        "elements": [{"type": "mrkdwn", "text": f"… {left_out:,} more not shown"}],
    }
    return [*blocks[:head], note, *blocks[len(blocks) - (keep - head) :]]


def _fair_share(lengths: list[int], budget: int) -> int | None:
    """The longest length every text may keep so that all fit in `budget` (None: no cut)."""
    if sum(lengths) <= budget:
        return None
    remaining = budget
    ordered = sorted(lengths)
    for index, length in enumerate(ordered):
        share = remaining // (len(ordered) - index)
        if length > share:
            return share
        remaining -= length
    raise AssertionError("unreachable: the lengths sum to more than the budget")


def _shortened(slot: TextSlot, limit: int) -> str:
    note = limit >= _NOTE_FROM
    if slot.kind in ("mrkdwn", "markdown"):
        return truncate_escaped(slot.text, limit, note=note)
    return truncate(slot.text, limit, note=note)
