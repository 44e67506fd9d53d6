"""A desired Slack message: a stable key, the fallback text and the Block Kit blocks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Block = dict[str, Any]


@dataclass(slots=True, init=False)
class Message:
    """One message of a session's thread. ``key`` is stable for the life of the session
    (``root``, ``text:3``, ``tools:4``, ``todos``, ``result``...); ``text`` is the notification
    and fallback text, always set and escaped; ``blocks`` are within Slack's limits.

    Nobody changes a message once built, but it is not ``frozen``: compiled, a frozen
    dataclass sets each field through ``object.__setattr__``, which cost more than the rest of
    a short message (see also ``bot.records``)."""

    key: str
    text: str
    blocks: tuple[Block, ...]
    final: bool = False  # it will not change again (delivery sends final states first)

    def __init__(
        self, key: str, text: str, blocks: tuple[Block, ...], final: bool = False
    ) -> None:
        # Written out: compiled, the dataclass's generated ``__init__`` is interpreted code,
        # called for every message.
        self.key = key
        self.text = text
        self.blocks = blocks
        self.final = final

    def payload(self) -> dict[str, Any]:
        return {"text": self.text, "blocks": list(self.blocks)}
