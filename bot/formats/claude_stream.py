"""Format: Claude Code stream-json (``claude -p --output-format stream-json --verbose``).

One JSON object a line: ``system`` (``init``, ``compact_boundary``, hooks, tasks, ``status``...),
``assistant``/``user`` (an API message or one block of it; blocks of one message share
``message.id``; a Task subagent's lines carry ``parent_tool_use_id``), ``result`` (one per run,
or per turn), ``stream_event`` and a few others. Only newer CLIs write a ``timestamp``.
"""

from __future__ import annotations

from typing import Any, Final

import orjson
from mypy_extensions import mypyc_attr

from bot.formats.common import as_float, as_int, loads_maybe, text_of, to_utc, todos_of
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.records import (
    AssistantText,
    Compaction,
    Ignored,
    Notice,
    Origin,
    PermissionDenial,
    Record,
    ResultStatus,
    SessionResult,
    SessionStarted,
    Thinking,
    TodoUpdate,
    ToolCall,
    ToolResult,
    UserText,
)

FAMILY = "claude-stream-json"
AGENT = "Claude Code"

# A tuple: `type` may be a list.
_TOOL_USE_BLOCKS: Final = ("tool_use", "server_tool_use", "mcp_tool_use")
_INTERRUPTED: Final = "[Request interrupted by user"
_REJECTED: Final = "The user doesn't want to proceed with this tool use"
_STOPPED_BY_USER: Final = (_INTERRUPTED, _REJECTED)
_LOCAL_COMMAND: Final = "<local-command-stdout>"
# System subtypes and top-level types a channel reader never wants: ticks and plumbing.
_NOISY_SUBTYPES: Final = frozenset(
    {"hook_started", "hook_progress", "task_progress", "task_updated", "thinking_tokens"}
    | {"background_tasks_changed"}
)
_QUIET_TYPES: Final = frozenset(
    {"control_request", "control_response", "control_cancel_request", "keep_alive"}
    | {"tool_progress"}
)
_SUMMARY_SKIPS: Final = frozenset(
    {"type", "subtype", "session_id", "uuid", "timestamp", "parent_tool_use_id"}
)
_INPUT_SUMMARY_KEYS: Final = (
    "command",
    "file_path",
    "path",
    "pattern",
    "url",
    "query",
    "description",
)
_CLIP: Final = 300


Line = dict[str, Any]


def detect(obj: object) -> bool:
    """A stream-json line: snake-case ``session_id``, none of a transcript's camel-case keys, and
    the shape of its ``type`` (``message`` for user/assistant, ``subtype`` for system...)."""
    if not isinstance(obj, dict) or "session_id" not in obj:
        return False
    if "sessionId" in obj or "parentUuid" in obj:
        return False
    kind = obj.get("type")
    if kind == "assistant" or kind == "user":
        return isinstance(obj.get("message"), dict)
    if kind == "system":
        return "subtype" in obj
    if kind == "result":
        return "subtype" in obj or "is_error" in obj
    return kind == "stream_event"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    """Keeps the last session id seen, for lines that carry none."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._session = source

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        if not isinstance(obj, dict):
            return None
        kind = obj.get("type")
        if not isinstance(kind, str):
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
        elif kind == "user":
            records = _user(obj, origin)
        elif kind == "system":
            records = [_system(obj, origin)]
        elif kind == "result":
            records = [_result(obj, origin)]
        elif kind == "stream_event":
            records = [_ignored(origin, kind)]
        else:
            records = _other_type(kind, obj, origin)
        if records is None or records:
            return records
        return [_ignored(origin, f"empty {kind}")]

    def finish(self) -> list[Record]:
        return []


def _assistant(obj: Line, origin: Origin) -> list[Record] | None:
    message = obj.get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    error = obj.get("error")
    if isinstance(error, str) and error:
        text = text_of(content) or f"API error: {error}"
        return [_notice(origin, "api_error", _clip(text), "error")]
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
        out.append(_ignored(origin, str(kind)))


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


def _user(obj: Line, origin: Origin) -> list[Record] | None:
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
                out.append(_tool_result(block, origin))
            elif kind == "text":
                out.extend(_user_text(block.get("text"), obj, origin))
            else:  # images, documents: the session is told nothing new
                out.append(_ignored(origin, str(kind)))
    return out


def _user_text(text: object, obj: Line, origin: Origin) -> list[Record]:
    if not isinstance(text, str) or not text or text.isspace():
        return []
    if text.startswith(_INTERRUPTED):
        return [_notice(origin, "interrupted", text.strip("[] \n"), "warning")]
    if obj.get("isSynthetic") is True:  # the compaction summary handed back to the model
        return [_ignored(origin, "synthetic user text")]
    if text.startswith(_LOCAL_COMMAND):  # a slash command's own output, e.g. "Compacted"
        inner = text.removeprefix(_LOCAL_COMMAND).removesuffix("</local-command-stdout>")
        return [_notice(origin, "local_command", _clip(inner.strip()))]
    return [UserText(origin, text=text)]


def _tool_result(block: Line, origin: Origin) -> ToolResult:
    content = block.get("content")
    output = content if isinstance(content, str) else text_of(content)
    return ToolResult(
        origin,
        call_id=str(block.get("tool_use_id") or ""),
        output=output,
        is_error=bool(block.get("is_error")),
        interrupted=output.startswith(_STOPPED_BY_USER),
    )


def _system(obj: Line, origin: Origin) -> Record:
    subtype = obj.get("subtype")
    if subtype == "init":
        return _started(obj, origin)
    if subtype == "compact_boundary":
        return _compaction(obj, origin)
    if subtype == "status":
        return _status(obj, origin)
    name = subtype if isinstance(subtype, str) and subtype else "system"
    if name in _NOISY_SUBTYPES:
        return _ignored(origin, name)
    text, level = _system_text(name, obj)
    return _notice(origin, name, _clip(text), level)


def _started(obj: Line, origin: Origin) -> SessionStarted:
    tools = obj.get("tools")
    return SessionStarted(
        origin,
        agent=AGENT,
        model=_text(obj.get("model")),
        cwd=_text(obj.get("cwd")),
        version=_text(obj.get("claude_code_version")),
        tools=tuple([t for t in tools if isinstance(t, str)]) if isinstance(tools, list) else (),
    )


def _compaction(obj: Line, origin: Origin) -> Compaction:
    meta = _dict(obj.get("compact_metadata") or obj.get("compactMetadata"))
    pre_tokens = meta.get("pre_tokens", meta.get("preTokens"))
    return Compaction(
        origin,
        trigger=_text(meta.get("trigger")),
        pre_tokens=as_int(pre_tokens),
    )


def _status(obj: Line, origin: Origin) -> Record:
    """Compaction starting or failing and permission-mode changes; other ticks are hidden."""
    failure = _text(obj.get("compact_error"))
    if failure:
        return _notice(origin, "status", f"Compaction failed: {failure}", "warning")
    if obj.get("status") == "compacting":
        return _notice(origin, "status", "Compacting the conversation")
    mode = _text(obj.get("permissionMode"))
    if mode:
        return _notice(origin, "status", f"Permission mode: {mode}")
    return _ignored(origin, "status")


def _system_text(name: str, obj: Line) -> tuple[str, str]:
    """A short readable text for a system subtype, and its level."""
    if name == "hook_response":
        return _hook_text(obj)
    if name.startswith("task_"):  # task_started has no status yet; task_notification has one
        status = _text(obj.get("status")) or "started"
        what = _text(obj.get("summary")) or _text(obj.get("description")) or obj.get("task_id")
        level = "warning" if status in ("failed", "stopped") else "info"
        return f"Task {status}: {what or 'a background task'}", level
    if name == "permission_denied":
        return _text(obj.get("message")) or f"Permission denied: {obj.get('tool_name')}", "warning"
    return _summary(name, obj), _level_of(name)


def _hook_text(obj: Line) -> tuple[str, str]:
    name = _text(obj.get("hook_name")) or _text(obj.get("hook_event")) or "hook"
    code = as_int(obj.get("exit_code"))
    failed = obj.get("outcome") not in (None, "success") or code not in (None, 0)
    text = f"Hook {name} failed (exit {code})" if failed else f"Hook {name} ran"
    said = _text(obj.get("stderr") if failed else None) or _text(obj.get("output"))
    return (f"{text}: {said.strip()}" if said else text), ("warning" if failed else "info")


def _result(obj: Line, origin: Origin) -> SessionResult:
    subtype = _text(obj.get("subtype"))
    failed = obj.get("is_error") is True or (subtype is not None and subtype != "success")
    usage = _dict(obj.get("usage"))
    cost = as_float(obj.get("total_cost_usd"))
    models = obj.get("modelUsage")
    errors = obj.get("errors")
    return SessionResult(
        origin,
        status=ResultStatus.FAILED if failed else ResultStatus.SUCCEEDED,
        subtype=subtype,
        text=_text(obj.get("result")),
        error=_text(obj.get("error")),
        duration_ms=as_int(obj.get("duration_ms")),
        duration_api_ms=as_int(obj.get("duration_api_ms")),
        num_turns=as_int(obj.get("num_turns")),
        cost_usd=as_float(obj.get("cost_usd")) if cost is None else cost,
        input_tokens=as_int(usage.get("input_tokens")),
        output_tokens=as_int(usage.get("output_tokens")),
        cache_read_tokens=as_int(usage.get("cache_read_input_tokens")),
        cache_write_tokens=as_int(usage.get("cache_creation_input_tokens")),
        models=tuple(models) if isinstance(models, dict) else (),
        permission_denials=_denials(obj.get("permission_denials")),
        errors=tuple(text_of(e) for e in errors if e) if isinstance(errors, list) else (),
    )


def _denials(value: object) -> tuple[PermissionDenial, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(
        PermissionDenial(
            tool_name=str(denial.get("tool_name") or ""),
            call_id=_text(denial.get("tool_use_id")),
            summary=_input_summary(denial.get("tool_input")),
        )
        for denial in value
        if isinstance(denial, dict)
    )


def _other_type(kind: str, obj: Line, origin: Origin) -> list[Record] | None:
    """Permission prompts and rate-limit warnings; plumbing is hidden. Another type is a notice
    when the line names its session, else not this format."""
    request = obj.get("request")
    if isinstance(request, dict) and request.get("subtype") == "can_use_tool":
        tool = _text(request.get("tool_name")) or "a tool"
        detail = _input_summary(request.get("input"))
        text = f"Waiting for permission to use {tool}" + (f": {detail}" if detail else "")
        return [_notice(origin, "permission_request", _clip(text), "warning")]
    limits = obj.get("rate_limit_info")
    allowed = isinstance(limits, dict) and limits.get("status") == "allowed"
    if allowed or kind in _QUIET_TYPES:
        return [_ignored(origin, kind)]
    if "session_id" not in obj:
        return None
    level = "warning" if limits is not None else _level_of(kind)
    return [_notice(origin, kind, _summary(kind, obj), level)]


def _dict(value: object) -> Line:
    return value if isinstance(value, dict) else {}


def _text(value: object) -> str | None:
    """A non-empty string, or None."""
    return value if isinstance(value, str) and value else None


def _clip(text: str, limit: int = _CLIP) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _input_summary(tool_input: object) -> str | None:
    """A tool input in a few words: its command, path, pattern... or its JSON, clipped."""
    if isinstance(tool_input, dict):
        for key in _INPUT_SUMMARY_KEYS:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                return _clip(value, 120)
        return _clip(orjson.dumps(tool_input).decode(), 120) if tool_input else None
    return _clip(tool_input, 120) if isinstance(tool_input, str) and tool_input else None


def _summary(name: str, obj: Line) -> str:
    """``name: key=value, ...`` from a line's plain fields (one level of nesting)."""
    parts: list[str] = []
    for key, value in obj.items():
        if key in _SUMMARY_SKIPS:
            continue
        if isinstance(value, dict):
            parts.extend(f"{k}={v}" for k, v in value.items() if _is_plain(v))
        elif _is_plain(value):
            parts.append(f"{key}={value}")
    return _clip(f"{name}: {', '.join(parts)}" if parts else name)


def _is_plain(value: object) -> bool:
    return isinstance(value, (str, int, float)) and value != ""


def _level_of(name: str) -> str:
    return "warning" if ("error" in name or "fail" in name or "retry" in name) else "info"


def _notice(origin: Origin, kind: str, text: str, level: str = "info") -> Notice:
    return Notice(origin, kind=kind, text=text, level=level)


def _ignored(origin: Origin, kind: str) -> Ignored:
    return Ignored(origin, kind=kind)


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=True,
    produced_by="`claude -p --output-format stream-json --verbose`",
)
