"""A group of tool calls: each with its status, name, what it was asked, how long it took,
and a short preview of its result or error. Updated in place as the calls finish."""

from __future__ import annotations

from blocks.figures import TOOL_EMOJI, duration, plural
from blocks.limits import BLOCK_ID_MAX
from blocks.markdown import to_mrkdwn
from blocks.message import Block, Message
from blocks.sections import MessageBlocks
from blocks.text import (
    FENCE,
    GRAVE,
    code_block,
    code_span,
    escape_mrkdwn,
    one_line,
    safe_line,
    truncate_escaped,
)
from bot.caps import (
    CALL_ID_MAX,
    CALL_SUMMARY_SHOWN,
    ERROR_PREVIEW,
    FALLBACK_LINE,
    LATEST_SHOWN,
    NARRATION_SHOWN,
    OK_PREVIEW_LIMIT,
    PREVIEW_LIMIT,
    RESULT_PREVIEW,
    TOOL_NAME_SHOWN,
)
from bot.controls import FULL_OUTPUT, button_value
from bot.session import Session, ToolCallState, ToolStatus
from bot.session.thread import Narration, ToolGroup
from bot.session.tool_calls import OPEN_STATUSES, output_is_markdown, shown_name


def tools_message(group: ToolGroup, session: Session) -> Message:
    blocks = MessageBlocks()
    summary: list[str] = []  # gathered in the same walk over the entries
    for entry in group.entries:
        if isinstance(entry, Narration):
            blocks.section(truncate_escaped(to_mrkdwn(entry.text), NARRATION_SHOWN))
        else:
            call = session.calls[entry]
            _add_call_blocks(blocks, call, session)
            summary.append(f"{shown_name(call.name)} {TOOL_EMOJI[call.status]}")
    text = safe_line(f"Tools: {', '.join(summary)}", FALLBACK_LINE)
    return Message(group.key, text, blocks.fitted())


def call_line(call: ToolCallState) -> str:
    """``✅ *Bash* `npm test` · 2.3s``; an interrupted or orphaned call says so."""
    line = f"{TOOL_EMOJI[call.status]} *{safe_line(shown_name(call.name), TOOL_NAME_SHOWN)}*"
    if call.summary:
        line += " " + code_span(call.summary, CALL_SUMMARY_SHOWN)
    if (seconds := call.duration_s) is not None:
        line += f" · {duration(seconds)}"
    if call.status in (ToolStatus.INTERRUPTED, ToolStatus.ORPHANED):
        line += f" · _{call.status.value}_"
    return line


def _add_call_blocks(blocks: MessageBlocks, call: ToolCallState, session: Session) -> None:
    """A call's blocks, added to its message's ``blocks``: its line (with the error, when it
    failed) and a note of its subagent's calls and of its result."""
    text = call_line(call)
    if call.status is ToolStatus.ERROR and call.output.strip():
        text += "\n" + code_block(call.output, ERROR_PREVIEW)
    blocks.section(text)
    subagent, result = subagent_note(call, session), result_note(call)
    if subagent or result:  # `context` leaves an empty one out
        blocks.context(subagent, result)
    at = call.output_at
    if session.settings.controls and at is not None and _cut(call) and len(call.id) <= CALL_ID_MAX:
        blocks.items.append(_full_output_button(session.session_id, call.id))


def _cut(call: ToolCallState) -> bool:
    """Whether the message shows less than the call's whole output: its kept start is not all
    of it, or what the message makes of that start (a code block of a failed call's, one line
    of a success's: ``_add_call_blocks``, ``result_note``) is cut. Lines joined on one line are
    shown whole, not cut."""
    if call.status is ToolStatus.ERROR:
        if call.output_size > PREVIEW_LIMIT:
            return True
        whole = code_block(call.output, 8 * PREVIEW_LIMIT)  # room for its escapes: never cut
        return code_block(call.output, ERROR_PREVIEW) != whole
    if call.status is not ToolStatus.OK:
        return False
    if call.output_size > OK_PREVIEW_LIMIT:
        return True
    return one_line(call.output, RESULT_PREVIEW) != one_line(call.output, 8 * OK_PREVIEW_LIMIT)


def _full_output_button(session_id: str, call_id: str) -> Block:
    """The Full output control of a call (an actions block of one button)."""
    value = button_value(session_id, call=call_id)
    button = {"type": "button", "text": {"type": "plain_text", "text": "Full output"},
              "action_id": FULL_OUTPUT, "value": value}  # fmt: skip
    block_id = f"full_output:{call_id}"[:BLOCK_ID_MAX]
    return {"type": "actions", "block_id": block_id, "elements": [button]}


def result_note(call: ToolCallState) -> str:
    """``→ the output's first line`` of a call that succeeded; an agent's answer with its
    Markdown marks read (``**11 words**`` bold), a command's output as it is."""
    if call.status is not ToolStatus.OK or not call.output_size:
        return ""
    more = f" _({plural(call.output_lines, 'line')})_" if call.output_lines > 1 else ""
    if output_is_markdown(call):
        return f"→ {_answer_line(call.output)}{more}"
    return f"→ {escape_mrkdwn(one_line(call.output, RESULT_PREVIEW))}{more}"


def _answer_line(text: str) -> str:
    """The start of an agent's answer as one line of mrkdwn: its Markdown read line by line
    (a heading bold, not the line it is joined to; a code block inline code, which on one line
    a fence would not be; a quote without its marks), then its lines joined and cut (never in
    an entity or a link) to the line a command's output gets; escaped as said when reading its
    marks leaves nothing."""
    said = one_line(_one_line_marks(to_mrkdwn(text)), 8 * RESULT_PREVIEW)
    if not said:
        return escape_mrkdwn(one_line(text, RESULT_PREVIEW))
    return truncate_escaped(said, RESULT_PREVIEW)


def _one_line_marks(mrkdwn: str) -> str:
    """``to_mrkdwn``'s lines as they read once joined into one: each code block (its lines
    between two ``FENCE`` lines) inline code, each quoted line without its ``>``."""
    if FENCE not in mrkdwn and ">" not in mrkdwn:
        return mrkdwn
    out: list[str] = []
    code: list[str] | None = None  # the lines of the code block being read
    for line in mrkdwn.split("\n"):
        if line == FENCE:
            if code is not None:
                out.append("`" + " ".join(" ".join(code).split()).replace("`", GRAVE) + "`")
            code = [] if code is None else None
        elif code is not None:
            code.append(line)
        else:
            out.append(line[1:] if line.startswith(">") else line)
    return "\n".join(out)


def subagent_note(call: ToolCallState, session: Session) -> str:
    if not call.children:
        return ""
    children = [session.calls[child] for child in call.children if child in session.calls]
    if not children:  # none of them known: no "0 tool calls", no latest
        return ""
    failed = sum(1 for child in children if child.status is ToolStatus.ERROR)
    running = sum(1 for child in children if child.status in OPEN_STATUSES)
    parts = [plural(len(children), "tool call")]
    if running:
        parts.append(f"{running} running")
    if failed:
        parts.append(f"{failed} failed")
    latest = children[-1]
    latest_text = f"{shown_name(latest.name)} {latest.summary}".strip()
    return f"↳ {', '.join(parts)} · latest: {safe_line(latest_text, LATEST_SHOWN)}"
