"""Small Block Kit constructors, and `MessageBlocks`: the one way a message's blocks are built,
added with the constructors, then fitted to Slack's limits once, at the end."""

from __future__ import annotations

from blocks.fit import fit_blocks
from blocks.limits import CONTEXT_ELEMENTS_MAX, FIELD_TEXT_MAX, FIELDS_MAX, SECTION_TEXT_MAX
from blocks.message import Block

SECTION_LIMIT = SECTION_TEXT_MAX
_FENCE = "```"


def section(mrkdwn: str) -> Block:
    return {"type": "section", "text": _mrkdwn(mrkdwn)}


def _mrkdwn(text: str) -> Block:
    return {"type": "mrkdwn", "text": text}


def context(*mrkdwn: str) -> Block:
    """A context of the texts that are not empty (the first 10)."""
    elements = [_mrkdwn(text) for text in mrkdwn if text]
    return {"type": "context", "elements": elements[:CONTEXT_ELEMENTS_MAX]}


def fields(pairs: list[tuple[str, str]]) -> Block:
    """A section of up to 10 ``*label*\\nvalue`` fields (labels are ours, values escaped)."""
    items = [_mrkdwn(f"*{label}*\n{value}"[:FIELD_TEXT_MAX]) for label, value in pairs]
    return {"type": "section", "fields": items[:FIELDS_MAX]}


def header(plain: str) -> Block:
    return {"type": "header", "text": {"type": "plain_text", "text": plain, "emoji": True}}


def divider() -> Block:
    return {"type": "divider"}


def mrkdwn_sections(text: str, limit: int = SECTION_LIMIT) -> list[Block]:
    """``text`` (already mrkdwn) as sections of at most ``limit`` characters each, split at
    line ends; a code block cut in two is closed and reopened so both halves render."""
    return [section(chunk) for chunk in _chunks(text, limit)]


class MessageBlocks:
    """The blocks of one message, added with the constructors above; `fitted` gives them
    within Slack's limits (`fit.fit_blocks`, which takes blocks that fit as they are)."""

    def __init__(self) -> None:
        self.items: list[Block] = []

    def section(self, mrkdwn: str) -> None:
        self.items.append(section(mrkdwn))

    def context(self, *mrkdwn: str) -> None:
        self.items.append(context(*mrkdwn))

    def fields(self, pairs: list[tuple[str, str]]) -> None:
        self.items.append(fields(pairs))

    def header(self, plain: str) -> None:
        self.items.append(header(plain))

    def actions(self, elements: list[Block]) -> None:
        """An ``actions`` block of buttons (their texts are short: they count for little)."""
        self.items.append({"type": "actions", "elements": elements})

    def mrkdwn_sections(self, text: str, limit: int = SECTION_LIMIT) -> None:
        self.items.extend(mrkdwn_sections(text, limit))

    def fitted(self) -> tuple[Block, ...]:
        return tuple(fit_blocks(self.items))


def _chunks(text: str, limit: int) -> list[str]:
    """The texts of `mrkdwn_sections`, none empty or blank."""
    if len(text) < limit - 8:  # one section: no line is cut, no code block split
        return [text] if text.strip() else []
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
