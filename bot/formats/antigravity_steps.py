"""Which step of an Antigravity transcript answers which tool call.

A transcript names no call ids: the ``tool_calls`` of a PLANNER_RESPONSE are answered by the
steps that follow it, one step a call. The k-th call (from 0) of the planner response at step P
is answered by the step P+1+k (``…tool-use.transcript.jsonl``: 2→3, 4→5;
``…mcp-tool-wrapper.transcript.jsonl``: 3→4). Matching the number, rather than taking the oldest
open call, keeps a call agy rejected (it writes no step for it) from taking the next call's
result. A step can be written before the planner response that names its call (agy writes a
planner response once its first tool ran): such a step is held until its call comes.

At end of input (``left_over``), a held step that no call claimed answers the oldest open call of
an earlier planner response (a gap in ``step_index`` between a call and its step), else it is a
notice; a call whose step was passed by the transcript without a record is a failed call ("no
result recorded"); a call whose step is still to come (the transcript stops there) stays open:
the session's outcome is unknown and the follower orphans it in time.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from typing import Final

from mypy_extensions import mypyc_attr

from bot.formats.common import remember
from bot.records import Notice, Origin, Record, ToolResult

MAX_WAITING: Final = 1024  # open calls, held steps
NO_RESULT: Final = "No result recorded: agy writes none for a tool call it rejects."
_EXCERPT: Final = 300


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class ToolSteps:
    """The calls waiting for their step and the steps waiting for their call."""

    def __init__(self) -> None:
        # the step expected -> (the call id, its planner response's step)
        self._calls: OrderedDict[str, tuple[str, int]] = OrderedDict()
        # a step no call expects yet -> (its result, with no call id yet; the step's type)
        self._steps: OrderedDict[str, tuple[ToolResult, str]] = OrderedDict()
        self.last_step = -1  # the highest step_index read

    def called(self, call_id: str, planner_step: int, k: int) -> ToolResult | None:
        """The k-th call of the planner response at ``planner_step``: its result, if its step
        was read first; else ``None`` (the call waits)."""
        expected = str(planner_step + 1 + k)
        held = self._steps.pop(expected, None)
        if held is None:
            remember(self._calls, expected, (call_id, planner_step), MAX_WAITING)
            return None
        return replace(held[0], call_id=call_id)

    def answered(self, step: int, result: ToolResult, kind: str) -> ToolResult | None:
        """A tool step's result (``result.call_id`` empty), with the id of the call it answers;
        ``None`` when no call expects it yet (it is held)."""
        waiting = self._calls.pop(str(step), None)
        if waiting is None:
            remember(self._steps, str(step), (result, kind), MAX_WAITING)
            return None
        return replace(result, call_id=waiting[0])

    def left_over(self, origin: Origin) -> list[Record]:
        """At end of input: what the held steps and the open calls become (see the module doc).
        ``origin`` is the last record's, for the results of calls with no step."""
        out: list[Record] = []
        for step, (result, kind) in sorted(self._steps.items(), key=_step_number):
            call_id = self._oldest_call_before(int(step))
            if call_id is not None:
                out.append(replace(result, call_id=call_id))
            else:
                out.append(_unclaimed(int(step), result, kind))
        self._steps.clear()
        for expected, (call_id, _) in list(self._calls.items()):
            if int(expected) < self.last_step:
                del self._calls[expected]
                out.append(ToolResult(origin, call_id=call_id, output=NO_RESULT, is_error=True))
        return out

    def _oldest_call_before(self, step: int) -> str | None:
        """The open call of the earliest planner response before ``step``, taken."""
        found: str | None = None
        planner = step
        for expected, (_, planner_step) in self._calls.items():
            if planner_step < planner:
                found, planner = expected, planner_step
        if found is None:
            return None
        return self._calls.pop(found)[0]


def _step_number(item: tuple[str, tuple[ToolResult, str]]) -> int:
    return int(item[0])


def _unclaimed(step: int, result: ToolResult, kind: str) -> Notice:
    output = result.output.strip()
    text = f"Step {step} ({kind}) answers no tool call"
    if output:
        text += ": " + (output if len(output) <= _EXCERPT else output[: _EXCERPT - 1] + "…")
    return Notice(result.origin, kind="unmatched_result", text=text, level="warning")
