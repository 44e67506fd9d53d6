"""Cursor's tool calls: one ``tool_call`` event when a call starts and one when it completes,
each holding ``{"<kind>ToolCall": {"args": {…}, "result": {…}}}`` with ONE key naming the tool
(``shellToolCall``, ``readToolCall``, ``editToolCall``, ``updateTodosToolCall``, ``mcpToolCall``…:
an open-ended set), or ``{"function": {"name", "arguments"}}`` for other tools.

The result holds ``success`` (a shell command's ``exitCode``, ``stdout``, ``stderr``; a read's
``content``…), ``failure``, ``error`` or ``rejected`` (``reason``).
"""

from __future__ import annotations

from typing import Any, Final

from bot.formats.common import loads_maybe, todos_of
from bot.records import Origin, Record, TodoUpdate, ToolCall, ToolResult
from bot.values import as_int, json_text

_SUFFIX: Final = "ToolCall"
_TODO_KINDS: Final = ("updateTodosToolCall", "todoWriteToolCall", "todoToolCall")
_TODO_STATUS: Final = "TODO_STATUS_"
# What a result's text is, the first found: a read's content, a command's output...
_TEXT_KEYS: Final = ("content", "interleavedOutput", "stdout", "output", "message", "text")
# What a failure says, after its output (``interleavedOutput``, else ``stdout`` and ``stderr``)
_FAILURE_KEYS: Final = ("error", "errorMessage", "message", "reason")

Line = dict[str, Any]


def tool_of(event: Line) -> tuple[str, Line] | None:
    """The tool's key and its ``{args, result}``, or ``None`` when the event names no tool."""
    payload = event.get("tool_call")
    if not isinstance(payload, dict):
        return None
    for key, value in payload.items():
        if isinstance(value, dict):
            return key, value
    return None


def started(call_id: str, kind: str, tool: Line, origin: Origin) -> list[Record]:
    """The ``ToolCall`` (and the todo list, for a todo tool) of a call that starts."""
    name, arguments, raw = _name_and_arguments(kind, tool)
    out: list[Record] = [
        ToolCall(
            origin,
            call_id=call_id,
            name=name,
            input=arguments,
            raw_input=raw,
        )
    ]
    todos = arguments.get("todos")
    if kind in _TODO_KINDS and isinstance(todos, list) and arguments.get("merge") is not True:
        out.append(_todo_update(todos, call_id, origin))
    return out


def completed(call_id: str, kind: str, tool: Line, event: Line, origin: Origin) -> list[Record]:
    """The ``ToolResult`` of a call that completes (and its todo list as it now stands)."""
    result = tool.get("result")
    output, failed = _outcome(result if isinstance(result, dict) else {}, event)
    out: list[Record] = [
        ToolResult(
            origin,
            call_id=call_id,
            output=output,
            is_error=failed,
            name=_name_and_arguments(kind, tool)[0],
        )
    ]
    success = result.get("success") if isinstance(result, dict) else None
    todos = success.get("todos") if isinstance(success, dict) else None
    if kind in _TODO_KINDS and isinstance(todos, list):
        out.append(_todo_update(todos, call_id, origin))
    return out


def _name_and_arguments(kind: str, tool: Line) -> tuple[str, dict[str, Any], str | None]:
    """The tool's name (``shellToolCall`` → ``Shell``; an MCP tool as ``mcp__server__tool``),
    its arguments, and the arguments as given when they are not a JSON object."""
    if kind == "function":  # {"name", "arguments"}: the arguments may be JSON text
        raw = tool.get("arguments", tool.get("args"))
        parsed = raw if isinstance(raw, dict) else loads_maybe(raw)
        arguments = parsed if isinstance(parsed, dict) else {}
        shown = raw if isinstance(raw, str) and not arguments else None
        return str(tool.get("name") or "function"), arguments, shown
    args = tool.get("args")
    arguments = args if isinstance(args, dict) else {}
    if kind == "mcpToolCall":
        return _mcp_name(arguments), arguments, None
    base = kind.removesuffix(_SUFFIX) or kind
    return base[:1].upper() + base[1:], arguments, None


def _mcp_name(args: Line) -> str:
    server = _first_text(args, ("providerIdentifier", "serverName", "server")) or "mcp"
    tool = _first_text(args, ("toolName", "name", "tool")) or "tool"
    return f"mcp__{server}__{tool}"


def _outcome(result: Line, event: Line) -> tuple[str, bool]:
    """What a completed call gives back, and whether it failed: a ``failure``, an ``error``, a
    ``rejected`` call, an exit code other than 0, or an event marked ``is_error``."""
    for key in ("failure", "error"):
        failure = result.get(key)
        if failure is not None:
            return _failure_text(failure), True
    rejected = result.get("rejected")
    if rejected is not None:
        reason = _first_text(rejected, ("reason",)) if isinstance(rejected, dict) else None
        return f"Rejected: {reason}" if reason else "Rejected", True
    success = result.get("success")
    if isinstance(success, dict):
        code = as_int(success.get("exitCode"))
        if code is not None and code != 0:
            return _failure_text(success, code), True
        return _success_text(success), event.get("is_error") is True
    if success is not None:
        return _text_or_json(success), event.get("is_error") is True
    return "", event.get("is_error") is True


def _success_text(success: Line) -> str:
    text = _first_text(success, _TEXT_KEYS)
    if text is not None:
        return text
    if "exitCode" in success:  # a command that printed nothing
        return ""
    return json_text(success) if success else ""


def _failure_text(failure: object, code: int | None = None) -> str:
    if not isinstance(failure, dict):
        return _text_or_json(failure)
    code = code if code is not None else as_int(failure.get("exitCode"))
    said = _output_of(failure) or _first_text(failure, _FAILURE_KEYS) or ""
    if code is not None and code != 0:
        return f"Exit code {code}\n{said}" if said else f"Exit code {code}"
    return said or json_text(failure)


def _output_of(failure: Line) -> str:
    """A failed command's output: ``interleavedOutput`` (both streams as they came), else its
    ``stdout`` then its ``stderr``, neither dropped."""
    interleaved = _first_text(failure, ("interleavedOutput",))
    if interleaved is not None:
        return interleaved
    streams = [_first_text(failure, (key,)) for key in ("stdout", "stderr")]
    return "\n".join([text.rstrip("\n") for text in streams if text is not None])


def _text_or_json(value: object) -> str:
    return value if isinstance(value, str) else json_text(value)


def _first_text(fields: Line, keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = fields.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _todo_update(items: list[Any], call_id: str, origin: Origin) -> TodoUpdate:
    """Cursor's statuses (``TODO_STATUS_IN_PROGRESS``) in Claude's words (``in_progress``)."""
    todos: list[Any] = []
    for item in items:
        if isinstance(item, dict):
            status = item.get("status")
            if isinstance(status, str) and status.startswith(_TODO_STATUS):
                item = {**item, "status": status.removeprefix(_TODO_STATUS).lower()}
        todos.append(item)
    return TodoUpdate(origin, todos=todos_of(todos), call_id=call_id or None)
