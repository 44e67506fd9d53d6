"""Standard Markdown, as an assistant writes it, converted to Slack mrkdwn.

Line-oriented and linear: fenced code and tables are recognised across lines, everything else
line by line. All text is escaped; the only `<` in the output opens a link to an http(s) URL
that a Markdown link named, and the only line-leading `>` is a Markdown blockquote.
"""

from __future__ import annotations

import re
from typing import Final

from blocks.emphasis import MARKS, bold_inside, mark, only_stars, star_marks, two_stars
from blocks.links import is_deceptive, is_web_url
from blocks.text import FENCE, GRAVE, clean, escape_mrkdwn, neutralise_fences

_FENCE_OPEN: Final = re.compile(r"([ \t]*)(`{3,}|~{3,})(.*)")
_HEADING: Final = re.compile(r" {0,3}(#{1,6})(?:[ \t]+|$)")
_QUOTE: Final = re.compile(r" {0,3}>(?:[ \t]*+>)*+")  # nested quotes flatten: mrkdwn has one level
_DELIMITER_CELL: Final = re.compile(r":?-+:?")
_CELL_SPLIT: Final = re.compile(r"(?<!\\)\|")
_LINK: Final = re.compile(
    r"(!?)\[([^\[\]\n]*)\]\(\s*((?:[^()\s]|\([^()\s]*\))++)(?:\s+\"[^\"\n]*\")?\s*\)"
)
_AUTOLINK: Final = re.compile(r"<(https?://[^\s<>]+)>", re.IGNORECASE)
RULE: Final = "──────────"
TABLE_WIDTH_MAX: Final = 120  # wider tables are not padded into columns


def to_mrkdwn(markdown: str) -> str:
    """Convert Markdown to escaped Slack mrkdwn (see the module docstring)."""
    text = clean(markdown)
    syntax = _syntax(text)
    if not syntax & _FENCES and "\n" not in text:  # one line, no fence: no block spans lines
        return _block_line(text, syntax) if text else text
    return _converted(text, syntax)


# What syntax a whole text holds: bits of an int (no object to allocate), asked once of the
# text, not of every line. No part of a line holds a character its text lacks (escaping and
# `ˋ` add no `*`, `\\`, `~` or `_`), nor a `_` with no word character before it that has one
# there in the text (a part starts at the text's start or after a non-word character).
_FENCES: Final = 1
_TABLES: Final = 2
_QUOTES: Final = 4
_CODE: Final = 8  # code spans, and backticks to replace by `ˋ`
_LINKS: Final = 16  # links, and task list boxes
_AUTOLINKS: Final = 32
_ESCAPES: Final = 64
_OTHER_MARKS: Final = 128  # `MARKS` beyond its `*` patterns may match
_STARS: Final = 256
_INLINE: Final = _CODE | _LINKS | _ESCAPES | _OTHER_MARKS | _STARS  # what a line converts


def _syntax(text: str) -> int:
    """The bits of the syntax `text` holds (one character, found by `memchr`, asked first)."""
    code = "`" in text
    fences = (code and "```" in text) or ("~" in text and "~~~" in text)
    quotes = ">" in text
    autolinks = "<" in text
    return (
        (_FENCES if fences else 0)
        | (_TABLES if "|" in text else 0)
        | (_QUOTES if quotes else 0)
        | (_CODE if code else 0)
        | (_LINKS if "[" in text else 0)
        | (_AUTOLINKS if autolinks else 0)
        | (_ESCAPES if quotes or autolinks or "&" in text else 0)
        | (0 if only_stars(text) else _OTHER_MARKS)
        | (_STARS if two_stars(text) else 0)
    )


def _converted(text: str, syntax: int) -> str:
    lines = text.split("\n")
    fences, tables = syntax & _FENCES, syntax & _TABLES
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        may_fence = fences and ("```" in line or "~~~" in line)
        fence = _FENCE_OPEN.fullmatch(line) if may_fence else None
        if fence and not (fence.group(2)[0] == "`" and "`" in fence.group(3)):
            i = _code_block(lines, i, fence, out)
        elif tables and "|" in line and i + 1 < len(lines) and _is_delimiter_row(lines[i + 1]):
            i = _table(lines, i, out)
        else:
            out.append(_block_line(line, syntax) if line else line)  # a blank line stays blank
            i += 1
    return "\n".join(out)


def _code_block(lines: list[str], start: int, fence: re.Match[str], out: list[str]) -> int:
    """Emit the fenced block opening at `start`; return the index after its closing fence."""
    indent, marker = fence.group(1), fence.group(2)
    body: list[str] = []
    i = start + 1
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped.startswith(marker) and stripped == marker[0] * len(stripped):
            i += 1
            break
        line = lines[i]
        body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
        i += 1
    if any(line.strip() for line in body):
        out.append(FENCE)
        out.extend(escape_mrkdwn(neutralise_fences(line)) for line in body)
        out.append(FENCE)
    return i


def _is_delimiter_row(line: str) -> bool:
    stripped = line.strip()
    if "|" not in stripped or "-" not in stripped:
        return False
    cells = stripped.strip("|").split("|")
    return all(_DELIMITER_CELL.fullmatch(cell.strip()) for cell in cells)


def _table(lines: list[str], start: int, out: list[str]) -> int:
    """Emit the table at `start` as a ``` block, aligned when narrow; return the index after it."""
    end = start + 2
    while end < len(lines) and "|" in lines[end] and lines[end].strip():
        end += 1
    rows = [_cells(line) for line in [lines[start], *lines[start + 2 : end]]]
    widths = [0] * max(len(row) for row in rows)
    for row in rows:
        for column, cell in enumerate(row):
            widths[column] = max(widths[column], len(cell))
    if sum(widths) + 3 * len(widths) > TABLE_WIDTH_MAX:  # padding would only multiply its size
        rendered = [" | ".join(row) for row in rows]
        rendered.insert(1, "---")
    else:
        rendered = [" | ".join(map(str.ljust, row, widths)) for row in rows]
        rendered.insert(1, "-+-".join("-" * width for width in widths))
    out.append(FENCE)
    out.extend(escape_mrkdwn(neutralise_fences(row.rstrip())) for row in rendered)
    out.append(FENCE)
    return end


def _cells(line: str) -> list[str]:
    stripped = line.strip()
    if stripped.startswith("|"):
        stripped = stripped[1:]
    if stripped.endswith("|") and not stripped.endswith("\\|"):
        stripped = stripped[:-1]
    return [cell.strip().replace("\\|", "|") for cell in _CELL_SPLIT.split(stripped)]


def _block_line(line: str, syntax: int) -> str:
    quote = _QUOTE.match(line) if syntax & _QUOTES and line.startswith(_QUOTE_STARTS) else None
    if not quote:
        return _line(line, syntax)
    rest = line[quote.end() :]
    converted = _line(rest[1:] if rest.startswith(" ") else rest, syntax)
    return f"> {converted}" if converted else ">"


# What `_QUOTE` can match, tested first for speed (of any length: one object, not a struct)
_QUOTE_STARTS: Final[tuple[str, ...]] = (">", " >", "  >", "   >")
_BLOCK_STARTS: Final = frozenset("#-*+_0123456789")  # what a heading, list item or rule begins
_TASK_BOXES: Final[tuple[str, ...]] = ("[ ] ", "[x] ", "[X] ")


def _line(line: str, syntax: int) -> str:
    stripped = line.strip()
    first = stripped[:1]
    if first not in _BLOCK_STARTS:  # plain prose (or blank): no block syntax to look for
        return _inline(line, syntax)
    # Each kind is looked for only when the line starts with a character it can start with.
    if first in "-*_" and _is_rule(stripped, first):
        return RULE
    heading = _HEADING.match(line) if first == "#" else None
    if heading:
        title = _inline(_heading_text(line[heading.end() :]), syntax, True).strip()
        return f"*{title}*" if title else ""
    if first in "-*+":
        body = line.lstrip(" \t")
        # A list item (`[ \t]*[-*+][ \t]+(.*)`), told with str methods rather than a regex.
        if body[:1] in ("-", "*", "+") and body[1:2] in (" ", "\t"):
            return line[: len(line) - len(body)] + _task(body[2:].lstrip(" \t"), syntax)
    numbered = _numbered(line, syntax) if first.isdigit() else None
    return _inline(line, syntax) if numbered is None else numbered


def _numbered(line: str, syntax: int) -> str | None:
    r"""The numbered list item `line` converted (groups 1 and 2 of a full match of
    ``([ \t]*\d{1,9}[.)])[ \t]+(.*)``, a space, group 3 converted), or None when there is
    none. Told with str methods rather than a regex (`\d` is `str.isdecimal`)."""
    body = line.lstrip(" \t")
    digits = 0
    while digits < 10 and digits < len(body) and body[digits].isdecimal():
        digits += 1
    if not 1 <= digits <= 9 or body[digits : digits + 1] not in (".", ")"):
        return None
    rest = body[digits + 1 :]
    text = rest.lstrip(" \t")
    if len(text) == len(rest):  # no space after the number
        return None
    return f"{line[: len(line) - len(rest)]} {_inline(text, syntax)}"


def _is_rule(stripped: str, mark: str) -> bool:
    """Three or more of ``mark`` (``-``, ``*`` or ``_``) and nothing else but spaces."""
    if stripped[-1] != mark:  # a list item's text ends it (a rule ends with a mark: stripped)
        return False
    marks = stripped.count(mark)
    return marks >= 3 and marks + stripped.count(" ") == len(stripped)


def _heading_text(rest: str) -> str:
    rest = rest.rstrip()
    without_closing = rest.rstrip("#")
    if not without_closing or without_closing[-1] in " \t":
        return without_closing.rstrip()
    return rest


def _task(item: str, syntax: int) -> str:
    if syntax & _LINKS and item.startswith(_TASK_BOXES):
        return ("☐ " if item[1] == " " else "☑ ") + _inline(item[4:], syntax)
    return "• " + _inline(item, syntax)


def _inline(text: str, syntax: int, in_bold: bool = False) -> str:
    """One line of Markdown: code spans first, then links, then emphasis in what is left."""
    if not syntax & _INLINE:
        return text  # nothing to convert in the whole text, so none in this line
    if not syntax & _CODE or "`" not in text:
        return _links(text, syntax, in_bold)  # no code span to look for
    out: list[str] = []
    position = 0
    for start, end, content in _code_spans(text):
        out.append(_links(text[position:start], syntax, in_bold))
        out.append(_code(content, syntax))
        position = end
    out.append(_links(text[position:], syntax, in_bold))
    return "".join(out)


def _code_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, content) of each code span: a backtick run closed by the next run of the
    same length. Linear: each run learns the index of the next run of its length once."""
    if "``" not in text:
        return _single_backtick_spans(text)
    runs = _backtick_runs(text)
    next_same = [-1] * len(runs)
    last_of_length: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        start, end = runs[index]
        next_same[index] = last_of_length.get(end - start, -1)
        last_of_length[end - start] = index
    spans: list[tuple[int, int, str]] = []
    index = 0
    while index < len(runs):
        closing = next_same[index]
        if closing == -1:
            index += 1
            continue
        spans.append((runs[index][0], runs[closing][1], text[runs[index][1] : runs[closing][0]]))
        index = closing + 1
    return spans


def _single_backtick_spans(text: str) -> list[tuple[int, int, str]]:
    """`_code_spans` when every run is one backtick (the usual case): each closes at the
    next one, found with `str.find`."""
    spans: list[tuple[int, int, str]] = []
    start = text.find("`")
    while start != -1:
        end = text.find("`", start + 1)
        if end == -1:
            break
        spans.append((start, end + 1, text[start + 1 : end]))
        start = text.find("`", end + 1)
    return spans


def _backtick_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each maximal run of backticks."""
    runs: list[tuple[int, int]] = []
    start = text.find("`")
    while start != -1:
        end = start + 1
        while end < len(text) and text[end] == "`":
            end += 1
        runs.append((start, end))
        start = text.find("`", end)
    return runs


def _code(content: str, syntax: int) -> str:
    escaped = escape_mrkdwn(content) if syntax & _ESCAPES else content
    if not content.strip():
        return escaped
    if content.startswith(" ") and content.endswith(" ") and len(content) > 2:
        escaped = escaped[1:-1]  # (escaping keeps the spaces at both ends)
    return f"`{escaped.replace('`', GRAVE)}`"


def _links(text: str, syntax: int, in_bold: bool) -> str:
    if not syntax & _LINKS or "[" not in text:
        return _plain(text, syntax, in_bold)
    out: list[str] = []
    position = 0
    for match in _LINK.finditer(text):
        out.append(_plain(text[position : match.start()], syntax, in_bold))
        label, url, image = match.group(2).strip(), match.group(3), bool(match.group(1))
        out.append(_link(label, url, image, syntax, in_bold))
        position = match.end()
    out.append(_plain(text[position:], syntax, in_bold))
    return "".join(out)


def _link(label: str, url: str, image: bool, syntax: int, in_bold: bool) -> str:
    label = label or ("image" if image else "")
    if is_web_url(url) and not is_deceptive(label, url):
        target = escape_mrkdwn(url.replace("|", "%7C").replace("<", "%3C").replace(">", "%3E"))
        return f"<{target}|{_plain(label, syntax, in_bold)}>" if label else f"<{target}>"
    if not label or label == url:
        return escape_mrkdwn(url)
    return f"{_plain(label, syntax, in_bold)} ({escape_mrkdwn(url)})"


def _plain(text: str, syntax: int, in_bold: bool) -> str:
    """Text outside code spans and links: escaped, its emphasis converted. Each step is taken
    only when the whole text holds what it acts on (see `_syntax`)."""
    if not text:
        return text
    if syntax & _AUTOLINKS and "<" in text:
        text = _AUTOLINK.sub(r"\1", text)
    escaped = escape_mrkdwn(text) if syntax & _ESCAPES else text
    if syntax & _CODE:
        escaped = escaped.replace("`", GRAVE)
    if syntax & _OTHER_MARKS and not only_stars(escaped):
        return MARKS.sub(bold_inside if in_bold else mark, escaped)
    if not syntax & _STARS or not two_stars(escaped):
        return escaped  # no emphasis marks and no escapes: nothing to convert
    return star_marks(escaped, in_bold)  # the usual `**bold**`, without the regex
