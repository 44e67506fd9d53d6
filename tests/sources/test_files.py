"""Reading a whole log for preview: in chunks, a line over the limit said and dropped as it comes
(``/dev/zero`` in bounded memory), a JSON document over many lines whole as line 1."""

from __future__ import annotations

import os
import threading
import tracemalloc
from pathlib import Path

import orjson
import pytest

from bot.errors import InputError
from bot.sources.files import log_lines
from bot.sources.lines import Line, LineOverLimit, LongLine

MIB = 1024 * 1024


def nothing_told(text: str) -> None:
    raise AssertionError(f"told {text!r}")


def test_a_line_with_no_end_is_read_in_bounded_memory_and_said_at_once() -> None:
    read_end, write_end = os.pipe()
    size = 48 * MIB

    def write() -> None:  # like /dev/zero, but ending, for the test to end
        zeros = b"\0" * MIB
        for _ in range(size // MIB):
            os.write(write_end, zeros)
        os.close(write_end)

    threading.Thread(target=write, daemon=True).start()
    tracemalloc.start()
    try:
        items = list(log_lines(Path(f"/dev/fd/{read_end}"), nothing_told, max_line_bytes=MIB))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        os.close(read_end)
    assert items == [LineOverLimit(1, MIB), LongLine(1, size, size)]
    assert peak < 8 * MIB


def test_a_file_of_lines_is_read_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "agent.jsonl"
    path.write_bytes(b'{"a": 1}\n' + b"x" * 20 + b'\n{"b": 2}')
    assert list(log_lines(path, nothing_told, max_line_bytes=10)) == [
        Line(1, 9, b'{"a": 1}'),
        LineOverLimit(2, 10),
        LongLine(2, 30, 20),
        Line(3, 38, b'{"b": 2}'),
    ]


def test_a_json_document_over_many_lines_is_line_one_whole(tmp_path: Path) -> None:
    data = orjson.dumps({"history": ["x" * 100] * 3}, option=orjson.OPT_INDENT_2)
    path = tmp_path / "run.traj"
    path.write_bytes(data)
    assert list(log_lines(path, nothing_told, max_line_bytes=50)) == [Line(1, len(data), data)]


def test_a_file_whose_first_line_is_a_value_is_json_lines_even_if_it_opens_a_brace(
    tmp_path: Path,
) -> None:
    path = tmp_path / "agent.jsonl"
    path.write_bytes(b'{"a": 1}\n{\n')
    assert [item.data for item in log_lines(path, nothing_told) if isinstance(item, Line)] == [
        b'{"a": 1}', b"{",
    ]  # fmt: skip


def test_a_missing_file_is_a_one_line_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        list(log_lines(tmp_path / "missing.jsonl", nothing_told))
