"""Small Block Kit constructors shared by the message kinds, and `MessageBlocks`, the blocks of
one message being built with them."""

from __future__ import annotations

from typing import Final

from blocks.fit import fitted, text_size
from blocks.limits import (
    FIELD_TEXT_MAX,
    HEADER_TEXT_MAX,
    MAX_BLOCKS,
    MESSAGE_TEXT_BUDGET,
    TEXT_OBJECT_MAX,
)
from blocks.message import Block

SECTION_LIMIT = 3000
_FENCE = "```"

# The blocks' dicts are copies of these, their text then set: compiled, a dict display builds
# a new dict key by key, where a copy clones the template's keys whole (about 10% cheaper).
# Keys keep the template's order, the order a display gives them.
_SECTION: Final[Block] = {"type": "section", "text": None}
_MRKDWN: Final[Block] = {"type": "mrkdwn", "text": None}
_CONTEXT: Final[Block] = {"type": "context", "elements": None}
_FIELDS: Final[Block] = {"type": "section", "fields": None}


def section(mrkdwn: str) -> Block:
    block = _SECTION.copy()
    block["text"] = _mrkdwn(mrkdwn)
    return block


def _mrkdwn(text: str) -> Block:
    """``{"type": "mrkdwn", "text": text}``"""
    element = _MRKDWN.copy()
    element["text"] = text
    return element


def context(*mrkdwn: str) -> Block:
    return _measured_context(mrkdwn)[0]


def fields(pairs: list[tuple[str, str]]) -> Block:
    """A section of up to 10 ``*label*\\nvalue`` fields (labels are ours, values escaped)."""
    return _measured_fields(pairs)[0]


def header(plain: str) -> Block:
    return {"type": "header", "text": {"type": "plain_text", "text": plain, "emoji": True}}


def divider() -> Block:
    return {"type": "divider"}


def mrkdwn_sections(text: str, limit: int = SECTION_LIMIT) -> list[Block]:
    """``text`` (already mrkdwn) as sections of at most ``limit`` characters each, split at
    line ends; a code block cut in two is closed and reopened so both halves render."""
    return [section(chunk) for chunk in _chunks(text, limit)]


class MessageBlocks:
    """The blocks of one message, added with the constructors above, and what `fit.fitted`
    measures of them, kept as each block is added: the size of their texts, or -1 once a
    block is not plainly within Slack's limits (an empty, blank or overlong text, a context
    with no element, fields with none). `fitted` then takes blocks that plainly fit as they
    are, without walking every block and text object again to measure what is known here."""

    def __init__(self) -> None:
        self.items: list[Block] = []
        self.size = 0

    def section(self, mrkdwn: str) -> None:
        self.items.append(section(mrkdwn))
        self._add_size(text_size(mrkdwn, TEXT_OBJECT_MAX))

    def context(self, *mrkdwn: str) -> None:
        block, size = _measured_context(mrkdwn)
        self.items.append(block)
        self._add_size(size)

    def fields(self, pairs: list[tuple[str, str]]) -> None:
        block, size = _measured_fields(pairs)
        self.items.append(block)
        self._add_size(size)

    def header(self, plain: str) -> None:
        self.items.append(header(plain))
        self._add_size(text_size(plain, HEADER_TEXT_MAX))

    def actions(self, elements: list[Block]) -> None:
        """An ``actions`` block of buttons (their texts are short: they count for little)."""
        self.items.append({"type": "actions", "elements": elements})
        self._add_size(0)

    def mrkdwn_sections(self, text: str, limit: int = SECTION_LIMIT) -> None:
        for chunk in _chunks(text, limit):
            self.section(chunk)

    def fitted(self) -> tuple[Block, ...]:
        """`fit.fitted` of the blocks: as they are when they plainly fit (what `fitted` finds
        then too); else `fitted` itself decides."""
        if 0 <= self.size <= MESSAGE_TEXT_BUDGET and len(self.items) <= MAX_BLOCKS:
            return tuple(self.items)
        return fitted(self.items)

    def _add_size(self, size: int) -> None:
        self.size = _added(self.size, size)


def _added(size: int, grown: int) -> int:
    """Two measured sizes together: -1 once either is (see `MessageBlocks`)."""
    return -1 if size < 0 or grown < 0 else size + grown


def _measured_context(mrkdwn: tuple[str, ...]) -> tuple[Block, int]:
    """A context of the texts that are not empty (at most 10), and its size (see
    `MessageBlocks`)."""
    elements: list[Block] = []
    size = 0
    for text in mrkdwn:
        if text and len(elements) < 10:
            elements.append(_mrkdwn(text))
            size = _added(size, text_size(text, TEXT_OBJECT_MAX))
    block = _CONTEXT.copy()
    block["elements"] = elements
    return block, (size if elements else -1)


def _measured_fields(pairs: list[tuple[str, str]]) -> tuple[Block, int]:
    """`fields`, and its size (see `MessageBlocks`)."""
    items: list[Block] = []
    size = 0
    for label, value in pairs[:10]:
        text = f"*{label}*\n{value}"[:2000]
        items.append(_mrkdwn(text))
        size = _added(size, text_size(text, FIELD_TEXT_MAX))
    block = _FIELDS.copy()
    block["fields"] = items
    return block, (size if items else -1)


def _chunks(text: str, limit: int) -> list[str]:
    """The texts of `mrkdwn_sections`, none empty or blank."""
    if len(text) < limit - 8:  # the usual case: it all fits in one section, no line walk
        return [text] if text and not text.isspace() else []
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    in_code = False
    for line in text.split("\n"):
        while len(line) > limit - 8:  # a single overlong line: hard cut
            head, line = line[: limit - 8], line[limit - 8 :]
            chunks.extend(_flush(current, in_code))
            current, size = [], 0
            chunks.append(head)
        if size + len(line) + 1 > limit - 8 and current:
            chunks.extend(_flush(current, in_code))
            current = [_FENCE] if in_code else []
            size = len(_FENCE) + 1 if in_code else 0
        current.append(line)
        size += len(line) + 1
        if line.lstrip().startswith(_FENCE) and line.count(_FENCE) % 2 == 1:
            in_code = not in_code
    chunks.extend(_flush(current, False))
    return [chunk for chunk in chunks if chunk.strip()]


def _flush(lines: list[str], close_code: bool) -> list[str]:
    if not lines:
        return []
    text = "\n".join(lines)
    return [text + "\n" + _FENCE if close_code else text]
