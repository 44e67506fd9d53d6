"""What the reader knows of one log family: the value each format module registers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from bot.records import Record


class Parser(Protocol):
    """What a format's parser does (a ``LineParser`` does it natively; see ``parser.py``)."""

    def parse(self, obj: Any, line: int) -> list[Record] | None: ...

    def finish(self) -> list[Record]: ...


@dataclass(frozen=True, slots=True)
class LogFormat:
    """One log family.

    - ``name``: what ``--format`` calls it.
    - ``agent``: who writes it, the label its sessions get (a parser may name a more precise
      one per session: Amp and Qwen Code write Claude Code's stream-json).
    - ``detect``: whether one JSON value (a line, or a whole document) is unmistakably of this
      family. It refuses before it guesses: it also checks what the value is *not* (another
      family's value of a similar shape), so that no two families claim the same value.
    - ``parser``: a parser for one source, given the source's name.
    - ``reports_result``: whether its sessions end with a result record; a session of a family
      that reports none has an unknown outcome when its log stops.
    - ``produced_by``: the command or file that writes it, as a person would recognise it.
    """

    name: str
    agent: str
    detect: Callable[[object], bool]
    parser: Callable[[str], Parser]
    reports_result: bool
    produced_by: str
