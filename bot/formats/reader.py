"""From raw lines of one source to records: JSON decoding, format detection, unparsed lines.

Pure: it is fed bytes and returns records. A line that is not JSON, or JSON that the source's
format does not understand, becomes an ``Unparsed`` record; the lines around it are unaffected.
A source of which nothing could be read is said once (``not_understood``): what its first
line looks like, for the one line the command prints about it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Final

import orjson
from mypy_extensions import mypyc_attr

from bot.errors import FormatError
from bot.formats import FAMILIES, detect_family
from bot.formats.common import within_depth
from bot.formats.log_format import LogFormat
from bot.formats.parser import Delegating, LineParser
from bot.formats.shape import shape_of, shape_of_text
from bot.lenient import NOT_JSON, from_utf16, lenient_json, utf16_log
from bot.records import Origin, Record, Unparsed
from bot.values import json_text

_BOM = b"\xef\xbb\xbf"
_loads: Final = orjson.loads  # one global look-up a line, not the module's attribute as well
_EXCERPT = 120


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass
class ReaderStats:
    lines: int = 0
    records: int = 0
    unparsed: int = 0

    @property
    def read(self) -> int:
        """Records made of lines that were understood."""
        return self.records - self.unparsed


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class SourceReader:
    """Reads one source's lines. The family is detected from the first lines a format claims
    (up to ``detect_window`` lines are held back meanwhile), or fixed by ``family``."""

    def __init__(
        self,
        source: str,
        family: str | None = None,
        detect_window: int = 50,
        repeatable: bool = False,
    ) -> None:
        self.source = source
        self.repeatable = repeatable  # the source may bring lines applied before (stdin)
        self.stats = ReaderStats()
        self.family: str | None = None
        self._parser: LineParser | None = None  # typed: a native call a line (see parser.py)
        self._pending: list[tuple[Any, int]] = []
        self._detect_window = detect_window
        # What the first line that is not blank looks like ("" when some of it was read: only
        # a source of which nothing is read is described, see ``not_understood``).
        self.first_line: str | None = None
        self.encoding: str | None = None  # "utf-16-le" or "-be" for a UTF-16 log, else UTF-8
        self._forced = family is not None
        self._finished = False
        self._reported = False
        if family is not None:
            log_format = FAMILIES.get(family)
            if log_format is None:
                known = ", ".join(sorted(FAMILIES))
                raise FormatError(f"unknown format {family!r} (known: {known})")
            self._use(log_format)

    def feed(self, raw: bytes, line: int) -> list[Record]:
        """Records from one line (``line`` is its 1-based number)."""
        self.stats.lines += 1
        try:
            obj = _loads(raw)
        except orjson.JSONDecodeError:  # blank, a BOM, invalid UTF-8, or not JSON at all
            return self._feed_refused(raw, line)
        if self.first_line is None:
            return self._feed_first(obj, line)
        parser = self._parser
        if parser is None:
            return self._count(self.feed_value(obj, line))
        # The hot path: parsers never build ``Unparsed`` records themselves (``None`` says "not
        # mine"), so only that branch counts one.
        try:
            records: list[Record] | None = parser.parse(obj, line)
        except _SHAPE_ERRORS as error:  # a value of a shape the parser did not foresee
            return self._count([self._unreadable(obj, line, error)])
        if records is None:
            self.stats.unparsed += 1
            records = [self._not_understood(obj, line)]
        elif self.repeatable:
            _name_lines(records, raw)
        self.stats.records += len(records)
        return records

    def _feed_first(self, obj: Any, line: int) -> list[Record]:
        """The first line that is not blank: described only when nothing of it is read."""
        self.first_line = ""
        records = self._count(self.feed_value(obj, line))
        if not self.stats.read:
            self.first_line = shape_of(obj)
        return records

    def _feed_refused(self, raw: bytes, line: int) -> list[Record]:
        """A line ``orjson`` refused as it came."""
        if self.encoding is None and self.first_line is None:
            self.encoding = utf16_log(raw)  # a log written as UTF-16 says so in its BOM
        if self.encoding is not None:
            raw = from_utf16(raw, self.encoding)
        if raw.startswith(_BOM):
            raw = raw[len(_BOM) :]
        if not raw.strip():
            return []
        obj = _decode(raw)
        if self.first_line is None:
            self.first_line = shape_of_text(raw) if obj is NOT_JSON else shape_of(obj)
        if obj is NOT_JSON:
            return self._count([_unparsed("not JSON", raw, line)])
        return self._count(self.feed_value(obj, line))

    def feed_value(self, obj: Any, line: int) -> list[Record]:
        """Records from one already-decoded JSON value (a line, or a whole document)."""
        if self._parser is None:
            log_format = detect_family(obj)
            if log_format is None:
                return self._hold(obj, line)
            self._use(log_format)
            held, self._pending = self._pending, []
            out: list[Record] = []
            for held_obj, held_line in held:
                out.extend(self._parse(held_obj, held_line))
            out.extend(self._parse(obj, line))
            return out
        return self._parse(obj, line)

    def finish(self) -> list[Record]:
        """Flush at end of input: lines held back for detection are unparsed if no format came."""
        out: list[Record] = [
            _unparsed("no format recognised", json_text(o).encode(), n) for o, n in self._pending
        ]
        self._pending = []
        if self._parser is not None:
            out.extend(self._parser.finish())
        self._finished = True
        return self._count(out)

    def not_understood(self) -> str | None:
        """Once, as soon as it is plain that nothing of this source can be read (its input
        ended, or more lines than the detection window came, and not one was understood):
        a line saying so, with what its first line looks like and the formats there are."""
        stats = self.stats
        if self._reported or stats.read > 0 or self.first_line is None:
            return None
        if not (self._finished or stats.lines > self._detect_window):
            return None
        self._reported = True
        names, first = ", ".join(FAMILIES), self.first_line
        if self._forced:
            return (f"{self.source}: nothing could be read as {self.family} "
                    f"(its first line: {first}); --format is one of: {names}")  # fmt: skip
        return (f"{self.source}: not a log slacktail reads (its first line: {first}); "
                f"if it is one, name its format with --format, one of: {names}")  # fmt: skip

    def _use(self, log_format: LogFormat) -> None:
        self.family = log_format.name
        parser = log_format.parser(self.source)
        self._parser = parser if isinstance(parser, LineParser) else Delegating(parser)

    def _hold(self, obj: Any, line: int) -> list[Record]:
        self._pending.append((within_depth(obj), line))  # held values are checkpointed
        if len(self._pending) <= self._detect_window:
            return []
        held_obj, held_line = self._pending.pop(0)
        return [_unparsed("no format recognised", json_text(held_obj).encode(), held_line)]

    def _parse(self, obj: Any, line: int) -> list[Record]:
        parser = self._parser
        assert parser is not None  # only called once a format is known
        try:
            records: list[Record] | None = parser.parse(obj, line)
        except _SHAPE_ERRORS as error:
            return [self._unreadable(obj, line, error)]
        if records is None:
            return [self._not_understood(obj, line)]
        if self.repeatable:  # (lines held for detection, and lines refused by orjson)
            _name_lines(records, json_text(obj).encode())
        return records

    def _unreadable(self, obj: Any, line: int, error: Exception) -> Unparsed:
        reason = f"could not be read as {self.family} ({type(error).__name__}: {error})"
        return _unparsed(reason[:200], json_text(obj).encode(), line)

    def _not_understood(self, obj: Any, line: int) -> Unparsed:
        return _unparsed(f"not understood as {self.family}", json_text(obj).encode(), line)

    def _count(self, records: list[Record]) -> list[Record]:
        self.stats.records += len(records)
        for record in records:
            if type(record) is Unparsed:
                self.stats.unparsed += 1
        return records


# What a parser raises on a value of an unforeseen shape (a list where a string was expected,
# a number where a dict was): the line is counted as unparsed, never a crash.
_SHAPE_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError)


def _decode(raw: bytes) -> Any:
    """A line orjson refused, read as far as it can be: invalid UTF-8 is replaced, and what
    JSON's grammar does not allow but writers do (``NaN``, ``Infinity``, a number too large
    for a float, a lone surrogate escape as Python and JavaScript write them) is kept as text
    that can be shown."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    text = raw.decode("utf-8", errors="replace")
    try:  # invalid UTF-8 inside an otherwise good line: keep the line, replace the bytes
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    return lenient_json(text)


def _name_lines(records: list[Record], raw: bytes) -> None:
    """Give each line of a source that may bring it again (standard input piped in twice) an
    id where its format gives none: its session, its number and a digest of its bytes. The
    same line again is then applied once (``SessionBook``); another log's line, or the same
    text at another place, is not the same line."""
    digest = hashlib.blake2b(raw, digest_size=12).hexdigest()
    for record in records:
        origin = record.origin
        if origin.uid is None and origin.session_id:
            origin.uid = f"{origin.session_id}:{origin.line}:{digest}"


def _unparsed(reason: str, raw: bytes, line: int) -> Unparsed:
    excerpt = raw[:_EXCERPT].decode("utf-8", errors="replace")
    return Unparsed(Origin("", None, line), reason=reason, excerpt=excerpt)
