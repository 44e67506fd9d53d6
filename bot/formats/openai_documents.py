"""The wrappers around OpenAI-style messages: SWE-agent ``.traj`` documents and Suna
(agentpress) database rows. Pure helpers for ``bot.formats.openai_messages``.

A Suna row (seed 004, the ``messages`` table)::

    {"message_id", "thread_id", "type": "user" | "assistant" | "tool" | "system" | "status"
     | "llm_response_end" | ..., "content": JSON string | object | list,
     "metadata": JSON string | object, "is_llm_message", "created_at"}

A ``.traj`` document: ``{"history": [messages], "trajectory": [...], "info": {"exit_status",
"submission", "model_stats": {...}}, "replay_config": {...} or a JSON string of it}``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import PurePath
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.common import loads_maybe, text_of
from bot.records import Origin
from bot.result_records import ResultStatus, SessionResult
from bot.values import as_float, as_int

SWE_AGENT = "SWE-agent"
SUNA = "Suna agent"

_SUBMITTED: Final = "submitted"
# Tuples, not sets: membership by equality never fails on an unhashable JSON value.
_FAILED_WORDS: Final = ("error", "failed")
_RUN_END_TYPES: Final = ("thread_run_end", "agent_run_end", "finish")
_FAILED_TOOL_PREFIX: Final = "ToolResult(success=False"


# --- SWE-agent .traj -----------------------------------------------------------------------


def traj_session_id(source: str) -> str:
    """A ``.traj`` document's session: its file's base name without the extension."""
    return PurePath(source).stem or source


def traj_history(history: list[Any]) -> Iterator[Mapping[str, Any]]:
    """The messages of ``history``. In a trajectory written without function calling, an
    assistant's ``action`` becomes a tool call (its ``thought`` the text, since ``content``
    repeats the command) and the user message that follows, the observation, its result."""
    waiting = False  # an action was taken and its observation has not come yet
    for message in history:
        if not isinstance(message, dict):
            continue
        role, action = message.get("role"), message.get("action")
        if role == "assistant" and not message.get("tool_calls") and _is_command(action):
            waiting = True
            call = _action_call(str(action))
            yield {**message, "content": message.get("thought") or "", "tool_calls": [call]}
        elif role == "user" and waiting:
            waiting = False
            yield {**message, "role": "tool"}
        else:
            yield message


def _is_command(action: object) -> bool:
    return isinstance(action, str) and bool(action) and not action.isspace()


def _action_call(action: str) -> dict[str, Any]:
    """A tool call for a shell-style action; the tool is the command's first word."""
    command = action.strip()
    name = command.split(maxsplit=1)[0]
    return {"id": "", "function": {"name": name, "arguments": {"command": command}}}


def traj_model(doc: Mapping[str, Any]) -> str | None:
    """The model named in ``replay_config`` (an object, or a JSON string of one)."""
    config = loads_maybe(doc.get("replay_config"))
    agent = config.get("agent") if isinstance(config, dict) else None
    model = agent.get("model") if isinstance(agent, dict) else None
    if not isinstance(model, dict):
        return None
    name = model.get("name") or model.get("model_name")
    return name if isinstance(name, str) and name else None


def traj_result(info: object, model: str | None, origin: Origin) -> SessionResult | None:
    """The run's outcome from ``info``; ``None`` while it has no ``exit_status``."""
    if not isinstance(info, dict):
        return None
    exit_status = info.get("exit_status")
    if not isinstance(exit_status, str) or not exit_status:
        return None
    stats = info.get("model_stats")
    if not isinstance(stats, dict):
        stats = {}
    submitted = exit_status == _SUBMITTED
    return SessionResult(
        origin,
        status=ResultStatus.SUCCEEDED if submitted else ResultStatus.FAILED,
        subtype=exit_status,
        num_turns=as_int(stats.get("api_calls")),
        cost_usd=_counted_cost(stats.get("instance_cost")),
        input_tokens=_counted_tokens(stats.get("tokens_sent")),
        output_tokens=_counted_tokens(stats.get("tokens_received")),
        models=(model,) if model else (),
    )


# SWE-agent's `InstanceStats` counters start at 0, and only a priced model served through
# litellm adds to the cost and tokens: a replayed, human or test model, or a model litellm
# cannot price (cost "set to 0"), leaves them at 0. So 0 there is "not counted", not a
# figure (the marshmallow-1867 corpus trajectory: 11 api_calls, 0 tokens sent).
# (`api_calls` is counted by every model: it stays as given.)


def _counted_cost(value: object) -> float | None:
    cost = as_float(value)
    return cost if cost else None


def _counted_tokens(value: object) -> int | None:
    tokens = as_int(value)
    return tokens if tokens else None


# --- Suna / agentpress rows ------------------------------------------------------------------


def row_metadata(row: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = loads_maybe(row.get("metadata"))
    return meta if isinstance(meta, dict) else {}


def row_message(kind: str, content: object, meta: Mapping[str, Any]) -> dict[str, Any]:
    """The OpenAI message a user/assistant/tool/system row holds. The row's ``type`` is the
    role (a tool row may wrap a message whose own role is ``user``); a compressed row shows
    its ``compressed_content``; the metadata's tool call id and error flag are carried over."""
    body = loads_maybe(content)
    if meta.get("compressed"):
        compressed = meta.get("compressed_content")
        if isinstance(compressed, str) and compressed:
            return {"role": kind, "content": compressed}
        inner = body.get("content") if isinstance(body, dict) else body
        return {"role": kind, "content": inner}
    if isinstance(body, dict) and ("content" in body or "tool_calls" in body or "role" in body):
        message = {**body, "role": kind}
    else:
        message = {"role": kind, "content": body}
    if kind == "tool":
        if not message.get("tool_call_id") and meta.get("tool_call_id"):
            message["tool_call_id"] = meta["tool_call_id"]
        if _row_failed(meta):
            message["is_error"] = True
    return message


def _row_failed(meta: Mapping[str, Any]) -> bool:
    return (
        meta.get("status") in _FAILED_WORDS
        or meta.get("success") is False
        or meta.get("is_error") is True
    )


def run_failure(content: object) -> str | None:
    """What went wrong, when a ``status`` row says the run failed; else ``None``."""
    if not isinstance(content, dict):
        return None
    status_type = content.get("status_type")
    failed = status_type == "error" or (
        status_type in _RUN_END_TYPES
        and (content.get("status") in _FAILED_WORDS or bool(content.get("error")))
    )
    if not failed:
        return None
    for key in ("message", "error", "finish_reason"):
        text = content.get(key)
        if isinstance(text, str) and text:
            return text
    return f"the run ended with status {status_type}"


# --- tool results --------------------------------------------------------------------------


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class ToolOutcome:
    """What a tool message says: its text, whether it failed, and the tool's name and call id
    where a Suna ``tool_execution`` wrapper gives them."""

    __slots__ = ("call_id", "is_error", "name", "output")

    def __init__(self, output: str, is_error: bool, name: str | None, call_id: str | None):
        self.output = output
        self.is_error = is_error
        self.name = name
        self.call_id = call_id


def tool_outcome(message: Mapping[str, Any]) -> ToolOutcome:
    """A tool message's outcome; it failed when it says so: an ``is_error`` flag (a Suna row's
    metadata), ``"success": false`` in its content, or a ``ToolResult(success=False, ...)``."""
    content = message.get("content")
    name = message.get("name")
    given_name = name if isinstance(name, str) and name else None
    output = content if isinstance(content, str) else text_of(content)
    outcome = ToolOutcome(output, message.get("is_error") is True, given_name, None)
    if isinstance(content, str):
        if content.startswith(_FAILED_TOOL_PREFIX):
            outcome.is_error = True
            return outcome
        if content.startswith("{") and ('"success"' in content or "tool_execution" in content):
            content = loads_maybe(content)
    if isinstance(content, dict):
        _read_result_object(content, outcome)
    return outcome


def _read_result_object(content: Mapping[str, Any], outcome: ToolOutcome) -> None:
    """``{"success": false, ...}`` or Suna's ``{"tool_execution": {"function_name",
    "tool_call_id", "result": {"success", "output", "error"}}}``."""
    execution = content.get("tool_execution")
    result: object = content
    if isinstance(execution, dict):
        name, call_id = execution.get("function_name"), execution.get("tool_call_id")
        outcome.name = outcome.name or (name if isinstance(name, str) and name else None)
        outcome.call_id = call_id if isinstance(call_id, str) and call_id else None
        result = execution.get("result")
        if isinstance(result, dict):
            parts = [text_of(result.get("output")), text_of(result.get("error"))]
            outcome.output = "\n".join(p for p in parts if p)
    if isinstance(result, dict) and result.get("success") is False:
        outcome.is_error = True
