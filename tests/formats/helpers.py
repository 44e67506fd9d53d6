"""What the format tests share: picking records by type, reading a corpus file's records and raw
values, and feeding values to one parser."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import orjson
from hypothesis import strategies as st

from blocks.root import status_line
from bot.formats import detect_family
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.preview import build_preview
from bot.records import Record
from bot.result_records import SessionResult
from bot.session.thread import ResultItem
from tests.conftest import read_records

R = TypeVar("R", bound=Record)


def only(records: list[Record], kind: type[R]) -> list[R]:
    """The records of exactly type ``kind`` (not its subclasses), in order."""
    return [r for r in records if type(r) is kind]


def single(records: list[Record], kind: type[R]) -> R:
    """The one record of type ``kind``; fails when there are none or several."""
    found = only(records, kind)
    assert len(found) == 1, found
    return found[0]


def records_of(path: Path) -> list[Record]:
    """The records read from ``path``, every line understood."""
    records, stats = read_records(path)
    assert stats.unparsed == 0
    return records


def raw_values(path: Path) -> list[Any]:
    """The JSON value of each non-blank line of ``path``."""
    return [orjson.loads(raw) for raw in path.read_bytes().splitlines() if raw.strip()]


def parsed_by(parser: LineParser, values: tuple[Any, ...], finish: bool = True) -> list[Record]:
    """The records ``parser`` makes of ``values`` (lines 1, 2, …), every value understood, then
    (with ``finish``) what it makes at the end of input."""
    out: list[Record] = []
    for number, value in enumerate(values, start=1):
        records = parser.parse(value, number)
        assert records is not None, value
        out.extend(records)
    return out + parser.finish() if finish else out


def value_lines(path: Path) -> set[int]:
    """The numbers (from 1) of the non-blank lines of ``path``: the lines that hold a value."""
    return {n for n, raw in enumerate(path.read_bytes().split(b"\n"), 1) if raw.strip()}


# Any JSON value orjson can give, small: what the robustness tests feed a parser's fields.
ANY_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)  # what orjson reads as int
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def claims_every_value(log_format: LogFormat, path: Path) -> None:
    """``log_format`` detects every value of ``path``, and detection picks it for the first."""
    values = raw_values(path)
    assert values and all(log_format.detect(value) for value in values), path.name
    assert detect_family(values[0]) is log_format


def gives_every_line_a_record(path: Path) -> None:
    """Reading ``path`` leaves no line unparsed; every line that holds a value makes a record."""
    records = records_of(path)
    assert {r.line for r in records} == value_lines(path)


def spending_of(path: Path) -> tuple[str, SessionResult | None, list[SessionResult]]:
    """What the one session of ``path`` shows it spent, previewed: its root's status line, its
    sums (``Session.spent``), and the results its thread shows (a result that gives no figure
    of its own shows its run's steps')."""
    (session,) = build_preview([path]).sessions()
    shown = [item.result for item in session.items if isinstance(item, ResultItem)]
    return status_line(session), session.spent, shown
