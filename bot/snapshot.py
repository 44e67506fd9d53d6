"""The core's state as plain data (JSON by orjson), for checkpoints and retired sessions: an
explicit, versioned snapshot, not a pickle of the live objects.

Only the classes of ``bot.snapshot_classes`` are written, each as the fields its entry names,
in that order; reading one back builds an object of that class from them, and nothing else.
The snapshot holds nothing of the build: a checkpoint written by the compiled core is read by
the pure one and back. ``SCHEMA`` is the snapshot's version: bumped whenever an entry changes
(``tests/test_snapshot.py`` fails until it is); a snapshot of another schema is not read.

The form of a value: ``None``, booleans, numbers and strings are themselves; a list is a JSON
array; a dict whose keys are strings, none beginning with ``$``, is a JSON object. Anything
else is an object of one key beginning with ``$``: ``{"$ToolCall": [fields...]}`` (a
registered class), ``{"$SessionStatus": "running"}`` (an enum), ``{"$t": [...]}`` (a tuple),
``{"$set": [...]}``, ``{"$od": {...}}`` (an OrderedDict; ``[[key, value], ...]`` unless its keys
are short strings), ``{"$d": ...}`` (any other dict, likewise), ``{"$u": 1767225600000000}`` (a UTC
time, in microseconds since 1970), ``{"$dt": "2026-01-01T00:00:00+01:00"}`` (any other time),
``{"$i": "123..."}`` and
``{"$f": "nan"}`` (numbers JSON cannot hold), ``{"$b": "base64"}``, and ``{"$r": n}``: the
n-th object of the snapshot again.
Objects, enums, lists, dicts, sets, times and strings of ``LONG`` characters or more are numbered in
the order they are first written, so an object held in two places (a session in the book and
as its last one, a record in two tables) is written once and comes back as one object, as it
was; a long string is written once however often it is held.
"""

from __future__ import annotations

import base64
import math
from collections import OrderedDict
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import orjson

from bot.snapshot_classes import BUILT, CLASSES, ENUM, SCHEMA, Entry

_BY_CLASS: Final[dict[type, Entry]] = {entry.cls: entry for entry in CLASSES}
_BY_TAG: Final[dict[str, Entry]] = {f"${entry.tag}": entry for entry in CLASSES}
_INT_RANGE: Final = range(-(2**63), 2**64)
# What is numbered as it is first written, and written again as its number.
_NUMBERED: Final = frozenset({list, dict, set, OrderedDict, datetime, *_BY_CLASS})
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND: Final = timedelta(microseconds=1)
LONG: Final = 24  # a string this long is numbered, as an object is
__all__ = ["SCHEMA", "SnapshotError", "dumps", "loads"]


class SnapshotError(ValueError):
    """A snapshot that is not one this schema reads (garbage, another shape, a class not
    registered)."""


def dumps(value: object) -> bytes:
    """The snapshot of ``value`` (every object in it of a registered class)."""
    return orjson.dumps(_Writer().plain(value))


def loads(data: bytes) -> Any:
    """The value of a snapshot; ``SnapshotError`` when it is not one this schema wrote."""
    try:
        return _Reader().value(orjson.loads(data))
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError, ValueError,
            AttributeError, RecursionError) as error:  # fmt: skip
        raise SnapshotError(f"{type(error).__name__}: {str(error)[:200]}") from None


class _Writer:
    def __init__(self) -> None:
        self.seen: dict[int, int] = {}  # id of an object written -> its number
        self.kept: list[object] = []  # (keeps each numbered object alive: its id stays its own)
        self.texts: dict[str, int] = {}  # a long string written -> its number

    def plain(self, value: Any) -> Any:
        kind = type(value)
        if kind is str:
            return value if len(value) < LONG else self._text(value)
        if value is None or kind is bool:
            return value
        elif kind is int:
            return value if value in _INT_RANGE else {"$i": str(value)}
        elif kind is float:
            return value if math.isfinite(value) else {"$f": repr(value)}
        number = self.seen.get(id(value))
        if number is not None:
            return {"$r": number}
        if kind in _NUMBERED:
            self.seen[id(value)] = len(self.kept)
            self.kept.append(value)
        return self._new(kind, value)

    def _text(self, text: str) -> Any:
        """A long string: written once, then as its number (the same id, say, in a call and in
        its result, read from two lines)."""
        number = self.texts.get(text)
        if number is not None:
            return {"$r": number}
        self.texts[text] = len(self.kept)
        self.kept.append(text)
        return text

    def _new(self, kind: type, value: Any) -> Any:
        entry = _BY_CLASS.get(kind)
        if entry is not None:
            if entry.kind is ENUM:
                return {f"${entry.tag}": value.value}
            return {f"${entry.tag}": [self.plain(getattr(value, name)) for name in entry.fields]}
        if kind is list:
            return [self.plain(item) for item in value]
        if kind is dict:
            if not _named_keys(value):
                return {"$d": self._pairs(value)}
            if any(key.startswith("$") for key in value):
                return {"$d": self._named(value)}
            return self._named(value)
        if kind is tuple:
            return {"$t": [self.plain(item) for item in value]}
        if kind is datetime:
            if value.tzinfo is UTC:
                return {"$u": (value - _EPOCH) // _MICROSECOND}
            return {"$dt": value.isoformat()}
        if kind is OrderedDict:
            return {"$od": self._named(value) if _named_keys(value) else self._pairs(value)}
        if kind is set:
            return {"$set": [self.plain(item) for item in value]}
        if kind is bytes:
            return {"$b": base64.b64encode(value).decode()}
        raise TypeError(f"a snapshot cannot hold a {kind.__qualname__} ({kind.__module__}): "
                        "add its class to bot/snapshot_classes.py")  # fmt: skip

    def _pairs(self, table: dict[Any, Any]) -> list[list[Any]]:
        return [[self.plain(key), self.plain(item)] for key, item in table.items()]

    def _named(self, table: dict[str, Any]) -> dict[str, Any]:
        return {key: self.plain(item) for key, item in table.items()}


def _named_keys(table: dict[Any, Any]) -> bool:
    """Whether a table is written as a JSON object: its keys are short strings (a long one, an
    id that is held elsewhere too, is written once and then as its number: in pairs)."""
    return all(type(key) is str and len(key) < LONG for key in table)


class _Reader:
    def __init__(self) -> None:
        self.made: list[object] = []

    def value(self, plain: Any) -> Any:
        kind = type(plain)
        if kind is list:
            out: list[Any] = []
            self.made.append(out)
            out.extend(self.value(item) for item in plain)
            return out
        if kind is str:
            if len(plain) >= LONG:
                self.made.append(plain)
            return plain
        if kind is not dict:
            if kind in (int, float, bool) or plain is None:
                return plain
            raise TypeError(f"not a snapshot value: {kind.__name__}")
        if len(plain) == 1:
            ((key, inner),) = plain.items()
            if key.startswith("$"):
                return self._tagged(key, inner)
        table: dict[str, Any] = {}
        self.made.append(table)
        return self._named(plain, table)

    def _named(self, plain: dict[str, Any], table: dict[Any, Any]) -> dict[Any, Any]:
        for key, item in plain.items():
            table[key] = self.value(item)
        return table

    def _tagged(self, tag: str, inner: Any) -> Any:
        if tag == "$r":
            return self.made[_index(inner)]
        if tag == "$t":
            return tuple(self.value(item) for item in _list(inner))
        if tag in ("$dt", "$u"):
            at = _time(inner) if tag == "$u" else datetime.fromisoformat(_str(inner))
            self.made.append(at)
            return at
        if tag in ("$d", "$od"):
            table: dict[Any, Any] = {} if tag == "$d" else OrderedDict()
            self.made.append(table)
            if type(inner) is dict:
                return self._named(inner, table)
            for pair in _list(inner):
                key, item = _list(pair)
                key = self.value(key)  # (before its value: numbered in the order written)
                table[key] = self.value(item)
            return table
        if tag == "$set":
            found: set[Any] = set()
            self.made.append(found)
            found.update(self.value(item) for item in _list(inner))
            return found
        if tag == "$i":
            return int(_str(inner))
        if tag == "$f":
            return float(_str(inner))
        if tag == "$b":
            return base64.b64decode(_str(inner), validate=True)
        return self._object(_BY_TAG[tag], inner)

    def _object(self, entry: Entry, inner: Any) -> Any:
        if entry.kind is ENUM:
            member = entry.cls(inner)
            self.made.append(member)
            return member
        values = _list(inner)
        if len(values) != len(entry.fields):
            raise ValueError(f"{entry.tag}: {len(values)} fields, its schema has "
                             f"{len(entry.fields)}")  # fmt: skip
        if entry.kind is BUILT:  # a frozen class, made by its constructor
            number = len(self.made)
            self.made.append(None)  # (its number, taken before its fields are read)
            made = entry.cls(*[self.value(item) for item in values])
            self.made[number] = made
            return made
        cls: Any = entry.cls  # made as pickle makes it, without its constructor (compiled, as
        made = cls.__new__(cls)  # a ``mypyc_attr(serializable=True)`` class allows)
        self.made.append(made)
        for name, item in zip(entry.fields, values, strict=True):
            setattr(made, name, self.value(item))
        return made


def _time(plain: Any) -> datetime:
    if type(plain) is not int:
        raise TypeError(f"expected a number of microseconds, not {type(plain).__name__}")
    return _EPOCH + timedelta(microseconds=plain)


def _list(plain: Any) -> list[Any]:
    if type(plain) is not list:
        raise TypeError(f"expected a list, not {type(plain).__name__}")
    return plain


def _str(plain: Any) -> str:
    if type(plain) is not str:
        raise TypeError(f"expected a string, not {type(plain).__name__}")
    return plain


def _index(plain: Any) -> int:
    if type(plain) is not int or plain < 0:
        raise ValueError(f"not an object's number: {plain!r}")
    return plain
