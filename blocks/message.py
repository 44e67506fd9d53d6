"""A desired Slack message: a stable key, the fallback text and the Block Kit blocks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Block = dict[str, Any]


@dataclass(slots=True)
class Message:
    """One message of a session's thread. ``key`` is stable for the life of the session
    (``root``, ``text:3``, ``tools:4``, ``todos``, ``result``...); ``text`` is the notification
    and fallback text, always set and escaped; ``blocks`` are within Slack's limits. Nobody
    changes a message once built."""

    key: str
    text: str
    blocks: tuple[Block, ...]
    final: bool = False  # it will not change again (delivery sends final states first)

    def payload(self) -> dict[str, Any]:
        return {"text": self.text, "blocks": list(self.blocks)}
