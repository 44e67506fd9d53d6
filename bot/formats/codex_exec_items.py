"""Codex ``exec --json`` items: what ``item.started|updated|completed {item}`` becomes.

An item is ``{id, type, …}``; its id names it in all three events. Tool items (their call id is
the item's id):

- ``command_execution {command, aggregated_output, exit_code, status}`` → ToolCall("shell") when
  it starts, ToolResult when it completes; an error when ``status`` is failed or declined or the
  exit code is not 0;
- ``file_change {changes: [{path, kind}], status}`` (often completed only) → ToolCall
  ("apply_patch") + ToolResult, an error when ``status`` is failed;
- ``mcp_tool_call {server, tool, arguments, result, error, status}`` → ToolCall
  ("mcp__server__tool", as Claude names an MCP tool's call); an error when ``status`` is failed
  or ``error`` is given (``{message}``, a string, or null with the failure's text in
  ``result.content``);
- ``web_search {query, action}`` → ToolCall("web_search") + ToolResult;
- ``collab_tool_call {tool, receiver_thread_ids, prompt, agents_states, status}``: ``spawn_agent``
  → Delegation (to the first receiver) and a SubagentLink per receiver thread; ``send_input``,
  ``wait``, ``close_agent`` → ToolCall(tool); each completes with the agents' states.

A tool item seen first when it completes gets its ToolCall then: a call comes before its result.
Other items: ``agent_message {text, phase?}`` → AssistantText and ``reasoning {text}`` → Thinking
(both complete only), ``plan {text}`` → AssistantText when complete, ``todo_list {items}`` (every
phase) → TodoUpdate, ``error {message}`` → Notice(warning); an unknown type → Notice when it
completes. Item phases that say nothing new are Ignored.
"""

from __future__ import annotations

from typing import Any, Final

from bot.formats.common import mcp_name, text_of
from bot.records import (
    AssistantText,
    Delegation,
    Ignored,
    Notice,
    Origin,
    Record,
    SubagentLink,
    Thinking,
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
)
from bot.values import clip, json_text, text_or_empty

Item = dict[str, Any]

TOOL_ITEMS: Final = frozenset(
    {"command_execution", "file_change", "mcp_tool_call", "web_search", "collab_tool_call"}
)
_FAILED: Final = ("failed", "declined")  # a tuple: a status may be any JSON value


def tool_item(
    phase: str, item: Item, call_id: str, said: tuple[str, ...] | None, origin: Origin
) -> tuple[list[Record], tuple[str, ...]]:
    """The records of a tool item's event, and the subagent threads linked to its call so far.
    ``said``: the threads linked when its call was said, or None if it was not said yet."""
    kind = str(item.get("type"))
    out: list[Record] = []
    linked = said or ()
    if said is None:
        out.append(_call(kind, item, call_id, origin))
    if kind == "collab_tool_call" and item.get("tool") == "spawn_agent":
        for thread in _receivers(item):
            if thread not in linked:
                out.append(SubagentLink(origin, agent_id=thread, call_id=call_id))
                linked = (*linked, thread)
    if phase == "completed":
        out.append(_result(kind, item, call_id, origin))
    return out, linked


def _call(kind: str, item: Item, call_id: str, origin: Origin) -> Record:
    if kind == "command_execution":
        command = {"command": text_or_empty(item.get("command"))}
        return ToolCall(origin, call_id=call_id, name="shell", input=command)
    if kind == "file_change":
        changes = _changes(item.get("changes"))
        return ToolCall(origin, call_id=call_id, name="apply_patch", input={"changes": changes})
    if kind == "mcp_tool_call":
        return _mcp_call(item, call_id, origin)
    if kind == "web_search":
        query: dict[str, Any] = {"query": text_or_empty(item.get("query"))}
        if isinstance(item.get("action"), dict):
            query["action"] = item["action"]
        return ToolCall(origin, call_id=call_id, name="web_search", input=query)
    return _collab_call(item, call_id, origin)


def _mcp_call(item: Item, call_id: str, origin: Origin) -> ToolCall:
    name = mcp_name(text_or_empty(item.get("server")), text_or_empty(item.get("tool")))
    arguments = item.get("arguments")
    if isinstance(arguments, dict):
        return ToolCall(origin, call_id=call_id, name=name, input=arguments)
    raw = None if arguments is None else json_text(arguments)  # arguments may be null
    return ToolCall(origin, call_id=call_id, name=name, input={}, raw_input=raw)


def _collab_call(item: Item, call_id: str, origin: Origin) -> Record:
    tool = text_or_empty(item.get("tool")) or "collab"
    prompt = text_or_empty(item.get("prompt"))
    receivers = _receivers(item)
    if tool == "spawn_agent":
        member = receivers[0] if receivers else ""
        return Delegation(origin, call_id=call_id, member=member, task=prompt)
    arguments: dict[str, Any] = {"receiver_thread_ids": list(receivers)}
    if prompt:
        arguments["prompt"] = prompt
    return ToolCall(origin, call_id=call_id, name=tool, input=arguments)


def _result(kind: str, item: Item, call_id: str, origin: Origin) -> ToolResult:
    status = item.get("status")
    failed = status in _FAILED
    if kind == "command_execution":
        output, failed = _command_output(item, failed)
    elif kind == "file_change":
        output = "\n".join(f"{c['kind']} {c['path']}" for c in _changes(item.get("changes")))
    elif kind == "mcp_tool_call":
        output, failed = _mcp_output(item, failed)
    elif kind == "web_search":
        output = ""
    else:
        output = _agents_output(item.get("agents_states"))
    return ToolResult(origin, call_id=call_id, output=output, is_error=failed)


def _command_output(item: Item, failed: bool) -> tuple[str, bool]:
    aggregated = text_or_empty(item.get("aggregated_output"))
    output, exited_badly = exit_output(item.get("exit_code"), aggregated)
    if not output and item.get("status") == "declined":
        return "Declined", True
    return output, failed or exited_badly


def exit_output(code: object, output: str) -> tuple[str, bool]:
    """A command's output, and whether it failed: headed by its exit code when that is not 0."""
    if isinstance(code, int) and not isinstance(code, bool) and code != 0:
        return f"Exit code {code}\n{output}", True
    return output, False


def _mcp_output(item: Item, failed: bool) -> tuple[str, bool]:
    error = item.get("error")
    if isinstance(error, dict):
        return str(error.get("message") or json_text(error)), True
    if isinstance(error, str) and error:
        return error, True
    result = item.get("result")
    if not isinstance(result, dict):
        return "", failed
    output = text_of(result.get("content"))
    structured = result.get("structured_content")
    if not output and structured is not None:
        output = json_text(structured)
    return output, failed


def _agents_output(states: object) -> str:
    """Each receiver's last state: its message, else its status (with its thread id when
    there are several)."""
    if not isinstance(states, dict):
        return ""
    lines: list[str] = []
    for thread, state in states.items():
        said = state if isinstance(state, dict) else {}
        text = str(said.get("message") or said.get("status") or "")
        lines.append(text if len(states) == 1 else f"{thread}: {text}")
    return "\n".join(lines)


def other_item(phase: str, item: Item, origin: Origin) -> Record:
    """The record of an item that is not a tool call."""
    kind = str(item.get("type"))
    if kind == "todo_list":
        return TodoUpdate(origin, todos=todos_of_items(item.get("items")), call_id=_id(item))
    if phase != "completed":
        return Ignored(origin, kind=f"{kind} {phase}")
    if kind == "agent_message" or kind == "plan":
        return AssistantText(origin, text=text_or_empty(item.get("text")), message_id=_id(item))
    if kind == "reasoning":
        return Thinking(origin, text=text_or_empty(item.get("text")))
    if kind == "error":
        message = text_or_empty(item.get("message"))
        return Notice(origin, kind="error", text=clip(message), level="warning")
    rest = {key: value for key, value in item.items() if key not in ("id", "type")}
    return Notice(origin, kind=kind, text=clip(f"Codex item {kind}: {json_text(rest)}"))


def todos_of_items(items: object) -> tuple[Todo, ...]:
    """Codex todo items ``{text, completed}``: done or pending (Codex says no more)."""
    if not isinstance(items, list):
        return ()
    todos: list[Todo] = []
    for entry in items:
        if isinstance(entry, dict):
            done = entry.get("completed") is True
            todos.append(Todo(str(entry.get("text") or ""), "completed" if done else "pending"))
    return tuple(todos)


def _changes(value: object) -> list[dict[str, str]]:
    """``[{path, kind}]`` of a file change (a diff, when given, is left out: it is long)."""
    if not isinstance(value, list):
        return []
    return [
        {"path": str(c.get("path") or ""), "kind": str(c.get("kind") or "update")}
        for c in value
        if isinstance(c, dict)
    ]


def _receivers(item: Item) -> tuple[str, ...]:
    threads = item.get("receiver_thread_ids")
    if not isinstance(threads, list):
        return ()
    return tuple([t for t in threads if isinstance(t, str) and t])


def _id(item: Item) -> str | None:
    value = item.get("id")
    return value if isinstance(value, str) and value else None

