"""Markdown emphasis (bold, italic, strike, backslash escapes) converted to Slack mrkdwn, in
escaped text: a regex for every mark, and a plain scan for the usual case of ``**bold**``
alone (cheaper than the regex and its callback, and proved equal to them by the tests)."""

from __future__ import annotations

import re
from typing import Final

_STRONG = r"[^*\s](?:[^*]*[^*\s])?"
_UNDER = r"[^_\s](?:[^_]*[^_\s])?"
_TILDE = r"[^~\s](?:[^~]*[^~\s])?"
# Every alternative starts with a literal character (the "no word character before `_`"
# test is a look-behind placed after the `_`s), so the regex engine skips straight to the
# next `\`, `*`, `_` or `~` instead of trying every alternative at every position.
MARKS: Final = re.compile(
    r"\\(?P<esc>[!-/:-@\[-`{-~])"
    rf"|\*\*\*(?P<bold_italic>{_STRONG})\*\*\*"
    rf"|\*\*(?P<bold>{_STRONG})\*\*"
    rf"|__(?<!\w__)(?P<bold2>{_UNDER})__(?!\w)"
    rf"|~~(?P<strike>{_TILDE})~~"
    rf"|\*(?P<italic>{_STRONG})\*"
    rf"|_(?<!\w_)(?P<italic2>{_UNDER})_(?!\w)"
)


def may_have_marks(text: str) -> bool:
    """False when `MARKS` cannot match: it needs a backslash, `~~`, a `_` that no word
    character precedes (snake_case names have none), or two `*`."""
    return not only_stars(text) or two_stars(text)


def two_stars(text: str) -> bool:
    """At least two `*`: two `find`s stop there, `count` reads all the text, more slowly."""
    first = text.find("*")
    return first != -1 and text.find("*", first + 1) != -1


def only_stars(text: str) -> bool:
    """Of `MARKS`'s patterns, only the `*` ones can match: no backslash, no `~~`, and every
    `_` follows a word character (the `_` patterns need one that does not). Tested with str
    methods, cheaper than a regex call (and `~`, found by `memchr`, before `~~`)."""
    if "\\" in text or ("~" in text and "~~" in text):
        return False
    at = text.find("_")
    while at != -1:
        if at == 0 or not _is_word(text[at - 1]):
            return False
        at = text.find("_", at + 1)
    return True


def star_marks(text: str, in_bold: bool) -> str:
    """`MARKS.sub` for text where only its `*` patterns can match (see `only_stars`), as a
    scan: at each `*`, in the regex's order, `***x***`, `**x**`, `*x*`, where x holds no `*`
    (so it ends at the next `*`) and neither starts nor ends with whitespace."""
    out: list[str] = []
    done = 0
    at = text.find("*")
    while at != -1:
        run = _star_run(text, at)
        if not run:
            at = text.find("*", at + 1)
            continue
        close = text.find("*", at + run)
        out.append(text[done:at])
        out.append(_starred(text[at + run : close], run, in_bold))
        done = close + run
        at = text.find("*", done)
    out.append(text[done:])
    return "".join(out)


def _star_run(text: str, at: int) -> int:
    """How many stars open the `***x***`, `**x**` or `*x*` at `at`, or 0 when none matches.
    Only the whole run of stars at `at` can open one: a shorter one leaves a `*` to start x."""
    run = 1
    while at + run < len(text) and text[at + run] == "*":
        run += 1
    if run > 3:
        return 0
    inner = at + run
    close = text.find("*", inner)
    if close == -1 or text[inner].isspace() or text[close - 1].isspace():
        return 0
    return run if text[close : close + run] == _STAR_RUNS[run] else 0


_STAR_RUNS: Final = ("", "*", "**", "***")


def _starred(inner: str, run: int, in_bold: bool) -> str:
    """What `mark` (or `bold_inside`) makes of `inner` between `run` stars."""
    if run == 2:
        return inner if in_bold else f"*{inner}*"
    if run == 3 and not in_bold:
        return f"*_{inner}_*"
    return f"_{inner}_"


def _is_word(char: str) -> bool:
    """What the regex `\\w` matches (Unicode): a letter or digit, or `_`."""
    return char == "_" or char.isalnum()


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
