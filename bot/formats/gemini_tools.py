"""Gemini CLI tool calls as records, shared by its stream (``gemini_stream``) and its session
files (``gemini_session``).

- A subagent tool (``invoke_agent {agent_name, prompt}``, the older ``delegate_to_agent``, or a
  subagent called by its own name: ``codebase_investigator {objective}``, ``cli_help
  {question}``, ``generalist {request}``) → Delegation (its answer is the call's ToolResult).
- ``write_todos {todos: [{description, status}]}`` → ToolCall + TodoUpdate.
- Any other tool → ToolCall; arguments that are not a JSON object are kept raw.
- A session file's call holds its own result: ``status`` (success, error, cancelled; a call
  still ``scheduled``/``validating``/``awaiting_approval``/``executing`` has none yet) and
  ``result: [{functionResponse: {id, name, response: {output} | {error}}}]`` → ToolResult
  (``call_result``).
- ``run_shell_command`` reports ``success`` whatever its command's exit code: its output ends
  with a trailer (``Exit Code: N``, ``Signal: …``, ``Background PIDs: …``, ``Process Group PGID:
  …``) that says whether the command failed (``shell_failed``).
"""

from __future__ import annotations

from typing import Any, Final

from bot.formats.common import loads_maybe, text_of
from bot.records import Delegation, Origin, Record, Todo, TodoUpdate, ToolCall, ToolResult
from bot.values import json_text

# Tuples, not sets: membership by equality never fails on an unhashable JSON value.
AGENT_TOOLS: Final = ("invoke_agent", "delegate_to_agent")
SUBAGENT_TOOLS: Final = (*AGENT_TOOLS, "codebase_investigator", "cli_help", "generalist")
TODO_TOOL: Final = "write_todos"
SHELL_TOOL: Final = "run_shell_command"
_TASK_KEYS: Final = ("prompt", "objective", "question", "request", "task", "query")
_TRAILER: Final = ("Exit Code:", "Signal:", "Background PIDs:", "Process Group PGID:")
_WRAPPER_END: Final = "</untrusted_context>"  # newer CLIs wrap a command's output in this tag
_NO_SIGNAL: Final = ("", "0", "(none)", "null")
PENDING: Final = ("scheduled", "validating", "awaiting_approval", "executing")


def call_records(origin: Origin, call_id: str, name: str, arguments: object) -> list[Record]:
    """The records of one tool call: a Delegation, a ToolCall (+ TodoUpdate), or a ToolCall
    whose arguments are shown as given."""
    parsed = arguments if isinstance(arguments, dict) else loads_maybe(arguments)
    if arguments is None:
        parsed = {}
    if not isinstance(parsed, dict):
        shown = arguments if isinstance(arguments, str) else json_text(arguments)
        return [ToolCall(origin, call_id=call_id, name=name, input={}, raw_input=shown)]
    if name in SUBAGENT_TOOLS:
        return [
            Delegation(origin, call_id=call_id, member=_member(name, parsed), task=_task(parsed))
        ]
    call = ToolCall(origin, call_id=call_id, name=name, input=parsed)
    if name == TODO_TOOL and isinstance(parsed.get("todos"), list):
        todos = TodoUpdate(origin, todos=todos_of(parsed["todos"]), call_id=call_id or None)
        return [call, todos]
    return [call]


def todos_of(items: list[Any]) -> tuple[Todo, ...]:
    """``write_todos`` items (``description``, ``status``: pending, in_progress, completed,
    cancelled, blocked — kept as given)."""
    todos: list[Todo] = []
    for item in items:
        if isinstance(item, dict):
            description = item.get("description")
            status = item.get("status")
            todos.append(
                Todo(
                    description if isinstance(description, str) else "",
                    status if isinstance(status, str) and status else "pending",
                )
            )
    return tuple(todos)


def _member(name: str, arguments: dict[str, Any]) -> str:
    if name in AGENT_TOOLS:
        agent = arguments.get("agent_name")
        return agent if isinstance(agent, str) and agent else "subagent"
    return name


def _task(arguments: dict[str, Any]) -> str:
    for key in _TASK_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return value
    rest = {key: value for key, value in arguments.items() if key != "agent_name"}
    return json_text(rest) if rest else ""


def shell_failed(output: str) -> bool:
    """Whether a ``run_shell_command`` output's trailer says its command failed: an ``Exit
    Code`` other than 0 (``(none)``: the process was ended by a signal), or a signal. Only the
    trailer is read (the lines after the command's own output), from the end."""
    lines = output.rstrip().splitlines()
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        if line == _WRAPPER_END:
            continue
        if not line.startswith(_TRAILER):
            return False
        key, _, value = line.partition(":")
        value = value.strip()
        if key == "Exit Code" and value != "0":
            return True
        if key == "Signal" and value not in _NO_SIGNAL:
            return True
    return False


def call_result(call: dict[str, Any], origin: Origin, call_id: str, name: str) -> ToolResult:
    """A session file's finished call as its ToolResult: failed unless ``success`` (or when a
    shell command's trailer says so); ``cancelled`` is also interrupted."""
    status = call.get("status")
    output, error = response_texts(call.get("result"))
    failed = status != "success" or (name == SHELL_TOOL and shell_failed(output))
    display = call.get("resultDisplay")
    shown = error or output or (display if isinstance(display, str) else "")
    return ToolResult(
        origin,
        call_id=call_id,
        output=shown,
        is_error=failed,
        interrupted=status == "cancelled",
        name=name or None,
    )


def response_texts(result: object) -> tuple[str, str]:
    """The output and the error a call's ``result`` parts hold (``functionResponse.response``
    ``output`` / ``error``; another response is shown as JSON, a text part as it is)."""
    if isinstance(result, str):
        return result, ""
    outputs: list[str] = []
    errors: list[str] = []
    for part in result if isinstance(result, list) else [result]:
        if not isinstance(part, dict):
            continue
        function = part.get("functionResponse")
        response = function.get("response") if isinstance(function, dict) else None
        if not isinstance(response, dict):
            outputs.append(text_of([part]))
            continue
        output, error = response.get("output"), response.get("error")
        if output is None and error is None:
            outputs.append(json_text(response))
        if output is not None:
            outputs.append(text_of(output))
        if error is not None:
            errors.append(text_of(error))
    return "\n".join([o for o in outputs if o]), "\n".join([e for e in errors if e])
