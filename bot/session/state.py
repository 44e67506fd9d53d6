"""One agent session's state: a deterministic state machine fed with records.

``Session.apply(record, now)`` updates the state in place and returns the record's significance.
It does no I/O and never reads the clock: ``now`` (when the record has no timestamp of its own)
and ``tick(now)`` (for orphaned calls, and idle sessions) bring time in from outside. How a
session comes to wait for the user, to be idle, and to end on the agent's exit: ``ends``.

A subagent that says it runs for a call not named yet (a ``SubagentLink`` with no ``call_id``:
a Codex sub-agent's own file, read before its parent's) has its records held, in order, until
the link that names the call arrives; they are then placed under that call. Records still held
at the end of the input are placed in the session itself, as are those of a subagent holding
more than ``HELD_RECORDS``.
"""

from __future__ import annotations

import dataclasses
import sys
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Final

from mypy_extensions import mypyc_attr

from bot.caps import (
    ANSWER_KEPT,
    EARLY_OUTPUT_CAP,
    NARRATION_LIMIT,
    NOTICE_CAP,
    OK_PREVIEW_LIMIT,
    PREVIEW_LIMIT,
    PROMPT_CAP,
    RESULT_TEXT_CAP,
    USER_TEXT_CAP,
)
from bot.records import (
    AgentExited,
    AssistantText,
    Compaction,
    Delegation,
    Notice,
    Record,
    ResultStatus,
    SessionResult,
    SessionStarted,
    SubagentLink,
    Thinking,
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
    TurnEnded,
    UserText,
)
from bot.session.ends import exit_status, moves_on
from bot.session.significance import Significance, Verbosity, classify
from bot.session.thread import (
    DelegationItem,
    NoticeItem,
    ResultItem,
    TextBatch,
    ThreadItem,
    TodoItem,
    ToolGroup,
    UserTurn,
)
from bot.session.tool_calls import (
    OPEN_STATUSES,
    ToolCallState,
    ToolStatus,
    describe_call,
    output_preview,
    result_preview,
)

EARLY_RESULTS = 64  # results kept while their calls have not come; the oldest is dropped past it
HELD_RECORDS: Final = 5_000  # records of one subagent held until its call is known


class SessionStatus(StrEnum):
    RUNNING = "running"
    WAITING = "waiting"  # the agent ended its turn: it waits for the user
    IDLE = "idle"  # its log said nothing for ``idle_after_s`` in the middle of a turn
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    STOPPED = "stopped"  # stopped by someone (Ctrl-C): neither done nor failed
    UNKNOWN = "unknown"


_RUNNING: Final = SessionStatus.RUNNING  # bound once: compiled, a look-up on the class each use
_WAITING: Final = SessionStatus.WAITING
_IDLE: Final = SessionStatus.IDLE
_UNKNOWN: Final = SessionStatus.UNKNOWN
# What a session's status is once a result of each outcome came.
_ENDED_AS: Final = {
    ResultStatus.SUCCEEDED: SessionStatus.SUCCEEDED,
    ResultStatus.FAILED: SessionStatus.FAILED,
    ResultStatus.STOPPED: SessionStatus.STOPPED,
}
_ENDED: Final = (SessionStatus.SUCCEEDED, SessionStatus.FAILED, SessionStatus.STOPPED)


@dataclass(frozen=True, slots=True)
class SessionSettings:
    verbosity: Verbosity = Verbosity.NORMAL
    orphan_after_s: float = 600.0  # a call with no result after this long with no activity
    tools_per_group: int = 12
    idle_after_s: float = 600.0  # a running session whose log is quiet this long is idle

    def __reduce__(self) -> tuple[type[SessionSettings], tuple[Verbosity, float, int, float]]:
        # Pickled by its fields: compiled (mypyc), a frozen class cannot be unpickled by setattr.
        return (SessionSettings, (self.verbosity, self.orphan_after_s, self.tools_per_group,
                                  self.idle_after_s))  # fmt: skip


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True)
class SessionInfo:
    agent: str = ""
    model: str | None = None
    cwd: str | None = None
    version: str | None = None
    title: str | None = None
    prompt: str | None = None  # the person's first prompt: what the session was asked to do


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Session:
    """What slacktail knows of one session: enough to render its thread, nothing more."""

    def __init__(self, session_id: str, settings: SessionSettings | None = None) -> None:
        self.session_id = session_id
        self.settings = settings or SessionSettings()
        self.info = SessionInfo()
        self.started = False
        self.status = SessionStatus.RUNNING
        self.first_at: datetime | None = None
        self.last_at: datetime | None = None
        self.timed = False  # whether records carry their own time (else: when they were read)
        self.last_seen: datetime | None = None  # when the last record arrived (ingest time)
        self.calls: dict[str, ToolCallState] = {}
        # The calls that may still be open, in order: those begun since calls were last all
        # interrupted or found closed (a closed call never opens again).
        self._open: list[str] = []
        self.items: list[ThreadItem] = []
        self._todo_shown = False  # the todo list has its item in the thread
        self.todos: tuple[Todo, ...] = ()
        self.result: SessionResult | None = None
        self.exit: AgentExited | None = None  # how the agent's process ended, where it was seen
        self.closed = False  # its input ended (``close``), and nothing came since
        self.compactions = 0
        self._dropped_results = 0  # results whose calls never came, dropped from ``_early``
        self.counts = [0, 0, 0, 0]  # records per Significance
        self._links: dict[str, str] = {}  # subagent id -> the call that started it
        # subagent id -> its records (with their time and whether shown) until its call is known
        self._held: dict[str, list[tuple[Record, datetime | None, bool]]] = {}
        self._keys = 0
        # Where the last assistant text shown went: a text batch, or a tool group's remark.
        self._last_said: TextBatch | ToolGroup | None = None
        self._results = 0
        self._threshold = self.settings.verbosity.threshold
        # Results that came before their call (a log written out of order), until it comes.
        self._early: OrderedDict[str, tuple[ToolResult, datetime | None, bool]] = OrderedDict()
        self._said: tuple[str, str] | None = None  # (message id, text) of the last whole text

    # --- feeding -------------------------------------------------------------------------

    def apply(self, record: Record, now: datetime | None = None) -> Significance:
        """Update the state with one record; return how significant it was."""
        at = record.timestamp
        if at is None:  # in a log whose records carry times, an untimed one is at the last time
            at = self.last_at if self.timed else now
        elif not self.timed:  # the first record with a time: the times so far were read times
            self.timed = True
            self.first_at = self.last_at = None
        if at is not None:
            if self.first_at is None:
                self.first_at = at
            if self.last_at is None or at > self.last_at:
                self.last_at = at
        self.last_seen = now or at or self.last_seen
        self.closed = False
        status = self.status
        if status is _IDLE or ((status is _WAITING or status is _UNKNOWN) and moves_on(record)):
            self.status = _RUNNING  # the log moves again (see ``ends``)
        significance = classify(record, duplicate_start=self.started)
        self.counts[significance] += 1
        shown = significance >= self._threshold
        # A call's start and end are the log's times only: when a record was read is not when
        # the agent did it (a log read at once would show every call taking 0.0s).
        logged_at = at if self.timed else None
        subagent = record.subagent
        if subagent is not None and subagent in self._held and record.parent_call is None:
            self._hold(subagent, record, logged_at, shown)
        else:
            self._follow(record, logged_at, shown)
        return significance

    def _follow(self, record: Record, at: datetime | None, shown: bool) -> None:
        """Hand ``record`` to what its type changes (most frequent records first); ``at`` is
        its time in the log (``None`` in a log without times)."""
        if isinstance(record, AssistantText):
            self._assistant_text(record, at, shown)
        elif isinstance(record, ToolCall):
            self._tool_call(record, at, shown)
        elif isinstance(record, ToolResult):
            self._tool_result(record, at, shown)
        elif isinstance(record, UserText):
            self._user_text(record, at, shown)
        elif isinstance(record, Thinking):
            self._thinking(record, at, shown)
        elif isinstance(record, SessionStarted):
            self._session_started(record, at, shown)
        elif isinstance(record, TodoUpdate):
            self._todo_update(record, at, shown)
        elif isinstance(record, Delegation):
            self._delegation(record, at, shown)
        elif isinstance(record, SubagentLink):
            self._subagent_link(record, at, shown)
        elif isinstance(record, Compaction):
            self._compaction(record, at, shown)
        elif isinstance(record, Notice):
            self._notice(record, at, shown)
        elif isinstance(record, SessionResult):
            self._session_result(record, at, shown)
        elif isinstance(record, TurnEnded):
            self._turn_ended(record)
        elif isinstance(record, AgentExited):
            self._agent_exited(record)

    def tick(self, now: datetime, idle: bool = True) -> bool:
        """A running session whose log was quiet for ``idle_after_s`` is idle (unless not
        ``idle``: its records are still being read); calls still waiting after
        ``orphan_after_s`` of inactivity are orphaned. Whether anything changed."""
        changed = False
        if idle and self.status is _RUNNING:
            quiet = self.quiet_s(now)
            if quiet is not None and quiet >= self.settings.idle_after_s:
                self.status = _IDLE
                changed = True
        if self.last_seen is None or self.result is not None:
            return changed
        if (now - self.last_seen).total_seconds() < self.settings.orphan_after_s:
            return changed
        still_open: list[str] = []
        for call_id in self._open:
            call = self.calls[call_id]
            if call.status in (ToolStatus.PENDING, ToolStatus.RUNNING):
                call.status = ToolStatus.ORPHANED
                changed = True
            if call.status in OPEN_STATUSES:
                still_open.append(call_id)
        self._open = still_open
        return changed

    def close(self, expects_result: bool = True) -> None:
        """End of input (preview, ``--once``): a session with no result whose format never
        reports one (``expects_result`` false) is of unknown outcome, unless it waits for the
        user (its last turn ended: that is what its log says)."""
        for subagent in list(self._held):
            self._release(subagent)
        self.closed = True
        if self.result is None and not expects_result and self.status is not _WAITING:
            self.status = SessionStatus.UNKNOWN

    # --- time ----------------------------------------------------------------------------

    def quiet_s(self, now: datetime) -> float | None:
        """How long the session's log has said nothing: by the log's own times where it has
        them (a log read long after it was written has been quiet since it was written), else
        since its last record was read. ``None`` before any record."""
        last = self.last_at if self.timed else self.last_seen
        return None if last is None else (now - last).total_seconds()

    def live(self, now: datetime | None) -> bool:
        """Whether the session runs now, as far as ``now`` tells: running, its input not
        ended, and its log quiet for less than ``idle_after_s``. Only a live session's
        elapsed time counts up to ``now``."""
        if self.status is not _RUNNING or now is None or self.closed:
            return False
        quiet = self.quiet_s(now)
        return quiet is not None and quiet < self.settings.idle_after_s

    # --- reading -------------------------------------------------------------------------

    @property
    def unmatched_results(self) -> int:
        """Results no call of this session has claimed (yet)."""
        return self._dropped_results + len(self._early)

    @property
    def hidden(self) -> int:
        return self.counts[Significance.HIDDEN]

    def call_counts(self) -> dict[ToolStatus, int]:
        counts = dict.fromkeys(ToolStatus, 0)
        for call in self.calls.values():
            counts[call.status] += 1
        return counts

    # --- records -------------------------------------------------------------------------

    def _key(self, kind: str) -> str:
        self._keys += 1
        return f"{kind}:{self._keys}"

    def _parent_of(self, record: Record) -> str | None:
        if record.parent_call is not None:
            return record.parent_call
        if record.subagent is not None:
            return self._links.get(record.subagent)
        return None

    def _session_started(self, record: SessionStarted, at: datetime | None, shown: bool) -> None:
        if self.started and self.status is not SessionStatus.RUNNING:
            self.status = SessionStatus.RUNNING  # a new run of the same session
        self.started = True
        info = self.info
        # The latest start that names an agent names the session: Kimi Code's print mode says
        # who wrote a session of OpenAI-style messages only on its last line.
        info.agent = record.agent or info.agent
        info.model = sys.intern(record.model) if record.model else info.model
        info.cwd = sys.intern(record.cwd) if record.cwd else info.cwd
        info.version = record.version or info.version
        info.title = info.title or record.title

    def _assistant_text(self, record: AssistantText, at: datetime | None, shown: bool) -> None:
        if not shown or self._parent_of(record) in self.calls:
            return
        if not record.delta and record.message_id is not None:
            said = (record.message_id, record.text)
            if said == self._said:  # the same line again (a shipper that sends twice)
                return
            self._said = said
        last = self.items[-1] if self.items else None
        if isinstance(last, TextBatch) and not last.is_full:
            last.add(record.text, record.delta)
            self._last_said = last
            return
        text = record.text.strip()
        remark = isinstance(last, ToolGroup) and not record.delta and "```" not in text
        if remark and last.add_remark(text, NARRATION_LIMIT):  # type: ignore[union-attr]
            self._last_said = last  # type: ignore[assignment]
            return
        batch = TextBatch(self._key("text"))
        batch.add(record.text.lstrip("\n") if record.delta else record.text, record.delta)
        self.items.append(batch)
        self._last_said = batch

    def _thinking(self, record: Thinking, at: datetime | None, shown: bool) -> None:
        if shown and self._parent_of(record) not in self.calls:
            text = record.text.strip()[:NOTICE_CAP]
            self.items.append(NoticeItem(self._key("thinking"), "thinking", text))

    def _user_text(self, record: UserText, at: datetime | None, shown: bool) -> None:
        if self._parent_of(record) in self.calls:
            return
        text = record.text.strip()
        info = self.info
        if info.prompt is None and text and record.parent_call is None and not record.subagent:
            info.prompt = text[:PROMPT_CAP]
        if shown:
            self.items.append(UserTurn(self._key("user"), text[:USER_TEXT_CAP], len(text)))

    def _tool_call(self, record: ToolCall, at: datetime | None, shown: bool) -> None:
        known = self.calls.get(record.call_id)
        if known is not None:  # the same call seen twice (e.g. a subagent's own file too)
            known.started_at = known.started_at or at
            return
        parent = self._parent_of(record)
        call = ToolCallState(  # positional (id, name, summary, status, parent, started_at)
            record.call_id,
            sys.intern(record.name),  # a handful of names, repeated in every session
            describe_call(record.name, record.input, record.raw_input, self.info.cwd),
            ToolStatus.RUNNING,
            parent,
            at,
        )
        self._add_call(call, parent, shown)

    def _delegation(self, record: Delegation, at: datetime | None, shown: bool) -> None:
        if record.call_id in self.calls:
            return
        parent = self._parent_of(record)
        call = ToolCallState(
            id=record.call_id,
            name=f"delegate to {record.member}" if record.member else "delegate",
            summary=" ".join(record.task.split())[:200],
            status=ToolStatus.PENDING,
            parent=parent,
            started_at=at,
            delegate=record.member,
        )
        self.calls[call.id] = call
        self._open.append(call.id)
        if parent in self.calls:
            self.calls[parent].add_child(call.id)
        elif shown:
            self.items.append(DelegationItem(self._key("delegation"), call.id))
            call.shown = True
        self._apply_early_result(call.id)

    def _add_call(self, call: ToolCallState, parent: str | None, shown: bool) -> None:
        self.calls[call.id] = call
        self._open.append(call.id)
        if parent is not None and parent in self.calls:
            parent_call = self.calls[parent]
            parent_call.add_child(call.id)
            if parent_call.status is ToolStatus.PENDING:
                parent_call.status = ToolStatus.RUNNING
        elif shown:
            self._show_in_group(call.id)
        self._apply_early_result(call.id)

    def _apply_early_result(self, call_id: str) -> None:
        """A result that came before its call ends the call now that it is known."""
        if self._early:
            early = self._early.pop(call_id, None)
            if early is not None:
                self._tool_result(*early)

    def _keep_early_result(self, record: ToolResult, at: datetime | None, shown: bool) -> None:
        if len(record.output) > EARLY_OUTPUT_CAP:  # only its preview will be shown
            record = dataclasses.replace(record, output=record.output[:EARLY_OUTPUT_CAP])
        self._early[record.call_id] = (record, at, shown)
        if len(self._early) > EARLY_RESULTS:
            self._early.popitem(last=False)
            self._dropped_results += 1

    def _show_in_group(self, call_id: str) -> None:
        last = self.items[-1] if self.items else None
        if not isinstance(last, ToolGroup) or self._group_done(last):
            last = ToolGroup(self._key("tools"))
            self.items.append(last)
        last.add_call(call_id)
        self.calls[call_id].shown = True

    def _group_done(self, group: ToolGroup) -> bool:
        """A group takes no more calls once full, or once half full with every call finished:
        then the agent's next step starts a new message (a post, from the channel's budget)
        rather than changing this one again (an update, from the workspace's shared one)."""
        size = self.settings.tools_per_group
        if group.calls >= size:
            return True
        if group.calls < size // 2:
            return False
        calls = self.calls
        return not any(calls[call_id].status in OPEN_STATUSES for call_id in group.call_ids)

    def _tool_result(self, record: ToolResult, at: datetime | None, shown: bool) -> None:
        call = self.calls.get(record.call_id)
        if call is None:
            self._keep_early_result(record, at, shown)
            return
        if record.interrupted:
            call.status = ToolStatus.INTERRUPTED
        else:
            call.status = ToolStatus.ERROR if record.is_error else ToolStatus.OK
        call.ended_at = at
        top_level = call.parent is None or call.parent not in self.calls
        if shown and record.is_error and top_level and not call.shown:
            self._show_in_group(call.id)  # quiet: a failed call still shows
        if not call.shown:  # no message shows its output (a subagent's call, a hidden one)
            return
        limit = ANSWER_KEPT if call.delegate is not None else (
            PREVIEW_LIMIT if record.is_error else OK_PREVIEW_LIMIT
        )
        if call.delegate is not None:  # a member's answer: shown as it said it
            call.output, call.output_size, call.output_lines = output_preview(record.output, limit)
        else:
            call.output, call.output_size, call.output_lines = result_preview(
                record.output, limit, record.is_error, self.info.cwd
            )

    def _todo_update(self, record: TodoUpdate, at: datetime | None, shown: bool) -> None:
        if self._parent_of(record) in self.calls:
            return  # a subagent's own todo list is not the session's
        self.todos = record.todos
        if shown and not self._todo_shown:
            self.items.append(TodoItem())
            self._todo_shown = True

    def _subagent_link(self, record: SubagentLink, at: datetime | None, shown: bool) -> None:
        agent = record.agent_id
        if not record.call_id:  # its call is not named yet: hold its records until it is
            if agent not in self._links and agent not in self._held and record.subagent == agent:
                self._held[agent] = []
            return
        self._links[agent] = record.call_id
        self._release(agent)

    def _hold(self, subagent: str, record: Record, at: datetime | None, shown: bool) -> None:
        if isinstance(record, SubagentLink):  # a link waits for nothing (it may be its own)
            self._follow(record, at, shown)
            return
        held = self._held[subagent]
        held.append((record, at, shown))
        if len(held) > HELD_RECORDS:
            self._release(subagent)

    def _release(self, subagent: str) -> None:
        """Apply the records held for ``subagent``, under its call if it is now known."""
        for record, at, shown in self._held.pop(subagent, ()):
            self._follow(record, at, shown)

    def _compaction(self, record: Compaction, at: datetime | None, shown: bool) -> None:
        self.compactions += 1
        if not shown or self._parent_of(record) in self.calls:
            return
        details = ", ".join(
            part
            for part in (
                record.trigger,
                f"{record.pre_tokens:,} tokens before" if record.pre_tokens else None,
            )
            if part
        )
        text = "Context compacted" + (f" ({details})" if details else "")
        self.items.append(NoticeItem(self._key("notice"), "compaction", text))

    def _notice(self, record: Notice, at: datetime | None, shown: bool) -> None:
        if record.kind == "interrupted":  # the user stopped the agent: its turn ended too
            self._interrupt_open_calls()
            self._turn_ended(record)
        if shown and self._parent_of(record) not in self.calls:
            text = record.text.strip()[:NOTICE_CAP]
            self.items.append(NoticeItem(self._key("notice"), record.kind, text, record.level))

    def _session_result(self, record: SessionResult, at: datetime | None, shown: bool) -> None:
        if self._parent_of(record) in self.calls:
            return
        ended = self.status in _ENDED  # and no new run began since
        if ended and self.result is not None and same_outcome(self.result, record):
            return  # the same result line again: said once
        repeats = bool(record.text) and self._said_already(record.text or "")
        if record.text is not None and len(record.text) > RESULT_TEXT_CAP:
            # keep what the result message shows, not the whole answer
            record = dataclasses.replace(record, text=record.text[:RESULT_TEXT_CAP])
        self._end(record, repeats, None)

    def _end(self, result: SessionResult, repeats: bool, exit: AgentExited | None) -> None:
        """The session ends with ``result``: calls still open are interrupted, and the result
        is the thread's next item."""
        self.result = result
        self.status = _ENDED_AS.get(result.status, SessionStatus.FAILED)
        self._interrupt_open_calls()
        self._last_said = None
        self._results += 1
        key = "result" if self._results == 1 else f"result:{self._results}"
        self.items.append(ResultItem(key, result, repeats, exit))

    def _turn_ended(self, record: TurnEnded | Notice) -> None:
        """The agent answered (or the user interrupted it): the session waits for the user (a
        subagent's turn is not the session's)."""
        if record.parent_call is None and record.subagent is None and self.status is _RUNNING:
            self.status = _WAITING

    def _agent_exited(self, record: AgentExited) -> None:
        """The agent's process ended. A session that reported no outcome (none since it last
        started) ends with the exit's; one that did keeps its own, the exit noted beside it."""
        self.exit = record
        if self.status in _ENDED:
            return
        self._end(SessionResult(record.origin, status=exit_status(record)), False, record)

    def _said_already(self, answer: str) -> bool:
        """Whether a text message already shows the final ``answer`` (its result message then
        leaves it out). An answer said as a remark in a tool group is taken out of the group:
        the result message shows it, where a reader looks for the answer."""
        said, answer = self._last_said, answer.strip()
        if isinstance(said, TextBatch):
            return " ".join(said.text.split()).endswith(" ".join(answer.split()))
        if isinstance(said, ToolGroup):
            said.take_remark(answer)
        return False

    def _interrupt_open_calls(self) -> None:
        """Every call still open is interrupted: the calls begun since this was last done (the
        others are closed)."""
        calls = self.calls
        for call_id in self._open:
            call = calls[call_id]
            if call.status in OPEN_STATUSES:
                call.status = ToolStatus.INTERRUPTED
        self._open = []


def same_outcome(kept: SessionResult, new: SessionResult) -> bool:
    """Whether ``new`` says what ``kept`` (the result already shown, its text cut to what is
    shown) says: the same line sent twice, not a new run's result."""
    text = new.text[:RESULT_TEXT_CAP] if new.text is not None else None
    return (kept.status, kept.subtype, kept.text, kept.error, kept.duration_ms, kept.cost_usd,
            kept.num_turns, kept.output_tokens) == (new.status, new.subtype, text, new.error,
            new.duration_ms, new.cost_usd, new.num_turns, new.output_tokens)  # fmt: skip
