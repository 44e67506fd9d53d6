"""Agno's event names: those read, those hidden (counted under a kind), every one's ``Team``
variant; and the tool names that delegate to members or are the agent's own reasoning."""

from __future__ import annotations

from typing import Final

DELEGATE_TO_ONE: Final = frozenset(
    {"delegate_task_to_member", "transfer_task_to_member", "forward_task_to_member"}
)
DELEGATE_TO_ALL: Final = frozenset({"delegate_task_to_members", "run_member_agents"})
INTERNAL_TOOLS: Final = frozenset({"think", "analyze", "reasoning_step"})

# Events a channel reader never wants: each ``<prefix>Started``/``<prefix>Completed`` pair, and
# single events, by the kind they are counted under.
_HIDDEN_PAIRS: Final = {
    "ModelRequest": "model_request",
    "ParserModelResponse": "parser_model",
    "OutputModelResponse": "output_model",
    "MemoryUpdate": "memory_update",
    "SessionSummary": "session_summary",
    "PreHook": "hook",
    "PostHook": "hook",
    "Compression": "compression",
    "Followups": "followups",
}
HIDDEN: Final[dict[str, str]] = {
    "RunIntermediateContent": "intermediate_content",
    "RunContentCompleted": "content_completed",
    "ReasoningStarted": "reasoning_started",
    "ReasoningCompleted": "reasoning_completed",
    "ToolCallArgsDelta": "tool_args_delta",
    "CustomEvent": "custom_event",
}
for _prefix, _kind in _HIDDEN_PAIRS.items():
    HIDDEN[_prefix + "Started"] = HIDDEN[_prefix + "Completed"] = _kind
_HANDLED: Final = (
    *("RunStarted", "RunContent", "RunCompleted", "RunError", "RunCancelled", "RunPaused"),
    *("RunContinued", "ToolCallStarted", "ToolCallCompleted", "ToolCallError"),
    *("ReasoningStep", "ReasoningContentDelta"),
)
# Every event name, agent and ``Team`` variant → the agent event it is read as.
EVENTS: Final[dict[str, str]] = {}
for _name in (*_HANDLED, *HIDDEN):
    EVENTS[_name] = EVENTS["Team" + _name] = _name
KEEPS_THINKING: Final = frozenset({"RunContent", "ReasoningContentDelta"})
