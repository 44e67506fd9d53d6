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

from collections import OrderedDict
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.common import remember, text_of, to_utc, todos_of, type_of
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.records import (
    AssistantText,
    Ignored,
    Notice,
    Origin,
    Record,
    SessionStarted,
    Thinking,
    TodoUpdate,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import ResultStatus, SessionResult
from bot.values import as_float, as_int, blank, text_or_none

FAMILY = "backend"
AGENT = "Claude Code (backend)"

# Tuples, not sets: membership by equality never fails on an unhashable JSON value.
_ROW_TYPES: Final = ("system", "user", "assistant")
_FOREIGN_KEYS: Final = (
    "message",
    "sessionId",
    "parentUuid",
    "thread_id",
    "message_id",
    "role",
    "event",
    "uuid",
)
_START_SUBTYPES: Final = ("init", "client_launched")
_ASSISTANT_PLACEHOLDER: Final = "Assistant response"
_NOTICE_LEVELS: Final = {"error": "error", "exception": "error", "warning": "warning"}
_MAX_SESSIONS: Final = 1024  # sessions remembered as started; the oldest is forgotten past this


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


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    """Maps one backend source's rows. Keeps the last session id seen (rows may omit it) and
    which sessions have started."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._last_session: str | None = None
        self._started: OrderedDict[str, None] = OrderedDict()

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        kind = type_of(obj)
        if kind is None:
            return None
        meta = obj.get("metadata")
        session = self._session_of(obj, meta)
        if not isinstance(meta, dict):
            meta = {}
        stamp = obj.get("timestamp")
        at = to_utc(stamp)
        origin = Origin(session, at, line)
        content = obj.get("content")
        text: str = content if isinstance(content, str) else text_of(content)
        if kind == "system":
            return self._system(obj, meta, text, origin)
        out: list[Record] = [] if session in self._started else [self._start(meta, origin)]
        if kind == "user":
            _user(meta, text, origin, stamp, out)
        elif kind == "assistant":
            _assistant(meta, text, origin, stamp, out)
        elif kind == "result":
            out.append(_result(meta, text, origin))
        else:
            level = _NOTICE_LEVELS.get(kind, "info")
            out.append(Notice(origin, kind=kind, text=text, level=level))
        return out

    def finish(self) -> list[Record]:
        return []

    def _session_of(self, obj: dict[str, Any], meta: object) -> str:
        session = obj.get("session_id")
        if not session and isinstance(meta, dict):
            session = meta.get("session_id")
        if session:
            self._last_session = session if type(session) is str else str(session)
        return self._last_session or self.source

    def _start(self, meta: dict[str, Any], origin: Origin) -> SessionStarted:
        """A ``SessionStarted`` (the session stage hides a repeated one but takes what it
        adds); the session is remembered as started."""
        session = origin.session_id
        remember(self._started, session, None, _MAX_SESSIONS)
        tools = meta.get("tools")
        return SessionStarted(
            origin,
            agent=AGENT,
            model=text_or_none(meta.get("model")),
            cwd=text_or_none(meta.get("working_directory")),
            tools=tuple([str(t) for t in tools]) if isinstance(tools, list) else (),
        )

    def _system(
        self, obj: dict[str, Any], meta: dict[str, Any], text: str, origin: Origin
    ) -> list[Record]:
        session = origin.session_id
        subtype = meta.get("subtype") or obj.get("subtype")
        new = session not in self._started
        if subtype in _START_SUBTYPES:  # a later one (init after client_launched) fills in
            return [self._start(meta, origin)]  # the model, cwd and tools; the session hides it
        out: list[Record] = [self._start(meta, origin)] if new else []
        level = "error" if meta.get("is_error") is True else "info"
        kind = str(subtype) if subtype else "system"
        out.append(Notice(origin, kind=kind, text=text, level=level))
        return out


def _own_origin(origin: Origin, row_stamp: object, stamp: object) -> Origin:
    """The origin of an item in a row: its own ``timestamp`` (a tool use's, a tool result's)
    overrides the row's."""
    if stamp is None or stamp == row_stamp:
        return origin
    at = to_utc(stamp)
    if at is None:
        return origin
    return Origin(origin.session_id, at, origin.line)


def _user(
    meta: dict[str, Any], text: str, origin: Origin, stamp: object, out: list[Record]
) -> None:
    before = len(out)
    if not blank(text) and not _is_results_placeholder(text):
        out.append(UserText(origin, text=text))
    results = meta.get("tool_results")
    if isinstance(results, list):
        for item in results:
            if isinstance(item, dict):
                out.append(_tool_result(item, _own_origin(origin, stamp, item.get("timestamp"))))
    if len(out) == before:
        out.append(Ignored(origin, kind="empty_row"))


def _is_results_placeholder(text: str) -> bool:
    """``"Tool results: N results"``, the text the backend writes for a row of results."""
    if not (text.startswith("Tool results: ") and text.endswith(" results")):
        return False
    return text[len("Tool results: ") : -len(" results")].isdigit()


def _tool_result(item: dict[str, Any], origin: Origin) -> ToolResult:
    content = item.get("content")
    return ToolResult(
        origin,
        call_id=str(item.get("tool_use_id") or ""),
        output=content if isinstance(content, str) else text_of(content),
        is_error=item.get("is_error") is True,
    )


def _assistant(
    meta: dict[str, Any], text: str, origin: Origin, stamp: object, out: list[Record]
) -> None:
    before = len(out)
    thinking = _thinking(meta)
    if thinking:
        out.append(Thinking(origin, text=thinking))
    if not blank(text) and text != _ASSISTANT_PLACEHOLDER:
        out.append(AssistantText(origin, text=text))
    uses = meta.get("tool_uses")
    if isinstance(uses, list):
        for use in uses:
            if isinstance(use, dict):
                _tool_call(use, _own_origin(origin, stamp, use.get("timestamp")), out)
    if len(out) == before:
        out.append(Ignored(origin, kind="empty_row"))


def _thinking(meta: dict[str, Any]) -> str:
    text = meta.get("thinking_content")
    if isinstance(text, str) and not blank(text):
        return text
    blocks = meta.get("thinking_blocks")
    if not isinstance(blocks, list):
        return ""
    parts = [b.get("content") for b in blocks if isinstance(b, dict)]
    return "\n\n".join([p for p in parts if isinstance(p, str) and p])


def _tool_call(use: dict[str, Any], origin: Origin, out: list[Record]) -> None:
    call_id = str(use.get("id") or "")
    name = str(use.get("name") or "")
    given = use.get("input")
    arguments: dict[str, Any] = given if isinstance(given, dict) else {}
    out.append(ToolCall(origin, call_id=call_id, name=name, input=arguments))
    if name == "TodoWrite":
        todos = todos_of(arguments.get("todos"))
        out.append(TodoUpdate(origin, todos=todos, call_id=call_id))


def _result(meta: dict[str, Any], text: str, origin: Origin) -> SessionResult:
    """A ``result`` row (the normaliser's ``ResultMessage``)."""
    failed = meta.get("is_error") is True
    return SessionResult(
        origin,
        status=ResultStatus.FAILED if failed else ResultStatus.SUCCEEDED,
        subtype=text_or_none(meta.get("subtype")),
        text=text or None,
        error=(text or None) if failed else None,
        duration_ms=as_int(meta.get("duration_ms")),
        duration_api_ms=as_int(meta.get("duration_api_ms")),
        num_turns=as_int(meta.get("num_turns")),
        cost_usd=as_float(meta.get("total_cost_usd")),
    )


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=False,
    produced_by="a normalized backend log (user/assistant/system rows, tools in `metadata`)",
)
