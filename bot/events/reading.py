"""Events of reading: files found, read, rotated, cut; lines too long or not understood."""

from __future__ import annotations

from dataclasses import dataclass

from bot.events.event import Event


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
    """A JSON document was rewritten in place with less than it held (``size`` bytes), or
    over content not known (a file read as lines before): the ``sessions`` read from it are
    built again from its new content. A document that grew (the
    Gemini CLI saves its session so after every message) is built again too, and not said:
    that is the agent going on, not news."""

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
