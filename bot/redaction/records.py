"""``redact_record``: a record with every string in it redacted, before the session sees it
(so before anything is cut short for a preview).

Generic: it walks the record's dataclass fields and the dicts, lists, tuples and dataclasses
nested in them, and rebuilds only what changed (a record with no secret is returned as is).

A long string is redacted in its head only: the first ``HEAD_LIMIT`` characters, extended to
the next whitespace (a secret has none) or by ``TAIL_MARGIN`` at most. Sessions keep heads
(``TEXT_CAP`` and the previews are all shorter), so no preview reaches the unredacted rest;
the final payload is redacted once more anyway.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import re
from collections.abc import Callable
from typing import Any, TypeVar

import orjson

from bot.caps import (
    ANSWER_KEPT,
    NOTICE_CAP,
    PREVIEW_LIMIT,
    RESULT_TEXT_CAP,
    TEXT_CAP,
    USER_TEXT_CAP,
)
from bot.records import Record
from bot.redaction.redactor import MIN_LENGTH, Redactor
from bot.values import TOO_DEEP

# Longer than any part of a string a session keeps, with room for leading whitespace that a
# session strips before it cuts.
HEAD_LIMIT = 2 * max(TEXT_CAP, RESULT_TEXT_CAP, USER_TEXT_CAP, NOTICE_CAP, ANSWER_KEPT,
                     PREVIEW_LIMIT)  # fmt: skip
TAIL_MARGIN = 8192  # longer than any secret but a private key (matched to its end anyway)
_SPACE = re.compile(r"\s")
# Values nested deeper than this (JSON can be 1,000 levels deep; no message shows a tenth of
# that) are replaced by ``TOO_DEEP`` when walked: a deep walk would exhaust Python's stack.
MAX_DEPTH = 64

R = TypeVar("R")


def bounded_redact(redactor: Redactor, text: str, limit: int = HEAD_LIMIT) -> str:
    """``text`` redacted up to ``limit`` characters and past them to the end of the word (or
    ``TAIL_MARGIN`` more); the rest is kept as it is."""
    if len(text) <= limit:
        return redactor.redact(text)
    space = _SPACE.search(text, limit, limit + TAIL_MARGIN)
    cut = space.start() if space is not None else limit + TAIL_MARGIN
    head = text[:cut]
    redacted = redactor.redact(head)
    return text if redacted == head else redacted + text[cut:]


def redact_record(record: R, redactor: Redactor) -> R:
    """``record`` with its strings redacted; the very same object when nothing changed.
    (``redact_value`` for a record, without asking what it is: the hot path.)"""
    return _prefiltered(record, content_of(record), redactor)


def content_of(record: object) -> Any:
    """What of a record may be text: its field values but its origin (ids, a time, a line),
    without their names ("input_tokens" is not the record's text)."""
    kind: Any = type(record)
    return _fields_of(kind)(record)


def redact_value(value: R, redactor: Redactor) -> R:
    """Any record, or JSON-like value (a message payload: its text and blocks), with its
    strings redacted; the very same object when nothing changed."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return redact_record(value, redactor)
    return _prefiltered(value, value, redactor)


def _prefiltered(value: R, content: Any, redactor: Redactor) -> R:
    """``value`` as it is when ``content`` (what of it is text) surely holds no secret, else
    walked and rebuilt. The pre-filter runs once on the whole content as JSON (orjson, in C:
    most values hold no secret, and walking them in Python would cost more than the search)."""
    try:  # keys from JSON are strings; a value with other keys is walked instead
        data = orjson.dumps(content)
    except TypeError:  # something orjson cannot write (JSONEncodeError is a TypeError)
        data = None
    if data is not None and not redactor.may_hold_secret_json(data):
        return value
    return _value(value, redactor)  # type: ignore[no-any-return]


# What every record carries besides its content: its origin (ids, a time, a line; never log text).
_RECORD_FRAME = frozenset({"origin"})


@functools.lru_cache(maxsize=256)  # one entry per record class: a handful
def _field_names(cls: Any) -> tuple[str, ...]:
    names = tuple(field.name for field in dataclasses.fields(cls))
    if issubclass(cls, Record):
        names = tuple(name for name in names if name not in _RECORD_FRAME)
    return names


@functools.lru_cache(maxsize=256)
def _fields_of(cls: Any) -> Callable[[Any], Any]:
    """A function from a record to the tuple of its field values (``attrgetter``, in C)."""
    names = _field_names(cls)
    if not names:
        return lambda value: ()
    getter = operator.attrgetter(*names)
    return getter if len(names) > 1 else lambda value: (getter(value),)


def _value(value: Any, redactor: Redactor, depth: int = 0) -> Any:
    if type(value) is str:
        return bounded_redact(redactor, value) if len(value) >= MIN_LENGTH else value
    if value is None or isinstance(value, int | float):
        return value
    if depth >= MAX_DEPTH and isinstance(value, dict | list | tuple):
        return TOO_DEEP  # nothing shows what is nested this deep; walking it could not end well
    if isinstance(value, dict):
        return _mapping(value, redactor, depth + 1)
    if isinstance(value, list | tuple):
        return _sequence(value, redactor, depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _dataclass(value, redactor, depth + 1)
    return value


def _dataclass(value: Any, redactor: Redactor, depth: int = 0) -> Any:
    changed: dict[str, Any] = {}
    for name in _field_names(value.__class__):
        old = getattr(value, name)
        new = _value(old, redactor, depth)
        if new is not old:
            changed[name] = new
    return dataclasses.replace(value, **changed) if changed else value


def _mapping(value: dict[Any, Any], redactor: Redactor, depth: int) -> dict[Any, Any]:
    """Values and keys (a summary may show both)."""
    items = [
        (_value(key, redactor, depth), _value(old, redactor, depth)) for key, old in value.items()
    ]
    if all(k is o and v is p for (k, v), (o, p) in zip(items, value.items(), strict=True)):
        return value
    return dict(items)


def _sequence(value: list[Any] | tuple[Any, ...], redactor: Redactor, depth: int) -> Any:
    items = [_value(item, redactor, depth) for item in value]
    if all(new is old for new, old in zip(items, value, strict=True)):
        return value
    if isinstance(value, list):
        return items
    return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
