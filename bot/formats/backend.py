"""Format: backend — the normalised rows a Claude Code web backend stores (seed 000, "Legion").

One JSON object per line::

    {"type": "system" | "user" | "assistant", "content": str, "timestamp": ISO or unix seconds,
     "metadata": {...}, "session_id": ...}

- ``system`` rows: ``init`` / ``client_launched`` start the session (hidden); other subtypes are
  notices.
- ``user`` rows: plain text, or ``metadata.tool_results`` (then ``content`` is only the
  placeholder ``"Tool results: N results"``).
- ``assistant`` rows: ``content`` (``"Assistant response"`` when the message had no text),
  ``metadata.tool_uses`` and ``metadata.thinking_content`` / ``thinking_blocks``.

The normaliser also writes ``result`` rows and ``error`` / ``warning`` rows; they are read too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.formats.common import as_float, as_int, text_of, to_utc
from bot.records import (
    AssistantText,
    Ignored,
    Notice,
    Record,
    ResultStatus,
    SessionResult,
    SessionStarted,
    Thinking,
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
    UserText,
)

FAMILY = "backend"
AGENT = "Claude Code (backend)"

# Tuples, not sets: membership by equality never fails on an unhashable JSON value.
_ROW_TYPES = ("system", "user", "assistant")
_FOREIGN_KEYS = (
    "message",
    "sessionId",
    "parentUuid",
    "thread_id",
    "message_id",
    "role",
    "event",
    "uuid",
)
_START_SUBTYPES = ("init", "client_launched")
_ASSISTANT_PLACEHOLDER = "Assistant response"
_NOTICE_LEVELS = {"error": "error", "exception": "error", "warning": "warning"}
_MAX_SESSIONS = 1024  # sessions remembered as started; the oldest is forgotten past this


def detect(obj: object) -> bool:
    """A normalised backend row: ``type`` system/user/assistant, string (or no) ``content``,
    ``metadata`` or ``timestamp``, and none of the keys the Claude, Agno, Suna or OpenAI
    formats carry."""
    if not isinstance(obj, dict) or obj.get("type") not in _ROW_TYPES:
        return False
    if not isinstance(obj.get("content", ""), str):
        return False
    if "metadata" not in obj and "timestamp" not in obj:
        return False
    return not any(key in obj for key in _FOREIGN_KEYS)


class Parser:
    """Maps one backend source's rows. Keeps the last session id seen (rows may omit it) and
    which sessions have started."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._last_session: str | None = None
        self._started: dict[str, None] = {}

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        if not isinstance(obj, dict):
            return None
        kind = obj.get("type")
        if not isinstance(kind, str):
            return None
        meta = obj.get("metadata")
        row = _Row(obj, meta if isinstance(meta, dict) else {}, line, self._session_of(obj, meta))
        if kind == "system":
            return self._system(row)
        out = self._start(row)
        if kind == "user":
            out.extend(_user(row))
        elif kind == "assistant":
            out.extend(_assistant(row))
        elif kind == "result":
            out.append(_result(row))
        else:
            level = _NOTICE_LEVELS.get(kind, "info")
            out.append(Notice(**row.common(), kind=kind, text=row.content, level=level))
        return out

    def finish(self) -> list[Record]:
        return []

    def _session_of(self, obj: Mapping[str, Any], meta: object) -> str:
        session = obj.get("session_id")
        if not session and isinstance(meta, dict):
            session = meta.get("session_id")
        if session:
            self._last_session = str(session)
        return self._last_session or self.source

    def _start(self, row: _Row) -> list[Record]:
        """``[SessionStarted]`` when ``row`` is its session's first, else ``[]``."""
        if row.session_id in self._started:
            return []
        self._started[row.session_id] = None
        if len(self._started) > _MAX_SESSIONS:
            del self._started[next(iter(self._started))]
        meta = row.meta
        tools = meta.get("tools")
        return [
            SessionStarted(
                **row.common(),
                agent=AGENT,
                model=_str(meta.get("model")),
                cwd=_str(meta.get("working_directory")),
                tools=tuple(str(t) for t in tools) if isinstance(tools, list) else (),
            )
        ]

    def _system(self, row: _Row) -> list[Record]:
        subtype = row.meta.get("subtype") or row.obj.get("subtype")
        if subtype in _START_SUBTYPES:
            started = self._start(row)
            return started or [Ignored(**row.common(), kind="init")]
        out = self._start(row)
        level = "error" if row.meta.get("is_error") is True else "info"
        kind = str(subtype) if subtype else "system"
        out.append(Notice(**row.common(), kind=kind, text=row.content, level=level))
        return out


class _Row:
    """One row with its parts looked up once."""

    __slots__ = ("base", "content", "meta", "obj", "raw_timestamp", "session_id")

    def __init__(self, obj: Mapping[str, Any], meta: Mapping[str, Any], line: int, session: str):
        self.obj = obj
        self.meta = meta
        self.session_id = session
        self.raw_timestamp = obj.get("timestamp")
        timestamp = to_utc(self.raw_timestamp)
        self.base = {"session_id": session, "timestamp": timestamp, "line": line}
        content = obj.get("content")
        self.content: str = content if isinstance(content, str) else text_of(content)

    def common(self, timestamp: object = None) -> dict[str, Any]:
        """The fields every record of this row shares; an item's own ``timestamp`` (a tool use's,
        a tool result's) overrides the row's."""
        if timestamp is None or timestamp == self.raw_timestamp:
            return self.base
        stamp = to_utc(timestamp)
        if stamp is None:
            return self.base
        return {**self.base, "timestamp": stamp}


def _user(row: _Row) -> list[Record]:
    results = row.meta.get("tool_results")
    out: list[Record] = []
    if isinstance(results, list):
        out.extend(_tool_result(row, item) for item in results if isinstance(item, dict))
    text = row.content
    if not _blank(text) and not _is_results_placeholder(text):
        out.insert(0, UserText(**row.common(), text=text))
    if not out:
        out.append(Ignored(**row.common(), kind="empty_row"))
    return out


def _is_results_placeholder(text: str) -> bool:
    """``"Tool results: N results"``, the text the backend writes for a row of results."""
    if not (text.startswith("Tool results: ") and text.endswith(" results")):
        return False
    return text[len("Tool results: ") : -len(" results")].isdigit()


def _tool_result(row: _Row, item: Mapping[str, Any]) -> ToolResult:
    return ToolResult(
        **row.common(item.get("timestamp")),
        call_id=str(item.get("tool_use_id") or ""),
        output=text_of(item.get("content")),
        is_error=item.get("is_error") is True,
    )


def _assistant(row: _Row) -> list[Record]:
    out: list[Record] = []
    thinking = _thinking(row.meta)
    if thinking:
        out.append(Thinking(**row.common(), text=thinking))
    text = row.content
    if not _blank(text) and text != _ASSISTANT_PLACEHOLDER:
        out.append(AssistantText(**row.common(), text=text))
    uses = row.meta.get("tool_uses")
    if isinstance(uses, list):
        for use in uses:
            if isinstance(use, dict):
                out.extend(_tool_call(row, use))
    if not out:
        out.append(Ignored(**row.common(), kind="empty_row"))
    return out


def _thinking(meta: Mapping[str, Any]) -> str:
    text = meta.get("thinking_content")
    if isinstance(text, str) and not _blank(text):
        return text
    blocks = meta.get("thinking_blocks")
    if not isinstance(blocks, list):
        return ""
    parts = [b.get("content") for b in blocks if isinstance(b, dict)]
    return "\n\n".join(p for p in parts if isinstance(p, str) and p)


def _tool_call(row: _Row, use: Mapping[str, Any]) -> list[Record]:
    call_id = str(use.get("id") or "")
    name = str(use.get("name") or "")
    given = use.get("input")
    arguments: Mapping[str, Any] = given if isinstance(given, dict) else {}
    common = row.common(use.get("timestamp"))
    call = ToolCall(**common, call_id=call_id, name=name, input=arguments)
    if name != "TodoWrite":
        return [call]
    return [call, TodoUpdate(**common, todos=_todos(arguments.get("todos")), call_id=call_id)]


def _todos(items: object) -> tuple[Todo, ...]:
    if not isinstance(items, list):
        return ()
    return tuple(
        Todo(
            content=str(item.get("content") or ""),
            status=str(item.get("status") or "pending"),
            active_form=_str(item.get("activeForm")),
            priority=_str(item.get("priority")),
        )
        for item in items
        if isinstance(item, dict)
    )


def _result(row: _Row) -> SessionResult:
    """A ``result`` row (the normaliser's ``ResultMessage``)."""
    meta = row.meta
    failed = meta.get("is_error") is True
    return SessionResult(
        **row.common(),
        status=ResultStatus.FAILED if failed else ResultStatus.SUCCEEDED,
        subtype=_str(meta.get("subtype")),
        text=row.content or None,
        error=(row.content or None) if failed else None,
        duration_ms=as_int(meta.get("duration_ms")),
        duration_api_ms=as_int(meta.get("duration_api_ms")),
        num_turns=as_int(meta.get("num_turns")),
        cost_usd=as_float(meta.get("total_cost_usd")),
    )


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _blank(text: str) -> bool:
    """Empty or only whitespace (without copying a long text as ``strip`` would)."""
    return not text or text.isspace()
