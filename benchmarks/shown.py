"""When the channel first showed each mark of a burst: read from the calls the local Slack
received (``LocalSlack.requests``), for ``benchmarks.lag``.

A call's start shows once any accepted post or update carries its line (``⏳ *Bash* `…c00042…```,
whatever its emoji by then); its result once a line shows it done (✅ or ❌); a text once its
mark appears in any block.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from bot.localslack import RecordedRequest

WRITES = ("chat.postMessage", "chat.update")
_CALL_LINE = re.compile(r"^(\S+) \*[^*]+\* `[^`\n]*?(c\d{5})(?!\d)", re.MULTILINE)
_NOTE = re.compile(r"note-\d{4}-\d{4}")
_DONE = ("✅", "❌")


@dataclass
class FirstShown:
    """(kind, mark) -> when an accepted call first showed it (``time.time()`` seconds)."""

    at: dict[tuple[str, str], float] = field(default_factory=dict)
    root_updates: int = 0
    item_updates: int = 0

    def see(self, kind: str, mark: str, when: float) -> None:
        self.at.setdefault((kind, mark), when)


def first_shown(requests: list[RecordedRequest]) -> FirstShown:
    shown = FirstShown()
    for request in requests:
        if request.method not in WRITES or request.status != 200 or request.error:
            continue
        blocks = orjson.loads(request.body).get("blocks") or []
        if request.method == "chat.update":
            is_root = any(block.get("type") == "header" for block in blocks)
            shown.root_updates += is_root
            shown.item_updates += not is_root
        for text in block_texts(blocks):
            see_text(shown, text, request.at)
    return shown


def see_text(shown: FirstShown, text: str, when: float) -> None:
    for emoji, mark in _CALL_LINE.findall(text):
        shown.see("start", mark, when)
        if emoji in _DONE:
            shown.see("result", mark, when)
    for mark in _NOTE.findall(text):
        shown.see("text", mark, when)


def block_texts(blocks: list[dict[str, Any]]) -> Iterator[str]:
    for block in blocks:
        text = block.get("text")
        if isinstance(text, dict):
            yield str(text.get("text") or "")
        elif isinstance(text, str):  # a markdown block
            yield text
        for element in block.get("elements") or []:
            if isinstance(element, dict) and "text" in element:
                yield str(element["text"])
