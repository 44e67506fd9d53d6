"""The legacy ``codex exec --json`` stream (Codex ≤0.43, to September 2025): the protocol's own
events. It names no session: the parser names it after its source.

- first line, the configuration: ``{"workdir", "model", "provider", "approval", "sandbox",
  "reasoning effort"?, "reasoning summaries"?}`` → SessionStarted(model, cwd);
- then ``{"prompt"}`` → UserText;
- then ``{"id", "msg": {"type", …}}`` events (``id`` names the task, not the session):
  ``task_started`` → Ignored (a task begins: its tokens and error start again);
  ``agent_message {message}`` → AssistantText; ``agent_reasoning {text}`` → Thinking;
  ``exec_command_begin {call_id, command[], cwd}`` / ``exec_command_end {call_id, stdout,
  stderr, exit_code}`` → ToolCall("shell") / ToolResult (an error when the exit code is not 0);
  ``patch_apply_begin {call_id, changes: {path: {add|delete|update: …}}}`` / ``patch_apply_end
  {success}`` → ToolCall("apply_patch") / ToolResult; ``mcp_tool_call_begin {invocation}`` /
  ``mcp_tool_call_end {result: {"Ok": {content, isError}} | {"Err": text}}``; ``web_search_begin``
  / ``web_search_end {query}``; ``plan_update {plan: [{step, status}]}`` → TodoUpdate;
  ``token_count`` (the last response's usage, flat or as ``info.last_token_usage``) → Ignored,
  added to the task's tokens; ``error {message}`` → Notice(warning), and the task fails
  (a message that is the API's JSON error envelope said by its inner message);
  ``stream_error``, ``background_event`` → Notice; approval requests → Notice(warning);
  ``task_complete {last_agent_message}`` → SessionResult (failed if an error came in the task:
  Codex ends a task that failed with ``task_complete`` too); ``turn_aborted {reason}`` →
  SessionResult(failed, "aborted"); deltas and plumbing → Ignored; other types → Notice.

An end whose begin was not read gets its ToolCall first: a call comes before its result.
"""

from __future__ import annotations

import shlex
from collections import OrderedDict
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.codex_exec_items import exit_output
from bot.formats.common import api_error_text, mcp_name, remember, text_of, uncached_input
from bot.records import (
    AssistantText,
    Ignored,
    Notice,
    Origin,
    Record,
    SessionStarted,
    Thinking,
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import ResultStatus, SessionResult
from bot.values import as_int, clip, dict_or_empty, json_text, text_or_empty, text_or_none

Event = dict[str, Any]
Tokens = tuple[int | None, int | None, int | None, int | None]  # input, cached, output, reasoning

_CONFIG_KEYS: Final = frozenset(
    {"workdir", "model", "provider", "approval", "sandbox", "reasoning effort"}
    | {"reasoning summaries"}
)
_QUIET: Final = frozenset(
    {"agent_message_delta", "agent_reasoning_delta", "agent_reasoning_raw_content"}
    | {"agent_reasoning_raw_content_delta", "agent_reasoning_section_break"}
    | {"exec_command_output_delta", "turn_diff", "get_history_entry_response"}
    | {"mcp_list_tools_response", "list_custom_prompts_response", "shutdown_complete"}
    | {"conversation_path"}
)
_APPROVALS: Final = ("exec_approval_request", "apply_patch_approval_request")
NO_TOKENS: Final[Tokens] = (None, None, None, None)
_MAX_OPEN: Final = 4096


def is_legacy(obj: dict[str, Any]) -> bool:
    """An event ``{"id", "msg": {"type"}}``, the ``{"prompt"}`` line, or the configuration."""
    if "msg" in obj:
        msg = obj["msg"]
        return (len(obj) == 2 and isinstance(obj.get("id"), str) and isinstance(msg, dict)
                and isinstance(msg.get("type"), str))  # fmt: skip
    if "prompt" in obj:
        return len(obj) == 1 and isinstance(obj["prompt"], str)
    return is_config(obj)


def is_config(obj: dict[str, Any]) -> bool:
    """The configuration line that starts each run (each run is its own session)."""
    if "model" not in obj or "workdir" not in obj or not _CONFIG_KEYS.issuperset(obj):
        return False
    return all(isinstance(value, str) for value in obj.values())


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class LegacyStream:
    """One legacy stream's state: the calls begun and not ended, the task's tokens and error,
    the prompt (a ``user_message`` repeating it is not said twice)."""

    def __init__(self, agent: str) -> None:
        self.agent = agent
        self._open: OrderedDict[str, None] = OrderedDict()
        self._tokens: Tokens = NO_TOKENS
        self._error: str | None = None
        self._prompt: str | None = None

    def read(self, obj: dict[str, Any], origin: Origin) -> list[Record] | None:
        msg = obj.get("msg")
        if isinstance(msg, dict):
            return self._event(msg, origin)
        prompt = obj.get("prompt")
        if isinstance(prompt, str):
            self._prompt = prompt
            return [UserText(origin, text=prompt)]
        if is_config(obj):
            model, cwd = text_or_none(obj.get("model")), text_or_none(obj.get("workdir"))
            return [SessionStarted(origin, agent=self.agent, model=model, cwd=cwd)]
        return None

    def _event(self, msg: Event, origin: Origin) -> list[Record] | None:
        kind = msg.get("type")
        if not isinstance(kind, str):
            return None
        if kind.endswith(("_begin", "_end")):
            return self._tool_event(kind, msg, origin)
        if kind.startswith(("task_", "turn_", "token_")) or kind == "error":
            return [self._task_event(kind, msg, origin)]
        return [self._said(kind, msg, origin)]

    def _said(self, kind: str, msg: Event, origin: Origin) -> Record:
        """What the agent says or is told, and the notices."""
        if kind == "agent_message":
            return AssistantText(origin, text=text_or_empty(msg.get("message")))
        if kind == "agent_reasoning":
            return Thinking(origin, text=text_or_empty(msg.get("text")))
        if kind == "user_message":
            text = text_or_empty(msg.get("message"))
            return Ignored(origin, kind=kind) if text == self._prompt else UserText(origin, text)
        if kind == "plan_update":
            return TodoUpdate(origin, todos=_plan_todos(msg.get("plan")))
        if kind == "session_configured":
            return SessionStarted(origin, agent=self.agent, model=text_or_none(msg.get("model")))
        if kind in _QUIET:
            return Ignored(origin, kind=kind)
        if kind in _APPROVALS:
            what = " ".join(_command(msg.get("command"))) or text_or_empty(msg.get("reason"))
            return Notice(origin, kind="approval", text=clip(f"Waiting for approval: {what}"),
                          level="warning")  # fmt: skip
        if kind == "stream_error" or kind == "background_event":
            text = api_error_text(text_or_empty(msg.get("message")))
            return Notice(origin, kind=kind, text=clip(text))
        rest = {key: value for key, value in msg.items() if key != "type"}
        return Notice(origin, kind=kind, text=clip(f"Codex event {kind}: {json_text(rest)}"))

    def _task_event(self, kind: str, msg: Event, origin: Origin) -> Record:
        if kind == "token_count":
            info = msg.get("info")
            usage = info.get("last_token_usage") if isinstance(info, dict) else msg
            self._tokens = _sum(self._tokens, tokens_of(usage))
            return Ignored(origin, kind=kind)
        if kind == "error":
            self._error = api_error_text(text_or_empty(msg.get("message"))) or "error"
            return Notice(origin, kind="error", text=clip(self._error), level="warning")
        if kind == "task_complete":
            return self._result(origin, text_or_none(msg.get("last_agent_message")), None)
        if kind == "turn_aborted":
            self._error = text_or_empty(msg.get("reason")) or "aborted"
            return self._result(origin, None, "aborted")
        if kind != "task_started":
            return self._said(kind, msg, origin)
        self._tokens, self._error = NO_TOKENS, None
        return Ignored(origin, kind=kind)

    def _result(self, origin: Origin, text: str | None, subtype: str | None) -> SessionResult:
        (given, cached, output, reasoning), error = fresh(self._tokens), self._error
        self._tokens, self._error = NO_TOKENS, None
        return SessionResult(
            origin,
            status=ResultStatus.SUCCEEDED if error is None else ResultStatus.FAILED,
            subtype=subtype,
            text=text,
            error=error,
            input_tokens=given,
            output_tokens=output,
            cache_read_tokens=cached,
            reasoning_tokens=reasoning,
        )

    def _tool_event(self, kind: str, msg: Event, origin: Origin) -> list[Record] | None:
        call_id = text_or_empty(msg.get("call_id"))
        tool = kind.rsplit("_", 1)[0]
        if kind.endswith("_begin"):
            remember(self._open, call_id, None, _MAX_OPEN)
            return [_call(tool, msg, call_id, origin)]
        out: list[Record] = []
        if call_id in self._open:
            del self._open[call_id]
        else:
            out.append(_call(tool, msg, call_id, origin))
        out.append(_result(tool, msg, call_id, origin))
        return out


def _call(tool: str, msg: Event, call_id: str, origin: Origin) -> Record:
    if tool == "exec_command":
        arguments: dict[str, Any] = {"command": shlex.join(_command(msg.get("command")))}
        if isinstance(msg.get("cwd"), str):
            arguments["cwd"] = msg["cwd"]
        return ToolCall(origin, call_id=call_id, name="shell", input=arguments)
    if tool == "patch_apply":
        changes = _patch_changes(msg.get("changes"))
        return ToolCall(origin, call_id=call_id, name="apply_patch", input={"changes": changes})
    if tool == "mcp_tool_call":
        invocation = msg.get("invocation")
        called: Event = invocation if isinstance(invocation, dict) else msg  # older: at the top
        name = mcp_name(text_or_empty(called.get("server")), text_or_empty(called.get("tool")))
        given = called.get("arguments")
        return ToolCall(origin, call_id=call_id, name=name, input=dict_or_empty(given))
    if tool == "web_search":
        query = {"query": text_or_empty(msg.get("query"))}
        return ToolCall(origin, call_id=call_id, name="web_search", input=query)
    rest = {key: value for key, value in msg.items() if key != "type"}
    return ToolCall(origin, call_id=call_id, name=tool, input=rest)


def _joined(stdout: object, stderr: object) -> str:
    """A command's output and its errors, one after the other."""
    return "\n".join([t for t in (text_or_empty(stdout), text_or_empty(stderr)) if t])


def _result(tool: str, msg: Event, call_id: str, origin: Origin) -> ToolResult:
    if tool == "exec_command":
        output = msg.get("aggregated_output")
        if not isinstance(output, str) or not output:
            output = _joined(msg.get("stdout"), msg.get("stderr"))
        text, failed = exit_output(msg.get("exit_code"), output)
    elif tool == "patch_apply":
        text = _joined(msg.get("stdout"), msg.get("stderr"))
        failed = msg.get("success") is not True
    elif tool == "mcp_tool_call":
        text, failed = _mcp_result(msg)
    else:
        text, failed = "", msg.get("success") is False
    return ToolResult(origin, call_id=call_id, output=text, is_error=failed)


def _mcp_result(msg: Event) -> tuple[str, bool]:
    """``{"Ok": {content, isError}}`` or ``{"Err": text}``; older: ``success`` and ``result``."""
    result = msg.get("result")
    if isinstance(result, dict) and "Err" in result:
        return str(result["Err"]), True
    done = result.get("Ok") if isinstance(result, dict) and "Ok" in result else result
    if not isinstance(done, dict):
        return "", msg.get("success") is False
    failed = done.get("isError") is True or done.get("is_error") is True
    return text_of(done.get("content")), failed or msg.get("success") is False


def _command(value: object) -> list[str]:
    if isinstance(value, list):
        return [str(part) for part in value]
    return [value] if isinstance(value, str) and value else []


def _patch_changes(value: object) -> list[dict[str, str]]:
    """``{path: {"update": {…}}}`` (or ``"delete"``) as ``[{path, kind}]``."""
    if not isinstance(value, dict):
        return []
    changes: list[dict[str, str]] = []
    for path, change in value.items():
        kind = next(iter(change), "update") if isinstance(change, dict) else change
        changes.append({"path": str(path), "kind": str(kind)})
    return changes


def _plan_todos(plan: object) -> tuple[Todo, ...]:
    if not isinstance(plan, list):
        return ()
    todos: list[Todo] = []
    for step in plan:
        if isinstance(step, dict):
            todos.append(Todo(str(step.get("step") or ""), str(step.get("status") or "pending")))
    return tuple(todos)


def tokens_of(usage: object) -> Tokens:
    if not isinstance(usage, dict):
        return NO_TOKENS
    given, cached = usage.get("input_tokens"), usage.get("cached_input_tokens")
    output, reasoning = usage.get("output_tokens"), usage.get("reasoning_output_tokens")
    return as_int(given), as_int(cached), as_int(output), as_int(reasoning)


def fresh(tokens: Tokens) -> Tokens:
    """``tokens`` with the cached input taken out of the input: OpenAI's ``input_tokens`` counts
    the cached input too (as the rollout reader and Gemini's take it out)."""
    given, cached, output, reasoning = tokens
    return uncached_input(given, cached), cached, output, reasoning


def _sum(total: Tokens, more: Tokens) -> Tokens:
    return (_add(total[0], more[0]), _add(total[1], more[1]),
            _add(total[2], more[2]), _add(total[3], more[3]))  # fmt: skip


def _add(total: int | None, more: int | None) -> int | None:
    if more is None:
        return total
    return more if total is None else total + more
