"""Splitting a byte stream into lines: pure, fed chunk by chunk, memory bounded.

A line ends at ``\\n``; one ``\\r`` before it is dropped (CRLF). Each line comes with its 1-based
number and the byte offset just after its newline, the offset to resume from once the line is
dealt with. A partial last line is held until its newline arrives; ``finish()`` emits it at end
of input. A line longer than ``max_line_bytes`` is never held whole: its bytes are dropped as
they come and it becomes a ``LongLine`` marker (its number and size), and the lines after it
are read as usual. A ``LineOverLimit`` comes before it, as soon as the line passes the limit
(so that a line with no end, ``/dev/zero``, is told while it lasts). A byte order mark at the
very start of the stream (offset 0) is dropped from the first line; the offsets still count its
bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024
BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Line:
    """One complete line, without its newline."""

    number: int
    offset: int  # byte offset just after the line's newline (or after its last byte at the end)
    data: bytes


@dataclass(frozen=True, slots=True)
class LongLine:
    """A line over the size limit: its bytes were dropped, the caller counts it as unparsed."""

    number: int
    offset: int  # as for ``Line``
    size: int  # bytes before the newline (a CRLF's ``\r`` included)


@dataclass(frozen=True, slots=True)
class LineOverLimit:
    """Line ``number`` has passed ``limit`` bytes and not ended yet: its bytes are dropped as they
    come, and its end, if it comes, is a ``LongLine``."""

    number: int
    limit: int

    def text(self, source: str) -> str:
        """The warning, in one line."""
        return (
            f"{source}: line {self.number} is over the limit of {self.limit:,} bytes "
            "(SLACKTAIL_MAX_LINE_BYTES): skipping it to its end"
        )


class LineSplitter:
    """Byte chunks in, complete lines out.

    ``max_line_bytes`` counts a line's bytes before its ``\\n`` (a CRLF's ``\\r`` included).
    ``offset`` and ``number`` start where a previous reading stopped (``offset`` bytes in, after
    line ``number``), so a source can resume from a committed position.
    """

    def __init__(
        self,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        *,
        offset: int = 0,
        number: int = 0,
    ) -> None:
        if max_line_bytes < 1:
            raise ValueError("max_line_bytes must be at least 1")
        self.max_line_bytes = max_line_bytes
        self._fed = offset  # bytes fed so far, counted from the stream's start
        self._line_end = offset  # offset just after the last line emitted
        self._number = number  # number of the last line emitted
        self._held = bytearray()  # the partial line so far (never over max_line_bytes)
        self._skipped = -1  # while dropping a long line: its size so far; -1 otherwise

    @property
    def offset(self) -> int:
        """The offset just after the last line emitted: where a later reading may resume."""
        return self._line_end

    @property
    def number(self) -> int:
        """The number of the last line emitted (0 before the first)."""
        return self._number

    @property
    def pending(self) -> int:
        """Bytes fed but not yet part of an emitted line (the partial last line)."""
        return self._fed - self._line_end

    def feed(self, chunk: bytes) -> list[Line | LongLine | LineOverLimit]:
        """The lines that ``chunk`` completes, in order, each ``LongLine`` after its
        ``LineOverLimit``; a ``LineOverLimit`` last when the partial line it leaves has just
        passed the limit."""
        out: list[Line | LongLine | LineOverLimit] = []
        start = 0
        size = len(chunk)
        base = self._fed
        while start < size:
            end = chunk.find(b"\n", start)
            if end < 0:
                if self._hold(chunk, start):
                    out.append(LineOverLimit(self._number + 1, self.max_line_bytes))
                break
            if self._skipped < 0 and len(self._held) + end - start > self.max_line_bytes:
                out.append(LineOverLimit(self._number + 1, self.max_line_bytes))  # whole at once
            out.append(self._line(chunk, start, end, base + end + 1))
            start = end + 1
        self._fed = base + size
        return out

    def finish(self) -> list[Line | LongLine]:
        """At end of input: the partial last line, if any, as a line of its own."""
        if self._skipped < 0 and not self._held:
            return []
        return [self._line(b"", 0, 0, self._fed)]

    def _hold(self, chunk: bytes, start: int) -> bool:
        """Hold the partial line's bytes; True when they just passed the limit."""
        more = len(chunk) - start
        if self._skipped >= 0:
            self._skipped += more
        elif len(self._held) + more > self.max_line_bytes:
            self._skipped = len(self._held) + more
            self._held = bytearray()
            return True
        else:
            self._held += chunk[start:]
        return False

    def _line(self, chunk: bytes, start: int, end: int, after: int) -> Line | LongLine:
        """The line made of what is held and ``chunk[start:end]``, ending at offset ``after``."""
        first = self._line_end == 0  # the line starts the stream: it may begin with a BOM
        self._number += 1
        self._line_end = after
        if self._skipped >= 0:
            item: Line | LongLine = LongLine(self._number, after, self._skipped + end - start)
            self._skipped = -1
            return item
        if self._held:
            self._held += chunk[start:end]
            data = bytes(self._held)
            self._held = bytearray()
        else:
            data = chunk[start:end]
        if len(data) > self.max_line_bytes:
            return LongLine(self._number, after, len(data))
        if data.endswith(b"\r"):
            data = data[:-1]
        if first and data.startswith(BOM):
            data = data[len(BOM) :]
        return Line(self._number, after, data)
