"""Format: openai-messages — OpenAI chat messages with ``tool_calls`` (seed 004 and the corpus).

Values that arrive:

- one message per line: ``{"role", "content", "tool_calls": [...]}`` (session: the source);
- a whole trace per line, as a JSON array of messages or ``{"messages": [...]}`` (invariant
  explorer; each such line is its own session, ``"<source>#<line>"``), after a
  ``{"metadata": {...}}`` line;
- a SWE-agent ``.traj`` document with ``history[]`` and ``info`` (session: the file's name);
- Suna (agentpress) database rows with ``thread_id`` (session: the thread);
- Kimi Code's print mode (``kimi -p … --output-format stream-json``): one message per line,
  ended by ``{"role": "meta", "type": "session.resume_hint", "session_id", "content"}``, which
  names the session "Kimi Code" and says how to resume it (a hint that comes before any
  message also names the session: its messages are then filed under Kimi's session id).

Tool results find their call by ``tool_call_id`` (or each of SWE-agent's ``tool_call_ids``).
A result with no id (WebArena), or with an id that names no call of the session, goes to the
oldest call still waiting (of the same tool when the result names one). A call id that the
session already used gets a suffix (``id#2``), so every call keeps its own result.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Final

import orjson
from mypy_extensions import mypyc_attr

from bot.formats import openai_documents as documents
from bot.formats.common import loads_maybe, text_of, to_utc
from bot.formats.log_format import LogFormat
from bot.formats.openai_messages_calls import SessionCalls, trim
from bot.formats.parser import LineParser
from bot.records import (
    AssistantText,
    Ignored,
    Notice,
    Origin,
    Record,
    SessionStarted,
    Thinking,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.values import blank

FAMILY = "openai-messages"
AGENT = "OpenAI-style agent"

# Tuples, not sets: membership by equality never fails on an unhashable JSON value.
_ROLES: Final = ("system", "developer", "user", "assistant", "tool", "function")
_NOT_A_TRACE: Final = ("run_id", "events", "event", "team_id", "agent_id")  # an Agno stored run
_MAX_SESSIONS: Final = 256
KIMI: Final = "Kimi Code"
_RESUME_HINT: Final = "session.resume_hint"


def detect(obj: object) -> bool:
    """A message, a list of messages, a ``{"messages"}`` trace, a ``.traj`` ``{"history"}``
    document, or a Suna row (``thread_id`` and ``type``)."""
    if isinstance(obj, list):
        return bool(obj) and _is_message(obj[0])
    if not isinstance(obj, dict):
        return False
    if "thread_id" in obj and "type" in obj:
        # A Suna row's type is a message type; a dotted one is an event's name (Codex
        # `codex exec --json`: `thread.started`, `turn.*`, `item.*`).
        kind = obj["type"]
        return "event" not in obj and not (isinstance(kind, str) and "." in kind)
    if obj.get("role") in _ROLES:
        # not a Gemini CLI stream-json event: `{"type": "message", "role", "timestamp"}`
        return not (obj.get("type") == "message" and isinstance(obj.get("timestamp"), str))
    for key in ("history", "messages"):
        value = obj.get(key)
        if isinstance(value, list) and value and _is_message(value[0]):
            # pi's ``agent_end`` event carries the run's messages too: it is pi's, not a trace
            return not any(k in obj for k in _NOT_A_TRACE) and obj.get("type") != "agent_end"
    return False


def _is_message(value: object) -> bool:
    return isinstance(value, dict) and value.get("role") in _ROLES


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    def __init__(self, source: str) -> None:
        self.source = source
        self._single = source  # the session of one-message lines: the source, or Kimi's id
        self._sessions: OrderedDict[str, SessionCalls] = OrderedDict()

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        if isinstance(obj, list):
            return self._trace(obj, line) if obj and _is_message(obj[0]) else None
        if not isinstance(obj, dict):
            return None
        if "thread_id" in obj and "type" in obj:
            return self._row(obj, line)
        if obj.get("role") == "meta":
            return self._meta(obj, line)
        if isinstance(obj.get("role"), str):
            return self._message(obj, line)
        history = obj.get("history")
        if isinstance(history, list):
            return self._traj(obj, history, line)
        messages = obj.get("messages")
        if isinstance(messages, list):
            return self._trace(messages, line)
        if obj.keys() <= {"metadata"}:
            return [Ignored(Origin(self.source, None, line), kind="metadata")]
        return None

    def finish(self) -> list[Record]:
        return []

    # --- the shapes a value comes in -------------------------------------------------------

    def _message(self, message: dict[str, Any], line: int) -> list[Record]:
        origin = Origin(self._single, _timestamp(message), line)
        session, out = self._open(origin, AGENT)
        _message(message, session, origin, None, out)
        return out

    def _meta(self, meta: dict[str, Any], line: int) -> list[Record]:
        """Kimi's resume hint names the agent of the session it ends (a start that relabels
        it), and of the session it opens when it comes first."""
        kind = meta.get("type")
        given = meta.get("session_id")
        if kind != _RESUME_HINT or not isinstance(given, str) or not given:
            return [Ignored(Origin(self._single, None, line), kind=f"meta {kind}")]
        if self._single not in self._sessions:  # no message yet: the session is Kimi's own
            self._single = given
        origin = Origin(self._single, None, line)
        _, out = self._open(origin, KIMI)
        if not out:
            out.append(_start(origin, KIMI))
        said = meta.get("content")
        text = said if isinstance(said, str) and said else f"To resume: kimi -r {given}"
        out.append(Notice(origin, kind="resume_hint", text=text))
        return out

    def _trace(self, messages: list[Any], line: int) -> list[Record]:
        session = SessionCalls(f"{self.source}#{line}")
        out: list[Record] = [_start(Origin(session.session_id, None, line), AGENT)]
        _messages(messages, session, line, out)
        return out

    def _traj(self, doc: dict[str, Any], history: list[Any], line: int) -> list[Record]:
        session = SessionCalls(documents.traj_session_id(self.source))
        model = documents.traj_model(doc)
        origin = Origin(session.session_id, None, line)
        out: list[Record] = [_start(origin, documents.SWE_AGENT, model)]
        _messages(documents.traj_history(history), session, line, out)
        result = documents.traj_result(doc.get("info"), model, origin)
        if result is not None:
            out.append(result)
        return out

    def _row(self, row: dict[str, Any], line: int) -> list[Record]:
        session_id, at = str(row["thread_id"]), to_utc(row.get("created_at"))
        origin = Origin(session_id, at, line)
        session, out = self._open(origin, documents.SUNA)
        kind = str(row.get("type"))
        if kind in _ROLES:
            meta = documents.row_metadata(row)
            message = documents.row_message(kind, row.get("content"), meta)
            message_id = row.get("message_id")
            _message(message, session, origin, str(message_id) if message_id else None, out)
        elif kind == "status":
            out.append(_status(loads_maybe(row.get("content")), origin))
        else:
            out.append(Ignored(origin, kind=kind))
        return out

    def _open(self, origin: Origin, agent: str) -> tuple[SessionCalls, list[Record]]:
        """The session named by ``origin``, and ``[SessionStarted]`` when this is its first
        value."""
        session_id = origin.session_id
        session = self._sessions.get(session_id)
        if session is not None:
            return session, []
        session = self._sessions[session_id] = SessionCalls(session_id)
        trim(self._sessions, _MAX_SESSIONS)
        return session, [_start(origin, agent)]


def _start(origin: Origin, agent: str, model: str | None = None) -> SessionStarted:
    return SessionStarted(origin, agent=agent, model=model)


def _status(content: object, origin: Origin) -> Record:
    failure = documents.run_failure(content)
    if failure is None:
        return Ignored(origin, kind="status")
    return Notice(origin, kind="status", text=failure, level="error")


def _messages(messages: Iterable[Any], session: SessionCalls, line: int, out: list[Record]) -> None:
    session_id = session.session_id
    for message in messages:
        if isinstance(message, dict):
            _message(message, session, Origin(session_id, _timestamp(message), line), None, out)


def _timestamp(message: dict[str, Any]) -> datetime | None:
    """A message's own time, where it has one (most traces have none)."""
    raw = message.get("timestamp") or message.get("created_at")
    return None if raw is None else to_utc(raw)


# --- one message -----------------------------------------------------------------------------


def _message(
    message: dict[str, Any],
    session: SessionCalls,
    origin: Origin,
    message_id: str | None,
    out: list[Record],
) -> None:
    role = message.get("role")
    if role == "user":
        out.append(_user(message, origin))
    elif role == "assistant":
        _assistant(message, session, origin, message_id, out)
    elif role == "tool" or role == "function":
        _tool_results(message, session, origin, out)
    elif role == "system" or role == "developer":
        out.append(Ignored(origin, kind="system_prompt"))
    else:
        out.append(Ignored(origin, kind=f"role {role}"))


def _user(message: dict[str, Any], origin: Origin) -> Record:
    content = message.get("content")
    if isinstance(content, list) and any(
        isinstance(block, dict) and "cache_control" in block for block in content
    ):
        return Ignored(origin, kind="cached_block")
    text = content if isinstance(content, str) else text_of(content)
    if not text or text.isspace():
        return Ignored(origin, kind="empty_message")
    return UserText(origin, text=text)


def _assistant(
    message: dict[str, Any],
    session: SessionCalls,
    origin: Origin,
    message_id: str | None,
    out: list[Record],
) -> None:
    before = len(out)
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(reasoning, str) and not blank(reasoning):
        out.append(Thinking(origin, text=reasoning))
    text = _assistant_text(message)
    if text:
        out.append(AssistantText(origin, text=text, message_id=message_id))
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        for call in calls:
            if isinstance(call, dict):
                out.append(_tool_call(call, call.get("function"), session, origin))
    legacy = message.get("function_call")
    if isinstance(legacy, dict):
        out.append(_tool_call({}, legacy, session, origin))
    if len(out) == before:
        out.append(Ignored(origin, kind="empty_message"))


def _assistant_text(message: dict[str, Any]) -> str:
    """The text to show: ``content``; SWE-agent's ``thought`` repeats it, so it is only the
    fallback. Empty when there is nothing but whitespace."""
    content = message.get("content")
    text = content if isinstance(content, str) else text_of(content)
    if not blank(text):
        return text
    thought = message.get("thought")
    return thought if isinstance(thought, str) and not blank(thought) else ""


def _tool_call(
    call: dict[str, Any], function: object, session: SessionCalls, origin: Origin
) -> ToolCall:
    spec = function if isinstance(function, dict) else call
    name = str(spec.get("name") or "")
    arguments, raw = _arguments(spec.get("arguments"))
    call_id = session.open_call(str(call.get("id") or ""), name)
    return ToolCall(
        origin,
        call_id=call_id,
        name=name,
        input=arguments,
        raw_input=raw,
    )


def _arguments(value: object) -> tuple[dict[str, Any], str | None]:
    """The parsed arguments, and the arguments as given when they are not a JSON object."""
    if isinstance(value, dict):
        return value, None
    if value is None or value == "":
        return {}, None
    if not isinstance(value, str):
        return {}, orjson.dumps(value).decode()
    try:
        parsed = orjson.loads(value)
    except orjson.JSONDecodeError:
        return {}, value
    if isinstance(parsed, dict):
        return parsed, None
    return {}, None if parsed is None else value


def _tool_results(
    message: dict[str, Any], session: SessionCalls, origin: Origin, out: list[Record]
) -> None:
    outcome = documents.tool_outcome(message)
    logged_ids = message.get("tool_call_ids")
    if not isinstance(logged_ids, list) or not logged_ids:
        logged_ids = [message.get("tool_call_id") or outcome.call_id or ""]
    for logged in logged_ids:
        call_id = session.close_call(str(logged or ""), outcome.name)
        out.append(
            ToolResult(
                origin,
                call_id=call_id,
                output=outcome.output,
                is_error=outcome.is_error,
                name=outcome.name,
            )
        )


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=False,
    produced_by="OpenAI-style messages with `tool_calls`: traces, SWE-agent `.traj`, Suna rows",
)
