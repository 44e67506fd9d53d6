"""Format: agno — Agno agent and team runs, streamed event by event or stored as whole runs.

A streamed run is one JSON event per line (``RunStarted``, ``RunContent`` token deltas,
``ToolCallStarted`` ...; a team's events carry the ``Team`` prefix and are read alike). A member
run that a team leader delegated to carries ``parent_run_id``: all its records get
``parent_call`` = the delegation's call id and ``subagent`` = the member id (``agno_runs`` says
how the delegation is found). A stored run arrives as one document and is walked by
``agno_runs`` through the same event mapping.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats import agno_runs
from bot.formats.agno_events import (
    DELEGATE_TO_ALL,
    DELEGATE_TO_ONE,
    EVENTS,
    HIDDEN,
    INTERNAL_TOOLS,
    KEEPS_THINKING,
)
from bot.formats.agno_runs import ALL_MEMBERS, Run, RunBook
from bot.formats.common import loads_maybe, text_of, to_utc
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.records import (
    AssistantText,
    Delegation,
    Ignored,
    Notice,
    Origin,
    Record,
    SessionStarted,
    SubagentLink,
    Thinking,
    ToolCall,
    ToolResult,
)

FAMILY = "agno"


def detect(obj: object) -> bool:
    """An Agno event (a known name, with a run or session id), a stored run, a list of runs."""
    if type(obj) is dict:
        event = obj.get("event")
        if type(event) is str:
            return event in EVENTS and ("run_id" in obj or "session_id" in obj)
        return agno_runs.is_stored_run(obj)
    if type(obj) is list and obj:
        return agno_runs.is_stored_run(obj[0])
    return False


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    def __init__(self, source: str) -> None:
        self.source = source
        self.book = RunBook()
        self._runs = self.book.runs  # the same dict, read once per event
        self._session = ""
        self._raw_time: object = None
        self._time: datetime | None = None

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        """One streamed event, or a whole stored document (a run, or a list of runs)."""
        if type(obj) is not dict:
            if type(obj) is list and obj and agno_runs.is_stored_run(obj[0]):
                return agno_runs.walk(obj, self, line)
            return None
        name = obj.get("event")
        kind = EVENTS.get(name) if type(name) is str else None
        if kind is None:
            if type(name) is not str:
                return agno_runs.walk([obj], self, line) if agno_runs.is_stored_run(obj) else None
            if "run_id" not in obj and "session_id" not in obj:
                return None
            session = str(obj.get("session_id") or self._session)
            return [Ignored(Origin(session, self._at(obj), line), kind="other_event")]
        if kind == "RunStarted":
            return self._started(obj, line)
        run_id = obj.get("run_id")
        run = self._runs.get(run_id) if type(run_id) is str else None
        out: list[Record] = []
        if run is None:  # its start was not seen: place it, but say no session started
            run, out = self._open(obj, line)
        if run.thinking and kind not in KEEPS_THINKING:
            out.append(self._flush_thinking(run))
        handled = self._handle(kind, obj, line, run)
        if handled is not None:
            if not out:
                return handled
            out.extend(handled)
            return out
        at = self._at(obj)
        out.append(Ignored(run.origin(at, line), HIDDEN[kind]))
        return out

    def _handle(self, kind: str, event: dict[str, Any], line: int, run: Run) -> list[Record] | None:
        """The records of an event this format reads, by its kind; ``None`` for a hidden one.
        An ``if`` chain, not a table of bound methods: compiled, these are direct calls."""
        if kind == "RunContent":  # most events by far
            return self._content(event, line, run)
        if kind == "ToolCallStarted":
            return self._tool_started(event, line, run)
        if kind == "ToolCallCompleted":
            return self._tool_completed(event, line, run)
        if kind == "ToolCallError":
            return self._tool_error(event, line, run)
        if kind == "ReasoningContentDelta":
            return self._reasoning_delta(event, line, run)
        if kind == "ReasoningStep":
            return self._reasoning_step(event, line, run)
        if kind == "RunCompleted":
            return self._completed(event, line, run)
        if kind == "RunError":
            return self._failed(event, line, run)
        if kind == "RunCancelled":
            return self._cancelled(event, line, run)
        if kind == "RunPaused":
            return self._paused(event, line, run)
        if kind == "RunContinued":
            return self._continued(event, line, run)
        return None

    def event(self, event: dict[str, Any], line: int) -> list[Record]:
        """The records of one event of a stored run."""
        return self.parse(event, line) or []

    def finish(self) -> list[Record]:
        return [self._flush_thinking(run) for run in self._runs.values() if run.thinking]

    def _at(self, event: dict[str, Any]) -> datetime | None:
        raw = event.get("created_at")
        if raw != self._raw_time:  # events come many to a second: convert each second once
            self._raw_time = raw
            self._time = to_utc(raw)
        return self._time

    # Records are built by their own constructors, with the run's place spelled out: compiled,
    # that is a direct native call, where a generic ``cls(..., **fields)`` helper built a dict
    # and went through the interpreted call protocol.
    def _ignored(self, run: Run, event: dict[str, Any], line: int, kind: str) -> Ignored:
        """An ``Ignored`` record of ``run``'s, at ``event``'s time."""
        return Ignored(run.origin(self._at(event), line), kind)

    def _started(self, event: dict[str, Any], line: int) -> list[Record]:
        run, out = self._open(event, line)
        model = event.get("model")
        run.model = model if model and type(model) is str else None
        if run.top:
            if event.get("team_id") or event.get("team_name") or event["event"][:4] == "Team":
                agent = "Agno team " + str(event.get("team_name") or event.get("team_id") or "")
            else:
                agent = "Agno agent " + str(event.get("agent_name") or event.get("agent_id") or "")
            at = self._at(event)
            start = SessionStarted(
                run.origin(at, line),
                agent.strip(),
                run.model,
            )
            out.append(start)
        return out

    def _open(self, event: dict[str, Any], line: int) -> tuple[Run, list[Record]]:
        run, parent = self.book.open(event, self._session)
        self._session = run.session_id
        if parent is None:
            return run, []
        assert run.parent_call is not None  # a parent is given only with the call found in it
        link = SubagentLink(
            parent.origin(self._at(event), line),
            agent_id=run.subagent or run.run_id,
            call_id=run.parent_call,
        )  # fmt: skip
        return run, [link]

    # -- content and reasoning -------------------------------------------------------------------

    def _content(self, event: dict[str, Any], line: int, run: Run) -> list[Record]:
        reasoning = event.get("reasoning_content")
        if reasoning:
            self._reasoning_delta(event, line, run)
        content = event.get("content")
        if not content:
            return [] if reasoning else [self._ignored(run, event, line, "empty_delta")]
        run.streamed = True
        text = content if type(content) is str else text_of(content)
        at = self._at(event)  # the hottest line of all: built positionally, in a list of one
        said = AssistantText(
            run.origin(at, line),
            text,
            True,
            run.run_id,
        )
        if run.thinking:
            return [self._flush_thinking(run), said]
        return [said]

    def _reasoning_delta(self, event: dict[str, Any], line: int, run: Run) -> list[Record]:
        """Reasoning deltas are held and joined into one ``Thinking`` (it has no delta flag),
        said at the run's next other event, or at the end of input."""
        text = event.get("reasoning_content")
        if text and type(text) is str:
            if not run.thinking:
                run.thinking_at = (self._at(event), line)
            run.thinking.append(text)
            run.thought = True
        return []

    def _flush_thinking(self, run: Run) -> Thinking:
        text, run.thinking = "".join(run.thinking), []
        at, line = run.thinking_at
        return Thinking(run.origin(at, line), text=text)

    def _reasoning_step(self, event: dict[str, Any], line: int, run: Run) -> list[Record]:
        text = event.get("reasoning_content") or _step_text(event.get("content"))
        if not text:
            return [self._ignored(run, event, line, "empty_reasoning")]
        run.thought = True
        return [
            Thinking(
                run.origin(self._at(event), line),
                text=str(text),
            )
        ]

    # -- ends of runs ----------------------------------------------------------------------------

    def _completed(self, event: dict[str, Any], line: int, run: Run) -> list[Record]:
        self.book.close(run)
        out: list[Record] = []
        reasoning = event.get("reasoning_content")
        if reasoning and type(reasoning) is str and not run.thought:
            out.append(
                Thinking(
                    run.origin(self._at(event), line),
                    text=reasoning,
                )
            )
        text = text_of(event.get("content"))
        if text and not run.streamed:
            message = AssistantText(
                run.origin(self._at(event), line),
                text=text,
                message_id=run.run_id,
            )
            out.append(message)
        if run.top:
            out.append(agno_runs.success(event, text, run, self._at(event), line))
        else:  # the member's answer arrives as its delegation's result
            out.append(self._ignored(run, event, line, "member_run_completed"))
        return out

    def _failed(self, event: dict[str, Any], line: int, run: Run) -> list[Record]:
        self.book.close(run)
        error = text_of(event.get("content")) or str(event.get("error_type") or "run failed")
        if not run.top:
            return [self._notice(event, line, run, "member_error", error, "error")]
        subtype = event.get("error_type")
        subtype = subtype if type(subtype) is str else None
        return [agno_runs.failure(error, subtype, run, self._at(event), line)]

    def _cancelled(self, event: dict[str, Any], line: int, run: Run) -> list[Record]:
        self.book.close(run)
        reason = text_of(event.get("reason") or event.get("content")) or "run cancelled"
        if not run.top:
            return [self._notice(event, line, run, "member_cancelled", reason, "warning")]
        return [agno_runs.failure(reason, "cancelled", run, self._at(event), line)]

    def _paused(self, event: dict[str, Any], line: int, run: Run) -> list[Record]:
        tools = event.get("tools")
        tools = tools if type(tools) is list else []
        waiting = [str(t.get("tool_name")) for t in tools if type(t) is dict]
        text = "paused, waiting for " + ", ".join(waiting) if waiting else "paused"
        return [self._notice(event, line, run, "run_paused", text, "warning")]

    def _continued(self, event: dict[str, Any], line: int, run: Run) -> list[Record]:
        return [self._notice(event, line, run, "run_continued", "continued", "info")]

    def _notice(
        self, event: dict[str, Any], line: int, run: Run, kind: str, text: str, level: str
    ) -> Notice:
        return Notice(
            run.origin(self._at(event), line),
            kind=kind,
            text=text,
            level=level,
        )

    # -- tools and delegations -------------------------------------------------------------------

    def _tool_started(self, event: dict[str, Any], line: int, run: Run) -> list[Record]:
        tool = _tool(event)
        name = str(tool.get("tool_name") or "")
        if name in INTERNAL_TOOLS:
            return [self._ignored(run, event, line, "internal_tool")]
        call_id = str(tool.get("tool_call_id") or "") or run.unnamed_call(name, started=True)
        args = loads_maybe(tool.get("tool_args"))
        if name in DELEGATE_TO_ONE or name in DELEGATE_TO_ALL:
            args = args if type(args) is dict else {}
            member = ALL_MEMBERS if name in DELEGATE_TO_ALL else str(args.get("member_id") or "")
            task = args.get("task") or args.get("task_description") or args.get("expected_output")
            self.book.delegate(call_id, member, run.run_id, tool.get("child_run_id"))
            return [
                Delegation(
                    run.origin(self._at(event), line),
                    call_id=call_id,
                    member=member,
                    task=text_of(task),
                )
            ]
        if type(args) is dict:
            return [
                ToolCall(
                    run.origin(self._at(event), line),
                    call_id=call_id,
                    name=name,
                    input=args,
                )
            ]
        raw = None if args is None else text_of(args)
        return [
            ToolCall(
                run.origin(self._at(event), line),
                call_id=call_id,
                name=name,
                raw_input=raw,
            )
        ]

    def _tool_completed(self, event: dict[str, Any], line: int, run: Run) -> list[Record]:
        tool = _tool(event)
        name = str(tool.get("tool_name") or "")
        if name in INTERNAL_TOOLS:
            return [self._ignored(run, event, line, "internal_tool")]
        call_id = str(tool.get("tool_call_id") or "") or run.unnamed_call(name, started=False)
        self.book.delegation_done(call_id, tool.get("child_run_id"))
        result = tool.get("result")
        output = text_of(result if result is not None else event.get("content"))
        failed = tool.get("tool_call_error") is True
        run.failed_call = call_id if failed else None
        result = ToolResult(
            run.origin(self._at(event), line),
            call_id,
            output,
            is_error=failed,
            name=name or None,
        )
        return [result]

    def _tool_error(self, event: dict[str, Any], line: int, run: Run) -> list[Record]:
        tool = _tool(event)
        name = str(tool.get("tool_name") or "")
        if name in INTERNAL_TOOLS:
            return [self._ignored(run, event, line, "internal_tool")]
        call_id = str(tool.get("tool_call_id") or "") or run.unnamed_call(name, started=False)
        if call_id == run.failed_call:  # its completion, just before, already said it failed
            run.failed_call = None
            return [self._ignored(run, event, line, "tool_error_repeated")]
        self.book.delegation_done(call_id, None)
        output = text_of(event.get("error") or tool.get("result")) or "tool call failed"
        result = ToolResult(
            run.origin(self._at(event), line),
            call_id,
            output,
            is_error=True,
            name=name or None,
        )
        return [result]


def _tool(event: dict[str, Any]) -> dict[str, Any]:
    tool = event.get("tool")
    return tool if type(tool) is dict else {}


def _step_text(step: object) -> str:
    """A reasoning step's text: its title, reasoning, action and result, one a line."""
    if type(step) is not dict:
        return text_of(step)
    parts = (step.get("title"), step.get("reasoning"), step.get("action"), step.get("result"))
    return "\n".join(str(part) for part in parts if part)


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent="Agno",
    detect=detect,
    parser=Parser,
    reports_result=True,
    produced_by="Agno runs: streamed events (`stream_events=True`), stored runs, a session's runs",
)
