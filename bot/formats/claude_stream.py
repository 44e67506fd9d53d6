"""Format: Claude Code stream-json (``claude -p --output-format stream-json --verbose``).

One JSON object a line: ``system`` (``init``, ``compact_boundary``, hooks, tasks, ``status``...),
``assistant``/``user`` (an API message or one block of it; blocks of one message share
``message.id``; a Task subagent's lines carry ``parent_tool_use_id``), ``result`` (one per run,
or per turn), ``stream_event`` and a few others. Only newer CLIs write a ``timestamp``.

Amp and Qwen Code write it too (see ``claude_stream_dialects``): their sessions are labelled
after them, and Qwen Code's ``--output-format json`` (one JSON array of the same messages) is
read as the lines it holds. System lines and other types: ``claude_stream_notices``. A result
without ``usage`` (Amp's) gives its run's assistant messages' tokens (``claude_stream_usage``).
"""

from __future__ import annotations

from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats import claude_stream_dialects as dialects
from bot.formats.claude_stream_notices import denials, ignored, notice, other_type, system_record
from bot.formats.claude_stream_usage import RunUsage, counts_of
from bot.formats.claude_user_text import harness_record, person_text, subagent_prompt
from bot.formats.common import loads_maybe, text_of, to_utc, todos_of, type_of
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.formats.running_totals import Counts, ProcessTotals
from bot.records import (
    AssistantText,
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
from bot.values import as_float, as_int, clip, text_or_none

FAMILY = "claude-stream-json"
AGENT = dialects.CLAUDE_CODE

# A tuple: `type` may be a list.
_TOOL_USE_BLOCKS: Final = ("tool_use", "server_tool_use", "mcp_tool_use")
_INTERRUPTED: Final = "[Request interrupted by user"
_REJECTED: Final = "The user doesn't want to proceed with this tool use"
_STOPPED_BY_USER: Final = (_INTERRUPTED, _REJECTED)
_LOCAL_COMMAND: Final = "<local-command-stdout>"

Line = dict[str, Any]


def detect(obj: object) -> bool:
    """A stream-json line: snake-case ``session_id``, none of a transcript's camel-case keys, and
    the shape of its ``type`` (``message`` for user/assistant, ``subtype`` for system...); or a
    whole run as one JSON array (``--output-format json``, see ``claude_stream_dialects``)."""
    if isinstance(obj, list):
        return dialects.is_message_array(obj)
    if not isinstance(obj, dict) or "session_id" not in obj:
        return False
    if "sessionId" in obj or "parentUuid" in obj:
        return False
    kind = obj.get("type")
    if kind == "assistant" or kind == "user":
        message = obj.get("message")
        return isinstance(message, dict) and not _cursor_message(obj, message)
    if kind == "system":
        # Cursor's init has no tool list (nor mcp_servers, nor claude_code_version).
        return "subtype" in obj and not (obj.get("subtype") == "init" and "tools" not in obj)
    if kind == "result":  # Cursor's result counts no turns (and has a request_id)
        return ("subtype" in obj or "is_error" in obj) and "num_turns" in obj
    return kind == "stream_event"


def _cursor_message(obj: Line, message: Line) -> bool:
    """Cursor's user/assistant lines: a bare ``{role, content}`` message, where Claude Code's
    API message has an ``id`` and every Claude Code line a ``parent_tool_use_id`` or ``uuid``."""
    if "parent_tool_use_id" in obj or "uuid" in obj or "id" in message:
        return False
    return message.keys() <= {"role", "content"}


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    """Keeps the last session id seen, for lines that carry none, and who writes the stream
    (Claude Code, Amp, Qwen Code: named by its init)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._session = source
        self._agent = AGENT
        self._usage = RunUsage()  # the run's assistant messages' tokens, for a result without
        self._totals = ProcessTotals()  # what results said so far: each result's own share
        self._unnamed = 0  # assistant messages without an id so far

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        if isinstance(obj, list):
            return self._message_array(obj, line) if dialects.is_message_array(obj) else None
        kind = type_of(obj)
        if kind is None:
            return None
        given = obj.get("session_id")
        if isinstance(given, str) and given:
            self._session = given
        session = self._session
        stamp = obj.get("timestamp")
        at = None if stamp is None else to_utc(stamp)
        call = obj.get("parent_tool_use_id")
        parent = call if isinstance(call, str) and call else None
        uid = obj.get("uuid")
        origin = Origin(session, at, line, parent, None, uid if type(uid) is str else None)
        records: list[Record] | None
        if kind == "assistant":
            records = _assistant(obj, origin)
            self._count_usage(obj)
        elif kind == "user":
            amp = self._agent == dialects.AMP or dialects.is_amp_session(session)
            records = _user(obj, origin, amp)
        elif kind == "system":
            records = [self._system(obj, origin)]
        elif kind == "result":
            records = [_result(obj, origin, self._usage.totals(), self._totals)]
            self._usage.clear()
        elif kind == "stream_event":
            records = [ignored(origin, kind)]
        else:
            records = other_type(kind, obj, origin)
        if records is None or records:
            return records
        return [ignored(origin, f"empty {kind}")]

    def finish(self) -> list[Record]:
        return []

    def _count_usage(self, obj: Line) -> None:
        message = obj.get("message")
        if not isinstance(message, dict) or "usage" not in message:
            return
        mid = message.get("id")
        if not isinstance(mid, str) or not mid:
            self._unnamed += 1
            mid = f"#{self._unnamed}"
        self._usage.add(mid, message.get("usage"))

    def _message_array(self, messages: list[Any], line: int) -> list[Record]:
        """Each message of a ``--output-format json`` array, as if it were a line of its own."""
        out: list[Record] = []
        for message in messages:
            records = self.parse(message, line) if isinstance(message, dict) else None
            if records is None:
                origin = Origin(self._session, None, line)
                text = "A message of the run's JSON array was not understood"
                out.append(notice(origin, "unknown_message", text, "warning"))
            else:
                out.extend(records)
        return out

    def _system(self, obj: Line, origin: Origin) -> Record:
        if obj.get("subtype") != "init":
            return system_record(obj, origin)
        agent = self._agent = dialects.agent_of(obj)
        tools = obj.get("tools")
        names = [t for t in tools if isinstance(t, str)] if isinstance(tools, list) else []
        return SessionStarted(
            origin,
            agent=agent,
            model=dialects.model_of(obj, agent),
            cwd=text_or_none(obj.get("cwd")),
            version=dialects.version_of(obj),
            tools=tuple(names),
        )


def _assistant(obj: Line, origin: Origin) -> list[Record] | None:
    message = obj.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    error = obj.get("error")
    if isinstance(error, str) and error:
        text = text_of(content) or f"API error: {error}"
        return [notice(origin, "api_error", clip(text), "error")]
    mid = message.get("id")
    message_id = mid if isinstance(mid, str) and mid else None
    if isinstance(content, str):
        return [AssistantText(origin, text=content, message_id=message_id)] if content else []
    out: list[Record] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict):
                _assistant_block(block, origin, message_id, out)
    return out


def _assistant_block(
    block: Line, origin: Origin, message_id: str | None, out: list[Record]
) -> None:
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        if isinstance(text, str) and text:
            out.append(AssistantText(origin, text=text, message_id=message_id))
    elif kind in _TOOL_USE_BLOCKS:
        _tool_call(block, origin, out)
    elif kind == "thinking":
        thought = block.get("thinking")
        if isinstance(thought, str) and thought:
            out.append(Thinking(origin, text=thought))
    else:  # redacted_thinking, server tool results, blocks newer than this module
        out.append(ignored(origin, str(kind)))


def _tool_call(block: Line, origin: Origin, out: list[Record]) -> None:
    call_id = str(block.get("id") or "")
    name = str(block.get("name") or "")
    raw = block.get("input")
    arguments = raw if isinstance(raw, dict) else loads_maybe(raw)
    if not isinstance(arguments, dict):  # arguments that are not a JSON object: shown as given
        shown = raw if isinstance(raw, str) else None
        out.append(
            ToolCall(
                origin,
                call_id=call_id,
                name=name,
                input={},
                raw_input=shown,
            )
        )
        return
    out.append(ToolCall(origin, call_id=call_id, name=name, input=arguments))
    if name == "TodoWrite":
        todos = arguments.get("todos")
        if isinstance(todos, list):
            out.append(
                TodoUpdate(
                    origin,
                    todos=todos_of(todos),
                    call_id=call_id or None,
                )
            )


def _user(obj: Line, origin: Origin, amp: bool) -> list[Record] | None:
    message = obj.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return _user_text(content, obj, origin)
    out: list[Record] = []
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "tool_result":
                out.append(_tool_result(block, origin, amp))
            elif kind == "text":
                out.extend(_user_text(block.get("text"), obj, origin))
            else:  # images, documents: the session is told nothing new
                out.append(ignored(origin, str(kind)))
    return out


def _user_text(text: object, obj: Line, origin: Origin) -> list[Record]:
    if not isinstance(text, str) or not text or text.isspace():
        return []
    if text.startswith(_INTERRUPTED):
        return [notice(origin, "interrupted", text.strip("[] \n"), "warning")]
    if obj.get("isSynthetic") is True:  # the compaction summary handed back to the model
        return [ignored(origin, "synthetic user text")]
    if text.startswith(_LOCAL_COMMAND):  # a slash command's own output, e.g. "Compacted"
        inner = text.removeprefix(_LOCAL_COMMAND).removesuffix("</local-command-stdout>")
        return [notice(origin, "local_command", clip(inner.strip()))]
    if origin.parent_call is not None:  # a subagent's prompt, from the agent that started it
        return [subagent_prompt(text, origin)]
    injected = harness_record(text, origin)  # a task notification, a reminder, hook feedback
    return [UserText(origin, text=person_text(text)) if injected is None else injected]


def _tool_result(block: Line, origin: Origin, amp: bool) -> ToolResult:
    content = block.get("content")
    output = content if isinstance(content, str) else text_of(content)
    failed = bool(block.get("is_error"))
    said = dialects.amp_tool_output(output) if amp else None
    if said is not None:  # Amp: the command's own output, and its exit code
        output, failed = said[0], failed or said[1]
    return ToolResult(
        origin,
        call_id=str(block.get("tool_use_id") or ""),
        output=output,
        is_error=failed,
        interrupted=output.startswith(_STOPPED_BY_USER),
    )


def _result(obj: Line, origin: Origin, run_usage: Counts, totals: ProcessTotals) -> SessionResult:
    """The run's result, with its own share of what its process spent (``totals``); one
    without ``usage`` gives ``run_usage``, its messages' tokens."""
    subtype = text_or_none(obj.get("subtype"))
    failed = obj.get("is_error") is True or (subtype is not None and subtype != "success")
    given = obj.get("usage")
    said = counts_of(given) if isinstance(given, dict) else (None, None, None, None)
    total = as_float(obj.get("total_cost_usd"))
    cost, own = totals.own(origin.session_id, (total, said))
    tokens = own if isinstance(given, dict) else run_usage
    models = obj.get("modelUsage")
    errors = obj.get("errors")
    return SessionResult(
        origin,
        status=ResultStatus.FAILED if failed else ResultStatus.SUCCEEDED,
        subtype=subtype,
        text=text_or_none(obj.get("result")),
        error=dialects.error_text(obj.get("error")),
        duration_ms=as_int(obj.get("duration_ms")),
        duration_api_ms=as_int(obj.get("duration_api_ms")),
        num_turns=as_int(obj.get("num_turns")),
        cost_usd=as_float(obj.get("cost_usd")) if total is None else cost,
        input_tokens=tokens[0],
        output_tokens=tokens[1],
        cache_read_tokens=tokens[2],
        cache_write_tokens=tokens[3],
        models=tuple(models) if isinstance(models, dict) else (),
        permission_denials=denials(obj.get("permission_denials")),
        errors=tuple(text_of(e) for e in errors if e) if isinstance(errors, list) else (),
    )


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=True,
    produced_by="`claude -p --output-format stream-json --verbose`",
)
