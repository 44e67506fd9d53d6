"""What every source gives the main loop: items of lines, read without blocking.

A source is a followed file, a stream (stdin) or a wrapped command's stdout. The main loop asks
each for what has arrived (``read_available``), waits for more (``wait_ready``) and stops once
it is ``closed`` (end of input; a followed file is closed only when told to stop at its end).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.sources.lines import Line, LongLine


@dataclass(frozen=True, slots=True)
class Truncated:
    """The file shrank under the follower: it was at ``offset`` and found it ``size`` bytes long.

    Reading restarts from the start of the file: the lines after this marker are numbered from 1
    and their offsets count from 0.
    """

    offset: int
    size: int


Item = Line | LongLine | Truncated


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
