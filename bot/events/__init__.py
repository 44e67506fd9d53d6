"""The follower's events: what a running slacktail says about itself, one JSON line each on
stderr (written by ``bot.logs.EventLog``), one per notable event, never one per record.

Every event is named once, in this package's module of its subject (reading, sessions, slack,
running, app): a frozen value whose ``name`` is its line's ``event`` field,
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

from bot.events.app import (
    AgentSignalled,
    AppConnected,
    AppFailed,
    ClickAnswered,
    ClickRefused,
)
from bot.events.event import RESERVED, Event
from bot.events.reading import (
    AgentEnded,
    FilesFound,
    LineOverLimit,
    LongLine,
    Moved,
    NotUnderstood,
    OutputAbandoned,
    OutputNotCopied,
    Polling,
    Readable,
    ReadingStopped,
    Rewritten,
    Rotated,
    Truncated,
    Unreadable,
)
from bot.events.running import (
    CheckpointDropped,
    HealthListening,
    Resumed,
    StateEmptied,
    StateSetAside,
    Stopping,
)
from bot.events.sessions import (
    ArchivedSessionUnreadable,
    SessionRetired,
    SessionsSkipped,
    SessionStarted,
)
from bot.events.slack import (
    AgentExited,
    Connected,
    Delivered,
    DeliveryIncomplete,
    DeliveryStopped,
    FallbackPayload,
    MessageDeleted,
    PostingStopped,
    RateLimited,
    Retry,
    SlackBack,
    SlackUnavailable,
    SurfaceOff,
    ThreadRestarted,
)

__all__ = [
    "EVENTS",
    "RESERVED",
    "AgentEnded",
    "AgentExited",
    "AgentSignalled",
    "AppConnected",
    "AppFailed",
    "ArchivedSessionUnreadable",
    "CheckpointDropped",
    "ClickAnswered",
    "ClickRefused",
    "Connected",
    "Delivered",
    "DeliveryIncomplete",
    "DeliveryStopped",
    "Event",
    "FallbackPayload",
    "FilesFound",
    "HealthListening",
    "LineOverLimit",
    "LongLine",
    "MessageDeleted",
    "Moved",
    "NotUnderstood",
    "OutputAbandoned",
    "OutputNotCopied",
    "Polling",
    "PostingStopped",
    "RateLimited",
    "Readable",
    "ReadingStopped",
    "Resumed",
    "Retry",
    "Rewritten",
    "Rotated",
    "SessionRetired",
    "SessionStarted",
    "SessionsSkipped",
    "SlackBack",
    "SlackUnavailable",
    "StateEmptied",
    "StateSetAside",
    "Stopping",
    "SurfaceOff",
    "ThreadRestarted",
    "Truncated",
    "Unreadable",
    "events_table",
]

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
