"""The base class of the format parsers: what the reader calls on every line.

Compiled, the reader calls ``parse`` on a ``LineParser`` through a native method table, where a
parser of unknown type costs an attribute look-up by name and a generic call every line. A
parser that is not a ``LineParser`` (a format added at run time) is wrapped in a ``Delegating``
one, so any object with ``parse`` and ``finish`` still works.
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from bot.records import Record


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class LineParser:
    """A per-source parser: ``parse`` maps one JSON value into records (``None`` means "not
    mine"), ``finish`` flushes at end of input."""

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        raise NotImplementedError

    def finish(self) -> list[Record]:
        return []


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Delegating(LineParser):
    """A ``LineParser`` that hands every call to a parser of another class."""

    def __init__(self, parser: Any) -> None:
        self.parser = parser

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        records: list[Record] | None = self.parser.parse(obj, line)
        return records

    def finish(self) -> list[Record]:
        records: list[Record] = self.parser.finish()
        return records
