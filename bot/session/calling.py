"""How tool calls, delegations and their results change a session: each call is tracked, a call
shown in the thread goes into a tool group (or a delegation's own item), and its result ends it.

A result that comes before its call (a log written out of order, or one that starts after the
call) is said as a notice, once for its call, and kept until the call comes, ``EARLY_RESULTS``
of them at most. Each change to a call marks the thread items that show it as
changed (``Session.call_changed``): their messages are the ones built again.
"""

from __future__ import annotations

import dataclasses
import sys
from datetime import datetime
from typing import TYPE_CHECKING, Final

from bot.caps import (
    ANSWER_KEPT,
    EARLY_OUTPUT_CAP,
    OK_PREVIEW_LIMIT,
    PREVIEW_LIMIT,
    RESULT_PREVIEW,
    SUMMARY_LIMIT,
)
from bot.records import Delegation, Notice, ToolCall, ToolResult
from bot.session import saying
from bot.session.thread import DelegationItem, ToolGroup
from bot.session.tool_calls import (
    OPEN_STATUSES,
    ToolCallState,
    ToolStatus,
    describe_call,
    leading_lines,
    mcp_tool,
    one_line_start,
    output_is_markdown,
    output_preview,
    result_preview,
    shared_preamble,
)

if TYPE_CHECKING:
    from bot.session.state import Session

_UNMATCHED: Final = "Output of a tool call not in the log"
EARLY_RESULTS: Final = 64  # results kept while their calls have not come; the oldest is dropped


def tool_call(session: Session, record: ToolCall, at: datetime | None, shown: bool) -> None:
    known = session.calls.get(record.call_id)
    if known is not None:  # the same call seen twice (e.g. a subagent's own file too)
        if known.started_at is None and at is not None:
            known.started_at = at
            session.call_changed(known)
        return
    parent = session.parent_of(record)
    call = ToolCallState(  # positional (id, name, summary, status, parent, started_at)
        record.call_id,
        sys.intern(record.name),  # a handful of names, repeated in every session
        describe_call(record.name, record.input, record.raw_input, session.info.cwd),
        ToolStatus.RUNNING,
        parent,
        at,
    )
    _add_call(session, call, parent, shown)


def delegation(session: Session, record: Delegation, at: datetime | None, shown: bool) -> None:
    if record.call_id in session.calls:
        return
    parent = session.parent_of(record)
    call = ToolCallState(
        id=record.call_id,
        name=f"delegate to {record.member}" if record.member else "delegate",
        summary=" ".join(record.task.split())[:SUMMARY_LIMIT],
        status=ToolStatus.PENDING,
        parent=parent,
        started_at=at,
        delegate=record.member,
    )
    calls = session.calls
    calls[call.id] = call
    session.tally[call.status] += 1
    session.open_calls.append(call.id)
    if parent in calls:
        calls[parent].add_child(call.id)
        session.call_changed(call)
    elif shown:
        session.add_item(DelegationItem(session.new_key("delegation"), call.id), call.id)
    _apply_early_result(session, call.id)


def _add_call(session: Session, call: ToolCallState, parent: str | None, shown: bool) -> None:
    calls = session.calls
    calls[call.id] = call
    session.tally[call.status] += 1
    session.open_calls.append(call.id)
    if parent is not None and parent in calls:
        parent_call = calls[parent]
        parent_call.add_child(call.id)
        session.call_changed(call)  # its parent's message counts it
        if parent_call.status is ToolStatus.PENDING:
            set_status(session, parent_call, ToolStatus.RUNNING)
            session.call_changed(parent_call)
    elif shown:
        show_in_group(session, call.id)
    _apply_early_result(session, call.id)


def set_status(session: Session, call: ToolCallState, status: ToolStatus) -> None:
    """The call's status is now ``status`` (the session's calls counted by status follow)."""
    tally = session.tally
    tally[call.status] -= 1
    tally[status] += 1
    call.status = status


def _apply_early_result(session: Session, call_id: str) -> None:
    """A result that came before its call ends the call now that it is known."""
    if session.early:
        early = session.early.pop(call_id, None)
        if early is not None:
            tool_result(session, *early)


def _keep_early_result(
    session: Session, record: ToolResult, at: datetime | None, shown: bool
) -> None:
    if len(record.output) > EARLY_OUTPUT_CAP:  # only its preview will be shown
        record = dataclasses.replace(record, output=record.output[:EARLY_OUTPUT_CAP])
    early = session.early
    early[record.call_id] = (record, at, shown)
    if len(early) > EARLY_RESULTS:
        early.popitem(last=False)
        session.dropped_results += 1


def _say_unmatched(session: Session, record: ToolResult, shown: bool) -> None:
    """A result whose call the log has not shown (it may never: a log that starts after the
    call) is said in the thread, by its first line, once for its call: the thread does not
    lose it. Still kept (``early``): its call, if it comes, takes it."""
    head = record.output.lstrip()[: 2 * RESULT_PREVIEW]
    first = head.split("\n", 1)[0].strip()[:RESULT_PREVIEW]
    text = f"{_UNMATCHED}: {first}" if first else _UNMATCHED
    notice = Notice(record.origin, kind="tool output", text=text)
    saying.notice(session, notice, shown)


def show_in_group(session: Session, call_id: str) -> None:
    """Show the call in the last tool group, or in a new one when that one is done."""
    items = session.items
    last = items[-1] if items else None
    if not isinstance(last, ToolGroup) or _group_done(session, last):
        last = ToolGroup(session.new_key("tools"), at=len(items))
        session.add_item(last)
    else:
        session.item_changed(last.at)
    last.add_call(call_id)
    session.calls[call_id].item = last.at


def _group_done(session: Session, group: ToolGroup) -> bool:
    """A group takes no more calls once full, or once half full with every call finished:
    then the agent's next step starts a new message (a post, from the channel's budget)
    rather than changing this one again (an update, from the workspace's shared one)."""
    size = session.settings.tools_per_group
    if group.calls >= size:
        return True
    if group.calls < size // 2:
        return False
    calls = session.calls
    return not any(calls[call_id].status in OPEN_STATUSES for call_id in group.call_ids)


def tool_result(session: Session, record: ToolResult, at: datetime | None, shown: bool) -> None:
    call = session.calls.get(record.call_id)
    if call is None:
        if not record.call_id or record.call_id not in session.early:
            _say_unmatched(session, record, shown)
        _keep_early_result(session, record, at, shown)
        return
    if record.name is not None and call.name != record.name:
        _named_by_result(call, record.name)
    if record.interrupted:
        set_status(session, call, ToolStatus.INTERRUPTED)
    else:
        set_status(session, call, ToolStatus.ERROR if record.is_error else ToolStatus.OK)
    _forget_closed_calls(session)
    call.ended_at = at
    session.call_changed(call)
    top_level = call.parent is None or call.parent not in session.calls
    if shown and record.is_error and top_level and not call.shown:
        show_in_group(session, call.id)  # quiet: a failed call still shows
    if not call.shown:  # no message shows its output (a subagent's call, a hidden one)
        return
    limit = ANSWER_KEPT if call.delegate is not None else (
        PREVIEW_LIMIT if record.is_error else OK_PREVIEW_LIMIT
    )
    if call.delegate is not None:  # a member's answer: shown as it said it
        call.output, call.output_size, call.output_lines = output_preview(record.output, limit)
    else:
        kept_lines = record.is_error or output_is_markdown(call)
        preamble = () if kept_lines else _preamble(session, call, record.output)
        output, call.output_size, call.output_lines = result_preview(
            record.output, limit, record.is_error, session.info.cwd, preamble
        )
        # A success's message shows its output as one line: only that line's start is kept (an
        # agent's answer keeps its lines, whose Markdown marks are read line by line).
        call.output = output if kept_lines else one_line_start(output, RESULT_PREVIEW)


def _preamble(session: Session, call: ToolCallState, output: str) -> tuple[str, ...]:
    """What the call's tool prints before every output, as far as the session has seen: the
    lines that began the outputs of two different calls of the tool (a shell profile's
    warnings before each command's output). A success's preview starts past them; its Full
    output keeps them."""
    head = leading_lines(output)
    last = session.last_outputs.get(call.name)
    if last is not None and last[0] != call.summary and (shared := shared_preamble(last[1], head)):
        session.preambles[call.name] = shared
    session.last_outputs[call.name] = (call.summary, head)
    return session.preambles.get(call.name, ())


def _named_by_result(call: ToolCallState, name: str) -> None:
    """A call named by its tool alone whose result names its MCP server too (a Codex rollout's
    ``function_call`` and its ``mcp_tool_call_end``) takes that name, so it is shown by its
    server and tool."""
    mcp = mcp_tool(name)
    if mcp is not None and mcp[1] == call.name:
        call.name = sys.intern(name)


def _forget_closed_calls(session: Session) -> None:
    """The calls begun last that have ended leave the calls that may still be open (a call
    and then its result, the usual order, keep none there)."""
    open_calls, calls = session.open_calls, session.calls
    while open_calls and calls[open_calls[-1]].status not in OPEN_STATUSES:
        open_calls.pop()


def interrupt_open_calls(session: Session) -> None:
    """Every call still open is interrupted: the calls begun since this was last done (the
    others are closed)."""
    calls = session.calls
    for call_id in session.open_calls:
        call = calls[call_id]
        if call.status in OPEN_STATUSES:
            set_status(session, call, ToolStatus.INTERRUPTED)
            session.call_changed(call)
    session.open_calls = []


def orphan_open_calls(session: Session) -> bool:
    """Calls still waiting (pending, running) are orphaned; whether any was."""
    changed = False
    still_open: list[str] = []
    calls = session.calls
    for call_id in session.open_calls:
        call = calls[call_id]
        if call.status in (ToolStatus.PENDING, ToolStatus.RUNNING):
            set_status(session, call, ToolStatus.ORPHANED)
            session.call_changed(call)
            changed = True
        if call.status in OPEN_STATUSES:
            still_open.append(call_id)
    session.open_calls = still_open
    return changed
