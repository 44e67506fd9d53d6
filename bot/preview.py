"""``slacktail preview``: the threads a log becomes, as they would finally look.

Reads logs to their end (an edge: file I/O) — a file, the session files of a folder or a glob
(as ``follow`` finds them), standard input (``-``), a pipe or a device, in bounded memory — runs
them through formats → session → blocks, and renders either a JSON document or readable
terminal text. Secrets are redacted as when posting: each record before its session sees it,
and each message once more as it is shown.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from blocks.message import Message
from blocks.thread import changed_messages, thread_messages
from bot.errors import InputError
from bot.formats import FAMILIES
from bot.formats.reader import SourceReader
from bot.progress import ProgressBar
from bot.redaction import Redactor, redact_record, redact_value
from bot.session import Session, SessionBook, SessionSettings, Significance, ToolCallState
from bot.sources.files import lines_of, log_lines, log_size
from bot.sources.lines import DEFAULT_MAX_LINE_BYTES, Line, LineOverLimit, LongLine
from bot.sources.patterns import (
    SESSION_FILES,
    FilePatterns,
    is_folder_target,
    left_out,
    split_target,
)

STDIN: Path = Path("-")
CHUNK_BYTES = 1024 * 1024  # the --json document is written in pieces of about this size
TOOLS_AT_ONCE = 1000  # tool calls of a session made JSON together (a long session's are never all)


@dataclass
class Preview:
    book: SessionBook
    families: dict[str, str] = field(default_factory=dict)  # session id -> family
    records: int = 0
    unparsed: int = 0
    redactor: Redactor = field(default_factory=Redactor)
    not_understood: list[str] = field(default_factory=list)  # a line for each such source

    @property
    def read(self) -> int:
        """Records made of lines that were understood."""
        return self.records - self.unparsed

    def sessions(self) -> list[Session]:
        return list(self.book.sessions.values())


def preview_paths(targets: Sequence[str], patterns: Sequence[str] = ()) -> list[Path]:
    """The files ``targets`` name, as ``follow`` finds them: a file as it is, ``-`` for
    standard input (``STDIN``), a folder's session files (or ``patterns``'), a glob's matches."""
    paths: list[Path] = []
    for target in targets:
        if target == "-" or not is_folder_target(target):
            paths.append(Path(target))
            continue
        root, globs = split_target(target, patterns or SESSION_FILES)
        found = [path for path in FilePatterns(globs).find(root) if not left_out(path)]
        if not found:
            looked_for = ", ".join(str(root / glob) for glob in globs)
            raise InputError(f"{target}: no log files (looked for {looked_for})")
        paths.extend(found)
    return paths


def build_preview(
    paths: Iterable[Path],
    family: str | None = None,
    settings: SessionSettings | None = None,
    redactor: Redactor | None = None,
    stdin: BinaryIO | None = None,
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    tell: Callable[[str], None] | None = None,
) -> Preview:
    """Every session of the given files (``STDIN``: what ``stdin`` holds, by default standard
    input's), through to its final state. ``tell`` says what reading waits for (a pipe's
    writer) and lines over ``max_line_bytes`` (default: on stderr)."""
    preview = Preview(SessionBook(settings), redactor=redactor or Redactor())
    say = tell or _say
    for path in paths:
        name = "stdin" if path == STDIN else str(path)
        reader = SourceReader(name, family=family)
        progress = ProgressBar(0 if path == STDIN else log_size(path), name)
        for item in _lines(path, stdin, say, max_line_bytes):
            if isinstance(item, Line):
                _apply(preview, reader, reader.feed(item.data, item.number))
                if item.number % 1000 == 0:
                    progress.update(item.offset)
            elif isinstance(item, LongLine):  # counted as the follower counts it
                preview.records += 1
                preview.unparsed += 1
            else:
                say(f"warning: {item.text(name)}")
        _apply(preview, reader, reader.finish())
        progress.close()
        preview.records += reader.stats.records
        preview.unparsed += reader.stats.unparsed
        said = reader.not_understood()
        if said is not None:
            preview.not_understood.append(said)
    preview.book.close(expected_results(preview.families))
    return preview


def _lines(
    path: Path, stdin: BinaryIO | None, tell: Callable[[str], None], max_line_bytes: int
) -> Iterator[Line | LongLine | LineOverLimit]:
    if path == STDIN:
        return lines_of((stdin or sys.stdin.buffer).read, max_line_bytes)
    return log_lines(path, tell, max_line_bytes)


def _say(text: str) -> None:
    print(f"slacktail: {text}", file=sys.stderr)


def expected_results(families: dict[str, str]) -> dict[str, bool]:
    """Per session id, whether its family reports a session's end (with a result record);
    a session of any other family has an unknown outcome when its log simply stops."""
    return {
        session_id: family in FAMILIES and FAMILIES[family].reports_result
        for session_id, family in families.items()
    }


def _apply(preview: Preview, reader: SourceReader, records: list[Any]) -> None:
    book = preview.book
    for record in records:
        session = book.apply(redact_record(record, preview.redactor))
        if session is not None and session.session_id not in preview.families:
            preview.families[session.session_id] = reader.family or ""


def preview_document(preview: Preview) -> dict[str, Any]:
    """The ``--json`` document."""
    return {
        "sessions": [_session_document(preview, session) for session in preview.sessions()],
        "stats": {
            "records": preview.records,
            "unparsed": preview.unparsed,
            "hidden": preview.book.hidden,
        },
    }


def write_document(
    preview: Preview, write: Callable[[bytes], object], chunk_bytes: int = CHUNK_BYTES
) -> None:
    """The ``--json`` document, byte for byte as ``orjson.dumps(preview_document(preview),
    option=OPT_INDENT_2)`` writes it, built a message at a time (a long thread is never held
    whole, as messages nor as JSON; nor its list of tool calls) and given to ``write`` in
    pieces of about ``chunk_bytes``: the 100k-line benchmark's 34 MB in 33 writes, not 12,441
    (one a message)."""
    pending: list[bytes] = []
    size = 0
    for piece in _document_pieces(preview):
        pending.append(piece)
        size += len(piece)
        if size >= chunk_bytes:
            write(b"".join(pending))
            pending.clear()
            size = 0
    write(b"".join(pending))


def _document_pieces(preview: Preview) -> Iterator[bytes]:
    yield b'{\n  "sessions": ['
    for number, session in enumerate(preview.sessions()):
        head = _indented(_session_info(session), 4)[:-6]  # without its closing "\n    }"
        yield (b"\n    " if number == 0 else b",\n    ") + head + b',\n      "tools": ['
        calls = list(session.calls.values())
        for start in range(0, len(calls), TOOLS_AT_ONCE):  # never all of them at once
            tools = [_tool(call) for call in calls[start : start + TOOLS_AT_ONCE]]
            yield (b"," if start else b"") + _indented(tools, 6)[1:-8]  # without its brackets
        yield (b"\n      ]" if calls else b"]") + b',\n      "messages": ['
        for index, message in enumerate(_shown_one_at_a_time(preview, session)):
            shown = {"key": message.key, "text": message.text, "blocks": list(message.blocks)}
            yield (b"\n        " if index == 0 else b",\n        ") + _indented(shown, 8)
        yield b"\n      ]\n    }"
    stats = _indented(preview_document_stats(preview), 2)
    yield (b"\n  ]" if preview.book.sessions else b"]") + b',\n  "stats": ' + stats + b"\n}\n"


def _indented(value: Any, depth: int) -> bytes:
    """``value`` as indented JSON, nested ``depth`` spaces deep (a JSON text has no raw line
    break but those of its indentation)."""
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).replace(b"\n", b"\n" + b" " * depth)


def _session_head(session: Session) -> dict[str, Any]:
    return {**_session_info(session), "tools": [_tool(call) for call in session.calls.values()]}


def _session_info(session: Session) -> dict[str, Any]:
    return {
        "session_id": session.session_id,
        "agent": session.info.agent,
        "status": session.status.value,
    }


def _tool(call: ToolCallState) -> dict[str, Any]:
    return {"id": call.id, "name": call.name, "status": call.status.value, "parent": call.parent}


def _shown_one_at_a_time(preview: Preview, session: Session) -> Iterator[Message]:
    """``shown_messages``, built and redacted one at a time."""
    for message in changed_messages(session, None):
        yield redact_value(message, preview.redactor)


def shown_messages(preview: Preview, session: Session) -> list[Message]:
    """The session's messages as they would be sent: redacted once more."""
    return [redact_value(message, preview.redactor) for message in thread_messages(session)]


def _session_document(preview: Preview, session: Session) -> dict[str, Any]:
    messages = shown_messages(preview, session)
    shown = [{"key": m.key, "text": m.text, "blocks": list(m.blocks)} for m in messages]
    return {**_session_head(session), "messages": shown}


# --- terminal rendering ------------------------------------------------------------------

_DATE = re.compile(r"<!date\^[^|>]*\|([^>]*)>")
_LINK = re.compile(r"<(https?://[^|>]+)\|([^>]*)>")
# Slack's inline marks, as the local Slack's page reads them: `code`, a <special> (left for
# `_plain`), *bold*, _italic_, ~strike~ (a mark hugs its text and is not inside a word).
_INLINE = re.compile(
    r"`([^`\n]+)`|(<[^<>\n]*>)"
    r"|(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])"
    r"|(?<![\w_])_(?!\s)([^_\n]+?)(?<!\s)_(?![\w_])"
    r"|(?<![\w~])~(?!\s)([^~\n]+?)(?<!\s)~(?![\w~])"
)
# ANSI styles (on, off) of code, bold, italic and strike.
_CODE = ("\x1b[36m", "\x1b[39m")
_BOLD = ("\x1b[1m", "\x1b[22m")
_ITALIC = ("\x1b[3m", "\x1b[23m")
_STRIKE = ("\x1b[9m", "\x1b[29m")


def _plain(mrkdwn: str) -> str:
    text = _DATE.sub(r"\1", mrkdwn)
    text = _LINK.sub(r"\2 (\1)", text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _shown(mrkdwn: str, styles: bool) -> str:
    """mrkdwn as the terminal shows it: bold, italics and strike in ANSI styles (``styles``) or
    without their marks; code and code blocks coloured (``styles``) or kept in their marks."""
    parts = mrkdwn.split("```")
    for index, part in enumerate(parts):
        if index % 2 == 1 and index < len(parts) - 1:  # a code block
            parts[index] = _styled_lines(part.strip("\n"), _CODE) if styles else f"```{part}```"
        else:
            parts[index] = _marks(part if index % 2 == 0 else "```" + part, styles)
    return _plain("".join(parts))


def _marks(text: str, styles: bool) -> str:
    return _INLINE.sub(lambda match: _mark(match, styles), text)


def _mark(match: re.Match[str], styles: bool) -> str:
    code, special, bold, italic, strike = match.groups()
    if special is not None:
        return special
    if code is not None:
        return f"{_CODE[0]}{code}{_CODE[1]}" if styles else match.group(0)
    inner = _marks(bold or italic or strike, styles)
    if not styles:
        return inner
    on, off = _BOLD if bold is not None else _ITALIC if italic is not None else _STRIKE
    return f"{on}{inner}{off}"


def _styled_lines(text: str, style: tuple[str, str]) -> str:
    """Each line styled on its own: the preview prefixes every line of a reply."""
    return "\n".join(f"{style[0]}{line}{style[1]}" if line else line for line in text.split("\n"))


def _block_lines(block: dict[str, Any], styles: bool) -> list[str]:
    kind = block.get("type")
    if kind == "header":
        title = str(block["text"]["text"])
        return [title, "═" * min(len(title) + 2, 80)]
    if kind == "section":
        lines = _shown(block["text"]["text"], styles).split("\n") if "text" in block else []
        for item in block.get("fields", []):
            label, _, value = item["text"].partition("\n")
            lines.append(f"{_plain(label.strip('*'))}: {_shown(value, styles)}")
        return lines
    if kind == "context":
        return ["  " + "  ".join(_shown(e.get("text", ""), styles) for e in block["elements"])]
    if kind == "markdown":
        return str(block.get("text", "")).split("\n")
    if kind == "divider":
        return ["─" * 40]
    return [f"[{kind}]"]


def message_text(message: Message, styles: bool = False) -> str:
    lines: list[str] = []
    for block in message.blocks:
        lines.extend(_block_lines(block, styles))
    return "\n".join(lines)


def preview_text(preview: Preview, styles: bool = False) -> str:
    """The threads as readable text; ``styles``: mrkdwn's marks as ANSI styles (a terminal)."""
    out: list[str] = []
    for session in preview.sessions():
        messages = shown_messages(preview, session)
        out.append(message_text(messages[0], styles))
        for message in messages[1:]:
            body = message_text(message, styles).replace("\n", "\n  │ ")
            out.append(f"  ┌─ {message.key}\n  │ {body}")
        out.append("")
    stats = preview_document_stats(preview)
    verbosity = preview.book.settings.verbosity.value
    out.append(
        f"{len(preview.book.sessions)} session(s) · {stats['records']} records · "
        f"{stats['unparsed']} unparsed · {not_shown(preview)} not shown at verbosity {verbosity}"
    )
    return "\n".join(out)


def not_shown(preview: Preview) -> int:
    """The records the threads leave out at the preview's verbosity: those never shown (and
    those of no session), those below the verbosity, and lines read again."""
    book = preview.book
    threshold = book.settings.verbosity.threshold
    below = 0
    for session in book.sessions.values():
        below += sum(session.counts[Significance.LOW : threshold])
    return book.hidden + below + book.repeated + book.late


def preview_document_stats(preview: Preview) -> dict[str, int]:
    return {"records": preview.records, "unparsed": preview.unparsed, "hidden": preview.book.hidden}
