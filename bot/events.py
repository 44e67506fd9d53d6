"""The follower's events: what a running slacktail says about itself, one JSON line each on
stderr (written by ``bot.logs.EventLog``), one per notable event, never one per record.

Every event is named here, once: a frozen value whose ``name`` is its line's ``event`` field,
whose docstring's first sentence says when it is given, and whose fields are its line's other
fields. ``EVENTS`` lists them all, in the order of the README's table (``events_table``, which a
test compares with the README). Every line also has ``at`` (when, in Unix seconds) and ``event``:
an event cannot have a field of either name (defining one is a ``TypeError``).

Sources and delivery report a happening once, as one of these values: a source returns it among
its items (a ``SourceEvent``), for the follower to write; delivery, the store and the start-up
write theirs to the one ``EventLog`` they are given. Python's logging is left to debug
diagnostics (``--debug``: slack_sdk's requests, signals forwarded).
"""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass
from typing import Any, ClassVar

RESERVED = frozenset({"at", "event"})  # every line's own fields


class Event:
    """One notable event; see the subclasses (each a frozen dataclass)."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Any]]  # each subclass is a dataclass
    name: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        taken = RESERVED & set(inspect.get_annotations(cls))
        if taken:
            raise TypeError(f"{cls.__name__}: {', '.join(sorted(taken))} is every line's own")

    def fields(self) -> dict[str, Any]:
        """The line's fields besides ``at`` and ``event``, in their order."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}


# --- reading --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FilesFound(Event):
    """A scan of the followed folder found new files to follow (``sources``: the first five)."""

    name = "files_found"
    count: int
    sources: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Unreadable(Event):
    """A followed file (or, with ``folder``, a folder under the followed one) cannot be read
    for now; reading goes on, and it is tried again every 2 s."""

    name = "unreadable"
    source: str
    error: str
    folder: str | None = None


@dataclass(frozen=True, slots=True)
class Readable(Event):
    """The file (or ``folder``) that could not be read can be again, and is read."""

    name = "readable"
    source: str
    folder: str | None = None


@dataclass(frozen=True, slots=True)
class Rotated(Event):
    """The path names another file now (rotation, a file deleted and created again): the old
    one was read to its end, ``offset`` bytes; the new one, ``size`` bytes, is read from its
    start."""

    name = "rotated"
    source: str
    offset: int
    size: int


@dataclass(frozen=True, slots=True)
class Truncated(Event):
    """The file was cut short or replaced (copytruncate) after ``offset`` bytes were read; it
    is ``size`` bytes now, and read again from its start or from the cut."""

    name = "truncated"
    source: str
    offset: int
    size: int


@dataclass(frozen=True, slots=True)
class Moved(Event):
    """At a restart, the file read before was found renamed (rotated while slacktail was
    stopped): its rest is read from ``moved_to`` before the file now at the path."""

    name = "moved"
    source: str
    moved_to: str


@dataclass(frozen=True, slots=True)
class Rewritten(Event):
    """A JSON document was rewritten in place (``size`` bytes): the ``sessions`` read from it
    are built again from its new content."""

    name = "rewritten"
    source: str
    size: int
    sessions: int


@dataclass(frozen=True, slots=True)
class LineOverLimit(Event):
    """A line passed the size limit (``SLACKTAIL_MAX_LINE_BYTES``) before its end: it is
    skipped to its end."""

    name = "line_over_limit"
    source: str
    line: int
    limit: int


@dataclass(frozen=True, slots=True)
class LongLine(Event):
    """A line over the size limit ended: ``bytes`` long, it is counted as unparsed."""

    name = "long_line"
    source: str
    line: int
    bytes: int


@dataclass(frozen=True, slots=True)
class NotUnderstood(Event):
    """Nothing of a source could be read: it is not a log slacktail reads."""

    name = "not_understood"
    source: str
    first_line: str | None


@dataclass(frozen=True, slots=True)
class Polling(Event):
    """No file-system events (for ``folder``, or none at all): files are looked at every
    ``every_s`` seconds instead."""

    name = "polling"
    folder: str | None
    error: str
    every_s: float


@dataclass(frozen=True, slots=True)
class ReadingStopped(Event):
    """Reading a stream (standard input, a pipe) failed: its input ends there."""

    name = "reading_stopped"
    source: str
    error: str


@dataclass(frozen=True, slots=True)
class OutputAbandoned(Event):
    """The agent exited, but its output stayed open and quiet for ``after_s`` seconds (a
    process it started holds it): it is taken as ended."""

    name = "output_abandoned"
    source: str
    after_s: float


@dataclass(frozen=True, slots=True)
class OutputNotCopied(Event):
    """The agent's output can no longer be copied to slacktail's own (a closed pipe): it is
    still read and posted."""

    name = "output_not_copied"
    source: str
    error: str


@dataclass(frozen=True, slots=True)
class AgentEnded(Event):
    """A ``run`` agent's output ended: its exit ``code`` and the ``signal`` that ended it."""

    name = "agent_ended"
    source: str
    code: int | None
    signal: str | None


# --- sessions -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionStarted(Event):
    """A session's first record was read."""

    name = "session_started"
    session: str
    agent: str | None
    source: str


@dataclass(frozen=True, slots=True)
class SessionsSkipped(Event):
    """At a first start, ``count`` sessions last active before ``--since`` were read but not
    posted."""

    name = "sessions_skipped"
    count: int
    since: str


@dataclass(frozen=True, slots=True)
class SessionRetired(Event):
    """A finished session, delivered and idle for 10 minutes, left memory for the store."""

    name = "session_retired"
    session: str


@dataclass(frozen=True, slots=True)
class ArchivedSessionUnreadable(Event):
    """A retired session could not be read back from the store for a late record of it."""

    name = "archived_session_unreadable"
    session: str
    error: str


# --- Slack ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Connected(Event):
    """Slack answered at start-up: the token is the bot user ``bot_user``'s, the channel found."""

    name = "connected"
    channel: str
    bot_user: str


@dataclass(frozen=True, slots=True)
class SlackUnavailable(Event):
    """A call's retries ran out (Slack unreachable, or answering 5xx): nothing is sent for
    ``retry_in_s`` seconds; ``call``: the start-up call waited for, ``waiting``: the changes
    kept to send once it answers."""

    name = "slack_unavailable"
    error: str
    retry_in_s: float
    call: str | None = None
    waiting: int | None = None


@dataclass(frozen=True, slots=True)
class SlackBack(Event):
    """Slack answers again, after ``after_s`` seconds away."""

    name = "slack_back"
    after_s: float
    waiting: int


@dataclass(frozen=True, slots=True)
class RateLimited(Event):
    """Slack asked to slow down (429): that budget pauses ``retry_after`` seconds."""

    name = "rate_limited"
    method: str
    retry_after: float


@dataclass(frozen=True, slots=True)
class Retry(Event):
    """A call failed (5xx, a lost connection) and is tried again after ``after_s`` seconds."""

    name = "retry"
    after_s: float


@dataclass(frozen=True, slots=True)
class FallbackPayload(Event):
    """Slack refused a message's payload: a smaller one, its text alone, is sent instead."""

    name = "fallback_payload"
    session: str
    key: str
    error: str


@dataclass(frozen=True, slots=True)
class MessageDeleted(Event):
    """A message of a thread was deleted in Slack: it is posted again."""

    name = "message_deleted"
    session: str
    key: str


@dataclass(frozen=True, slots=True)
class ThreadRestarted(Event):
    """A session's root was deleted in Slack: its thread starts again, replies posted anew."""

    name = "thread_restarted"
    session: str
    reason: str


@dataclass(frozen=True, slots=True)
class DeliveryStopped(Event):
    """Delivery stopped for good (a revoked token, a channel gone); the state is kept."""

    name = "delivery_stopped"
    error: str


@dataclass(frozen=True, slots=True)
class SurfaceOff(Event):
    """Slack refused one of the app's surfaces (the status under threads, agent sessions, the
    App Home): a scope missing, not allowed for this app; it is off for the rest of the run."""

    name = "surface_off"
    surface: str
    error: str


@dataclass(frozen=True, slots=True)
class Delivered(Event):
    """The final delivery sent everything: the run's totals."""

    name = "delivered"
    sessions: int
    records: int
    unparsed: int
    posts: int
    updates: int
    rate_limited: int
    retries: int
    waiting: int


@dataclass(frozen=True, slots=True)
class DeliveryIncomplete(Delivered):
    """The final delivery stopped before all was sent (a stop, a deadline): the run's totals,
    ``waiting`` the changes not sent."""

    name = "delivery_incomplete"


@dataclass(frozen=True, slots=True)
class PostingStopped(Event):
    """Under ``run``, slacktail failed while the agent runs: posting stops, the agent goes on."""

    name = "posting_stopped"
    error: str
    agent: str


@dataclass(frozen=True, slots=True)
class AgentExited(Event):
    """``run``'s agent exited with ``code``, slacktail's own exit code."""

    name = "agent_exited"
    code: int


# --- state, health, stopping ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Resumed(Event):
    """The last checkpoint was restored: its ``sessions``, and ``sources`` read on from their
    positions."""

    name = "resumed"
    sessions: int
    sources: int


@dataclass(frozen=True, slots=True)
class CheckpointDropped(Event):
    """The last checkpoint cannot be used (``why``): every source is read from its start."""

    name = "checkpoint_dropped"
    why: str
    reading_from: str


@dataclass(frozen=True, slots=True)
class StateSetAside(Event):
    """The state file was unreadable: it was moved to ``moved_to`` and a new one started."""

    name = "state_set_aside"
    path: str
    moved_to: str
    error: str


@dataclass(frozen=True, slots=True)
class StateEmptied(Event):
    """The state file was found empty: each message is looked for in the channel before it is
    posted."""

    name = "state_emptied"
    path: str
    looking_before_posting: bool


@dataclass(frozen=True, slots=True)
class HealthListening(Event):
    """``/healthz`` and ``/metrics`` are served at ``url``."""

    name = "health_listening"
    url: str


@dataclass(frozen=True, slots=True)
class Stopping(Event):
    """A stop was asked for (Ctrl-C, SIGTERM), or cut the final delivery short: what was said
    on stderr."""

    name = "stopping"
    said: str


# --- the app (controls) ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AppConnected(Event):
    """The app receives the controls' clicks, by ``transport`` (``socket_mode``, or ``http``
    at ``url``)."""

    name = "app_connected"
    transport: str
    url: str | None = None


@dataclass(frozen=True, slots=True)
class AppFailed(Event):
    """The app could not start or stopped receiving clicks; posting goes on, without controls."""

    name = "app_failed"
    error: str


@dataclass(frozen=True, slots=True)
class ClickRefused(Event):
    """A click on a control was refused (``why``: not allowed, not a control's value, ...) and
    its person told so."""

    name = "click_refused"
    action: str
    user: str
    why: str


@dataclass(frozen=True, slots=True)
class ClickAnswered(Event):
    """A click on a control reached the process that follows its session (or none did):
    ``done`` whether it was carried out, ``said`` what its person was told."""

    name = "click_answered"
    action: str
    session: str
    user: str
    done: bool
    said: str | None = None


@dataclass(frozen=True, slots=True)
class AgentSignalled(Event):
    """Stop (asked ``by`` a person) sent ``signal`` to the agent of ``slacktail run``."""

    name = "agent_signalled"
    agent: str
    signal: str
    by: str


EVENTS: tuple[type[Event], ...] = (
    FilesFound, Unreadable, Readable, Rotated, Truncated, Moved, Rewritten, LineOverLimit,
    LongLine, NotUnderstood, Polling, ReadingStopped, OutputAbandoned, OutputNotCopied,
    AgentEnded,
    SessionStarted, SessionsSkipped, SessionRetired, ArchivedSessionUnreadable,
    Connected, SlackUnavailable, SlackBack, RateLimited, Retry, FallbackPayload, MessageDeleted,
    ThreadRestarted, DeliveryStopped, Delivered, DeliveryIncomplete, PostingStopped, AgentExited,
    SurfaceOff,
    Resumed, CheckpointDropped, StateSetAside, StateEmptied, HealthListening, Stopping,
    AppConnected, AppFailed, ClickRefused, ClickAnswered, AgentSignalled,
)  # fmt: skip


def events_table() -> list[str]:
    """The README's table of the events: one row each, its name, when, and its fields."""
    rows = ["| event | when | fields |", "|---|---|---|"]
    for event in EVENTS:
        when = " ".join((event.__doc__ or "").split()).replace("``", "`")
        fields = ", ".join(f"`{field.name}`" for field in dataclasses.fields(event))
        rows.append(f"| `{event.name}` | {when} | {fields} |")
    return rows
