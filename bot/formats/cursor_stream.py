"""Format: Cursor CLI stream-json (``agent -p --output-format stream-json``).

Shaped like Claude Code's stream-json, but not the same: one JSON object a line, ``system/init``
(``apiKeySource``, ``cwd``, ``model``, ``permissionMode``; no tool list), ``user``, ``assistant``
(a bare ``{role, content}`` message; ``model_call_id`` and ``timestamp_ms`` before tool calls),
``thinking`` (one ``delta`` line per token, then ``completed``), ``tool_call`` (``started`` and
``completed``, see ``cursor_stream_tools``) and ``result`` (no cost, no tokens).

Thinking deltas are joined into one ``Thinking``, given at ``thinking/completed`` or at the next
other event. With ``--stream-partial-output`` the assistant text arrives as deltas (with
``timestamp_ms``, without ``model_call_id``) and is then repeated whole (before a tool call,
and at the end): the repetition is not shown twice. A ``call_id`` may hold a newline.

The result's ``result`` is every assistant message of the run glued together (parallel-sleep,
line 9: the first message then ``done``): such a result gives the last message as its text.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from datetime import datetime
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats import cursor_stream_tools as tools
from bot.formats.claude_stream_dialects import error_text
from bot.formats.claude_stream_notices import ignored, notice, summary
from bot.formats.common import remember, text_of, to_utc, type_of
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.records import AssistantText, Origin, Record, SessionStarted, Thinking, UserText
from bot.result_records import ResultStatus, SessionResult
from bot.values import as_int, clip, text_or_none

FAMILY: Final = "cursor-stream-json"
AGENT: Final = "Cursor"

_MAX_CALLS: Final = 1024  # calls started and not yet completed

Line = dict[str, Any]


def detect(obj: object) -> bool:
    """A line only Cursor writes: its ``thinking`` and ``tool_call`` events, its init (no tool
    list, unlike Claude Code's), an assistant line with ``model_call_id`` or ``timestamp_ms``, or
    a result with a ``request_id`` and no turn count. Its bare user and final assistant lines
    look like anyone's: they are read once another line has told the format."""
    if not isinstance(obj, dict) or not isinstance(obj.get("session_id"), str):
        return False
    kind = obj.get("type")
    if kind == "thinking":
        return isinstance(obj.get("subtype"), str)
    if kind == "tool_call":
        return isinstance(obj.get("tool_call"), dict) and "call_id" in obj
    if kind == "system":
        return (
            obj.get("subtype") == "init"
            and "apiKeySource" in obj
            and "tools" not in obj
            and "claude_code_version" not in obj
        )
    if kind == "assistant":
        cursor_keys = "model_call_id" in obj or "timestamp_ms" in obj
        return isinstance(obj.get("message"), dict) and cursor_keys and "uuid" not in obj
    if kind == "result":
        return "request_id" in obj and "num_turns" not in obj
    return False


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    """Keeps the last session id, the thinking being streamed, the assistant text streamed
    since the last whole message, and the calls started and not completed."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._session = source
        self._thinking: list[str] = []
        self._thinking_at: datetime | None = None
        self._thinking_line = 0
        self._segment = ""  # assistant text deltas since the last whole message
        self._turn = ""  # assistant text deltas since the prompt
        self._calls: OrderedDict[str, None] = OrderedDict()
        # the run's whole assistant messages: the first, the last, how many, their joined length
        self._said_first = ""
        self._said_last = ""
        self._said_count = 0
        self._said_length = 0

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        kind = type_of(obj)
        if kind is None:
            return None
        given = obj.get("session_id")
        if isinstance(given, str) and given:
            self._session = given
        stamp = obj.get("timestamp_ms", obj.get("timestamp"))
        origin = Origin(self._session, None if stamp is None else to_utc(stamp), line)
        if kind == "thinking":
            return self._thinking_event(obj, origin)
        out = self._flush_thinking(origin)
        records = self._event(kind, obj, origin)
        if records is None:
            return None
        out.extend(records)
        return out or [ignored(origin, f"empty {kind}")]

    def finish(self) -> list[Record]:
        if not self._thinking:
            return []
        origin = Origin(self._session, self._thinking_at, self._thinking_line)
        return self._flush_thinking(origin)

    def _event(self, kind: str, obj: Line, origin: Origin) -> list[Record] | None:
        if kind == "assistant":
            return self._assistant(obj, origin)
        if kind == "tool_call":
            return self._tool_call(obj, origin)
        if kind == "user":
            self._segment = self._turn = ""
            self._forget_said()
            return _user(obj, origin)
        if kind == "system":
            return [_system(obj, origin)]
        if kind == "result":
            if self._segment:  # streamed text no whole message repeated
                self._said(self._segment)
            self._segment = self._turn = ""
            result = _result(obj, origin)
            if result.text is not None and self._is_all_said(result.text):
                result = dataclasses.replace(result, text=self._said_last)
            self._forget_said()
            return [result]
        return [notice(origin, kind, summary(kind, obj))]

    # --- thinking ------------------------------------------------------------------------------

    def _thinking_event(self, obj: Line, origin: Origin) -> list[Record]:
        subtype = obj.get("subtype")
        text = obj.get("text")
        if subtype == "delta":
            if isinstance(text, str) and text:
                if not self._thinking:
                    self._thinking_at = origin.timestamp
                self._thinking.append(text)
                self._thinking_line = origin.line
            return [ignored(origin, "thinking delta")]
        out = self._flush_thinking(origin)
        if subtype == "completed":
            return out or [ignored(origin, "thinking completed")]
        out.append(notice(origin, "thinking", summary(f"thinking {subtype}", obj)))
        return out

    def _flush_thinking(self, origin: Origin) -> list[Record]:
        """The thinking streamed so far, joined into one record (none when there is none)."""
        if not self._thinking:
            return []
        text = "".join(self._thinking)
        self._thinking = []
        self._thinking_at = None
        return [] if text.isspace() else [Thinking(origin, text=text)]

    # --- assistant text and tool calls --------------------------------------------------------

    def _assistant(self, obj: Line, origin: Origin) -> list[Record] | None:
        message = obj.get("message")
        if not isinstance(message, dict):
            return None
        text = text_of(message.get("content"))
        if not text:
            return []
        call = text_or_none(obj.get("model_call_id"))
        if call is None and "timestamp_ms" in obj:  # a delta of --stream-partial-output
            self._segment += text
            self._turn += text
            return [AssistantText(origin, text=text, delta=True)]
        segment, turn, self._segment = self._segment, self._turn, ""
        if segment or turn:  # deltas were streamed: this whole message may repeat them
            whole = text.strip()
            if whole == segment.strip() or whole == turn.strip():
                if whole == segment.strip():  # not the run's earlier messages again
                    self._said(text)
                return [ignored(origin, "assistant text repeated")]
        self._said(text)
        return [AssistantText(origin, text=text, message_id=call)]

    def _said(self, text: str) -> None:
        if not self._said_count:
            self._said_first = text
        self._said_last = text
        self._said_count += 1
        self._said_length += len(text)

    def _forget_said(self) -> None:
        self._said_first = self._said_last = ""
        self._said_count = self._said_length = 0

    def _is_all_said(self, text: str) -> bool:
        """Whether a result's ``text`` is the run's assistant messages (two or more) joined:
        it has their length, starts with the first and ends with the last."""
        return (
            self._said_count > 1
            and len(text) == self._said_length
            and text.startswith(self._said_first)
            and text.endswith(self._said_last)
        )

    def _tool_call(self, obj: Line, origin: Origin) -> list[Record]:
        found = tools.tool_of(obj)
        subtype = obj.get("subtype")
        if found is None or subtype not in ("started", "completed"):
            return [notice(origin, "tool_call", summary(f"tool_call {subtype}", obj), "warning")]
        kind, tool = found
        call_id = str(obj.get("call_id") or "")
        if subtype == "started":
            remember(self._calls, call_id, None, _MAX_CALLS)
            return tools.started(call_id, kind, tool, origin)
        out: list[Record] = []
        if call_id in self._calls:
            del self._calls[call_id]
        else:  # a call seen only completed: its call first, then its result
            out.extend(tools.started(call_id, kind, tool, origin))
        out.extend(tools.completed(call_id, kind, tool, obj, origin))
        return out


def _user(obj: Line, origin: Origin) -> list[Record] | None:
    message = obj.get("message")
    if not isinstance(message, dict):
        return None
    text = text_of(message.get("content"))
    return [UserText(origin, text=text)] if text and not text.isspace() else []


def _system(obj: Line, origin: Origin) -> Record:
    subtype = text_or_none(obj.get("subtype")) or "system"
    if subtype != "init":
        return notice(origin, subtype, summary(subtype, obj))
    return SessionStarted(
        origin,
        agent=AGENT,
        model=text_or_none(obj.get("model")),
        cwd=text_or_none(obj.get("cwd")),
    )


def _result(obj: Line, origin: Origin) -> SessionResult:
    subtype = text_or_none(obj.get("subtype"))
    failed = obj.get("is_error") is True or (subtype is not None and subtype != "success")
    error = error_text(obj.get("error"))
    return SessionResult(
        origin,
        status=ResultStatus.FAILED if failed else ResultStatus.SUCCEEDED,
        subtype=subtype,
        text=text_or_none(obj.get("result")),
        error=clip(error) if error else None,
        duration_ms=as_int(obj.get("duration_ms")),
        duration_api_ms=as_int(obj.get("duration_api_ms")),
    )


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=True,
    produced_by="`agent -p --output-format stream-json` (Cursor CLI)",
)
