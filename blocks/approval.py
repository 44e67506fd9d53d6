"""A permission request in a session's thread: the tool, a summary of its input, Approve and
Deny buttons while it waits; then who decided what, and when (or that no answer came in time)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from blocks.message import Block, Message
from blocks.sections import context, section
from blocks.text import safe_line
from bot.caps import APPROVAL_SHOWN, APPROVAL_TOOL_SHOWN, APPROVER_SHOWN
from bot.controls import APPROVE, DENY

_DECIDED: Final = {"allow": "✅ Approved", "deny": "⛔ Denied"}


@dataclass(frozen=True)
class ApprovalView:
    """What the message shows of a request: ``decision`` None (waiting), "allow", "deny" or
    "timeout"; ``decided_by`` a Slack user id; ``timeout_s`` how long it waited."""

    request_id: str
    tool: str
    summary: str
    timeout_s: float
    decision: str | None = None
    decided_by: str | None = None
    decided_at: datetime | None = None


def approval_key(request_id: str) -> str:
    return f"approval:{request_id}"


def approval_message(view: ApprovalView, value: str) -> Message:
    """The request's message; ``value`` is its buttons' value (the session and the request)."""
    tool = safe_line(view.tool, APPROVAL_TOOL_SHOWN)
    asked = f"🔐 *Permission requested:* `{tool}`"
    summary = safe_line(view.summary, APPROVAL_SHOWN).replace("```", "`\u200b``")  # in its block
    head = section(f"{asked}\n```{summary}```" if summary else asked)
    if view.decision is None:
        blocks: tuple[Block, ...] = (head, _buttons(value))
        text = f"Permission requested: {tool}"
        return Message(approval_key(view.request_id), text, blocks)
    said = outcome_text(view)
    blocks = (head, context(said))
    return Message(approval_key(view.request_id), f"{tool}: {said}", blocks, final=True)


def outcome_text(view: ApprovalView) -> str:
    """The outcome: "✅ Approved by <@U1> at 10:21:05 UTC", "⛔ Denied by …", or
    "⌛ Denied: no answer in 5 min"."""
    if view.decision not in _DECIDED:
        return f"⌛ Denied: no answer in {_duration(view.timeout_s)}"
    said = _DECIDED[view.decision]
    if view.decided_by:
        said += f" by <@{safe_line(view.decided_by, APPROVER_SHOWN)}>"
    if view.decided_at is not None:
        said += f" at {view.decided_at:%H:%M:%S} UTC"
    return said


def _buttons(value: str) -> Block:
    return {"type": "actions", "block_id": "approval", "elements": [
        {"type": "button", "action_id": APPROVE, "style": "primary", "value": value,
         "text": {"type": "plain_text", "text": "Approve"}},
        {"type": "button", "action_id": DENY, "style": "danger", "value": value,
         "text": {"type": "plain_text", "text": "Deny"}},
    ]}  # fmt: skip


def _duration(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        return f"{int(seconds // 60)} min"
    return f"{seconds:g} s"
