"""A group of tool calls: each with its status, name, what it was asked, how long it took,
and a short preview of its result or error. Updated in place as the calls finish."""

from __future__ import annotations

from typing import Final

from blocks.figures import TOOL_EMOJI, duration, plural
from blocks.markdown import to_mrkdwn
from blocks.message import Message
from blocks.sections import MessageBlocks
from blocks.text import code_block, code_span, escape_mrkdwn, one_line, safe_line, truncate_escaped
from bot.caps import ERROR_PREVIEW, RESULT_PREVIEW
from bot.session import Session, ToolCallState, ToolStatus
from bot.session.thread import Narration, ToolGroup
from bot.session.tool_calls import OPEN_STATUSES

# The statuses, bound once: compiled, `ToolStatus.OK` is a look-up on the class at each use.
_OK: Final = ToolStatus.OK
_ERROR: Final = ToolStatus.ERROR
_INTERRUPTED: Final = ToolStatus.INTERRUPTED
_ORPHANED: Final = ToolStatus.ORPHANED


def tools_message(group: ToolGroup, session: Session) -> Message:
    blocks = MessageBlocks()
    summary: list[str] = []  # gathered in the same walk over the entries
    for entry in group.entries:
        if isinstance(entry, Narration):
            blocks.section(truncate_escaped(to_mrkdwn(entry.text), 2000))
        else:
            call = session.calls[entry]
            _add_call_blocks(blocks, call, session)
            summary.append(f"{call.name} {TOOL_EMOJI[call.status]}")
    text = safe_line(f"Tools: {', '.join(summary)}", 300)
    return Message(group.key, text, blocks.fitted())


def call_line(call: ToolCallState) -> str:
    """``✅ *Bash* `npm test` · 2.3s``, built in one f-string (each `+` would copy the line)."""
    status = call.status
    summary = call.summary
    gap, span = (" ", code_span(summary, 220)) if summary else ("", "")
    seconds = call.duration_s
    dot = " · " if seconds is not None else ""
    state = ""  # `f" · _{status.value}_"`, without `.value` (an interpreted property)
    if status is _INTERRUPTED:
        state = " · _interrupted_"
    elif status is _ORPHANED:
        state = " · _orphaned_"
    name = safe_line(call.name, 80)
    return f"{TOOL_EMOJI[status]} *{name}*{gap}{span}{dot}{duration(seconds)}{state}"


def _add_call_blocks(blocks: MessageBlocks, call: ToolCallState, session: Session) -> None:
    """A call's blocks, added to its message's ``blocks``: its line (with the error, when it
    failed) and a note of its subagent's calls and of its result."""
    text = call_line(call)
    if call.status is _ERROR and call.output.strip():
        text += "\n" + code_block(call.output, ERROR_PREVIEW)
    blocks.section(text)
    subagent, result = _subagent_note(call, session), _result_note(call)
    if subagent or result:  # `context` leaves an empty one out (fixed arguments: a direct call)
        blocks.context(subagent, result)


def _result_note(call: ToolCallState) -> str:
    if call.status is not _OK or not call.output_size:
        return ""
    first = escape_mrkdwn(one_line(call.output, RESULT_PREVIEW))
    lines = call.output_lines
    if lines > 1:  # `plural(lines, "line")` of more than one, in the one f-string
        return f"→ {first} _({lines} lines)_"
    return f"→ {first}"


def _subagent_note(call: ToolCallState, session: Session) -> str:
    if not call.children:
        return ""
    children: list[ToolCallState] = []
    failed = running = 0  # counted in the one walk (compiled, a generator is an object)
    for child_id in call.children:
        child = session.calls.get(child_id)
        if child is None:
            continue
        children.append(child)
        if child.status is _ERROR:
            failed += 1
        elif child.status in OPEN_STATUSES:
            running += 1
    if not children:  # none of them known: no "0 tool calls", no latest
        return ""
    parts = [plural(len(children), "tool call")]
    if running:
        parts.append(f"{running} running")
    if failed:
        parts.append(f"{failed} failed")
    latest = children[-1]
    latest_text = f"{latest.name} {latest.summary}".strip()
    return f"↳ {', '.join(parts)} · latest: {safe_line(latest_text, 120)}"
