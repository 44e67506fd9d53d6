"""What every source gives the main loop: items of lines, read without blocking.

A source is a followed file, a followed JSON document, a stream (stdin) or a wrapped command's
stdout. The main loop asks
each for what has arrived (``read_available``), waits for more (``wait_ready``) and stops once
it is ``closed`` (end of input; a followed file is closed only when told to stop at its end).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.events import Event
from bot.sources.lines import Line, LineOverLimit, LongLine


@dataclass(frozen=True, slots=True)
class Truncated:
    """The file shrank under the follower, or its first bytes changed (copytruncate, a new file
    reusing the inode): it was at ``offset`` and found it ``size`` bytes long.

    Reading goes on at ``resume_offset``, after line ``resume_line``: the lines after this marker
    are numbered from ``resume_line + 1``. Both are 0 (the file is read again from its start)
    unless the file was cut short with its first bytes kept: then the lines still in it that
    were already returned are not returned again.
    """

    offset: int
    size: int
    resume_offset: int = 0
    resume_line: int = 0


@dataclass(frozen=True, slots=True)
class Rotated(Truncated):
    """The path now names another file (rename rotation, a deleted file created again): the old
    file was read to its end, ``offset`` bytes, its partial last line included; the lines after
    this marker are the new file's (``size`` bytes when it was found), from its start: numbered
    from 1, offsets from 0. A ``Truncated``, so a loop that handles those handles it too."""


@dataclass(frozen=True, slots=True)
class Rewritten:
    """A whole JSON document was rewritten in place since it was last returned: the line after
    this marker is its new content, whole (``size`` bytes; ``before``: the size of the content
    it replaces, when known). What was read from the old content is to be built again from the
    new one, not added to (that would repeat it)."""

    size: int
    before: int | None = None


@dataclass(frozen=True, slots=True)
class SourceEvent:
    """Something that happened to a source while reading goes on, told once: the ``event`` the
    follower writes to its log (see ``bot.events``) and, if a person should hear of it at once,
    ``text``, said on stderr. A file that cannot be read for now (``Unreadable``) and, later, can
    again (``Readable``); a stream whose reading failed; an agent's output taken as ended."""

    event: Event
    text: str | None = None


Item = Line | LongLine | LineOverLimit | Truncated | Rewritten | SourceEvent  # Rotated: a Truncated


class Source(Protocol):
    """Where lines come from. Only ``wait_ready`` blocks, and at most ``timeout`` seconds."""

    @property
    def name(self) -> str:
        """The source's id (a path, ``stdin``, a command's name)."""
        ...

    @property
    def closed(self) -> bool:
        """True once the input ended and every line of it was returned."""
        ...

    def read_available(self) -> list[Item]:
        """What arrived since the last call (complete lines only; bounded per call)."""
        ...

    def ready(self) -> bool:
        """True when ``read_available`` has something to return (or the source will close)."""
        ...

    def wait_ready(self, timeout: float) -> bool:
        """Block until ``ready()`` or ``timeout`` seconds passed; whether it is ready."""
        ...

    def close(self) -> None:
        """Release what the source holds (files, signal handlers); it returns nothing more."""
        ...
