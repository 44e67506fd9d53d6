"""A team leader's delegation to a member: the task, the member's progress, and its answer."""

from __future__ import annotations

from blocks.figures import TOOL_EMOJI, duration, plural
from blocks.markdown import to_mrkdwn
from blocks.message import Message
from blocks.sections import MessageBlocks
from blocks.text import safe_line, truncate_escaped
from bot.caps import (
    CHILD_CALLS_SHOWN,
    DELEGATED_ANSWER_SHOWN,
    FALLBACK_LINE,
    MEMBER_SHOWN,
    TASK_SHOWN,
)
from bot.session import Session, ToolStatus
from bot.session.thread import DelegationItem
from bot.session.tool_calls import shown_name


def delegation_message(item: DelegationItem, session: Session) -> Message:
    call = session.calls[item.call_id]
    lead = session.info.agent or "Team"
    member = call.delegate or "member"
    head = (
        f"{TOOL_EMOJI[call.status]} 🤝 *{safe_line(lead, MEMBER_SHOWN)}* → "
        f"*{safe_line(member, MEMBER_SHOWN)}*"
    )
    if (seconds := call.duration_s) is not None:
        head += f" · {duration(seconds)}"
    blocks = MessageBlocks()
    blocks.section(f"{head}\n>{safe_line(call.summary, TASK_SHOWN)}")
    children = [session.calls[c] for c in call.children if c in session.calls]
    if children:
        failed = sum(1 for child in children if child.status is ToolStatus.ERROR)
        names = ", ".join(dict.fromkeys(shown_name(child.name) for child in children))
        note = f"↳ {plural(len(children), 'tool call')}: {safe_line(names, CHILD_CALLS_SHOWN)}"
        blocks.context(note + (f" · {failed} failed" if failed else ""))
    if call.output.strip():
        answer = truncate_escaped(to_mrkdwn(call.output), DELEGATED_ANSWER_SHOWN)
        blocks.mrkdwn_sections(answer)
    text = safe_line(f"{lead} → {member}: {call.summary}", FALLBACK_LINE)
    return Message(item.key, text, blocks.fitted())
