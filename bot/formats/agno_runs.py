"""Agno runs: which run a record belongs to, and stored runs walked as if streamed.

``RunBook`` keeps the open runs and delegations. A member run (one with a ``parent_run_id``)
finds the delegation that started it; the first of these wins, and a call has at most one run:
1. the delegation's ``tool.child_run_id``, when it was seen before the run started (stored runs);
2. the parent run's oldest open delegation to a member whose id is the run's agent or team id
   or name (as is, or url-safe) — streamed events name the child run only on completion;
3. the parent run's open delegation to all members (``delegate_task_to_members``).
A member run with none of these keeps its parent's place (the parent's ``parent_call``).

A stored document (a ``TeamRunOutput``/``RunOutput`` with ``events``, or the list of runs of
``GET /sessions/{id}``) goes through the same event mapping. With no content deltas stored, a
top-level run's input (``run_input`` or ``input.input_content``) is said as ``UserText`` after its
start, and each run's ``content`` at its end; ``tools``, ``messages`` and ``member_responses``
repeat the events and are not read. A member run stored as a run of its own (its events in its
parent's ``events`` are then skipped) is walked where its delegation names it, or else just
before its parent's end. Runs whose parent is not in the document go first. A run lacking a start
or end event gets one made from its fields (an end only when its ``status`` says how it ended).
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime
from typing import Any, Final, Protocol

from mypy_extensions import mypyc_attr

from bot.formats.common import V, remember, text_of, to_utc
from bot.records import Origin, Record, UserText
from bot.result_records import ResultStatus, SessionResult
from bot.values import as_float, as_int, text_or_empty

ALL_MEMBERS = "all members"
_MAX_OPEN: Final = 4096  # open runs, delegations and links kept; beyond this the oldest go
_ENDS: Final = frozenset({"RunCompleted", "RunError", "RunCancelled"})
_STATUS_ENDS: Final = {
    "COMPLETED": "RunCompleted",
    "ERROR": "RunError",
    "CANCELLED": "RunCancelled",
}


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Run:
    """An open run: where its records go, and what it has said so far."""

    __slots__ = (
        "failed_call", "model", "parent_call", "run_id", "session_id", "streamed", "subagent",
        "thinking", "thinking_at", "thought", "top", "unnamed", "unnamed_count",
    )  # fmt: skip

    def __init__(self, run_id: str, session_id: str, top: bool) -> None:
        self.run_id = run_id
        self.session_id = session_id
        self.top = top
        self.parent_call: str | None = None
        self.subagent: str | None = None
        self.model: str | None = None
        self.streamed = False  # content deltas came: the final content is not said again
        self.thought = False  # reasoning came: the final reasoning is not said again
        self.thinking: list[str] = []  # reasoning deltas not yet said
        self.thinking_at: tuple[datetime | None, int] = (None, 0)
        self.failed_call: str | None = None  # its ToolCallError, which comes next, repeats it
        self.unnamed: list[tuple[str, str]] = []  # open tool calls the log gave no id: (name, id)
        self.unnamed_count = 0

    def origin(self, at: datetime | None, line: int) -> Origin:
        """Where this run's records of one event come from."""
        return Origin(self.session_id, at, line, self.parent_call, self.subagent)

    def unnamed_call(self, tool_name: str, started: bool) -> str:
        """An id for a tool call that has none in the log (seed 003's shape): made at its start,
        and at its end found again as the oldest open call of that tool."""
        if started:
            self.unnamed_count += 1
            call_id = f"{self.run_id}:{tool_name}:{self.unnamed_count}"
            self.unnamed.append((tool_name, call_id))
            return call_id
        for index, (name, call_id) in enumerate(self.unnamed):
            if name == tool_name:
                del self.unnamed[index]
                return call_id
        return f"{self.run_id}:{tool_name}"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class _Delegation:
    __slots__ = ("call_id", "child_run", "member", "parent_run")

    def __init__(self, call_id: str, member: str, parent_run: str) -> None:
        self.call_id = call_id
        self.member = member
        self.parent_run = parent_run
        self.child_run: str | None = None


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class RunBook:
    """The open runs and delegations of one source."""

    def __init__(self) -> None:
        self.runs: OrderedDict[str, Run] = OrderedDict()
        self._delegations: OrderedDict[str, _Delegation] = OrderedDict()  # open ones, by call id
        # run id → its call id, before the run starts
        self._child_calls: OrderedDict[str, str] = OrderedDict()

    def open(self, event: dict[str, Any], last_session: str) -> tuple[Run, Run | None]:
        """Open the event's run, at the top or as a member run. The second value is the parent
        run when the member run was placed under one of its delegations."""
        run_id, given = text_or_empty(event.get("run_id")), text_or_empty(event.get("session_id"))
        parent = self.runs.get(text_or_empty(event.get("parent_run_id")))
        session = given or (parent.session_id if parent else last_session) or run_id
        run = _keep(self.runs, run_id, Run(run_id, session, top=parent is None))
        if parent is None:
            return run, None
        run.subagent = str(event.get("agent_id") or event.get("team_id") or "") or None
        call_id = self._delegation_for(run_id, parent.run_id, event)
        run.parent_call = parent.parent_call if call_id is None else call_id
        return run, None if call_id is None else parent

    def close(self, run: Run) -> None:
        self.runs.pop(run.run_id, None)
        done = [d.call_id for d in self._delegations.values() if d.parent_run == run.run_id]
        for call_id in done:
            del self._delegations[call_id]

    def delegate(self, call_id: str, member: str, parent_run: str, child_run: object) -> None:
        _keep(self._delegations, call_id, _Delegation(call_id, member, parent_run))
        self.link_child(call_id, child_run)

    def delegation_done(self, call_id: str, child_run: object) -> None:
        self.link_child(call_id, child_run)
        self._delegations.pop(call_id, None)

    def link_child(self, call_id: str, child_run: object) -> None:
        """Note that run ``child_run`` works for delegation ``call_id``, unless either is linked
        already (a stored run repeats a later child's id on an earlier call's events)."""
        if not child_run or type(child_run) is not str:
            return
        if child_run in self.runs or child_run in self._child_calls:
            return
        delegation = self._delegations.get(call_id)
        if delegation is not None:
            if delegation.child_run is not None:
                return
            delegation.child_run = child_run
        _keep(self._child_calls, child_run, call_id)

    def call_of(self, child_run: str) -> str | None:
        """The delegation a run that has not started yet is linked to."""
        return self._child_calls.get(child_run)

    def _delegation_for(self, run_id: str, parent_run: str, event: dict[str, Any]) -> str | None:
        call_id = self._child_calls.pop(run_id, None)
        if call_id is not None:
            return call_id
        names = _member_names(event)
        to_all = None
        for delegation in self._delegations.values():
            if delegation.parent_run != parent_run or delegation.child_run is not None:
                continue
            if delegation.member in names:
                delegation.child_run = run_id
                return delegation.call_id
            if delegation.member == ALL_MEMBERS and to_all is None:
                to_all = delegation.call_id
        return to_all


def _member_names(event: dict[str, Any]) -> set[str]:
    """The ids a delegation may use for this run's agent or team."""
    names: set[str] = set()
    for key in ("agent_id", "team_id", "agent_name", "team_name"):
        value = event.get(key)
        if value and type(value) is str:
            names.update((value, value.strip().lower().replace(" ", "-")))
    return names


def _keep(table: OrderedDict[str, V], key: str, value: V) -> V:
    remember(table, key, value, _MAX_OPEN)
    return value


# -- stored runs ---------------------------------------------------------------------------------


class EventMapper(Protocol):
    book: RunBook

    def event(self, event: dict[str, Any], line: int) -> list[Record]: ...


def is_stored_run(obj: object) -> bool:
    return type(obj) is dict and type(obj.get("events")) is list and bool(obj.get("run_id"))


def walk(runs: list[Any], mapper: EventMapper, line: int) -> list[Record]:
    """The records of a stored document: its runs, parents before members."""
    return _Walk(runs, mapper, line).records()


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class _Walk:
    def __init__(self, runs: list[Any], mapper: EventMapper, line: int) -> None:
        self.mapper = mapper
        self.line = line
        self.runs: dict[str, dict[str, Any]] = {}
        self.walked: set[str] = set()
        self.out: list[Record] = []
        for run in runs:
            if type(run) is dict and run.get("run_id"):
                self.runs.setdefault(str(run["run_id"]), run)

    def records(self) -> list[Record]:
        for run_id, run in sorted(self.runs.items(), key=self._is_member):  # the top ones first
            if run_id not in self.walked:
                self.walk(run_id, run)
        return self.out

    def _is_member(self, item: tuple[str, dict[str, Any]]) -> bool:
        return text_or_empty(item[1].get("parent_run_id")) in self.runs

    def walk(self, run_id: str, run: dict[str, Any]) -> None:
        self.walked.add(run_id)
        events = [e for e in run.get("events") or () if type(e) is dict]
        if not any(_kind(e) == "RunStarted" and e.get("run_id", run_id) == run_id for e in events):
            self.emit(_made_event(run, "RunStarted", run.get("created_at")))
            self.user_text(run_id, run)
        ended = False
        for event in events:
            kind, own = _kind(event), event.get("run_id", run_id) == run_id
            if not own and text_or_empty(event.get("run_id")) in self.runs:
                continue  # a member run stored whole as well: walked from its own events
            if "run_id" not in event or "session_id" not in event:  # the run's, as streamed
                event = {"run_id": run_id, "session_id": run.get("session_id"), **event}
            if own and kind in _ENDS:
                self.members_of(run_id)
                ended = True
                if not event.get("content") and run.get("content"):
                    event = {**event, "content": run["content"]}
            if kind == "ToolCallCompleted":
                self.child_of(event, run_id)
            self.emit(event)
            if kind == "ToolCallStarted":
                self.child_of(event, run_id)
            elif own and kind == "RunStarted":
                self.user_text(run_id, run)
        if not ended:
            self.members_of(run_id)
            end = _STATUS_ENDS.get(str(run.get("status") or "").upper())
            if end is not None:
                self.emit(_made_event(run, end, run.get("updated_at") or run.get("created_at")))

    def emit(self, event: dict[str, Any]) -> None:
        self.out.extend(self.mapper.event(event, self.line))

    def child_of(self, event: dict[str, Any], parent_id: str) -> None:
        """Walk the stored member run a delegation names, by ``child_run_id`` or member id."""
        tool = event.get("tool")
        if type(tool) is not dict:
            return
        child, call_id = tool.get("child_run_id"), str(tool.get("tool_call_id") or "")
        if type(child) is str and child in self.runs:
            self.mapper.book.link_child(call_id, child)
            if child not in self.walked and self.mapper.book.call_of(child) == call_id:
                self.walk(child, self.runs[child])
            return
        args = tool.get("tool_args")
        member = text_or_empty(args.get("member_id")) if type(args) is dict else ""
        for run_id, run in self.runs.items():
            named = run.get("parent_run_id") == parent_id and member in _member_names(run)
            if named and run_id not in self.walked:
                self.walk(run_id, run)
                return

    def members_of(self, run_id: str) -> None:
        for member_id, member in self.runs.items():
            if member_id not in self.walked and member.get("parent_run_id") == run_id:
                self.walk(member_id, member)

    def user_text(self, run_id: str, run: dict[str, Any]) -> None:
        opened = self.mapper.book.runs.get(run_id)
        if opened is None or not opened.top:  # a member's input is its delegation's task
            return
        text = _input_text(run)
        if text:
            at = to_utc(run.get("created_at"))
            self.out.append(UserText(Origin(opened.session_id, at, self.line), text=text))


def _kind(event: dict[str, Any]) -> str:
    name = event.get("event")
    if type(name) is not str:
        return ""
    return name[4:] if name.startswith("Team") else name


def _made_event(run: dict[str, Any], kind: str, created_at: object) -> dict[str, Any]:
    """A start or end event made from a stored run's own fields."""
    team = bool(run.get("team_id") or run.get("team_name"))
    event = {key: value for key, value in run.items() if key not in ("events", "messages")}
    event["event"] = ("Team" + kind) if team else kind
    event["created_at"] = created_at
    return event


def _input_text(run: dict[str, Any]) -> str:
    given = run.get("run_input")
    if given is None:
        stored = run.get("input")
        given = stored.get("input_content") if type(stored) is dict else stored
    return text_of(given).strip()


# -- how runs end --------------------------------------------------------------------------------


def success(
    event: dict[str, Any], text: str, run: Run, at: datetime | None, line: int
) -> SessionResult:
    """A top-level run's successful ``SessionResult``, from its ``metrics``."""
    metrics = event.get("metrics")
    if type(metrics) is not dict:
        metrics = {}
    duration = as_float(metrics.get("duration"))
    return SessionResult(
        run.origin(at, line),
        status=ResultStatus.SUCCEEDED,
        text=text or None,
        duration_ms=None if duration is None else int(duration * 1000),
        input_tokens=_tokens(metrics, "input_tokens"),
        output_tokens=_tokens(metrics, "output_tokens"),
        cache_read_tokens=_tokens(metrics, "cache_read_tokens"),
        cache_write_tokens=_tokens(metrics, "cache_write_tokens"),
        cost_usd=as_float(metrics.get("cost")),
        models=_models(metrics, run.model),
    )  # fmt: skip


def failure(
    error: str, subtype: str | None, run: Run, at: datetime | None, line: int
) -> SessionResult:
    """A top-level run's failed ``SessionResult``."""
    return SessionResult(
        run.origin(at, line),
        status=ResultStatus.FAILED,
        subtype=subtype,
        error=error,
        errors=(error,),
    )  # fmt: skip


def _tokens(metrics: dict[str, Any], key: str) -> int | None:
    """A token count: a number, or (agno 1.x) a list of one number per model request."""
    value = metrics.get(key)
    if type(value) is list:
        counts = [n for n in (as_int(v) for v in value) if n is not None]
        return sum(counts) if counts else None
    return as_int(value)


def _models(metrics: dict[str, Any], model: str | None) -> tuple[str, ...]:
    details = metrics.get("details")
    used = details.get("model") if type(details) is dict else None
    names = [e.get("id") for e in used if type(e) is dict] if type(used) is list else []
    found = tuple(dict.fromkeys(n for n in names if n and type(n) is str))
    return found or ((model,) if model else ())
