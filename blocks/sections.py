"""Small Block Kit constructors shared by the message kinds."""

from __future__ import annotations

from blocks.message import Block

SECTION_LIMIT = 3000
_FENCE = "```"


def section(mrkdwn: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": mrkdwn}}


def context(*mrkdwn: str) -> Block:
    elements: list[Block] = []
    for text in mrkdwn:
        if text and len(elements) < 10:
            elements.append({"type": "mrkdwn", "text": text})
    return {"type": "context", "elements": elements}


def fields(pairs: list[tuple[str, str]]) -> Block:
    """A section of up to 10 ``*label*\\nvalue`` fields (labels are ours, values escaped)."""
    return {
        "type": "section",
        "fields": [
            {"type": "mrkdwn", "text": f"*{label}*\n{value}"[:2000]} for label, value in pairs[:10]
        ],
    }


def header(plain: str) -> Block:
    return {"type": "header", "text": {"type": "plain_text", "text": plain, "emoji": True}}


def divider() -> Block:
    return {"type": "divider"}


def mrkdwn_sections(text: str, limit: int = SECTION_LIMIT) -> list[Block]:
    """``text`` (already mrkdwn) as sections of at most ``limit`` characters each, split at
    line ends; a code block cut in two is closed and reopened so both halves render."""
    if len(text) < limit - 8:  # the usual case: it all fits in one section, no line walk
        return [section(text)] if text and not text.isspace() else []
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
    return [section(chunk) for chunk in chunks if chunk.strip()]


def _flush(lines: list[str], close_code: bool) -> list[str]:
    if not lines:
        return []
    text = "\n".join(lines)
    return [text + "\n" + _FENCE if close_code else text]
