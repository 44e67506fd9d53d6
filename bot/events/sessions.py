"""Events of sessions: started, skipped, retired, an archive unreadable."""

from __future__ import annotations

from dataclasses import dataclass

from bot.events.event import Event


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
