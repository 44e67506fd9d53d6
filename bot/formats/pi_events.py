"""Format: pi-json — pi's event stream (``pi --mode json``, the events of its RPC mode too).

One JSON object a line. Newer versions begin with the session file's own header (``{"type":
"session", "version", "id", "timestamp", "cwd"}``), which this family shares with
``pi_session`` and so does not claim: the line after it decides. Without a header (the samples
of older versions) no line names the session: its id is the source's name. Line → records:

- ``session`` → SessionStarted (its id names the session); the first ``agent_start`` without
  one → SessionStarted; an ``agent_start`` after a run's end → SessionStarted again (a new run
  of the same session: it is running again);
- ``message_end`` → the message's records (``pi_messages``); an assistant message's usage is
  added to the run's sums, and a model not seen before → SessionStarted naming it;
  ``message_start``/``message_update`` (the same message, in pieces) → Ignored: the text is
  shown once, whole, from ``message_end``;
- ``tool_execution_start`` → ToolCall unless the assistant message already announced it;
  ``tool_execution_end`` → ToolResult (``isError``); a ``toolResult`` message repeating it →
  Ignored;
- ``agent_end`` → SessionResult: failed when the run's last assistant message stopped on an
  error or was aborted, with the run's summed cost and tokens (the session adds its runs'
  up). A stream can hold several
  runs (another prompt, an automatic retry of a failed one): each ends with its result, and the
  last one stands, so a failure that pi retried is superseded by the retry's outcome;
- ``auto_retry_start`` → Notice (warning); ``auto_retry_end`` → Ignored, or a Notice when pi
  gave up; ``auto_compaction_start`` → Notice (status); ``auto_compaction_end`` → Compaction,
  or a Notice when it was aborted or failed;
- ``turn_start``, ``turn_end``, ``tool_execution_update`` → Ignored; another type → Notice.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.common import remember, text_of, to_utc, type_of
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.formats.pi_messages import (
    AGENT,
    Usage,
    assistant_records,
    is_message,
    message_records,
    model_of,
    tool_result,
)
from bot.records import (
    Compaction,
    Ignored,
    Notice,
    Origin,
    Record,
    SessionStarted,
    ToolCall,
    ToolResult,
)
from bot.values import as_int

FAMILY = "pi-json"

# Tuples, not sets: membership by equality never fails on an unhashable JSON value.
_MESSAGE_EVENTS: Final = ("message_start", "message_update", "message_end")
_TOOL_EVENTS: Final = ("tool_execution_start", "tool_execution_update", "tool_execution_end")
_OTHER_EVENTS: Final = (
    "agent_start", "turn_start", "turn_end", "auto_compaction_start", "auto_compaction_end",
    "auto_retry_start", "auto_retry_end", "compaction_start", "compaction_end",
)  # fmt: skip
_QUIET: Final = ("turn_start", "turn_end", "message_start", "message_update")
_SESSION_KEYS: Final = ("sessionID", "session_id", "sessionId")
_MAX_CALLS: Final = 4096

Line = dict[str, Any]


def detect(obj: object) -> bool:
    """An event of pi's agent session: one of its own types, and the shape it gives that type
    (a pi message, the messages of the run, a tool call id). The ``session`` header is not
    claimed: pi's session files begin with it too. No pi event names a session."""
    if not isinstance(obj, dict) or any(key in obj for key in _SESSION_KEYS):
        return False
    kind = obj.get("type")
    if kind in _MESSAGE_EVENTS:
        return is_message(obj.get("message"))
    if kind in _TOOL_EVENTS:
        return isinstance(obj.get("toolCallId"), str)
    if kind == "agent_end":
        return isinstance(obj.get("messages"), list)
    return kind in _OTHER_EVENTS


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    """Keeps the session, its sums, the run in progress and the tool calls already shown."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._session = source
        self._started = False
        self._ended = False  # the last run ended (with a result)
        self._model: str | None = None
        self._usage = Usage()
        self._last: Line | None = None  # the run's last assistant message
        self._calls: OrderedDict[str, None] = OrderedDict()  # calls announced
        self._answered: OrderedDict[str, None] = OrderedDict()  # calls given a result

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        kind = type_of(obj)
        if kind is None:
            return None
        if kind == "session":
            return self._header(obj, line)
        message = obj.get("message")
        stamp = message.get("timestamp") if isinstance(message, dict) else None
        origin = Origin(self._session, to_utc(stamp), line)
        if kind in _QUIET or kind == "tool_execution_update":
            return [Ignored(origin, kind=kind)]
        if kind == "message_end":
            if not isinstance(message, dict) or not is_message(message):
                return None
            return self._message_end(message, origin)
        if kind == "tool_execution_start":
            return [self._tool_start(obj, origin)]
        if kind == "tool_execution_end":
            return [self._tool_end(obj, origin)]
        if kind == "agent_start":
            return [self._agent_start(origin)]
        if kind == "agent_end":
            return [self._agent_end(obj, origin)]
        return [_session_event(kind, obj, origin)]

    def _header(self, obj: Line, line: int) -> list[Record] | None:
        given = obj.get("id")
        if not isinstance(given, str) or not given:
            return None
        self._session, self._started, self._ended = given, True, False
        self._model, self._usage, self._last = None, Usage(), None
        origin = Origin(given, to_utc(obj.get("timestamp")), line)
        cwd = obj.get("cwd")
        started = SessionStarted(origin, agent=AGENT, cwd=cwd if isinstance(cwd, str) else None)
        return [started]

    def _agent_start(self, origin: Origin) -> Record:
        """A run begins: the session's start, or its start again after a run ended."""
        self._last = None
        if self._started and not self._ended:
            return Ignored(origin, kind="agent_start")
        self._started, self._ended = True, False
        return SessionStarted(origin, agent=AGENT, model=self._model)

    def _message_end(self, message: Line, origin: Origin) -> list[Record]:
        out: list[Record] = []
        role = message.get("role")
        if role == "assistant":
            self._last = message
            self._usage.add(message)
            model = model_of(message)
            if model is not None and model != self._model:
                self._model = model
                out.append(SessionStarted(origin, agent=AGENT, model=model))
            assistant_records(message, origin, out)
            for record in out:
                if type(record) is ToolCall:
                    remember(self._calls, record.call_id, None, _MAX_CALLS)
                elif type(record) is ToolResult:  # a call of a failed message: never run
                    remember(self._answered, record.call_id, None, _MAX_CALLS)
        elif role == "toolResult":
            result = tool_result(message, origin)
            if result.call_id in self._answered:
                return [Ignored(origin, kind="toolResult")]
            remember(self._answered, result.call_id, None, _MAX_CALLS)
            out.append(result)
        else:
            message_records(message, origin, out)
        return out or [Ignored(origin, kind="empty message")]

    def _tool_start(self, obj: Line, origin: Origin) -> Record:
        call_id = obj.get("toolCallId")
        if not isinstance(call_id, str) or call_id in self._calls:
            return Ignored(origin, kind="tool_execution_start")
        remember(self._calls, call_id, None, _MAX_CALLS)
        name, arguments = obj.get("toolName"), obj.get("args")
        return ToolCall(
            origin,
            call_id=call_id,
            name=name if isinstance(name, str) else "",
            input=arguments if isinstance(arguments, dict) else {},
        )

    def _tool_end(self, obj: Line, origin: Origin) -> Record:
        call_id = obj.get("toolCallId")
        if not isinstance(call_id, str) or call_id in self._answered:
            return Ignored(origin, kind="tool_execution_end")
        remember(self._answered, call_id, None, _MAX_CALLS)
        result, name = obj.get("result"), obj.get("toolName")
        content = result.get("content") if isinstance(result, dict) else result
        return ToolResult(
            origin,
            call_id=call_id,
            output=text_of(content),
            is_error=obj.get("isError") is True,
            name=name if isinstance(name, str) and name else None,
        )

    def _agent_end(self, obj: Line, origin: Origin) -> Record:
        """A run ended: its last assistant message says how."""
        last = self._last or _last_assistant(obj.get("messages"))
        self._ended, self._last = True, None
        usage, self._usage = self._usage, Usage()  # a result is its run's: the session sums them
        return usage.result(origin, last)


def _last_assistant(messages: object) -> Line | None:
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            return message
    return None


def _session_event(kind: str, obj: Line, origin: Origin) -> Record:
    """Retries, compactions, and types newer than this module."""
    if kind == "auto_retry_start":
        attempt, most = as_int(obj.get("attempt")), as_int(obj.get("maxAttempts"))
        delay = as_int(obj.get("delayMs"))
        what = f"attempt {attempt} of {most}" if most else f"attempt {attempt}"
        when = f", in {delay / 1000:g} s" if delay is not None else ""
        error = text_of(obj.get("errorMessage")) or "an error"
        return Notice(origin, kind="retry", text=f"Retrying ({what}{when}) after: {error}",
                      level="warning")  # fmt: skip
    if kind == "auto_retry_end":
        if obj.get("success") is not False:
            return Ignored(origin, kind=kind)
        error = text_of(obj.get("finalError")) or "an error"
        return Notice(origin, kind="retry", text=f"Gave up retrying: {error}", level="error")
    if kind in ("auto_compaction_start", "compaction_start"):
        reason = obj.get("reason")
        why = f" ({reason})" if isinstance(reason, str) and reason else ""
        return Notice(origin, kind="status", text=f"Compacting the conversation{why}")
    if kind in ("auto_compaction_end", "compaction_end"):
        return _compaction_end(kind, obj, origin)
    return Notice(origin, kind=kind, text=kind.replace("_", " ").capitalize())


def _compaction_end(kind: str, obj: Line, origin: Origin) -> Record:
    result = obj.get("result")
    if isinstance(result, dict):
        summary = result.get("summary")
        return Compaction(
            origin,
            trigger="auto" if kind.startswith("auto_") else None,
            pre_tokens=as_int(result.get("tokensBefore")),
            summary=summary if isinstance(summary, str) and summary else None,
        )
    if obj.get("aborted") is True:
        return Notice(origin, kind="compaction", text="Compaction aborted", level="warning")
    error = text_of(obj.get("errorMessage"))
    if error:
        return Notice(origin, kind="compaction", text=f"Compaction failed: {error}",
                      level="warning")  # fmt: skip
    return Ignored(origin, kind=kind)


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=True,
    produced_by="`pi --mode json`",
)
