"""Log formats: one module per family, each mapping parsed JSON lines into ``bot.records``.

A format module provides:

- ``FAMILY``: its name, as ``--format`` takes it;
- ``detect(obj) -> bool``: whether one parsed JSON value (a line, or a whole document) is
  unmistakably of this family;
- ``Parser(source)``: a per-source parser (it may keep state across lines, e.g. the current
  session id, pending deltas, which run belongs to which delegation), whose
  ``parse(obj, line) -> list[Record] | None`` maps one value into records (``None`` means "not
  mine": the reader counts it as unparsed) and ``finish() -> list[Record]`` flushes at end of input.

Parsers are pure: no I/O, no clock.
"""

from __future__ import annotations

from typing import Any, Protocol

from bot.formats import agno, backend, claude_stream, claude_transcript, openai_messages
from bot.records import Record


class Parser(Protocol):
    def parse(self, obj: Any, line: int) -> list[Record] | None: ...

    def finish(self) -> list[Record]: ...


class FormatModule(Protocol):
    FAMILY: str

    def detect(self, obj: object) -> bool: ...

    def Parser(self, source: str) -> Parser: ...  # noqa: N802 - the module's class


# Detection order: the most specific families first.
FORMATS: tuple[Any, ...] = (claude_stream, claude_transcript, agno, backend, openai_messages)
FAMILIES: dict[str, Any] = {module.FAMILY: module for module in FORMATS}


def detect_family(obj: object) -> Any | None:
    """The first format module that claims ``obj``, or ``None``."""
    for module in FORMATS:
        if module.detect(obj):
            return module
    return None
