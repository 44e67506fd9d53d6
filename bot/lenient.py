"""Reading a line that is almost JSON: what orjson refuses but agents' logs hold anyway.

A log written as UTF-16 (Windows tools do) is read too, line by line, once its first line's
byte order mark says so.

Python's ``json.dumps`` writes ``NaN`` and ``Infinity`` and escapes a lone surrogate
(``"\\ud83d"``); JavaScript writes lone surrogates too; a number can be too large for a float
(``1e400``). Each is kept as text a person can read (the number's own digits, ``"NaN"``, a
replacement character for the surrogate), so the line is read, not lost, and nothing a
message or a checkpoint cannot hold reaches the session. Only lines orjson refused come here.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

NOT_JSON: Final = object()
# Built from code points: a lone surrogate in a literal would not survive compiling (mypyc).
_SURROGATE: Final = re.compile("[" + chr(0xD800) + "-" + chr(0xDFFF) + "]")
_REPLACEMENT: Final = "\ufffd"


def lenient_json(text: str) -> Any:
    """``text`` read as JSON with the liberties above; ``NOT_JSON`` when it is not JSON."""
    try:
        return _shown(json.loads(text, parse_constant=_constant, parse_float=_number))
    except (ValueError, RecursionError):  # not JSON, or nested deeper than can be walked
        return NOT_JSON


def _constant(name: str) -> str:
    return name  # NaN, Infinity, -Infinity: shown as written


def _number(digits: str) -> float | str:
    number = float(digits)
    return number if math.isfinite(number) else digits


def _shown(value: Any) -> Any:
    """``value`` with every lone surrogate (in a text or a key) replaced."""
    if isinstance(value, str):
        return _SURROGATE.sub(_REPLACEMENT, value)
    if isinstance(value, list):
        return [_shown(item) for item in value]
    if isinstance(value, dict):
        return {_shown(key): _shown(item) for key, item in value.items()}
    return value


_UTF16_BOMS: Final = ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def utf16_by_bom(first_line: bytes) -> str | None:
    """``utf-16-le`` or ``utf-16-be`` when the line starts with that byte order mark."""
    for bom, encoding in _UTF16_BOMS:
        if first_line.startswith(bom):
            return encoding
    return None


def utf16_log(first_line: bytes) -> str | None:
    """The encoding of a log whose first line is UTF-16 JSON behind a byte order mark; None
    for anything else (the same two bytes alone, garbage before a log, are no evidence)."""
    encoding = utf16_by_bom(first_line)
    if encoding is None:
        return None
    text = from_utf16(first_line, encoding).strip()
    return encoding if text and lenient_json(text.decode()) is not NOT_JSON else None


def from_utf16(raw: bytes, encoding: str) -> bytes:
    """One line of a UTF-16 log as UTF-8. Lines were split at the byte 0x0A, so the newline's
    other byte is left at the start of the next line (little-endian) or at the end of this one
    (big-endian): an odd length says which byte to drop."""
    for bom, _ in _UTF16_BOMS:
        if raw.startswith(bom):
            raw = raw[len(bom) :]
    if len(raw) % 2:
        raw = raw[1:] if encoding == "utf-16-le" else raw[:-1]
    return raw.decode(encoding, errors="replace").strip("\r\n").encode()
