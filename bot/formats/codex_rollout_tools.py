"""Codex rollout tool calls: the call items of every CLI era, their outputs, and the events that
close calls which get no output of their own.

- ``function_call`` {name, arguments (JSON text), call_id, namespace?} → ToolCall (``shell``'s
  argv shown as a command line, ``apply_patch`` by its files, an MCP tool named ``namespace`` +
  ``name``); ``update_plan`` → ToolCall + TodoUpdate; ``spawn_agent`` → Delegation (member: its
  ``agent_type``, task: its ``message``). ``custom_tool_call`` {name, input}: ``apply_patch``,
  ``exec`` (0.144: a script calling ``tools.exec_command(…)``/``tools.apply_patch(…)``, shown by
  the commands it runs); ``local_shell_call``; ``web_search_call`` (no id, no output) → ToolCall
  and ToolResult at once;
- ``function_call_output``/``custom_tool_call_output`` → ToolResult (failed as its shape says:
  see ``codex_rollout_outputs``);
- ``mcp_tool_call_end`` ({"Ok": {content, isError}} or {"Err": text}), ``collab_agent_spawn_end``
  (+ SubagentLink to the new thread), ``collab_waiting_end`` and the other ``collab_*_end``
  events → the ToolResult of their call, paired by ``call_id`` in any order. A call gets one
  result; a second (a ``spawn_agent``'s output and its end event) is Ignored. A failed
  ``patch_apply_end`` fails its call's output.
"""

from __future__ import annotations

import re
import shlex
from collections import OrderedDict
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.codex_rollout_outputs import failed_status, mcp_result, output_of, status_text
from bot.formats.common import loads_maybe, mcp_name, remember, text_of
from bot.records import (
    Delegation,
    Ignored,
    Origin,
    Record,
    SubagentLink,
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
)
from bot.values import first_and_more, json_text, patch_files, text_or_empty

MAX_CALLS: Final = 10_000  # calls awaiting a result, and calls answered, remembered
_SHELLS: Final = ("bash", "zsh", "sh", "/bin/bash", "/bin/zsh", "/bin/sh", "pwsh", "powershell")
_SHELL_FLAGS: Final = ("-lc", "-c", "-Command")
_EXEC_CALL: Final = re.compile(r"tools\.(exec_command|apply_patch)\(\s*(\{[^()]*?\})?")
_ABORTED: Final = "aborted"  # the output Codex gives a call its turn's interruption cut short

Out = list[Record]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Calls:
    """The rollout's tool calls: those awaiting their result (id → name), those answered, and
    the patches ``patch_apply_end`` said failed. Each map keeps its newest ``MAX_CALLS``."""

    def __init__(self) -> None:
        self._open: OrderedDict[str, str] = OrderedDict()
        self._answered: OrderedDict[str, None] = OrderedDict()
        self._failed: OrderedDict[str, None] = OrderedDict()

    def opened(self, call_id: str, name: str) -> None:
        remember(self._open, call_id, name, MAX_CALLS)

    def name_of(self, call_id: str) -> str | None:
        return self._open.get(call_id)

    def is_open(self, call_id: str) -> bool:
        return call_id in self._open

    def known(self, call_id: str) -> bool:
        return call_id in self._open or call_id in self._answered

    def answer(self, call_id: str) -> bool:
        """``call_id`` gets its result now; False when it already had one."""
        if call_id in self._answered:
            return False
        self._open.pop(call_id, None)
        remember(self._answered, call_id, None, MAX_CALLS)
        return True

    def patch_failed(self, call_id: str) -> None:
        remember(self._failed, call_id, None, MAX_CALLS)

    def failed(self, call_id: str) -> bool:
        """Whether ``patch_apply_end`` said this call's patch failed (asked once)."""
        if call_id not in self._failed:
            return False
        del self._failed[call_id]
        return True


# -- calls -----------------------------------------------------------------------------------


def function_call(payload: dict[str, Any], origin: Origin, calls: Calls, out: Out) -> None:
    call_id = _call_id(payload)
    name = text_or_empty(payload.get("name"))
    namespace = text_or_empty(payload.get("namespace"))
    full_name = namespace + name if namespace else name
    raw = payload.get("arguments")
    parsed = loads_maybe(raw) if isinstance(raw, str) else raw
    args: dict[str, Any] = parsed if isinstance(parsed, dict) else {}
    raw_input = raw if isinstance(raw, str) and not args and raw.strip() not in ("", "{}") else None
    calls.opened(call_id, full_name)
    if name == "spawn_agent":
        member = text_or_empty(args.get("agent_type")) or "agent"
        task = text_or_empty(args.get("message")) or text_of(args.get("items"))
        out.append(Delegation(origin, call_id=call_id, member=member, task=task))
        return
    if name in ("shell", "container.exec", "local_shell"):
        args = _shell_input(args)
    elif name == "apply_patch":
        args = _patch_input(text_or_empty(args.get("input")), args)
    out.append(ToolCall(origin, call_id=call_id, name=full_name, input=args, raw_input=raw_input))
    if name == "update_plan" and isinstance(args.get("plan"), list):
        out.append(TodoUpdate(origin, todos=_plan(args["plan"]), call_id=call_id))


def custom_tool_call(payload: dict[str, Any], origin: Origin, calls: Calls, out: Out) -> None:
    call_id, name = _call_id(payload), text_or_empty(payload.get("name"))
    given = payload.get("input")
    text = given if isinstance(given, str) else json_text(given)
    if name == "apply_patch":
        args = _patch_input(text, {"patch": text})
    elif name == "exec":
        args = _script_input(text)
    else:
        args = {"input": text}
    calls.opened(call_id, name)
    out.append(ToolCall(origin, call_id=call_id, name=name, input=args))


def local_shell_call(payload: dict[str, Any], origin: Origin, calls: Calls, out: Out) -> None:
    call_id = _call_id(payload)
    action = payload.get("action")
    args = _shell_input(dict(action) if isinstance(action, dict) else {})
    args.pop("type", None)
    calls.opened(call_id, "shell")
    out.append(ToolCall(origin, call_id=call_id, name="shell", input=args))


def finished_call(
    kind: str, payload: dict[str, Any], origin: Origin, calls: Calls, out: Out
) -> None:
    """A call the model's service ran itself, seen once it ended (``web_search_call``,
    ``image_generation_call``, a server's ``tool_search_call``): the call and its end at once."""
    name = kind.removesuffix("_call")
    call_id = _call_id(payload) or f"{name}:{origin.line}"
    action = payload.get("action", payload.get("arguments"))
    args = dict(action) if isinstance(action, dict) else {}
    if kind == "image_generation_call" and isinstance(prompt := payload.get("revised_prompt"), str):
        args["prompt"] = prompt
    status = text_or_empty(payload.get("status")) or "completed"
    out.append(ToolCall(origin, call_id=call_id, name=name, input=args))
    if kind == "tool_search_call" and _call_id(payload):  # its output comes as an item
        calls.opened(call_id, name)
    elif calls.answer(call_id):
        out.append(ToolResult(origin, call_id=call_id, output=status, is_error=status == "failed"))


def tool_search_output(payload: dict[str, Any], origin: Origin, calls: Calls, out: Out) -> None:
    """The tools a search found, named, as the result of its call."""
    call_id = _call_id(payload)
    if not calls.is_open(call_id):
        out.append(Ignored(origin, kind="tool_search_output"))
        return
    tools = payload.get("tools")
    found = tools if isinstance(tools, list) else []
    names = [str(tool.get("name")) for tool in found if isinstance(tool, dict)]
    _result(origin, calls, call_id, ", ".join(names) or "no tools found", False, out, None)


# -- results ---------------------------------------------------------------------------------


def call_output(payload: dict[str, Any], origin: Origin, calls: Calls, out: Out) -> None:
    call_id = _call_id(payload)
    name = calls.name_of(call_id)
    text, failed = output_of(payload.get("output"))
    failed = calls.failed(call_id) or failed
    if name == "spawn_agent":
        agent = _spawned_agent(text)
        if agent:
            out.append(SubagentLink(origin, agent_id=agent, call_id=call_id))
        failed = failed or not agent
    _result(origin, calls, call_id, text, failed, out, name)


def mcp_call_end(payload: dict[str, Any], origin: Origin, calls: Calls, out: Out) -> None:
    """An MCP call's end: its only result in some eras, so a call never seen is made here."""
    call_id = _call_id(payload)
    invocation = payload.get("invocation")
    invocation = invocation if isinstance(invocation, dict) else {}
    server, tool = text_or_empty(invocation.get("server")), text_or_empty(invocation.get("tool"))
    name = mcp_name(server, tool)
    if not calls.known(call_id):
        given = invocation.get("arguments")
        args = given if isinstance(given, dict) else {}
        out.append(ToolCall(origin, call_id=call_id, name=name, input=args))
        calls.opened(call_id, name)
    text, failed = mcp_result(payload.get("result"))
    _result(origin, calls, call_id, text, failed, out, name)


def spawn_end(payload: dict[str, Any], origin: Origin, calls: Calls, out: Out) -> None:
    """``collab_agent_spawn_end``: the sub-agent's thread (linked to the call) or the failure."""
    call_id = _call_id(payload)
    agent = text_or_empty(payload.get("new_thread_id"))
    role = text_or_empty(payload.get("new_agent_role")) or "agent"
    nickname = text_or_empty(payload.get("new_agent_nickname"))
    if agent:
        out.append(SubagentLink(origin, agent_id=agent, call_id=call_id))
        who = f"{role} {nickname}".strip() if nickname else role
        text = f"Started {who} ({agent})."
    else:
        text = f"The {role} could not be started ({status_text(payload.get('status'))})."
    _result(origin, calls, call_id, text, not agent, out, None)


def collab_end(payload: dict[str, Any], origin: Origin, calls: Calls, out: Out) -> None:
    """``collab_waiting_end`` (what each awaited agent reported), and the ends of
    ``send_input``/``close_agent``/``resume_agent``: the result of their call."""
    call_id = _call_id(payload)
    lines: list[str] = []
    failed = False
    statuses = payload.get("agent_statuses")
    if isinstance(statuses, list):
        for entry in statuses:
            if isinstance(entry, dict):
                thread = text_or_empty(entry.get("thread_id"))
                agent = thread or text_or_empty(entry.get("agent_id"))
                role = text_or_empty(entry.get("agent_role"))
                status = entry.get("status")
                lines.append(" ".join([p for p in (role, agent, status_text(status)) if p]))
                failed = failed or failed_status(status)
    statuses = payload.get("statuses")
    if isinstance(statuses, dict):
        for agent, status in statuses.items():
            lines.append(f"{agent}: {status_text(status)}")
            failed = failed or failed_status(status)
    if not lines and "status" in payload:
        lines.append(status_text(payload.get("status")))
        failed = failed_status(payload.get("status"))
    _result(origin, calls, call_id, "\n".join(lines) or "done", failed, out, None)


def _result(
    origin: Origin, calls: Calls, call_id: str, text: str, failed: bool, out: Out,
    name: str | None,
) -> None:  # fmt: skip
    if not calls.answer(call_id):
        out.append(Ignored(origin, kind="duplicate result"))
        return
    stopped = text == _ABORTED
    out.append(ToolResult(origin, call_id=call_id, output=text, is_error=failed and not stopped,
                          interrupted=stopped, name=name))  # fmt: skip


def _spawned_agent(text: str) -> str:
    parsed = loads_maybe(text)
    return text_or_empty(parsed.get("agent_id")) if isinstance(parsed, dict) else ""


# -- inputs ----------------------------------------------------------------------------------


def _shell_input(args: dict[str, Any]) -> dict[str, Any]:
    """``command`` as the line a person would type: ``["bash", "-lc", "ls"]`` → ``"ls"``; the
    argv list kept as ``argv``."""
    command = args.get("command")
    if not isinstance(command, list) or not all(isinstance(part, str) for part in command):
        return args
    shown = dict(args)
    shown["argv"] = command
    if len(command) == 3 and command[0] in _SHELLS and command[1] in _SHELL_FLAGS:
        shown["command"] = command[2]
    else:
        shown["command"] = shlex.join(command)
    return shown


def _patch_input(patch: str, args: dict[str, Any]) -> dict[str, Any]:
    files = patch_files(patch)
    if not files:
        return args
    shown = dict(args)
    shown["files"] = files
    shown["path"] = first_and_more(files)
    return shown


def _script_input(script: str) -> dict[str, Any]:
    """A 0.144 ``exec`` script, with the commands it runs when they are written out."""
    steps: list[str] = []
    for tool, options in _EXEC_CALL.findall(script):
        if tool == "apply_patch":
            steps.append("apply_patch")
            continue
        parsed = loads_maybe(options) if options else None
        command = parsed.get("cmd") if isinstance(parsed, dict) else None
        if isinstance(command, str) and command:
            steps.append(command)
    args: dict[str, Any] = {"code": script}
    if steps:
        args["command"] = "; ".join(steps)
    return args


def _plan(items: list[Any]) -> tuple[Todo, ...]:
    todos: list[Todo] = []
    for item in items:
        if isinstance(item, dict):
            status = text_or_empty(item.get("status")) or "pending"
            todos.append(Todo(text_or_empty(item.get("step")), status))
    return tuple(todos)


def _call_id(payload: dict[str, Any]) -> str:
    return text_or_empty(payload.get("call_id")) or text_or_empty(payload.get("id"))

