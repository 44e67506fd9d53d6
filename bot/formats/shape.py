"""What a line looks like, in a few words: for the one line that says a log was not understood.

A JSON object is shown by its first keys, with the short text values that name a kind of line
(``type``, ``event``, ``role``...) and an ellipsis for the rest: ``{"type": "session_meta",
"timestamp": …, "payload": {…}}``. Nothing longer than a few words of the log itself is shown:
the line is printed on a terminal and written to the structured log.
"""

from __future__ import annotations

from typing import Final

import orjson

_KEYS: Final = 5
_LEVELS: Final = 3
_NAMING: Final = ("type", "event", "role", "kind", "subtype", "msg", "status")
_WORD: Final = 32
_TEXT: Final = 60


def shape_of(value: object, depth: int = 0) -> str:
    """A JSON value's shape: an object's first keys, a list's first item and length (a few
    levels down at most)."""
    if isinstance(value, dict):
        parts = [f"{_quoted(str(key))}: {_brief(key, item)}" for key, item in _first(value)]
        more = ", …" if len(value) > _KEYS else ""
        return "{" + ", ".join(parts) + more + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        first = shape_of(value[0], depth + 1) if depth < _LEVELS else "…"
        return f"[{first}, … {len(value)} items]" if len(value) > 1 else f"[{first}]"
    return _scalar(value)


def shape_of_text(raw: bytes) -> str:
    """A line that is not JSON: its start, quoted."""
    text = raw.decode("utf-8", errors="replace").strip()
    clipped = text if len(text) <= _TEXT else text[: _TEXT - 1] + "…"
    return "not JSON: " + _quoted(clipped)


def _first(value: dict[object, object]) -> list[tuple[object, object]]:
    items = list(value.items())
    # the keys that name a kind of line first: they say most about what the line is
    items.sort(key=lambda item: item[0] not in _NAMING)
    return items[:_KEYS]


def _brief(key: object, item: object) -> str:
    if isinstance(item, str) and key in _NAMING and len(item) <= _WORD:
        return _quoted(item)
    if isinstance(item, dict):
        return "{…}" if item else "{}"
    if isinstance(item, list):
        return "[…]" if item else "[]"
    if item is None or isinstance(item, bool):
        return _scalar(item)
    return "…"


def _scalar(value: object) -> str:
    if isinstance(value, str):
        return _quoted(value if len(value) <= _WORD else value[: _WORD - 1] + "…")
    try:
        return orjson.dumps(value).decode()[:_WORD]
    except TypeError:
        return type(value).__name__


def _quoted(text: str) -> str:
    return orjson.dumps(text).decode()
