"""Untrusted text made safe and short for Slack: cleaning, escaping, truncation, code.

Every function is pure and linear in the length of its input. Lengths are Python `str`
lengths (code points), which is what Slack counts.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from bot.values import one_clean_line

ELLIPSIS: Final = "…"
GRAVE: Final = "ˋ"  # U+02CB MODIFIER LETTER GRAVE ACCENT: looks like a backtick, is not one
FENCE: Final = "```"

# Terminal escape sequences (CSI incl. 8-bit, OSC, DCS/SOS/PM/APC, other ESC sequences),
# C0/C1 controls except \t and \n, and bidi overrides/isolates (they make text read reversed).
_CONTROL: Final = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b\n]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
)
_NEEDS_CLEAN: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# ASCII text as bytes, translated: a tab or newline to a space, every other C0 control to DEL,
# every other byte to itself. Then DEL is there only if a character `_NEEDS_CLEAN` finds is.
_SPACED_ASCII: Final = bytes([32 if b in (9, 10) else 127 if b < 32 else b for b in range(256)])
_DEL: Final = 127
_BOUNDARY_WINDOW: Final = 100  # look back at most this far for a line or word boundary
_CLUSTER_BACKOFF: Final = 32  # give up keeping a pathological combining sequence whole past this


def clean(text: str) -> str:
    """Remove terminal escape sequences and control characters, keeping `\\n` and `\\t`.

    A carriage return acts as on a terminal: what follows it overwrites the line, so a
    progress bar keeps only its last state. Text with nothing to clean is returned as is.
    """
    if _nothing_to_clean(text):
        return text
    if "\r" in text:
        text = _apply_carriage_returns(text)
    return _CONTROL.sub("", text)


def _nothing_to_clean(text: str) -> bool:
    """`_NEEDS_CLEAN.search(text) is None`, asked without the regex (with the other text
    shortcuts: 5.0 % of the replay slice's instructions, benchmarks/PERFORMANCE.md)."""
    if text.isascii():  # only C0 controls and DEL to find
        return _DEL not in text.encode("ascii").translate(_SPACED_ASCII)
    if text.replace("\n", " ").replace("\t", " ").isprintable():  # lines of printable text
        return True  # (no control or bidi character: all are Cc or Cf)
    return _NEEDS_CLEAN.search(text) is None


def _apply_carriage_returns(text: str) -> str:
    lines = text.replace("\r\n", "\n").split("\n")
    for i, line in enumerate(lines):
        if "\r" in line:
            line = line.rstrip("\r")
            lines[i] = line[line.rfind("\r") + 1 :]
    return "\n".join(lines)


def escape_mrkdwn(text: str) -> str:
    """Escape exactly `&`, `<` and `>`, so no mention, link or special command survives."""
    if "&" not in text and "<" not in text and ">" not in text:
        return text  # nothing to escape
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def unescape_mrkdwn(escaped: str) -> str:
    """The inverse of `escape_mrkdwn`."""
    return escaped.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def safe_mrkdwn(text: str, limit: int, *, note: bool = False) -> str:
    """Untrusted text as mrkdwn: cleaned, escaped, and at most `limit` characters."""
    return truncate_escaped(escape_mrkdwn(clean(text)), limit, note=note)


def truncate(text: str, limit: int, marker: str = ELLIPSIS, *, note: bool = False) -> str:
    """At most `limit` characters, cut at a line or word boundary when one is close.

    With `note`, the marker says how much was cut: `…(+1,234 chars)`.
    """
    return _truncate(text, limit, marker, note, escaped=False, mrkdwn=False)


def truncate_escaped(
    escaped: str, limit: int, marker: str = ELLIPSIS, *, note: bool = False
) -> str:
    """`truncate` for escaped mrkdwn: never cuts inside `&amp;`/`&lt;`/`&gt;` or a `<link>`,
    closes a code block left open, and counts cut characters as the reader sees them."""
    return _truncate(escaped, limit, marker, note, escaped=True, mrkdwn=True)


def _truncate(
    text: str, limit: int, marker: str, note: bool, *, escaped: bool, mrkdwn: bool
) -> str:
    """`escaped`: never cut an entity, count cut characters as shown. `mrkdwn`: also never
    cut a `<link>`, and close a code block left open."""
    if len(text) <= limit:
        return text
    if limit <= 0:
        return ""
    widest = f"{marker}(+{len(text):,} chars)" if note else marker
    if len(widest) > limit:
        widest, note = (marker, False) if len(marker) <= limit else ("", False)
        marker = widest
    kept = _kept(text, limit - len(widest), escaped, mrkdwn)
    closer = ""
    if mrkdwn and kept.count(FENCE) % 2:
        kept = _kept(text, limit - len(widest) - 4, escaped, mrkdwn)
        closer = "\n" + FENCE if kept.count(FENCE) % 2 else ""
    if not note:
        return kept + marker + closer
    cut = text[len(kept) :]
    return f"{kept}{marker}(+{_shown_length(cut) if escaped else len(cut):,} chars){closer}"


def _kept(text: str, budget: int, escaped: bool, mrkdwn: bool) -> str:
    if budget <= 0:
        return ""
    end = _boundary(text, budget)
    end = _cluster_start(text, end)
    if escaped:
        end = _outside_entity(text, end)
    if mrkdwn:
        end = _outside_link(text, end)
    return text[:end].rstrip()


def _boundary(text: str, end: int) -> int:
    """A cut point at or before `end` (text is longer than `end`), at a newline or space when
    one lies within the look-back window."""
    low = end - min(_BOUNDARY_WINDOW, end // 5)
    for separator in ("\n", " "):
        found = text.rfind(separator, low, end + 1)
        if found > 0:
            return found
    return end


def _cluster_start(text: str, end: int) -> int:
    """Move `end` back so a surrogate pair, combining or emoji sequence, or flag stays whole."""
    start = end
    while end > 0 and start - end < _CLUSTER_BACKOFF and _joined(text[end - 1], text[end]):
        end -= 1
    if start - end >= _CLUSTER_BACKOFF:
        return start
    if end > 0 and _is_regional(text[end]) and _is_regional(text[end - 1]):
        run = end
        while run > 0 and _is_regional(text[run - 1]):
            run -= 1
        if (end - run) % 2:
            end -= 1
    return end


# Surrogates as chr(): a lone surrogate cannot be written in a literal of compiled code.
_HIGH_SURROGATES = (chr(0xD800), chr(0xDBFF))
_LOW_SURROGATES = (chr(0xDC00), chr(0xDFFF))


def _joined(before: str, after: str) -> bool:
    return (
        before == "\u200d"
        or _HIGH_SURROGATES[0] <= before <= _HIGH_SURROGATES[1]
        or after == "\u200d"
        or _LOW_SURROGATES[0] <= after <= _LOW_SURROGATES[1]
        or "\U0001f3fb" <= after <= "\U0001f3ff"
        or "\U000e0020" <= after <= "\U000e007f"
        or unicodedata.category(after) in ("Mn", "Mc", "Me")
    )


def _is_regional(char: str) -> bool:
    return "\U0001f1e6" <= char <= "\U0001f1ff"


def _outside_entity(text: str, end: int) -> int:
    """Move `end` back out of a half entity (`&am`)."""
    amp = text.rfind("&", max(0, end - 4), end)
    if amp != -1 and text.find(";", amp, end) == -1:
        return amp
    return end


def _outside_link(text: str, end: int) -> int:
    """Move `end` back out of a half `<url|label>` link."""
    opening = text.rfind("<", 0, end)
    if opening != -1 and text.find(">", opening, end) == -1:
        end = opening
    return end


def _shown_length(escaped: str) -> int:
    """How many characters escaped text shows once Slack decodes its entities."""
    entities = escaped.count("&amp;") * 4 + (escaped.count("&lt;") + escaped.count("&gt;")) * 3
    return len(escaped) - entities


def _plain_line(text: str, limit: int) -> bool:
    """Already one clean line within `limit`: printable (no newline, tab, control, bidi or
    other format character), single-spaced and trimmed. Then there is nothing to do."""
    return len(text) <= limit and one_clean_line(text)


def one_line(text: str, limit: int) -> str:
    """Cleaned, whitespace and newlines collapsed to single spaces, trimmed, at most `limit`
    characters. Safe on raw or escaped text: it never cuts inside an entity."""
    if _plain_line(text, limit):
        return text
    flat = _flat_start(text, limit, False)
    return _truncate(flat, limit, ELLIPSIS, False, escaped=True, mrkdwn=False)


def safe_line(text: str, limit: int) -> str:
    """Untrusted text as one escaped mrkdwn line of at most `limit` characters (escaped
    before it is cut, so the limit holds after escaping)."""
    if "&" not in text and "<" not in text and ">" not in text and _plain_line(text, limit):
        return text  # nothing to escape, clean, collapse or cut
    flat = _flat_start(text, limit, True)
    return _truncate(flat, limit, ELLIPSIS, False, escaped=True, mrkdwn=False)


def _flat_start(text: str, limit: int, escape: bool) -> str:
    """``text`` (escaped if ``escape``) flattened as ``one_line`` does before its cut, or only
    the start of it when that is longer than ``limit``: a cut at ``limit`` looks no further.
    The start ends before a newline, and escaping, cleaning and collapsing never act across
    a newline, so the flat start is the start of the flat whole. Nor within a line that has
    no carriage return and no escape sequence: there each is character by character, so a
    long line is cut too. (A long text costs about twice the limit, not all of it.)"""
    reach = limit + 1
    while len(text) > 2 * reach:
        end = text.find("\n", reach + reach // 4)  # collapsing takes a little off
        if end == -1 or end > 2 * reach:
            end = _cut_in_line(text, 2 * reach, end)
            if end == -1:
                break
        flat = _flat(escape_mrkdwn(text[:end]) if escape else text[:end])
        if len(flat) > limit:
            return flat
        reach *= 2  # mostly whitespace so far: look further
    return _flat(escape_mrkdwn(text) if escape else text)


def _cut_in_line(text: str, cut: int, line_end: int) -> int:
    """``cut`` when the line around it (ending at ``line_end``, -1 for the text's end) has
    no carriage return (it would drop what came before it) and no escape sequence (it would
    span the cut); else ``line_end``."""
    start = text.rfind("\n", 0, cut) + 1
    stop = len(text) if line_end == -1 else line_end
    for unsafe in _ACROSS_A_CUT:
        if text.find(unsafe, start, stop) != -1:
            return line_end
    return cut


_ACROSS_A_CUT: Final = ("\r", "\x1b", "\x9b")  # what cleaning acts on beyond one character


def _flat(text: str) -> str:
    """Cleaned, whitespace and newlines collapsed to single spaces, trimmed."""
    spaced = _spaced(text)
    if spaced is None:  # a control, bidi or other space character: the general way
        return " ".join(clean(text).split())
    # Nothing to clean, only spaces left: their runs collapsed in passes that each halve them
    # (past three passes, or wide text with long runs, one split; benchmarks/PERFORMANCE.md).
    passes = 0
    while "  " in spaced:
        if passes == 3 or (passes == 0 and "   " in spaced and not spaced.isascii()):
            return " ".join(spaced.split())
        spaced = spaced.replace("  ", " ")
        passes += 1
    return spaced.strip(" ")


def _spaced(text: str) -> str | None:
    """`text` with each tab and newline a space, or None when it holds another unprintable
    character. (ASCII text translated as bytes: benchmarks/PERFORMANCE.md.)"""
    if text.isascii():
        spaced = text.encode("ascii").translate(_SPACED_ASCII)
        return None if _DEL in spaced else spaced.decode("ascii")
    spaced_text = text.replace("\n", " ").replace("\t", " ")
    return spaced_text if spaced_text.isprintable() else None


def plain_text(text: str, limit: int, *, multiline: bool = False) -> str:
    """Text for a `plain_text` object (headers, buttons): cleaned, one line unless
    `multiline`, at most `limit` characters. Slack does not parse plain_text: no escaping."""
    if not multiline and one_clean_line(text):
        return truncate(text, limit)  # nothing to clean or collapse
    cleaned = clean(text)
    flat = cleaned.strip() if multiline else " ".join(cleaned.split())
    return truncate(flat, limit)


def neutralise_fences(text: str) -> str:
    """Replace every run of three backticks so the text cannot open or close a code block."""
    return text.replace(FENCE, GRAVE * 3)


def code_span(text: str, limit: int) -> str:
    """Inline code (`` `…` ``) of at most `limit` characters: escaped, one line, with inner
    backticks replaced by `ˋ` so the span cannot break. Empty when nothing fits."""
    if "`" not in text and one_clean_line(text):
        body = escape_mrkdwn(text)  # nothing to clean, replace or collapse
    else:
        body = escape_mrkdwn(" ".join(clean(text).replace("`", GRAVE).split()))
    if not body or limit < 3:
        return ""
    return "`" + _truncate(body, limit - 2, ELLIPSIS, False, escaped=True, mrkdwn=False) + "`"


def code_block(text: str, limit: int, *, max_lines: int | None = None) -> str:
    """A ``` block of at most `limit` characters: escaped, inner fences neutralised,
    keeping the start; with `max_lines`, long output keeps its first and last lines."""
    body = escape_mrkdwn(neutralise_fences(clean(text))).strip("\n").rstrip()
    budget = limit - 2 * (len(FENCE) + 1)
    if not body or budget < 1:
        return ""
    if max_lines is not None:
        body = head_tail(body, max_lines, budget)
    body = _truncate(body, budget, ELLIPSIS, True, escaped=True, mrkdwn=False)
    return f"{FENCE}\n{body}\n{FENCE}"


def head_tail(text: str, max_lines: int, max_chars: int) -> str:
    """At most `max_lines` lines and `max_chars` characters, keeping the first and the last
    lines around a `… N lines omitted …` line. Never cuts inside an entity."""
    lines = text.split("\n")
    if len(lines) <= max_lines and len(text) <= max_chars:
        return text
    widest = _omitted(len(lines))
    side = (max_chars - len(widest) - 2) // 2
    if max_lines < 2 or len(lines) <= 2 or side < 1:
        return _truncate(text, max_chars, ELLIPSIS, True, escaped=True, mrkdwn=False)
    head_count = max_lines // 2
    head = _fitting_lines(lines[:head_count], side)
    tail_lines = lines[len(head) :][-(max_lines - 1 - head_count) :] if max_lines > 2 else []
    tail = _fitting_lines(tail_lines[::-1], side)[::-1]
    omitted = len(lines) - len(head) - len(tail)
    middle = [_omitted(omitted)] if omitted else []
    joined = "\n".join(head + middle + tail)
    return _truncate(joined, max_chars, ELLIPSIS, True, escaped=True, mrkdwn=False)


def _fitting_lines(lines: list[str], budget: int) -> list[str]:
    """The leading lines that fit in `budget` characters; the first is cut if it alone is long."""
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > budget:
            if not kept:
                kept.append(_truncate(line, budget, ELLIPSIS, False, escaped=True, mrkdwn=False))
            break
        kept.append(line)
        used += len(line) + 1
    return kept


def _omitted(count: int) -> str:
    return f"… {count:,} {'line' if count == 1 else 'lines'} omitted …"
