"""Standard Markdown, as an assistant writes it, converted to Slack mrkdwn.

Line-oriented and linear: fenced code and tables are recognised across lines, everything else
line by line. All text is escaped; the only `<` in the output opens a link to an http(s) URL
that a Markdown link named, and the only line-leading `>` is a Markdown blockquote.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from blocks.emphasis import MARKS, bold_inside, mark, only_stars, star_marks
from blocks.text import FENCE, GRAVE, clean, escape_mrkdwn, neutralise_fences

_FENCE_OPEN = re.compile(r"([ \t]*)(`{3,}|~{3,})(.*)")
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+|$)")
_NUMBERED = re.compile(r"([ \t]*)(\d{1,9}[.)])[ \t]+(.*)")
_QUOTE = re.compile(r" {0,3}>(?:[ \t]*+>)*+")  # nested quotes flatten: mrkdwn has one level
_DELIMITER_CELL = re.compile(r":?-+:?")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_LINK = re.compile(
    r"(!?)\[([^\[\]\n]*)\]\(\s*((?:[^()\s]|\([^()\s]*\))++)(?:\s+\"[^\"\n]*\")?\s*\)"
)
_AUTOLINK = re.compile(r"<(https?://[^\s<>]+)>", re.IGNORECASE)
_URLISH = re.compile(
    r"[a-z][a-z0-9+.-]*://\S*"
    r"|(?:(?:[\w-]++\.)++(?:[^\W\d_]{2,}|xn--[\w-]+)|\d{1,3}(?:\.\d{1,3}){3})"
    r"(?::\d+)?(?:[/?#]\S*)?",
    re.IGNORECASE,
)
RULE = "──────────"
TABLE_WIDTH_MAX = 120  # wider tables are not padded into columns


def to_mrkdwn(markdown: str) -> str:
    """Convert Markdown to escaped Slack mrkdwn (see the module docstring)."""
    text = clean(markdown)
    lines = text.split("\n")
    # Asked once of the whole text, not of every line: can any line open a fence or a table?
    fences = "```" in text or "~~~" in text
    tables = "|" in text
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
    quote = _QUOTE.match(line) if line.startswith(_QUOTE_STARTS) else None
    if not quote:
        return _line(line)
    rest = line[quote.end() :]
    converted = _line(rest[1:] if rest.startswith(" ") else rest)
    return f"> {converted}" if converted else ">"


_QUOTE_STARTS = (">", " >", "  >", "   >")  # what `_QUOTE` can match: tested first, for speed
_BLOCK_STARTS = frozenset("#-*+_0123456789")  # what a heading, list item or rule begins with


def _line(line: str) -> str:
    stripped = line.strip()
    first = stripped[:1]
    if first not in _BLOCK_STARTS:  # plain prose (or blank): no block syntax to look for
        return _inline(line)
    # Each pattern is tried only when the line starts with a character it can start with.
    if first in "-*_" and _is_rule(stripped, first):
        return RULE
    heading = _HEADING.match(line) if first == "#" else None
    if heading:
        title = _inline(_heading_text(line[heading.end() :]), in_bold=True).strip()
        return f"*{title}*" if title else ""
    if first in "-*+":
        body = line.lstrip(" \t")
        # A list item (`[ \t]*[-*+][ \t]+(.*)`), told with str methods rather than a regex.
        if body[:1] in ("-", "*", "+") and body[1:2] in (" ", "\t"):
            return line[: len(line) - len(body)] + _task(body[2:].lstrip(" \t"))
    numbered = _NUMBERED.fullmatch(line) if first.isdigit() else None
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
    if item.startswith(("[ ] ", "[x] ", "[X] ")):
        return ("☐ " if item[1] == " " else "☑ ") + _inline(item[4:])
    return "• " + _inline(item)


def _inline(text: str, *, in_bold: bool = False) -> str:
    """One line of Markdown: code spans first, then links, then emphasis in what is left."""
    if "`" not in text:
        return _links(text, in_bold)  # no code span to look for
    out: list[str] = []
    position = 0
    for start, end, content in _code_spans(text):
        out.append(_links(text[position:start], in_bold))
        out.append(_code(content))
        position = end
    out.append(_links(text[position:], in_bold))
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
        out.append(_link(match.group(2).strip(), match.group(3), bool(match.group(1)), in_bold))
        position = match.end()
    out.append(_plain(text[position:], in_bold))
    return "".join(out)


def _link(label: str, url: str, image: bool, in_bold: bool) -> str:
    label = label or ("image" if image else "")
    if _is_web_url(url) and not _is_deceptive(label, url):
        target = escape_mrkdwn(url.replace("|", "%7C").replace("<", "%3C").replace(">", "%3E"))
        return f"<{target}|{_plain(label, in_bold)}>" if label else f"<{target}>"
    if not label or label == url:
        return escape_mrkdwn(url)
    return f"{_plain(label, in_bold)} ({escape_mrkdwn(url)})"


def _is_web_url(url: str) -> bool:
    if not url.lower().startswith(("http://", "https://")):
        return False
    try:
        return bool(urlsplit(url).hostname)
    except ValueError:
        return False


def _is_deceptive(label: str, url: str) -> bool:
    """A label that reads as a URL or domain other than the link's target: a different host,
    or, when the label names more than a host, a different path, query or fragment."""
    if not _URLISH.fullmatch(label):
        return False
    try:
        shown_host, shown_rest = _host_and_rest(label if "://" in label else f"http://{label}")
        target_host, target_rest = _host_and_rest(url)
    except ValueError:
        return True
    return shown_host != target_host or (bool(shown_rest) and shown_rest != target_rest)


def _host_and_rest(url: str) -> tuple[str, str]:
    """(host[:port] without `www.`, path?query#fragment without a trailing slash)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").removeprefix("www.")
    port = f":{parts.port}" if parts.port is not None else ""
    query = f"?{parts.query}" if parts.query else ""
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    return host + port, (parts.path + query + fragment).rstrip("/")


def _plain(text: str, in_bold: bool) -> str:
    if not text:
        return text
    text = _AUTOLINK.sub(r"\1", text) if "<" in text else text
    escaped = escape_mrkdwn(text).replace("`", GRAVE)
    if not only_stars(escaped):
        return MARKS.sub(bold_inside if in_bold else mark, escaped)
    if escaped.count("*") < 2:
        return escaped  # no emphasis marks and no escapes: nothing to convert
    return star_marks(escaped, in_bold)  # the usual `**bold**`, without the regex
