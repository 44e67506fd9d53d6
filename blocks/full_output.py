"""The Full output modal: a tool call's whole output, one page of it per view, with the tool's
name and a summary of what it was asked at the top and Previous / Next buttons between pages.

A view holds at most 100 blocks and 250 kB, a section's text at most 3,000 characters: a page is
at most ``OUTPUT_PAGE_CHARS`` characters of output (cut at a line's end where one is near), shown as
code sections of at most ``SECTION_CHARS`` escaped characters each, so a page of the worst text
(every character escaped to five, or four bytes each) still fits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from blocks.figures import plural
from blocks.text import FENCE, clean, code_span, escape_mrkdwn, neutralise_fences, safe_line
from bot.caps import OUTPUT_PAGE_CHARS, OUTPUT_SUMMARY_SHOWN, TOOL_NAME_SHOWN, WHY_SHOWN
from bot.controls import FULL_OUTPUT_NEXT, FULL_OUTPUT_PREVIOUS
from bot.values import line_count

SECTION_CHARS: Final = 2_900  # within a section's 3,000, with the fences
TITLE: Final = "Full output"
_LINE_WINDOW: Final = 2_000  # how far back a page's end looks for a line's end

View = dict[str, Any]


def pages_of(output: str) -> list[str]:
    """``output`` cut in pages of at most ``OUTPUT_PAGE_CHARS`` characters, at a line's end when one
    is within the last ``_LINE_WINDOW`` characters of the page."""
    pages: list[str] = []
    start = 0
    while start < len(output):
        end = min(start + OUTPUT_PAGE_CHARS, len(output))
        if end < len(output):
            newline = output.rfind("\n", end - _LINE_WINDOW, end)
            end = newline + 1 if newline > start else end
        pages.append(output[start:end])
        start = end
    return pages or [""]


def full_output_view(
    name: str, summary: str, output: str, page: int, button_value: Callable[[int], str]
) -> View:
    """Page ``page`` (0-based) of ``output`` as a modal; ``button_value(n)``: the value of the
    button that shows page ``n``."""
    pages = pages_of(output)
    page = max(0, min(page, len(pages) - 1))
    lines = line_count(output)
    about = f"{len(output):,} characters · {plural(lines, 'line')}"
    if len(pages) > 1:
        about = f"page {page + 1} of {len(pages)} · {about}"
    blocks: list[dict[str, Any]] = [_heading(name, summary), _context(about)]
    blocks.extend(_code_section(chunk) for chunk in _code_chunks(pages[page]))
    if not output.strip():
        blocks.append(_section("_(no output)_"))
    turns = []
    if page > 0:
        turns.append(_button("Previous", FULL_OUTPUT_PREVIOUS, button_value(page - 1)))
    if page + 1 < len(pages):
        turns.append(_button("Next", FULL_OUTPUT_NEXT, button_value(page + 1)))
    if turns:
        blocks.append({"type": "actions", "block_id": "pages", "elements": turns})
    return _modal(blocks)


def changed_view(name: str, summary: str, why: str) -> View:
    """The modal when the output cannot be read again: what happened, said plainly."""
    said = f":warning: The whole output cannot be shown: {safe_line(why, WHY_SHOWN)}."
    return _modal([_heading(name, summary), _section(said)])


def reading_view(name: str, summary: str) -> View:
    """The modal while the output is read again from the log."""
    return _modal([_heading(name, summary), _context(":hourglass_flowing_sand: Reading the log…")])


def _modal(blocks: list[dict[str, Any]]) -> View:
    return {
        "type": "modal",
        "title": {"type": "plain_text", "text": TITLE},
        "close": {"type": "plain_text", "text": "Close"},
        "blocks": blocks,
    }


def _heading(name: str, summary: str) -> dict[str, Any]:
    span = f" {code_span(summary, OUTPUT_SUMMARY_SHOWN)}" if summary else ""
    return _section(f"*{safe_line(name, TOOL_NAME_SHOWN)}*{span}")


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _context(text: str) -> dict[str, Any]:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text}]}


def _code_section(chunk: str) -> dict[str, Any]:
    return _section(f"{FENCE}\n{chunk}\n{FENCE}")


def _button(text: str, action_id: str, value: str) -> dict[str, Any]:
    """A page turn: the Full output control again, with the page in its value."""
    return {"type": "button", "text": {"type": "plain_text", "text": text},
            "action_id": action_id, "value": value}  # fmt: skip


def _code_chunks(text: str) -> list[str]:
    """``text`` escaped for mrkdwn, in chunks of at most ``SECTION_CHARS`` characters, cut at
    line ends (a line longer than a chunk is cut, never inside an ``&amp;``-like entity)."""
    body = escape_mrkdwn(neutralise_fences(clean(text))).strip("\n")
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for line in body.split("\n"):
        while len(line) > SECTION_CHARS:
            cut = _entity_safe(line, SECTION_CHARS)
            if current:
                chunks.append("\n".join(current))
                current, size = [], 0
            chunks.append(line[:cut])
            line = line[cut:]
        if current and size + len(line) + 1 > SECTION_CHARS:
            chunks.append("\n".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line) + 1
    if current:
        chunks.append("\n".join(current))
    return [chunk if chunk.strip() else " " for chunk in chunks if chunk]


def _entity_safe(line: str, cut: int) -> int:
    """``cut``, moved back before an ``&…;`` entity it would fall inside."""
    amp = line.rfind("&", max(0, cut - 5), cut)
    return amp if amp > 0 and ";" not in line[amp:cut] else cut
