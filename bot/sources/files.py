"""Reading a whole log into lines (for preview): a file, a pipe, a device, to its end.

A JSON Lines file yields one item per line. A file that is one JSON document spread over many
lines (a SWE-agent ``.traj``, an Agno stored run, a session endpoint's list of runs) yields the
whole document as one item, numbered 1 (followed, it is a ``document.DocumentFollower``).

``log_lines`` reads in chunks, memory bounded as when following: a line over the limit is
dropped as it comes (a ``LineOverLimit``, then a ``LongLine``), and a file is held whole only
while it may be a document, up to ``DOCUMENT_MAX`` bytes. ``/dev/zero`` is read forever, in
little memory, as ``cat`` would read it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import orjson

from bot.errors import InputError
from bot.lenient import NOT_JSON, lenient_json
from bot.sources.lines import DEFAULT_MAX_LINE_BYTES, Line, LineOverLimit, LineSplitter, LongLine
from bot.sources.opening import file_error, open_file
from bot.sources.pipe import is_stream, open_stream

CHUNK_BYTES = 1024 * 1024
DOCUMENT_MAX = 64_000_000  # a larger document is not read (followed), or read as lines (preview)


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


def log_size(path: Path) -> int:
    """The size of the file at ``path``; 0 for a pipe or a device (or when there is none)."""
    try:
        return path.stat().st_size if not is_stream(path) else 0
    except OSError:
        return 0


def log_lines(
    path: Path, tell: Callable[[str], None], max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> Iterator[Line | LongLine | LineOverLimit]:
    """The lines of the log at ``path`` as they are read (a document whole, as line 1).
    ``tell`` says what reading waits for (a pipe's writer)."""
    if is_stream(path):
        stream = open_stream(path, tell)
        try:
            yield from lines_of(stream.read1, max_line_bytes)
        finally:
            stream.close()
        return
    opened = open_file(path)
    if opened is None:
        raise InputError(f"{path}: no such file")
    with opened[0] as file:
        yield from lines_of(file.read, max_line_bytes)


def lines_of(
    read: Callable[[int], bytes], max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> Iterator[Line | LongLine | LineOverLimit]:
    """Lines of what ``read`` gives, chunk by chunk (``b""`` at the end); the start held while
    it may be one JSON document over many lines."""
    splitter = LineSplitter(max_line_bytes)
    held = bytearray()
    document: bool | None = None  # the start may be a document's; None: not known yet
    while chunk := read(CHUNK_BYTES):
        if document is False:
            yield from splitter.feed(chunk)
            continue
        held += chunk
        if document is None:
            document = _may_be_document(held, max_line_bytes)
        if document is False or len(held) > DOCUMENT_MAX:
            document = False
            yield from splitter.feed(bytes(held))
            held = bytearray()
    data = bytes(held)
    if document is not False and _is_document(data):
        yield Line(1, len(data), data)
        return
    yield from splitter.feed(data)
    yield from splitter.finish()


def _may_be_document(head: bytearray, max_line_bytes: int) -> bool | None:
    """Whether a stream starting with ``head`` may be a JSON document over many lines: it opens
    one, and its first line is not a JSON value of its own; None until its first line ended
    (within the line limit: a longer one is a line over the limit, not a document's)."""
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if start and start not in b"{[":
        return False
    first, newline, _ = head.partition(b"\n")
    if not newline:
        return None if len(first) <= max_line_bytes else False
    if not start:
        return None  # blank lines so far
    try:
        orjson.loads(first.lstrip(b"\xef\xbb\xbf"))
    except orjson.JSONDecodeError:
        return True
    return False
