"""A tool's whole output, read again from its log: where each result was read is kept on its
call (``keep_position``: a path, a line's number, offset, size and digest, never the text, so
the sessions' memory stays bounded), and ``read_output`` reads that line again, parses it with
the session's format and returns the call's whole output, redacted as everywhere.

Only what is read from a file has positions: a followed file or document, and standard input,
read through its spool in the state directory (``bot.sources.spool``), which lasts as long as
the run that reads it, as the process that answers a click does. What comes through a pipe
(``run``'s agent output; standard input or a named pipe that is not spooled) has its positions
in a redacted copy of its lines made while the app receives clicks (``bot.sources.pipe_copy``).
Replayed (``--replay-speed``), a line's position is taken when it is read and kept with its
records until they are applied.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import BinaryIO

from bot.formats.reader import SourceReader
from bot.records import Record, ToolResult
from bot.redaction import Redactor
from bot.session import Session
from bot.session.tool_calls import OutputPosition
from bot.sources.files import lines_of
from bot.sources.lines import BOM, Line

_DIGEST_BYTES = 12


@dataclass(frozen=True, slots=True)
class Changed:
    """The log no longer holds the line the output was read from: ``why``, for the person."""

    why: str


@dataclass(frozen=True, slots=True)
class LineRead:
    """Where ``line`` was read: the file at ``path`` (a followed file, a spool, a pipe's copy),
    read whole if ``document``."""

    path: str
    line: Line
    document: bool = False


def position_of(path: str, line: Line, document: bool) -> OutputPosition:
    """Where ``line`` of the file at ``path`` is (``document``: the file read whole)."""
    return OutputPosition(
        os.path.abspath(path), line.number, line.offset, len(line.data), _digest(line.data),
        document,
    )  # fmt: skip


def keep_position(session: Session, result: ToolResult, at: LineRead) -> None:
    """Keep where ``result`` was read (``at``) on its call, when a message shows that call's
    output (the digest is taken only then). A result of another line (held back while the
    format was detected, applied with this one) keeps none."""
    if not at.document and result.origin.line != at.line.number:
        return
    call = session.calls.get(result.call_id)
    if call is not None and call.shown and call.output_size:
        call.output_at = position_of(at.path, at.line, at.document)


def read_output(at: OutputPosition, call_id: str, family: str, redactor: Redactor) -> str | Changed:
    """The whole output of the call ``call_id`` as the line at ``at`` holds it, redacted; or
    ``Changed`` when that file or line is not what was read (rotated, rewritten, removed)."""
    try:
        with open(at.path, "rb") as file:
            data = _line_at(file, at)
    except OSError as error:
        return Changed(f"the log cannot be read again ({error.strerror or error})")
    if data is None:
        return Changed("the log changed since (rotated or rewritten): this line is gone")
    result = _result_in(_records(SourceReader(at.path, family=family), data, at.line), call_id)
    if result is None and not at.document:  # a format that needs the lines before it
        result = _result_in(_records_through(at, family), call_id)
    if result is None:
        return Changed("the log no longer holds this tool call's result")
    return redactor.redact(result.output)


def _line_at(file: BinaryIO, at: OutputPosition) -> bytes | None:
    """The bytes of the line at ``at`` if they are still those read (a document: as it is)."""
    if at.document:
        return file.read().removeprefix(BOM)
    start = max(0, at.end - at.size - 2)  # room for its newline, and a CRLF's ``\r``
    file.seek(start)
    data = file.read(at.end - start)
    if data.endswith(b"\n"):
        data = data[:-1]
    if data.endswith(b"\r"):
        data = data[:-1]
    data = data[len(data) - at.size :] if len(data) >= at.size else b""
    return data if _digest(data) == at.digest else None


def _records(reader: SourceReader, data: bytes, number: int) -> list[Record]:
    return reader.feed(data, number) + reader.finish()


def _records_through(at: OutputPosition, family: str) -> list[Record]:
    """The records of line ``at.line`` read with every line before it (a parser that needs
    what came before); streamed, so memory stays bounded by the longest line."""
    reader = SourceReader(at.path, family=family)
    try:
        with open(at.path, "rb") as file:
            for item in lines_of(file.read):
                if not isinstance(item, Line):
                    continue
                records = reader.feed(item.data, item.number)
                if item.number >= at.line:
                    return records
    except OSError:
        return []
    return []


def _result_in(records: list[Record], call_id: str) -> ToolResult | None:
    for record in records:
        if isinstance(record, ToolResult) and record.call_id == call_id:
            return record
    return None


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=_DIGEST_BYTES).hexdigest()
