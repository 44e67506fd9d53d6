"""How much a channel reader wants to see a record, and which records a verbosity shows."""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Final

from bot.records import (
    AssistantText,
    Compaction,
    Delegation,
    Ignored,
    Notice,
    Record,
    SessionStarted,
    SubagentLink,
    Thinking,
    TodoUpdate,
    ToolCall,
    ToolResult,
    Unparsed,
    Usage,
    UserText,
)
from bot.result_records import AgentExited, SessionResult, TurnEnded


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
QUIET_TOOLS: Final = frozenset(
    {"TodoWrite", "TodoRead", "update_plan", "think", "analyze", "reasoning_step"}
    | {"todowrite", "todoread"}  # OpenCode's
)
_LOW_NOTICES: Final = frozenset({"hook", "command", "status", "local_command", "state"})


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


# The classes of the last rules, bound once (`A | B` in a rule would build a union each call).
_ENDS: Final = (SessionResult, AgentExited)
_SHOWN: Final = (TodoUpdate, Delegation, Compaction)
# A Usage changes what the root says the session spent, and posts nothing.
_NEVER_SHOWN: Final = (Ignored, SubagentLink, Unparsed, TurnEnded, Usage)


def classify(record: Record, *, duplicate_start: bool = False) -> Significance:
    """The default significance of one record, as a channel reader would choose it.
    ``duplicate_start``: the record is a ``SessionStarted`` of a session already started.
    (A chain of isinstance checks, most frequent records first: compiled, each check is a
    pointer comparison and each rule a direct call.)"""
    if isinstance(record, AssistantText):
        return _assistant_text(record)
    if isinstance(record, ToolCall):
        return _tool_call(record)
    if isinstance(record, ToolResult):
        return _tool_result(record)
    if isinstance(record, Thinking):
        return _thinking(record)
    if isinstance(record, UserText):
        return _user_text(record)
    if isinstance(record, Notice):
        return _notice(record)
    if isinstance(record, SessionStarted):
        return Significance.HIDDEN if duplicate_start else Significance.HIGH
    if isinstance(record, _ENDS):
        return Significance.HIGH
    if isinstance(record, _SHOWN):
        return Significance.NORMAL
    if isinstance(record, _NEVER_SHOWN):
        return Significance.HIDDEN
    return Significance.LOW
