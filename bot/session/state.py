"""One agent session's state: a deterministic state machine fed with records.

``Session.apply(record, now)`` updates the state in place and returns the record's significance.
It does no I/O and never reads the clock: ``now`` (when the record has no timestamp of its own)
and ``tick(now)`` (for orphaned calls, and idle sessions) bring time in from outside. How a
session comes to wait for the user, to be idle, and to end on the agent's exit: ``ends``.

A subagent that says it runs for a call not named yet (a ``SubagentLink`` with no ``call_id``:
a Codex sub-agent's own file, read before its parent's) has its records held, in order, until
the link that names the call arrives; they are then placed under that call. Records still held
at the end of the input, or once the log has been quiet for ``idle_after_s``, are placed in the
session itself, as are those of a subagent holding more than ``HELD_RECORDS``.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from mypy_extensions import mypyc_attr

from bot.records import (
    AssistantText,
    Compaction,
    Delegation,
    Notice,
    Record,
    SessionStarted,
    SubagentLink,
    Thinking,
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
    Usage,
    UserText,
)
from bot.result_records import AgentExited, SessionResult, TurnEnded
from bot.session import saying
from bot.session.calling import (
    delegation,
    interrupt_open_calls,
    orphan_open_calls,
    tool_call,
    tool_result,
)
from bot.session.ends import (
    SessionStatus,
    agent_exited,
    moves_on,
    session_result,
    turn_ended,
    usage,
)
from bot.session.settings import SessionSettings
from bot.session.significance import Significance, classify
from bot.session.thread import (
    TextBatch,
    ThreadItem,
    ToolGroup,
)
from bot.session.tool_calls import OPEN_STATUSES, ToolCallState, ToolStatus

HELD_RECORDS: Final = 5_000  # records of one subagent held until its call is known
# A new session's calls by status: none of each (the enum iterated once, not per session).
_NO_CALLS: Final = dict.fromkeys(ToolStatus, 0)


_RUNNING: Final = SessionStatus.RUNNING  # bound once: compiled, a look-up on the class each use
_WAITING: Final = SessionStatus.WAITING
_IDLE: Final = SessionStatus.IDLE
_UNKNOWN: Final = SessionStatus.UNKNOWN


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
        self.tally = _NO_CALLS.copy()  # the calls by status (set by ``calling``)
        # The calls that may still be open, in order: those begun since calls were last all
        # interrupted or found closed (a closed call never opens again).
        self.open_calls: list[str] = []
        self.items: list[ThreadItem] = []
        self.todo_at = -1  # the index of the todo list's item in the thread (-1: none)
        self.todos: tuple[Todo, ...] = ()
        self.result: SessionResult | None = None
        self.spent: SessionResult | None = None  # its results' and steps' spending (``ends``)
        self.run_spent: SessionResult | None = None  # what its steps spent since its last result
        self.exit: AgentExited | None = None  # how the agent's process ended, where it was seen
        self.closed = False  # its input ended (``close``), and nothing came since
        self.compactions = 0
        self.dropped_results = 0  # results whose calls never came, dropped from ``early``
        self.counts = [0, 0, 0, 0]  # records per Significance
        self._links: dict[str, str] = {}  # subagent id -> the call that started it
        # subagent id -> its records (with their time and whether shown) until its call is known
        self._held: dict[str, list[tuple[Record, datetime | None, bool]]] = {}
        self._keys = 0
        # Where the last assistant text shown went: a text batch, or a tool group's remark.
        self.last_said: TextBatch | ToolGroup | None = None
        self.results = 0  # result items in the thread
        self._threshold = self.settings.verbosity.threshold
        # Results that came before their call (a log written out of order), until it comes.
        self.early: OrderedDict[str, tuple[ToolResult, datetime | None, bool]] = OrderedDict()
        self.said: tuple[str, str] | None = None  # (message id, text) of the last whole text
        # Per tool: the summary and first lines of its last success's output, and the lines
        # its outputs begin with, whoever called it (``calling._preamble``)
        self.last_outputs: dict[str, tuple[str, tuple[str, ...]]] = {}
        self.preambles: dict[str, tuple[str, ...]] = {}
        # What changed since the follower last took it (``take_changes``): the indices of the
        # items whose messages are to be built again, or all of them (the item that shows a
        # call is kept on the call: ``ToolCallState.item``).
        self._changed: set[int] = set()
        self._all_changed = True

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
        running = status is _RUNNING
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
        if (self.status is _RUNNING) is not running:
            self._running_changed()
        return significance

    def _follow(self, record: Record, at: datetime | None, shown: bool) -> None:
        """Hand ``record`` to what its type changes (most frequent records first); ``at`` is
        its time in the log (``None`` in a log without times)."""
        if isinstance(record, AssistantText):
            saying.assistant_text(self, record, shown)
        elif isinstance(record, ToolCall):
            tool_call(self, record, at, shown)
        elif isinstance(record, ToolResult):
            tool_result(self, record, at, shown)
        elif isinstance(record, UserText):
            saying.user_text(self, record, shown)
        elif isinstance(record, Thinking):
            saying.thinking(self, record, shown)
        elif isinstance(record, SessionStarted):
            self._session_started(record)
        elif isinstance(record, TodoUpdate):
            saying.todo_update(self, record, shown)
        elif isinstance(record, Delegation):
            delegation(self, record, at, shown)
        elif isinstance(record, SubagentLink):
            self._subagent_link(record)
        elif isinstance(record, Compaction):
            saying.compaction(self, record, shown)
        elif isinstance(record, Notice):
            self._notice(record, shown)
        elif isinstance(record, SessionResult):
            session_result(self, record)
        elif isinstance(record, TurnEnded):
            turn_ended(self, record)
        elif isinstance(record, Usage):
            usage(self, record)
        elif isinstance(record, AgentExited):
            agent_exited(self, record)

    def tick(self, now: datetime, idle: bool = True) -> bool:
        """A running session whose log was quiet for ``idle_after_s`` is idle (unless not
        ``idle``: its records are still being read); calls still waiting after
        ``orphan_after_s`` of inactivity are orphaned. Whether anything changed."""
        changed = False
        if idle and (self.status is _RUNNING or self._held):
            quiet = self.quiet_s(now)
            if quiet is not None and quiet >= self.settings.idle_after_s:
                changed = self._went_quiet()
        if self.last_seen is None or self.result is not None:
            return changed
        if (now - self.last_seen).total_seconds() < self.settings.orphan_after_s:
            return changed
        return orphan_open_calls(self) or changed

    def _went_quiet(self) -> bool:
        """The log said nothing for ``idle_after_s``: the records held for a subagent whose
        call is still not named are placed in the session itself (a subagent's file followed
        without its parent's: nothing else would show them while the file stays open), and a
        running session is idle. Whether anything changed."""
        running = self.status is _RUNNING
        held = bool(self._held)
        for subagent in list(self._held):
            self._release(subagent)
        if self.status is _RUNNING:
            self.status = _IDLE
        if (self.status is _RUNNING) is not running:
            self._running_changed()
        return held or running

    def close(self, expects_result: bool = True) -> None:
        """End of input (preview, ``--once``): a session with no result whose format never
        reports one (``expects_result`` false) is of unknown outcome, unless it waits for the
        user (its last turn ended: that is what its log says)."""
        running = self.status is _RUNNING
        for subagent in list(self._held):
            self._release(subagent)
        self.closed = True
        if self.result is None and not expects_result and self.status is not _WAITING:
            self.status = SessionStatus.UNKNOWN
        if (self.status is _RUNNING) is not running:
            self._running_changed()

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
        return self.dropped_results + len(self.early)

    @property
    def hidden(self) -> int:
        return self.counts[Significance.HIDDEN]

    def newest_open_call(self) -> ToolCallState | None:
        """The call begun last that still runs or waits for its result (what the agent is
        doing now), or None."""
        for call_id in reversed(self.open_calls):
            call = self.calls[call_id]
            if call.status is ToolStatus.RUNNING or call.status is ToolStatus.PENDING:
                return call
        return None

    def use_settings(self, settings: SessionSettings) -> None:
        """Settings other than those it was made with (a session a checkpoint restored into a
        run of other settings): its next records, and its thread rendered again, follow them."""
        self.settings = settings
        self._threshold = settings.verbosity.threshold
        self.change_all()

    def call_counts(self) -> dict[ToolStatus, int]:
        return dict(self.tally)

    # --- what changed ---------------------------------------------------------------------

    def take_changes(self) -> list[int] | None:
        """The thread items changed since this was last asked (their indices, in the thread's
        order): their messages, and the root's, are the ones to build again; ``None``: every
        message (a new session, a restored one, or one whose messages all became final)."""
        if self._all_changed:
            self._all_changed = False
            self._changed.clear()
            return None
        changed = sorted(self._changed)
        self._changed.clear()
        return changed

    def change_all(self) -> None:
        """Every message of the thread is to be built again (its thread starts again...)."""
        self._all_changed = True
        self._changed.clear()

    def item_changed(self, index: int) -> None:
        """The item at ``index`` changed."""
        if not self._all_changed:
            self._changed.add(index)

    def add_item(self, item: ThreadItem, call_id: str | None = None) -> None:
        """Add ``item`` to the thread (showing the call ``call_id``, if given). The item
        before it changed too: no longer the last one, its message may be final now."""
        items = self.items
        if items and not self._all_changed:
            self._changed.add(len(items) - 1)
        items.append(item)
        index = len(items) - 1
        if call_id is not None:
            self.calls[call_id].item = index
        self.item_changed(index)

    def _running_changed(self) -> None:
        """The session began or stopped running: every message is final while it does not
        run, so the messages final only then change (the last item's, the todo list's, and
        those showing a call still open); the others are final either way."""
        if self._all_changed:
            return
        if self.items:
            self._changed.add(len(self.items) - 1)
        if self.todo_at >= 0:
            self._changed.add(self.todo_at)
        calls = self.calls
        for call_id in self.open_calls:  # every call still open is there
            call = calls[call_id]
            if call.status in OPEN_STATUSES:
                self.call_changed(call)

    def call_changed(self, call: ToolCallState) -> None:
        """The call changed: the items showing it change (its own, and its parent's, which
        counts its subagent's calls)."""
        if self._all_changed:
            return
        if call.item >= 0:
            self._changed.add(call.item)
        if call.parent is not None:
            parent = self.calls.get(call.parent)
            if parent is not None and parent.item >= 0:
                self._changed.add(parent.item)

    # --- records -------------------------------------------------------------------------

    def new_key(self, kind: str) -> str:
        self._keys += 1
        return f"{kind}:{self._keys}"

    def parent_of(self, record: Record) -> str | None:
        if record.parent_call is not None:
            return record.parent_call
        if record.subagent is not None:
            return self._links.get(record.subagent)
        return None

    def _session_started(self, record: SessionStarted) -> None:
        if self.started and self.status is not SessionStatus.RUNNING:
            self.status = SessionStatus.RUNNING  # a new run of the same session
        self.started = True
        info = self.info
        # The latest start that names an agent names the session: Kimi Code's print mode says
        # who wrote a session of OpenAI-style messages only on its last line.
        agent = record.agent or info.agent
        if agent != info.agent:
            info.agent = agent
            self.change_all()  # a delegation's message names the session's agent
        info.model = sys.intern(record.model) if record.model else info.model
        info.cwd = sys.intern(record.cwd) if record.cwd else info.cwd
        info.version = record.version or info.version
        info.title = info.title or record.title

    def _subagent_link(self, record: SubagentLink) -> None:
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

    def _notice(self, record: Notice, shown: bool) -> None:
        if record.kind == "interrupted":  # the user stopped the agent: its turn ended too
            interrupt_open_calls(self)
            turn_ended(self, record)
        saying.notice(self, record, shown)
