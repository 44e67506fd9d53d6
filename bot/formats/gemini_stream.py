"""Format: Gemini CLI stream-json (``gemini --output-format stream-json``).

One JSON object a line, each with an ISO ``timestamp``; a run's lines carry no session id but
its ``init`` (a stream without one, e.g. mcp-content-mutations, is still Gemini CLI's: its first
line gives a SessionStarted naming the agent):

- ``init {session_id, model}`` → SessionStarted (agent "Gemini CLI");
- ``message {role: user|assistant, content, delta?}`` → UserText, or AssistantText (the answer
  arrives as many ``delta:true`` chunks, joined with no separator);
- ``tool_use {tool_name, tool_id, parameters}`` → ToolCall (see ``gemini_tools``: a subagent
  tool is a Delegation, ``write_todos`` also a TodoUpdate);
- ``tool_result {tool_id, status: success|error, output?, error?:{type, message}}`` →
  ToolResult of the call of that ``tool_id`` (the result names no tool: its name is
  remembered from the call);
- ``error {severity: warning|error, message}`` → Notice of that kind and level;
- ``result {status, error?, stats:{input_tokens, output_tokens, cached, input, duration_ms,
  tool_calls, models{…}}}`` → SessionResult (no cost: the CLI reports none).

A benign trailing error: CLI 0.44 often ends a complete answer with an ``error`` event "Invalid
stream: The model returned an empty response or malformed tool call." and a ``result`` of
``status:"error"``. When answer text streamed since the user's message, that error is a
warning and the session succeeded (switchboard's G17: the narrow phrase, so a changed wording
falls back to a failure, never the reverse). The warning is the ``error`` event's; a result
that names the error itself, with no such event before it, gives the warning.

A result whose figures are all zero (a request that never ran: error-invalid-model, line 3)
measured nothing: its tokens and duration are unknown, not zero.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.common import remember, text_of, to_utc, type_of, uncached_input
from bot.formats.gemini_tools import call_records
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.records import (
    AssistantText,
    Ignored,
    Notice,
    Origin,
    Record,
    SessionStarted,
    ToolResult,
    UserText,
)
from bot.result_records import ResultStatus, SessionResult
from bot.values import as_int, clip, json_text, text_or_none

FAMILY = "gemini-stream-json"
AGENT = "Gemini CLI"

_ROLES: Final = ("user", "assistant")
_LEVELS: Final = ("warning", "error")
_CLAUDE_RESULT_KEYS: Final = ("subtype", "is_error", "session_id")  # what a Claude result has
BENIGN_ERROR: Final = "empty response or malformed tool call"
_MAX_CALLS: Final = 1024  # tool names remembered for their results

Line = dict[str, Any]


def detect(obj: object) -> bool:
    """A stream-json event: a known ``type`` with its own keys and an ISO ``timestamp`` (no
    other family's line has both: an OpenAI message has no ``type: "message"`` with a string
    ``timestamp``, a Claude Code result has a ``subtype``, a Codex error no ``severity``)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("timestamp"), str):
        return False
    kind = obj.get("type")
    if kind == "message":
        return obj.get("role") in _ROLES and isinstance(obj.get("content"), str)
    if kind == "tool_use":
        return "tool_id" in obj and "tool_name" in obj
    if kind == "tool_result":
        return "tool_id" in obj and "status" in obj
    if kind == "init":
        return isinstance(obj.get("session_id"), str) and "model" in obj
    if kind == "error":
        return "severity" in obj and "message" in obj
    if kind == "result":
        return isinstance(obj.get("status"), str) and not any(
            key in obj for key in _CLAUDE_RESULT_KEYS
        )
    return False


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    """Keeps the run's session id (lines before an ``init`` belong to the source), the names
    of the calls awaiting results, and whether an answer streamed since the user's message."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._session = source
        self._names: OrderedDict[str, str] = OrderedDict()
        self._answered = False  # answer text streamed since the user's message
        self._last_error: str | None = None  # the last error event's message, for the result
        self._started = False  # a SessionStarted was given (an init, or the agent's name)

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        records = self._event(obj, line)
        if self._started or not records:
            return records
        self._started = True
        if type(records[0]) is SessionStarted:
            return records
        return [SessionStarted(records[0].origin, agent=AGENT), *records]

    def _event(self, obj: Any, line: int) -> list[Record] | None:
        kind = type_of(obj)
        if kind is None:
            return None
        if kind == "init":
            given = obj.get("session_id")
            self._session = given if isinstance(given, str) and given else self._session
            self._answered, self._last_error = False, None
        origin = Origin(self._session, to_utc(obj.get("timestamp")), line)
        if kind == "message":
            return [self._message(obj, origin)]
        if kind == "tool_use":
            return self._tool_use(obj, origin)
        if kind == "tool_result":
            return [self._tool_result(obj, origin)]
        if kind == "error":
            return [self._error(obj, origin)]
        if kind == "result":
            return self._result(obj, origin)
        if kind == "init":
            return [_started(obj, origin)]
        return [Notice(origin, kind=kind, text=clip(f"{kind}: {json_text(obj)}"))]

    def _message(self, obj: Line, origin: Origin) -> Record:
        text = text_of(obj.get("content"))
        role = obj.get("role")
        if role == "user":
            self._answered, self._last_error = False, None
            if not text or text.isspace():
                return Ignored(origin, kind="empty user message")
            return UserText(origin, text=text)
        if role != "assistant":
            return Notice(origin, kind="message", text=clip(f"{role}: {text}"))
        if not text:
            return Ignored(origin, kind="empty assistant message")
        self._answered = self._answered or not text.isspace()
        return AssistantText(origin, text=text, delta=obj.get("delta") is True)

    def _tool_use(self, obj: Line, origin: Origin) -> list[Record]:
        call_id = text_or_none(obj.get("tool_id")) or ""
        name = text_or_none(obj.get("tool_name")) or ""
        if call_id:
            remember(self._names, call_id, name, _MAX_CALLS)
        return call_records(origin, call_id, name, obj.get("parameters"))

    def _tool_result(self, obj: Line, origin: Origin) -> ToolResult:
        call_id = text_or_none(obj.get("tool_id")) or ""
        failed = obj.get("status") != "success"
        output = text_or_none(obj.get("output"))
        message = _error_message(obj.get("error"))
        if failed and message:
            output = f"{message}\n\n{output}" if output and output != message else message
        return ToolResult(
            origin,
            call_id=call_id,
            output=output or "",
            is_error=failed,
            name=self._names.pop(call_id, None),
        )

    def _error(self, obj: Line, origin: Origin) -> Notice:
        message = text_of(obj.get("message"))
        self._last_error = message
        severity = obj.get("severity")
        level = severity if isinstance(severity, str) and severity in _LEVELS else "warning"
        if level == "error" and self._benign(message):
            # the answer is complete: only the step after it came back empty
            return _trailing_error(origin, message)
        return Notice(origin, kind=level, text=clip(message), level=level)

    def _result(self, obj: Line, origin: Origin) -> list[Record]:
        status = text_or_none(obj.get("status"))
        message = _error_message(obj.get("error"))
        succeeded = status == "success"
        subtype = status
        out: list[Record] = []
        if status == "error" and self._benign(message or self._last_error or ""):
            if message is not None and message != self._last_error:  # no error event said it
                out.append(_trailing_error(origin, message))
            succeeded, subtype, message = True, None, None
        elif not succeeded and message is None:
            message = self._last_error or None
        self._answered, self._last_error = False, None
        out.append(_session_result(obj, origin, succeeded, subtype, message))
        return out

    def _benign(self, message: str) -> bool:
        return self._answered and BENIGN_ERROR in message.lower()

    def finish(self) -> list[Record]:
        return []


def _error_message(error: object) -> str | None:
    """The message of an ``error: {type, message}`` (or of an error given as text)."""
    return text_or_none(error.get("message") if isinstance(error, dict) else error)


def _started(obj: Line, origin: Origin) -> SessionStarted:
    return SessionStarted(
        origin,
        agent=AGENT,
        model=text_or_none(obj.get("model")),
        version=text_or_none(obj.get("cli_version")),
    )


def _session_result(
    obj: Line, origin: Origin, succeeded: bool, subtype: str | None, error: str | None
) -> SessionResult:
    stats = obj.get("stats")
    stats = stats if isinstance(stats, dict) else {}
    models = stats.get("models")
    if not _measured(stats):
        stats = {}
    return SessionResult(
        origin,
        status=ResultStatus.SUCCEEDED if succeeded else ResultStatus.FAILED,
        subtype=subtype,
        error=clip(error, 1500) if error else None,
        duration_ms=as_int(stats.get("duration_ms")),
        input_tokens=_fresh_input(stats),
        output_tokens=as_int(stats.get("output_tokens")),
        cache_read_tokens=as_int(stats.get("cached")),
        models=tuple([str(model) for model in models]) if isinstance(models, dict) else (),
    )


def _trailing_error(origin: Origin, message: str) -> Notice:
    """A benign error after a complete answer: a warning, not the session's failure."""
    return Notice(origin, kind="trailing_error", text=clip(message), level="warning")


def _measured(stats: Line) -> bool:
    """Whether a result's ``stats`` measured anything: one of its figures is not zero (all
    zero is what Gemini CLI writes for a request that never ran)."""
    return any(as_int(value) for value in stats.values())


def _fresh_input(stats: Line) -> int | None:
    """Input tokens not read from the cache, as the other formats count them: ``input``
    (``input_tokens`` is fresh and cached together)."""
    fresh = as_int(stats.get("input"))
    if fresh is not None:
        return fresh
    return uncached_input(as_int(stats.get("input_tokens")), as_int(stats.get("cached")))


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=True,
    produced_by="`gemini --output-format stream-json`",
)
