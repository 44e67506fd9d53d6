"""Standard Markdown, as an assistant writes it, converted to Slack mrkdwn.

Line-oriented and linear: fenced code and tables are recognised across lines, everything else
line by line. All text is escaped; the only `<` in the output opens a link to an http(s) URL
that a Markdown link named, and the only line-leading `>` is a Markdown blockquote.
"""

from __future__ import annotations

import re
from typing import Final

from blocks.emphasis import MARKS, bold_inside, mark
from blocks.links import is_deceptive, is_web_url
from blocks.text import FENCE, GRAVE, clean, escape_mrkdwn, neutralise_fences

_FENCE_OPEN: Final = re.compile(r"([ \t]*)(`{3,}|~{3,})(.*)")
_HEADING: Final = re.compile(r" {0,3}(#{1,6})(?:[ \t]+|$)")
_BULLET: Final = re.compile(r"([ \t]*)[-*+][ \t]+(.*)")
_NUMBERED: Final = re.compile(r"([ \t]*)([0-9]\d{0,8}[.)])[ \t]+(.*)")  # an ASCII digit first
_QUOTE: Final = re.compile(r" {0,3}>(?:[ \t]*+>)*+")  # nested quotes flatten: mrkdwn has one level
_DELIMITER_CELL: Final = re.compile(r":?-+:?")
_CELL_SPLIT: Final = re.compile(r"(?<!\\)\|")
_LINK: Final = re.compile(
    r"(!?)\[([^\[\]\n]*)\]\(\s*((?:[^()\s]|\([^()\s]*\))++)(?:\s+\"[^\"\n]*\")?\s*\)"
)
_AUTOLINK: Final = re.compile(r"<(https?://[^\s<>]+)>", re.IGNORECASE)
_BACKTICKS: Final = re.compile(r"`+")
# Stands for a code span while a line's links and emphasis are read: a lone surrogate, which
# no text decoded from JSON holds (``bot.lenient`` replaces those of lenient lines). Built from
# its code point: a lone surrogate in a literal would not survive compiling (mypyc).
_SPAN: Final = chr(0xD800)
_TASK_BOXES: Final = ("[ ] ", "[x] ", "[X] ")
_BLOCK_STARTS: Final = frozenset("#-*+_0123456789")  # what a heading, list item or rule begins
RULE: Final = "──────────"
TABLE_WIDTH_MAX: Final = 120  # wider tables are not padded into columns


def to_mrkdwn(markdown: str) -> str:
    """Convert Markdown to escaped Slack mrkdwn (see the module docstring)."""
    text = clean(markdown)
    fences = "```" in text or "~~~" in text  # else no line is asked for a fence or a table
    tables = "|" in text
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE_OPEN.fullmatch(line) if fences and ("```" in line or "~~~" in line) else None
        if fence and not (fence.group(2)[0] == "`" and "`" in fence.group(3)):
            i = _code_block(lines, i, fence, out)
        elif fences and ">" in line and (quoted := _quoted_fence(line)):
            i = _quoted_code_block(lines, i, quoted.group(2), out)
        elif tables and "|" in line and i + 1 < len(lines) and _is_delimiter_row(lines[i + 1]):
            i = _table(lines, i, out)
        else:
            out.append(_block_line(line) if line else line)  # a blank line stays blank
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


def _unquote(line: str) -> str | None:
    """A quoted line without its quote mark (and the one space after it); None if unquoted."""
    quote = _QUOTE.match(line)
    if not quote:
        return None
    rest = line[quote.end() :]
    return rest[1:] if rest.startswith(" ") else rest


def _quoted_fence(line: str) -> re.Match[str] | None:
    """The fence a quoted line opens (``> ```elixir``)."""
    rest = _unquote(line)
    fence = _FENCE_OPEN.fullmatch(rest) if rest is not None else None
    if fence and not (fence.group(2)[0] == "`" and "`" in fence.group(3)):
        return fence
    return None


def _quoted_code_block(lines: list[str], start: int, close: str, out: list[str]) -> int:
    """A code block inside a quote, opened at ``start`` by the fence ``close`` also closes:
    each of its lines quoted inline code (mrkdwn has no code block in a quote), until that
    fence or the quote's end; the index after it."""
    i = start + 1
    while i < len(lines):
        line = _unquote(lines[i])
        if line is None:  # the quote ended, and the block with it
            break
        i += 1
        stripped = line.strip()
        if stripped.startswith(close) and stripped == close[0] * len(stripped):
            break
        out.append(f"> {_code(line.rstrip())}" if stripped else ">")
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


def _block_line(line: str) -> str:
    rest = _unquote(line) if ">" in line else None
    if rest is None:
        return _line(line)
    converted = _line(rest)
    return f"> {converted}" if converted else ">"


def _line(line: str) -> str:
    stripped = line.strip()
    first = stripped[:1]
    if first not in _BLOCK_STARTS:  # prose: no block syntax starts with its first character
        return _inline(line)
    if first in ("-", "*", "_") and _is_rule(stripped, first):
        return RULE
    heading = _HEADING.match(line) if first == "#" else None
    if heading:
        title = _inline(_heading_text(line[heading.end() :]), in_bold=True).strip()
        return f"*{title}*" if title else ""
    bullet = _BULLET.fullmatch(line) if first in ("-", "*", "+") else None
    if bullet:
        return bullet.group(1) + _task(bullet.group(2))
    numbered = _NUMBERED.fullmatch(line) if "0" <= first <= "9" else None
    if numbered:
        return f"{numbered.group(1)}{numbered.group(2)} {_inline(numbered.group(3))}"
    return _inline(line)


def _is_rule(stripped: str, mark: str) -> bool:
    """Three or more of ``mark`` (``-``, ``*`` or ``_``) and nothing else but spaces."""
    marks = stripped.count(mark)
    return marks >= 3 and marks + stripped.count(" ") == len(stripped)


def _heading_text(rest: str) -> str:
    rest = rest.rstrip()
    without_closing = rest.rstrip("#")
    if not without_closing or without_closing[-1] in " \t":
        return without_closing.rstrip()
    return rest


def _task(item: str) -> str:
    if item.startswith(_TASK_BOXES):
        return ("☐ " if item[1] == " " else "☑ ") + _inline(item[4:])
    return "• " + _inline(item)


def _inline(text: str, *, in_bold: bool = False) -> str:
    """One line of Markdown: code spans first, each set aside (one mark stands for it), then
    links and emphasis in the whole line, so that a mark may enclose a span (``**`x` y**``)."""
    if "`" not in text:
        return _links(text, in_bold)
    if _SPAN in text:  # never in text read from JSON (see ``_SPAN``); kept out all the same
        text = text.replace(_SPAN, "\ufffd")
    pieces: list[str] = []
    codes: list[str] = []
    position = 0
    for start, end, content in _code_spans(text):
        pieces.append(text[position:start])
        codes.append(_code(content))
        position = end
    pieces.append(text[position:])
    parts = _links(_SPAN.join(pieces), in_bold).split(_SPAN)
    return parts[0] + "".join(code + part for code, part in zip(codes, parts[1:], strict=False))


def _code_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, content) of each code span: a backtick run closed by the next run of the
    same length. Linear: each run learns the index of the next run of its length once."""
    if "``" not in text:
        return _single_backtick_spans(text)
    runs = [(run.start(), run.end()) for run in _BACKTICKS.finditer(text)]
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
    """`_code_spans` when every run is one backtick: each closes at the next. (Found with
    `str.find`: `_code_spans` was 4.7 % of the compiled replay slice; benchmarks/PERFORMANCE.md.)"""
    spans: list[tuple[int, int, str]] = []
    start = text.find("`")
    while start != -1:
        end = text.find("`", start + 1)
        if end == -1:
            break
        spans.append((start, end + 1, text[start + 1 : end]))
        start = text.find("`", end + 1)
    return spans


def _code(content: str) -> str:
    if not content.strip():
        return escape_mrkdwn(content)
    if content.startswith(" ") and content.endswith(" ") and len(content) > 2:
        content = content[1:-1]
    return "`" + escape_mrkdwn(content.replace("`", GRAVE)) + "`"


def _links(text: str, in_bold: bool) -> str:
    if "[" not in text:
        return _plain(text, in_bold)
    out: list[str] = []
    position = 0
    for match in _LINK.finditer(text):
        out.append(_plain(text[position : match.start()], in_bold))
        label, url, image = match.group(2).strip(), match.group(3), bool(match.group(1))
        out.append(_link(label, url, image, in_bold))
        position = match.end()
    out.append(_plain(text[position:], in_bold))
    return "".join(out)


def _link(label: str, url: str, image: bool, in_bold: bool) -> str:
    label = label or ("image" if image else "")
    if is_web_url(url) and not is_deceptive(label, url):
        target = escape_mrkdwn(url.replace("|", "%7C").replace("<", "%3C").replace(">", "%3E"))
        return f"<{target}|{_plain(label, in_bold)}>" if label else f"<{target}>"
    if not label or label == url:
        return escape_mrkdwn(url)
    return f"{_plain(label, in_bold)} ({escape_mrkdwn(url)})"


def _plain(text: str, in_bold: bool) -> str:
    """Text outside code spans and links: autolinks unwrapped, escaped, emphasis converted."""
    if "<" in text:
        text = _AUTOLINK.sub(r"\1", text)
    escaped = escape_mrkdwn(text).replace("`", GRAVE)
    if "*" not in escaped and "_" not in escaped and "~" not in escaped and "\\" not in escaped:
        return escaped  # no character a mark needs
    return MARKS.sub(bold_inside if in_bold else mark, escaped)
