"""Format: claude-transcript (stub, to be written)."""

from __future__ import annotations

from typing import Any

from bot.records import Record

FAMILY = "claude-transcript"


def detect(obj: object) -> bool:
    return False


class Parser:
    def __init__(self, source: str) -> None:
        self.source = source

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        return None

    def finish(self) -> list[Record]:
        return []
