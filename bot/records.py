"""The records every log format is read into.

Records are slotted dataclasses that nobody mutates after a format builds them. They are not
``frozen``: a frozen dataclass costs over four times as much to build (0.58 µs against 0.13 µs
per record on Python 3.11), and a record is built for every line of every log. For the same
reason each record class writes its ``__init__`` out (``init=False``), here and in
``bot.result_records`` only: compiled with mypyc, a written ``__init__`` is native code that the
formats call directly, where the one ``dataclass`` generates is interpreted (0.40 µs against
0.13 µs a record, positional). Measured on the compiled core, the generated ones cost 10 % of
the replay: parse → session → final messages of every corpus JSON Lines file, ten times
(30,890 lines, 35,120 records), 2,091 million instructions with these against 2,301 million
with plain dataclasses (callgrind, imports left out). The signatures are the ones
``dataclass`` would generate, so ``dataclasses.replace`` and keyword calls still work.

Each format maps its lines into these; nothing downstream of ``bot.formats`` knows which
format a record came from. The records of a session's end are in ``bot.result_records``.

Every record has an ``origin`` (an ``Origin``, built once per line and shared by the records
made from it), and reads these through it:

- ``session_id``: the agent session the record belongs to.
- ``timestamp``: when it happened, as an aware UTC datetime, or ``None`` when the line has none.
- ``line``: the 1-based line number (or document index) in its source.
- ``parent_call``: the id of the tool call (Claude ``Task``, an Agno delegation) whose subagent
  produced this record, or ``None`` for the session's own records.
- ``subagent``: the subagent's own id when the format knows it (a transcript's ``agentId``, an
  Agno member id); the session links it to ``parent_call`` when another record says which call
  started it (see ``SubagentLink``).

An origin's ``uid`` is the line's own unique id where the log has one (Claude Code's ``uuid``):
a line seen again (sent twice by a shipper, copied into a resumed session's file) is applied
once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mypy_extensions import mypyc_attr


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class Origin:
    """Where a record comes from: its session, its time, its line, and the subagent (if any)
    that produced it. A format builds one per line and makes that line's records from it."""

    session_id: str
    timestamp: datetime | None
    line: int
    parent_call: str | None = None
    subagent: str | None = None
    uid: str | None = None  # the line's own unique id where the log gives one (a uuid)

    def __init__(
        self,
        session_id: str,
        timestamp: datetime | None,
        line: int,
        parent_call: str | None = None,
        subagent: str | None = None,
        uid: str | None = None,
    ) -> None:
        self.session_id = session_id
        self.timestamp = timestamp
        self.line = line
        self.parent_call = parent_call
        self.subagent = subagent
        self.uid = uid


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class Record:
    """What every record has: its ``origin`` (read through ``session_id``, ``timestamp``,
    ``line``, ``parent_call`` and ``subagent``)."""

    origin: Origin

    def __init__(self, origin: Origin) -> None:
        self.origin = origin

    @property
    def session_id(self) -> str:
        return self.origin.session_id

    @property
    def timestamp(self) -> datetime | None:
        return self.origin.timestamp

    @property
    def line(self) -> int:
        return self.origin.line

    @property
    def parent_call(self) -> str | None:
        return self.origin.parent_call

    @property
    def subagent(self) -> str | None:
        return self.origin.subagent


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class SessionStarted(Record):
    """A session begins (Claude ``system/init``, Agno ``RunStarted``, a transcript's first line)."""

    agent: str = ""  # "Claude Code", "Agno team Dev Team", "SWE-agent", ...
    model: str | None = None
    cwd: str | None = None
    version: str | None = None
    tools: tuple[str, ...] = ()
    title: str | None = None  # a transcript's summary, a run's name

    def __init__(
        self,
        origin: Origin,
        agent: str = "",
        model: str | None = None,
        cwd: str | None = None,
        version: str | None = None,
        tools: tuple[str, ...] = (),
        title: str | None = None,
    ) -> None:
        self.origin = origin
        self.agent = agent
        self.model = model
        self.cwd = cwd
        self.version = version
        self.tools = tools
        self.title = title


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class UserText(Record):
    text: str = ""

    def __init__(self, origin: Origin, text: str = "") -> None:
        self.origin = origin
        self.text = text


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class AssistantText(Record):
    """Assistant text. ``delta`` marks a streamed token chunk to be joined with no separator."""

    text: str = ""
    delta: bool = False
    message_id: str | None = None

    def __init__(
        self,
        origin: Origin,
        text: str = "",
        delta: bool = False,
        message_id: str | None = None,
    ) -> None:
        self.origin = origin
        self.text = text
        self.delta = delta
        self.message_id = message_id


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class Thinking(Record):
    text: str = ""

    def __init__(self, origin: Origin, text: str = "") -> None:
        self.origin = origin
        self.text = text


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class ToolCall(Record):
    """A tool call started. ``input`` is the parsed arguments; ``raw_input`` holds arguments that
    were not valid JSON, shown as they are."""

    call_id: str = ""
    name: str = ""
    input: Mapping[str, Any] = field(default_factory=dict)
    raw_input: str | None = None

    def __init__(
        self,
        origin: Origin,
        call_id: str = "",
        name: str = "",
        input: Mapping[str, Any] | None = None,
        raw_input: str | None = None,
    ) -> None:
        self.origin = origin
        self.call_id = call_id
        self.name = name
        self.input = {} if input is None else input
        self.raw_input = raw_input


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class ToolResult(Record):
    """A tool call's result, matched to its call by ``call_id`` (in any order)."""

    call_id: str = ""
    output: str = ""
    is_error: bool = False
    interrupted: bool = False
    name: str | None = None  # some formats repeat the tool's name on its result

    def __init__(
        self,
        origin: Origin,
        call_id: str = "",
        output: str = "",
        is_error: bool = False,
        interrupted: bool = False,
        name: str | None = None,
    ) -> None:
        self.origin = origin
        self.call_id = call_id
        self.output = output
        self.is_error = is_error
        self.interrupted = interrupted
        self.name = name


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class Todo:
    """One entry of a todo list. Not frozen, like the records, and for the same reason: a todo
    list is read again on every ``TodoWrite``, and its ``__init__`` is native code only when it
    is written out."""

    content: str
    status: str  # "pending" | "in_progress" | "completed" (others kept as given)
    active_form: str | None = None
    priority: str | None = None

    def __init__(
        self,
        content: str,
        status: str,
        active_form: str | None = None,
        priority: str | None = None,
    ) -> None:
        self.content, self.status = content, status
        self.active_form, self.priority = active_form, priority


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class TodoUpdate(Record):
    """The agent's whole todo list as it now stands (Claude ``TodoWrite``)."""

    todos: tuple[Todo, ...] = ()
    call_id: str | None = None

    def __init__(
        self,
        origin: Origin,
        todos: tuple[Todo, ...] = (),
        call_id: str | None = None,
    ) -> None:
        self.origin = origin
        self.todos = todos
        self.call_id = call_id


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class Delegation(Record):
    """A team leader hands a task to a member (Agno ``delegate_task_to_member``).

    The delegation is also a tool call: its ``call_id`` is what the member's records name as
    ``parent_call``, and the member's answer arrives as a ``ToolResult`` of that id."""

    call_id: str = ""
    member: str = ""
    task: str = ""

    def __init__(self, origin: Origin, call_id: str = "", member: str = "", task: str = "") -> None:
        self.origin = origin
        self.call_id = call_id
        self.member = member
        self.task = task


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class SubagentLink(Record):
    """Says that subagent ``agent_id`` runs for tool call ``call_id`` (a transcript's
    ``agent_progress``, an Agno ``child_run_id``). With no ``call_id``, the subagent itself says
    it runs for a call another source will name (a Codex sub-agent's own file): the session
    holds its records until that link comes."""

    agent_id: str = ""
    call_id: str = ""

    def __init__(self, origin: Origin, agent_id: str = "", call_id: str = "") -> None:
        self.origin = origin
        self.agent_id = agent_id
        self.call_id = call_id


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class Compaction(Record):
    trigger: str | None = None  # "auto" | "manual"
    pre_tokens: int | None = None
    summary: str | None = None

    def __init__(
        self,
        origin: Origin,
        trigger: str | None = None,
        pre_tokens: int | None = None,
        summary: str | None = None,
    ) -> None:
        self.origin = origin
        self.trigger = trigger
        self.pre_tokens = pre_tokens
        self.summary = summary


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class Notice(Record):
    """Anything else a reader may want to know: a hook, a status change, an API error, an
    unknown system subtype. ``kind`` names it (``hook``, ``status``, ``api_error``, ...)."""

    kind: str = ""
    text: str = ""
    level: str = "info"  # "info" | "warning" | "error"

    def __init__(self, origin: Origin, kind: str = "", text: str = "", level: str = "info") -> None:
        self.origin = origin
        self.kind = kind
        self.text = text
        self.level = level


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class Ignored(Record):
    """A line the format understands and that a channel reader never wants to see: file
    snapshots, queue operations, hook progress, meta rows, cached blocks, status rows.
    ``kind`` says which; it is counted as hidden."""

    kind: str = ""

    def __init__(self, origin: Origin, kind: str = "") -> None:
        self.origin = origin
        self.kind = kind


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class Unparsed(Record):
    """A line that is not JSON, or JSON that no format understands. Counted and skipped."""

    reason: str = ""
    excerpt: str = ""

    def __init__(self, origin: Origin, reason: str = "", excerpt: str = "") -> None:
        self.origin = origin
        self.reason = reason
        self.excerpt = excerpt


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class Usage(Record):
    """What ONE step or request of the agent spent, said in a log that reports spending as it
    goes (an opencode ``step_finish``, a Kimi ``usage.record``, a Codex ``token_count``): not an
    outcome. A format whose log gives running totals emits each step's difference. The session
    adds it to what it spent (the root's header shows it, while it runs too), and a result of
    the same run that gives no figure of its own shows the run's. A figure the log does not
    give is ``None``."""

    cost_usd: float | None = None
    input_tokens: int | None = None  # not counting the cache reads
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None

    def __init__(
        self,
        origin: Origin,
        cost_usd: float | None = None,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        cache_read_tokens: int | None = None,
        cache_write_tokens: int | None = None,
        reasoning_tokens: int | None = None,
    ) -> None:
        self.origin = origin
        self.cost_usd = cost_usd
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.cache_read_tokens = cache_read_tokens
        self.cache_write_tokens = cache_write_tokens
        self.reasoning_tokens = reasoning_tokens
