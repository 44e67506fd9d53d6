"""Reading a whole log file into lines (for preview).

A JSON Lines file yields one item per line. A file that is one JSON document spread over many
lines (a SWE-agent ``.traj``, an Agno stored run, a session endpoint's list of runs) yields the
whole document as one item, numbered 1 (followed, it is a ``document.DocumentFollower``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson

from bot.formats.lenient import NOT_JSON, lenient_json
from bot.formats.reader import ReaderStats, SourceReader
from bot.records import Record
from bot.sources.opening import file_error


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise file_error(path, error) from None


def split_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` pairs; a multi-line JSON document comes back whole as line 1."""
    if _is_document(data):
        yield 1, data
        return
    for number, line in enumerate(data.split(b"\n"), start=1):
        yield number, line.rstrip(b"\r")


def is_document(data: bytes) -> bool:
    """The file is one JSON document over many lines (not JSON Lines)."""
    return _is_document(data)


def _is_document(data: bytes) -> bool:
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if head not in (b"{", b"["):
        return False
    first_line = data.split(b"\n", 1)[0]
    try:
        orjson.loads(first_line.lstrip(b"\xef\xbb\xbf"))
        return False  # the first line is a value of its own: JSON Lines
    except orjson.JSONDecodeError:
        pass
    whole = data.lstrip(b"\xef\xbb\xbf")
    try:
        orjson.loads(whole)
    except orjson.JSONDecodeError:  # perhaps with what writers allow (NaN...): read leniently
        return lenient_json(whole.decode("utf-8", errors="replace")) is not NOT_JSON
    return True


def read_records(path: Path, family: str | None = None) -> tuple[list[Record], ReaderStats]:
    """Every record of one file, and the reader's counts."""
    reader = SourceReader(str(path), family=family)
    records: list[Record] = []
    for number, line in split_lines(read_bytes(path)):
        records.extend(reader.feed(line, number))
    records.extend(reader.finish())
    return records, reader.stats
