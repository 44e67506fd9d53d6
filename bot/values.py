"""The small pure helpers every stage uses on the values a log holds: a string or none, a number
or none, a value as JSON text, a text cut short. Each has one name, here, at the bottom of the
pipeline (beside ``bot.records``): formats, redaction, session and blocks import it, and it
imports none of them."""

from __future__ import annotations

import re
from typing import Any, Final

import orjson

TOO_DEEP: Final = "[nested too deep to show]"
CLIP: Final = 300  # how long a notice's text a format makes, at the most
_PATCH_FILE: Final = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.MULTILINE)


def text_or_none(value: object) -> str | None:
    """A non-empty string, or None."""
    return value if isinstance(value, str) and value else None


def text_or_empty(value: object) -> str:
    """A string as it is; anything else (a malformed log's number, list or object) as ``""``."""
    return value if isinstance(value, str) else ""


def dict_or_empty(value: object) -> dict[str, Any]:
    """An object as it is; anything else as an empty one."""
    return value if isinstance(value, dict) else {}


def blank(text: str) -> bool:
    """Empty or only whitespace (without copying a long text as ``strip`` would)."""
    return not text or text.isspace()


def as_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    return None


def as_float(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    return None


def clip(text: str, limit: int = CLIP) -> str:
    """``text`` cut to ``limit`` characters, the last one an ellipsis when it was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def line_count(text: str) -> int:
    """How many lines a person sees in ``text``: a newline ends a line, so a trailing one adds
    none (``"a\\n"`` is one line, ``"a\\n\\n"`` two, ``"\\n"`` one empty line, ``""`` none)."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def patch_files(patch: str) -> list[str]:
    """The files an ``apply_patch`` patch touches (its ``*** Add|Update|Delete File: path``
    lines), in its order."""
    return [found.strip() for found in _PATCH_FILE.findall(patch)]


def first_and_more(names: list[str]) -> str:
    """The first of ``names`` and how many more: ``a.py (+1 more)``; ``""`` for none."""
    if not names:
        return ""
    return names[0] + (f" (+{len(names) - 1} more)" if len(names) > 1 else "")


def json_text(value: object) -> str:
    """``value`` as compact JSON text, whatever it holds: integers past 64 bits, non-string
    keys and other values orjson refuses are written as Python would show them."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS, default=str).decode()
    except TypeError:  # also a value nested deeper than orjson writes
        pass
    try:
        return repr(value)
    except RecursionError:
        return TOO_DEEP


def one_clean_line(text: str) -> bool:
    """Printable, single-spaced and trimmed: collapsing its white space (or cleaning it for a
    message) would return it as it is, so it need not be copied. Every white space character
    that ``str.split`` splits on, but the space, is unprintable."""
    if text.startswith(" ") or text.endswith(" ") or "  " in text:
        return False
    if len(text) > _BYTES_FROM and text.isascii():
        # ASCII is printable but for the C0 controls and DEL: made all DEL as bytes, looked
        # for as an int (one `memchr`), cheaper than `isprintable`'s look-up per character.
        return _DEL not in text.encode("ascii").translate(_CONTROLS_AS_DEL)
    return text.isprintable()


_CONTROLS_AS_DEL: Final = bytes([127 if byte < 32 else byte for byte in range(256)])
_DEL: Final = 127
_BYTES_FROM: Final = 24  # shorter texts: isprintable costs less than the three calls
