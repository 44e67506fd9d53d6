"""How much a channel reader wants to see a record, and which records a verbosity shows."""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum, StrEnum
from typing import Any

from bot.records import (
    AssistantText,
    Compaction,
    Delegation,
    Ignored,
    Notice,
    Record,
    SessionResult,
    SessionStarted,
    SubagentLink,
    Thinking,
    TodoUpdate,
    ToolCall,
    ToolResult,
    Unparsed,
    UserText,
)


class Significance(IntEnum):
    HIDDEN = 0
    LOW = 1
    NORMAL = 2
    HIGH = 3


class Verbosity(StrEnum):
    """``quiet``: the session's start, errors and result; ``normal``: also text, tools, todos,
    delegations and notices; ``verbose``: also thinking and low-key notices (hooks, commands)."""

    QUIET = "quiet"
    NORMAL = "normal"
    VERBOSE = "verbose"

    @property
    def threshold(self) -> Significance:
        return _THRESHOLDS[self]


_THRESHOLDS = {
    Verbosity.QUIET: Significance.HIGH,
    Verbosity.NORMAL: Significance.NORMAL,
    Verbosity.VERBOSE: Significance.LOW,
}

# Tools whose call a reader sees in another form (the todo checklist) or not at all.
QUIET_TOOLS = frozenset({"TodoWrite", "TodoRead", "think", "analyze", "reasoning_step"})
_LOW_NOTICES = frozenset({"hook", "command", "status", "local_command", "state"})


def _notice(record: Notice) -> Significance:
    if record.level == "error":
        return Significance.HIGH
    if record.level == "warning":
        return Significance.NORMAL
    return Significance.LOW if record.kind in _LOW_NOTICES else Significance.NORMAL


def _assistant_text(record: AssistantText) -> Significance:
    text = record.text
    if not text or (not record.delta and text.isspace()):
        return Significance.HIDDEN
    return Significance.NORMAL if record.parent_call is None else Significance.LOW


def _tool_call(record: ToolCall) -> Significance:
    return Significance.HIDDEN if record.name in QUIET_TOOLS else Significance.NORMAL


def _tool_result(record: ToolResult) -> Significance:
    return Significance.HIGH if record.is_error else Significance.NORMAL


def _thinking(record: Thinking) -> Significance:
    return Significance.LOW if record.text and not record.text.isspace() else Significance.HIDDEN


def _user_text(record: UserText) -> Significance:
    if not record.text or record.text.isspace() or record.parent_call is not None:
        return Significance.HIDDEN
    return Significance.NORMAL


def _always(significance: Significance) -> Callable[[Any], Significance]:
    def fixed(record: Any) -> Significance:
        return significance

    return fixed


# One rule per record type: a dict lookup per record instead of a chain of isinstance checks.
_RULES: dict[type, Callable[[Any], Significance]] = {
    AssistantText: _assistant_text,
    ToolCall: _tool_call,
    ToolResult: _tool_result,
    Thinking: _thinking,
    UserText: _user_text,
    Notice: _notice,
    SessionResult: _always(Significance.HIGH),
    TodoUpdate: _always(Significance.NORMAL),
    Delegation: _always(Significance.NORMAL),
    Compaction: _always(Significance.NORMAL),
    Ignored: _always(Significance.HIDDEN),
    SubagentLink: _always(Significance.HIDDEN),
    Unparsed: _always(Significance.HIDDEN),
}


def rule_of(kind: type) -> Callable[[Any], Significance] | None:
    """The significance rule of a record type (``None`` for ``SessionStarted``, whose
    significance depends on the session: see ``classify``)."""
    return _RULES.get(kind, None if kind is SessionStarted else _always(Significance.LOW))


def classify(record: Record, *, duplicate_start: bool = False) -> Significance:
    """The default significance of one record, as a channel reader would choose it.
    ``duplicate_start``: the record is a ``SessionStarted`` of a session already started."""
    rule = _RULES.get(type(record))
    if rule is not None:
        return rule(record)
    if type(record) is SessionStarted:
        return Significance.HIDDEN if duplicate_start else Significance.HIGH
    return Significance.LOW
