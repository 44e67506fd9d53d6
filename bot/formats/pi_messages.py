"""pi's messages, as both its ``--mode json`` events (``message_end``) and its session files
(``message`` entries) carry them, mapped into records; and the usage summed over a session's
assistant messages. Used by ``pi_events`` and ``pi_session``.

Roles: ``user`` → UserText; ``assistant`` → Thinking, AssistantText and a ToolCall per
``toolCall`` block; ``toolResult`` → ToolResult; ``bashExecution`` (a command the user ran with
``!``, not the model) → ToolCall named ``bash (user)`` + its ToolResult; ``custom`` (an
extension's message) → Notice when shown, else Ignored; ``branchSummary`` → Notice;
``compactionSummary`` → Ignored (the compaction itself is its own line); another role → Notice.
"""

from __future__ import annotations

from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.common import add_count, text_of
from bot.records import (
    AssistantText,
    Ignored,
    Notice,
    Origin,
    Record,
    Thinking,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import ResultStatus, SessionResult
from bot.values import as_float, as_int, clip

AGENT = "pi"

# Tuples, not sets: membership by equality never fails on an unhashable JSON value.
ROLES: Final = (
    "user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary",
    "compactionSummary",
)  # fmt: skip
FAILED_STOPS: Final = ("error", "aborted")
USER_BASH: Final = "bash (user)"

Message = dict[str, Any]


def is_message(value: object) -> bool:
    """A pi message: an object whose ``role`` is one of pi's."""
    return isinstance(value, dict) and value.get("role") in ROLES


def message_records(message: Message, origin: Origin, out: list[Record]) -> None:
    """The records of one whole message (see the module docstring)."""
    role = message.get("role")
    if role == "assistant":
        assistant_records(message, origin, out)
    elif role == "user":
        text = text_of(message.get("content"))
        out.append(UserText(origin, text=text) if text.strip() else Ignored(origin, "empty user"))
    elif role == "toolResult":
        out.append(tool_result(message, origin))
    elif role == "bashExecution":
        _user_bash(message, origin, out)
    elif role == "custom":
        _custom(message, origin, out)
    elif role == "branchSummary":
        summary = text_of(message.get("summary"))
        out.append(Notice(origin, kind="branch", text=clip(f"Back from a branch: {summary}")))
    elif role == "compactionSummary":
        out.append(Ignored(origin, kind="compactionSummary"))
    else:
        out.append(Notice(origin, kind="message", text=f"A {role} message"))


def assistant_records(message: Message, origin: Origin, out: list[Record]) -> None:
    """Thinking, text and tool calls, in the order of the message's blocks. pi never runs the
    calls of a message that stopped on an error or was aborted: each is ended at once, as
    interrupted."""
    content = message.get("content")
    if isinstance(content, str) and content.strip():
        out.append(AssistantText(origin, text=content))
    if not isinstance(content, list):
        return
    first = len(out)
    _blocks(content, origin, out)
    if message.get("stopReason") in FAILED_STOPS:
        calls = [record for record in out[first:] if type(record) is ToolCall]
        why = "Not run: " + stop_text(message)
        for call in calls:
            out.append(
                ToolResult(
                    origin,
                    call_id=call.call_id,
                    output=why,
                    interrupted=True,
                    name=call.name or None,
                )
            )


def _blocks(content: list[Any], origin: Origin, out: list[Record]) -> None:
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            if isinstance(text, str) and text.strip():
                out.append(AssistantText(origin, text=text))
        elif kind == "thinking":
            text = block.get("thinking")
            if isinstance(text, str) and text.strip():
                out.append(Thinking(origin, text=text))
        elif kind == "toolCall":
            out.append(tool_call(block, origin))
        else:  # an image, a block newer than this module
            out.append(Ignored(origin, kind=str(kind)))


def tool_call(block: Message, origin: Origin) -> ToolCall:
    """A ``toolCall`` block: ``{id, name, arguments}``."""
    call_id, name, arguments = block.get("id"), block.get("name"), block.get("arguments")
    return ToolCall(
        origin,
        call_id=call_id if isinstance(call_id, str) else "",
        name=name if isinstance(name, str) else "",
        input=arguments if isinstance(arguments, dict) else {},
        raw_input=arguments if isinstance(arguments, str) else None,
    )


def tool_result(message: Message, origin: Origin) -> ToolResult:
    """A ``toolResult`` message: ``{toolCallId, toolName, content, isError}``."""
    call_id, name = message.get("toolCallId"), message.get("toolName")
    return ToolResult(
        origin,
        call_id=call_id if isinstance(call_id, str) else "",
        output=text_of(message.get("content")),
        is_error=message.get("isError") is True,
        name=name if isinstance(name, str) and name else None,
    )


def _user_bash(message: Message, origin: Origin, out: list[Record]) -> None:
    """A command the user ran: a call and its result, under an id made from its own time (its
    line's number where it has none)."""
    command = message.get("command")
    stamp = message.get("timestamp")
    mark = stamp if isinstance(stamp, (int, str)) and stamp != "" else origin.line
    call_id = f"{origin.session_id}/bash-{mark}"
    arguments = {"command": command} if isinstance(command, str) else {}
    out.append(ToolCall(origin, call_id=call_id, name=USER_BASH, input=arguments))
    code = as_int(message.get("exitCode"))
    cancelled = message.get("cancelled") is True
    out.append(
        ToolResult(
            origin,
            call_id=call_id,
            output=text_of(message.get("output")),
            is_error=cancelled or (code is not None and code != 0),
            interrupted=cancelled,
            name=USER_BASH,
        )
    )


def _custom(message: Message, origin: Origin, out: list[Record]) -> None:
    kind = message.get("customType")
    name = kind if isinstance(kind, str) and kind else "custom"
    text = text_of(message.get("content"))
    if message.get("display") is False or not text.strip():
        out.append(Ignored(origin, kind=name))
    else:
        out.append(Notice(origin, kind=name, text=clip(text)))


def stop_text(message: Message) -> str:
    """Why an assistant message failed: its ``errorMessage``, or its stop reason."""
    error = message.get("errorMessage")
    if isinstance(error, str) and error:
        return clip(error)
    return "Request aborted" if message.get("stopReason") == "aborted" else "Request failed"


def model_of(message: Message) -> str | None:
    model = message.get("model")
    return model if isinstance(model, str) and model else None


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Usage:
    """Cost and tokens summed over a session's assistant messages, and the models that wrote
    them. A number no message gives stays unknown (``None``), never 0."""

    def __init__(self) -> None:
        self.cost: float | None = None
        self.input: int | None = None
        self.output: int | None = None
        self.cache_read: int | None = None
        self.cache_write: int | None = None
        self.models: list[str] = []

    def add(self, message: Message) -> None:
        model = model_of(message)
        if model is not None and model not in self.models:
            self.models.append(model)
        usage = message.get("usage")
        if not isinstance(usage, dict):
            return
        self.input = add_count(self.input, usage.get("input"))
        self.output = add_count(self.output, usage.get("output"))
        self.cache_read = add_count(self.cache_read, usage.get("cacheRead"))
        self.cache_write = add_count(self.cache_write, usage.get("cacheWrite"))
        cost = usage.get("cost")
        total = as_float(cost.get("total")) if isinstance(cost, dict) else None
        if total is not None:
            self.cost = total if self.cost is None else self.cost + total

    def result(self, origin: Origin, last: Message | None) -> SessionResult:
        """The session's result after a run whose last assistant message is ``last``: failed
        when it stopped on an error or was aborted."""
        stop = last.get("stopReason") if last is not None else None
        failed = last is not None and stop in FAILED_STOPS
        text = _text_blocks(last.get("content")) if last is not None else ""
        return SessionResult(
            origin,
            status=ResultStatus.FAILED if failed else ResultStatus.SUCCEEDED,
            subtype=stop if isinstance(stop, str) and stop else None,
            text=text or None,
            error=stop_text(last) if failed and last is not None else None,
            cost_usd=self.cost,
            input_tokens=self.input,
            output_tokens=self.output,
            cache_read_tokens=self.cache_read,
            cache_write_tokens=self.cache_write,
            models=tuple(self.models),
        )


def _text_blocks(content: object) -> str:
    """An assistant message's text blocks (not its thinking or tool calls), joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str) and text:
                parts.append(text)
    return "\n".join(parts)

