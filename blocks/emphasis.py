"""Markdown emphasis (bold, italic, strike, backslash escapes) converted to Slack mrkdwn, in
escaped text: one regex for every mark."""

from __future__ import annotations

import re
from typing import Final

_STRONG = r"[^*\s](?:[^*]*[^*\s])?"
_UNDER = r"[^_\s](?:[^_]*[^_\s])?"
_TILDE = r"[^~\s](?:[^~]*[^~\s])?"
# Every alternative starts with a literal character (the "no word character before `_`" test
# is a look-behind placed after the `_`s): see benchmarks/PERFORMANCE.md.
MARKS: Final = re.compile(
    r"\\(?P<esc>[!-/:-@\[-`{-~])"
    rf"|\*\*\*(?P<bold_italic>{_STRONG})\*\*\*"
    rf"|\*\*(?P<bold>{_STRONG})\*\*"
    rf"|__(?<!\w__)(?P<bold2>{_UNDER})__(?!\w)"
    rf"|~~(?P<strike>{_TILDE})~~"
    rf"|\*(?P<italic>{_STRONG})\*"
    rf"|_(?<!\w_)(?P<italic2>{_UNDER})_(?!\w)"
)


def mark(match: re.Match[str]) -> str:
    kind = match.lastgroup
    inner = match.group(kind or 0)
    if kind == "esc":
        return inner
    if kind == "bold_italic":
        return f"*_{inner}_*"
    if kind in ("bold", "bold2"):
        return f"*{inner}*"
    if kind == "strike":
        return f"~{inner}~"
    return f"_{inner}_"


def bold_inside(match: re.Match[str]) -> str:
    """In an already bold heading, bold marks are dropped rather than nested."""
    kind = match.lastgroup
    if kind in ("bold", "bold2"):
        return match.group(kind or 0)
    if kind == "bold_italic":
        return f"_{match.group(kind)}_"
    return mark(match)
