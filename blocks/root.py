"""The session's root message: what ran, where, what it was asked, and a live status line. It
starts the thread."""

from __future__ import annotations

from datetime import datetime
from typing import Final

from blocks.figures import (
    SESSION_EMOJI,
    SESSION_WORD,
    cost,
    count,
    duration,
    exit_words,
    notable_exit,
    plural,
    slack_date,
)
from blocks.limits import HEADER_TEXT_MAX
from blocks.message import Block, Message
from blocks.sections import MessageBlocks
from blocks.text import code_span, plain_text, safe_line
from bot.caps import (
    CWD_SHOWN,
    FALLBACK_LINE,
    INFO_SHOWN,
    PROMPT_LINE,
    PROMPT_LINES,
    VERSION_SHOWN,
)
from bot.controls import STOP, button_value
from bot.result_records import SessionResult
from bot.session import Session, SessionStatus, ToolStatus

_ENDED: Final = (SessionStatus.SUCCEEDED, SessionStatus.FAILED, SessionStatus.STOPPED)
_STOP_CONFIRM: Final[Block] = {
    "title": {"type": "plain_text", "text": "Stop the agent?"},
    "text": {"type": "plain_text", "text": "It gets SIGINT (as Ctrl-C), then SIGTERM and "
             "SIGKILL if it goes on."},
    "confirm": {"type": "plain_text", "text": "Stop"},
    "deny": {"type": "plain_text", "text": "Cancel"},
}


def root_message(session: Session, now: datetime | None = None) -> Message:
    info = session.info
    agent = info.agent or "Agent"
    title = info.title or place(info.cwd) or f"session {_short_id(session.session_id)}"
    blocks = MessageBlocks()
    blocks.header(plain_text(f"🤖 {agent}: {title}", HEADER_TEXT_MAX))
    if info.prompt:
        blocks.section(asked(info.prompt))
    blocks.fields(_facts(session))
    blocks.context(status_line(session, now))
    if session.settings.stop_button and session.status not in _ENDED:
        blocks.actions([stop_button(session.session_id)])
    word = SESSION_WORD[session.status].lower()
    text = safe_line(f"{agent} session {session.session_id}: {word}", FALLBACK_LINE)
    return Message("root", text, blocks.fitted())


def asked(prompt: str) -> str:
    """What the session was asked: its first prompt's first one or two lines, quoted."""
    lines = [line for line in prompt.split("\n") if line and not line.isspace()]
    shown = [safe_line(line, PROMPT_LINE) for line in lines[:PROMPT_LINES]]
    if len(lines) > PROMPT_LINES and not shown[-1].endswith("…"):
        shown[-1] += " …"
    return "\n".join([f"> {line}" for line in shown])


def _short_id(session_id: str) -> str:
    """A session id short enough for a title: a uuid's first part, or for a session named
    after its log file (a log with no id of its own), the file's name."""
    name = session_id.replace("\\", "/").rstrip("/")
    name = name[name.rfind("/") + 1 :]
    if name != session_id.rstrip("/"):  # a path: its file's name, without its extension
        dot = name.find(".")
        return name[:dot] if dot > 0 else name
    return session_id[:8]


def stop_button(session_id: str) -> Block:
    """Stop: the agent of ``slacktail run`` is stopped (``bot.app.stop``); the button's value
    names the session (``bot.controls``)."""
    return {"type": "button", "action_id": STOP, "style": "danger",
            "value": button_value(session_id), "text": {"type": "plain_text", "text": "⏹ Stop"},
            "confirm": _STOP_CONFIRM}  # fmt: skip


def place(cwd: str | None) -> str | None:
    """``in project`` from a working directory's last part."""
    if not cwd:
        return None
    path = cwd.rstrip("/\\").replace("\\", "/")
    name = path.rsplit("/", 1)[-1]
    return f"in {name}" if name else None


def _facts(session: Session) -> list[tuple[str, str]]:
    info = session.info
    pairs = [("Agent", safe_line(info.agent or "unknown", INFO_SHOWN))]
    if info.model:
        pairs.append(("Model", safe_line(info.model, INFO_SHOWN)))
    if info.cwd:
        pairs.append(("Working directory", code_span(info.cwd, CWD_SHOWN)))
    pairs.append(("Session", code_span(session.session_id, INFO_SHOWN)))
    if session.timed and session.first_at is not None:  # the log's time, not when it was read
        pairs.append(("Started", slack_date(session.first_at)))
    if info.version:
        pairs.append(("Version", safe_line(info.version, VERSION_SHOWN)))
    return pairs


def elapsed_s(session: Session, now: datetime | None) -> float | None:
    """The session's duration as its results report it (the sum of their runs' durations),
    else by the log's own times, until its last record: only a live session (``Session.live``:
    running now, its log not quiet for long) counts up to ``now``, by when its records were
    read if they carry no times (a log followed as it is written). ``None`` when unknown: a
    log without times that is not live (its lines read at once are not when the agent wrote
    them), or an ended session whose times are all one instant."""
    spent = session.spent
    if session.result is not None and spent is not None and spent.duration_ms is not None:
        return spent.duration_ms / 1000
    first = session.first_at
    if first is None:
        return None
    if now is not None and session.live(now):
        return max(0.0, (now - first).total_seconds())
    if not session.timed:
        return None
    end = session.last_at
    if end is None or end <= first:
        return None
    return (end - first).total_seconds()


def status_line(session: Session, now: datetime | None = None) -> str:
    """``⏳ Running · 12 tools (2 running, 1 failed) · 3m 12s · $0.42 · todos 3/7``; an
    agent's notable exit after its status (``❌ Failed · exited with code 3 · …``)."""
    parts = [f"{SESSION_EMOJI[session.status]} *{SESSION_WORD[session.status]}*"]
    ended = session.exit
    if ended is not None and notable_exit(ended):  # ``exited with code 3``, ``Ctrl-C``
        parts.append(exit_words(ended))
    parts.append(tool_counts(session))
    if (seconds := elapsed_s(session, now)) is not None:
        live = now is not None and session.live(now)
        parts.append(_minutes(seconds) if live else duration(seconds))
    if session.spent is not None:  # all its results' and steps' cost and tokens
        parts.extend(_spent(session.spent))
    if session.todos:
        parts.append(f"todos {_done(session)}/{len(session.todos)}")
    if session.compactions:
        parts.append(plural(session.compactions, "compaction"))
    return " · ".join(part for part in parts if part)


def _spent(result: SessionResult) -> list[str]:
    """What the session cost, as far as its results and steps say: the cost, the tokens out
    (the tokens in when only those are given), the premium requests; nothing of what it does
    not say."""
    parts: list[str] = []
    if result.cost_usd is not None:
        parts.append(cost(result.cost_usd))
    if result.output_tokens is not None:
        parts.append(f"{count(result.output_tokens)} tokens out")
    elif result.input_tokens is not None:
        parts.append(f"{count(result.input_tokens)} tokens in")
    if result.premium_requests is not None:
        parts.append(plural(result.premium_requests, "premium request"))
    return parts


def _done(session: Session) -> int:
    """How many todos are completed."""
    return sum(1 for todo in session.todos if todo.status == "completed")


def _minutes(seconds: float) -> str:
    """Elapsed time while running, in whole minutes: the root changes once a minute, not
    every second (each change is an update out of a shared budget)."""
    minutes = int(seconds // 60)
    if minutes < 1:
        return "under a minute"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes}m" if hours else f"{minutes}m"


# The statuses a status line counts, in its order, and what it calls each (OK calls: not shown).
_NOT_OK: Final = (
    (ToolStatus.RUNNING, "running"),
    (ToolStatus.PENDING, "pending"),
    (ToolStatus.ERROR, "failed"),
    (ToolStatus.INTERRUPTED, "interrupted"),
    (ToolStatus.ORPHANED, "orphaned"),
)


def tool_counts(session: Session) -> str:
    """``12 tool calls (2 running, 1 failed)``: the calls that are not OK counted by status."""
    total = len(session.calls)
    if not total:
        return "no tools yet"
    counts = session.tally  # kept counted by the session: no walk over every call
    detail = [f"{counts[status]} {word}" for status, word in _NOT_OK if counts[status]]
    head = plural(total, "tool call")
    return f"{head} ({', '.join(detail)})" if detail else head
