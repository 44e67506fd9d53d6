"""A group of tool calls: each with its status, name, what it was asked, how long it took,
and a short preview of its result or error. Updated in place as the calls finish."""

from __future__ import annotations

from typing import Final

from blocks.figures import TOOL_EMOJI, duration, plural
from blocks.fit import fitted
from blocks.markdown import to_mrkdwn
from blocks.message import Block, Message
from blocks.sections import context, section
from blocks.text import code_block, code_span, escape_mrkdwn, one_line, safe_line, truncate_escaped
from bot.session import Session, ToolCallState, ToolStatus
from bot.session.thread import Narration, ToolGroup
from bot.session.tool_calls import OPEN_STATUSES

ERROR_PREVIEW: Final = 500
RESULT_PREVIEW: Final = 160


def tools_message(group: ToolGroup, session: Session) -> Message:
    blocks: list[Block] = []
    summary: list[str] = []  # gathered in the same walk over the entries
    for entry in group.entries:
        if isinstance(entry, Narration):
            blocks.append(section(truncate_escaped(to_mrkdwn(entry.text), 2000)))
        else:
            call = session.calls[entry]
            blocks.extend(call_blocks(call, session))
            summary.append(f"{call.name} {TOOL_EMOJI[call.status]}")
    text = safe_line(f"Tools: {', '.join(summary)}", 300)
    return Message(group.key, text, fitted(blocks))


def call_line(call: ToolCallState) -> str:
    """``✅ *Bash* `npm test` · 2.3s``"""
    line = f"{TOOL_EMOJI[call.status]} *{safe_line(call.name, 80)}*"
    if call.summary:
        line += " " + code_span(call.summary, 220)
    if (seconds := call.duration_s) is not None:
        line += f" · {duration(seconds)}"
    if call.status in (ToolStatus.INTERRUPTED, ToolStatus.ORPHANED):
        line += f" · _{call.status.value}_"
    return line


def call_blocks(call: ToolCallState, session: Session) -> list[Block]:
    text = call_line(call)
    if call.status is ToolStatus.ERROR and call.output.strip():
        text += "\n" + code_block(call.output, ERROR_PREVIEW)
    blocks: list[Block] = [section(text)]
    subagent, result = _subagent_note(call, session), _result_note(call)
    if subagent or result:  # `context` leaves an empty one out (fixed arguments: a direct call)
        blocks.append(context(subagent, result))
    return blocks


def _result_note(call: ToolCallState) -> str:
    if call.status is not ToolStatus.OK or not call.output_size:
        return ""
    first = one_line(call.output, RESULT_PREVIEW)
    more = f" _({plural(call.output_lines, 'line')})_" if call.output_lines > 1 else ""
    return f"→ {escape_mrkdwn(first)}{more}"


def _subagent_note(call: ToolCallState, session: Session) -> str:
    if not call.children:
        return ""
    children = [session.calls[child] for child in call.children if child in session.calls]
    failed = sum(1 for child in children if child.status is ToolStatus.ERROR)
    running = sum(1 for child in children if child.status in OPEN_STATUSES)
    parts = [plural(len(children), "tool call")]
    if running:
        parts.append(f"{running} running")
    if failed:
        parts.append(f"{failed} failed")
    latest = children[-1]
    latest_text = f"{latest.name} {latest.summary}".strip()
    return f"↳ {', '.join(parts)} · latest: {safe_line(latest_text, 120)}"
