"""The line splitter: chunks in, complete numbered lines out, long lines dropped (and said as
soon as they pass the limit), offsets exact."""

from __future__ import annotations

import itertools
import tracemalloc

from hypothesis import given
from hypothesis import strategies as st

from bot.sources.lines import (
    BOM,
    DEFAULT_MAX_LINE_BYTES,
    Line,
    LineOverLimit,
    LineSplitter,
    LongLine,
)


def split_all(
    chunks: list[bytes], max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> list[Line | LongLine | LineOverLimit]:
    splitter = LineSplitter(max_line_bytes)
    out: list[Line | LongLine | LineOverLimit] = []
    for chunk in chunks:
        out.extend(splitter.feed(chunk))
    out.extend(splitter.finish())
    return out


def split(
    chunks: list[bytes], max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> list[Line | LongLine]:
    """The lines (a ``LineOverLimit``, said before a long line ends, left out)."""
    items = split_all(chunks, max_line_bytes)
    return [item for item in items if not isinstance(item, LineOverLimit)]


def whole(data: bytes, max_line_bytes: int) -> list[Line | LongLine]:
    """What splitting ``data`` at once says: the model the splitter must match."""
    out: list[Line | LongLine] = []
    offset = 0
    parts = data.split(b"\n")
    for number, part in enumerate(parts, start=1):
        last = number == len(parts)
        if last and not part:
            break
        offset += len(part) + (0 if last else 1)
        if len(part) > max_line_bytes:
            out.append(LongLine(number, offset, len(part)))
        else:
            line = part[:-1] if part.endswith(b"\r") else part
            if number == 1 and line.startswith(BOM):
                line = line[len(BOM) :]
            out.append(Line(number, offset, line))
    return out


def test_a_byte_order_mark_is_dropped_at_the_start_only_even_in_pieces() -> None:
    assert split([BOM[:1], BOM[1:] + b"a\n" + BOM + b"b\n"]) == [
        Line(1, 5, b"a"),
        Line(2, 10, BOM + b"b"),
    ]


def test_a_line_split_across_chunks_comes_out_whole() -> None:
    assert split([b'{"a"', b": 1}\n{", b'"b": 2}\n']) == [
        Line(1, 9, b'{"a": 1}'),
        Line(2, 18, b'{"b": 2}'),
    ]


def test_crlf_endings_lose_the_carriage_return() -> None:
    assert split([b"one\r\ntwo\r", b"\n"]) == [Line(1, 5, b"one"), Line(2, 10, b"two")]


def test_a_lone_carriage_return_inside_a_line_is_kept() -> None:
    assert split([b"a\rb\n"]) == [Line(1, 4, b"a\rb")]


def test_empty_lines_are_lines_of_their_own() -> None:
    assert split([b"a\n\n\r\nb\n"]) == [
        Line(1, 2, b"a"),
        Line(2, 3, b""),
        Line(3, 5, b""),
        Line(4, 7, b"b"),
    ]


def test_a_partial_line_is_held_until_its_newline_arrives() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b"one\ntw") == [Line(1, 4, b"one")]
    assert splitter.pending == 2
    assert splitter.feed(b"o") == []
    assert splitter.feed(b"\n") == [Line(2, 8, b"two")]
    assert splitter.pending == 0


def test_finish_emits_the_partial_last_line() -> None:
    splitter = LineSplitter()
    splitter.feed(b"one\nlast")
    assert splitter.finish() == [Line(2, 8, b"last")]
    assert splitter.finish() == []


def test_finish_after_a_complete_last_line_emits_nothing() -> None:
    splitter = LineSplitter()
    splitter.feed(b"one\n")
    assert splitter.finish() == []


def test_offsets_point_just_after_each_newline() -> None:
    data = b"ab\r\n\nxyz\n"
    items = split([data])
    assert [item.offset for item in items] == [4, 5, 9]
    assert data[: items[0].offset] == b"ab\r\n"


def test_a_line_over_the_limit_becomes_a_long_line_and_the_lines_after_it_are_read() -> None:
    assert split([b"ok\n" + b"x" * 11 + b"\nnext\n"], max_line_bytes=10) == [
        Line(1, 3, b"ok"),
        LongLine(2, 15, 11),
        Line(3, 20, b"next"),
    ]


def test_a_long_line_arriving_in_pieces_is_never_held_whole() -> None:
    splitter = LineSplitter(max_line_bytes=10)
    out: list[Line | LongLine | LineOverLimit] = []
    piece = b"x" * 10_000
    tracemalloc.start()
    try:
        for _ in range(100):  # a line of a million bytes
            out.extend(splitter.feed(piece))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 200_000  # a piece or two at a time, never the line
    out.extend(splitter.feed(b"\nafter\n"))
    assert out == [
        LineOverLimit(1, 10),
        LongLine(1, 1_000_001, 1_000_000),
        Line(2, 1_000_007, b"after"),  # nothing of the long line is held before it
    ]


def test_a_line_with_no_end_is_said_once_as_soon_as_it_passes_the_limit() -> None:
    splitter = LineSplitter(max_line_bytes=10)
    assert splitter.feed(b"ok\n" + b"\0" * 10) == [Line(1, 3, b"ok")]  # at the limit: held
    assert splitter.feed(b"\0") == [LineOverLimit(2, 10)]
    assert all(splitter.feed(b"\0" * 64) == [] for _ in range(100))  # said once
    assert splitter.feed(b"\nnext\n") == [LongLine(2, 6415, 6411), Line(3, 6420, b"next")]


def test_the_warning_names_the_source_the_line_and_the_limit() -> None:
    text = LineOverLimit(3, 8 * 1024 * 1024).text("/dev/zero")
    assert text.startswith("/dev/zero: line 3 is over the limit of 8,388,608 bytes")


def test_a_long_partial_last_line_at_the_end_is_a_long_line() -> None:
    assert split([b"ok\n", b"y" * 6, b"y" * 6], max_line_bytes=10) == [
        Line(1, 3, b"ok"),
        LongLine(2, 15, 12),
    ]


def test_a_line_exactly_at_the_limit_is_kept() -> None:
    assert split([b"x" * 5, b"x" * 5 + b"\n"], max_line_bytes=10) == [Line(1, 11, b"x" * 10)]


def test_resuming_from_an_offset_counts_on_from_there() -> None:
    splitter = LineSplitter(offset=100, number=7)
    assert splitter.feed(b"next\n") == [Line(8, 105, b"next")]
    assert splitter.offset == 105
    assert splitter.number == 8


_PIECES = st.sampled_from([b"a", b"{}", b"\n", b"\r", b"\r\n", b"\xff", b"xxxxxxxx"])
_DATA = st.one_of(st.binary(max_size=200), st.lists(_PIECES, max_size=60).map(b"".join))


@given(data=_DATA, cuts=st.lists(st.integers(0, 400), max_size=20), limit=st.integers(1, 12))
def test_any_chunking_gives_the_lines_of_splitting_the_whole(
    data: bytes, cuts: list[int], limit: int
) -> None:
    bounds = [0, *sorted(cut % (len(data) + 1) for cut in cuts), len(data)]
    chunks = [data[start:end] for start, end in itertools.pairwise(bounds)]
    assert split(chunks, limit) == whole(data, limit)


@given(data=_DATA, cuts=st.lists(st.integers(0, 400), max_size=20), limit=st.integers(1, 12))
def test_a_long_line_is_said_over_the_limit_once_before_it_ends(
    data: bytes, cuts: list[int], limit: int
) -> None:
    bounds = [0, *sorted(cut % (len(data) + 1) for cut in cuts), len(data)]
    items = split_all([data[start:end] for start, end in itertools.pairwise(bounds)], limit)
    for said, after in itertools.pairwise([None, *items]):
        if isinstance(said, LineOverLimit):
            assert isinstance(after, LongLine) and after.number == said.number
        if isinstance(after, LongLine):
            assert said == LineOverLimit(after.number, limit)  # said first, once
    assert not items or not isinstance(items[-1], LineOverLimit)  # finish() ends the line


@given(data=_DATA)
def test_with_the_default_limit_lines_are_those_of_bytes_split(data: bytes) -> None:
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    expected = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    if expected and expected[0].startswith(BOM):
        expected[0] = expected[0][len(BOM) :]
    assert [item.data for item in split([data]) if isinstance(item, Line)] == expected
