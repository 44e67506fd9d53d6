"""Events of slacktail's own run: resumed, its state, health, stopping."""

from __future__ import annotations

from dataclasses import dataclass

from bot.events.event import Event


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
