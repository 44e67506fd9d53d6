"""A progress bar on stderr while a log is replayed (``follow --once``, a large ``preview``):
shown only on a terminal.

Reading a log takes a second where delivering it takes a minute (Slack takes about one post a
second): the bar shows both, what was read of the file and what was sent of what is to be sent.
While it is shown, whatever else is written to stderr (a log line, a notice) goes on a line of
its own above it: the bar's line is cleared first and the bar drawn again below.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TextIO, cast

WIDTH = 20
MIN_BYTES = 5_000_000  # a file read alone (preview) is done before a bar would help
EVERY_S = 0.1
CLEAR = "\r\x1b[2K"
Delivered = Callable[[], tuple[int, int]]  # (calls sent, changes still waiting)


class _Log(Protocol):
    stream: TextIO | None


class ProgressBar:
    """``update(done)`` says how many bytes were read, ``draw()`` redraws (at most every
    ``EVERY_S`` seconds) with the figures of ``delivered`` (once ``watch_delivery`` gave it);
    ``close()`` clears the line. Silent when the stream is not a terminal or the work is
    smaller than ``min_bytes`` (reading alone)."""

    def __init__(
        self,
        total: int,
        label: str,
        stream: TextIO | None = None,
        *,
        min_bytes: int = MIN_BYTES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = total
        self.label = label
        self.shown = total >= min_bytes and self.stream.isatty()
        self.done = 0
        self.delivered: Delivered | None = None
        self._clock = clock
        self._last = float("-inf")
        self._drawn = False

    def watch_delivery(self, delivered: Delivered) -> None:
        """Show what was sent too: ``delivered()`` gives (calls sent, changes waiting)."""
        self.delivered = delivered

    def update(self, done: int) -> None:
        self.done = done
        self.draw()

    def sleep(self, seconds: float) -> None:
        """Draw, then sleep (delivery paces itself by sleeping: the bar moves meanwhile)."""
        self.draw()
        time.sleep(seconds)

    def draw(self, *, now: bool = False) -> None:
        """Redraw, unless it was drawn less than ``EVERY_S`` ago (``now``: redraw anyway)."""
        if not self.shown:
            return
        moment = self._clock()
        finished = 0 < self.total <= self.done  # the end of the reading is always drawn
        if not now and not finished and moment - self._last < EVERY_S:
            return
        self._last = moment
        self.stream.write("\r" + self.line())
        self.stream.flush()
        self._drawn = True

    def line(self) -> str:
        """The bar as it is drawn: ``label  read ███░░ 60% 3/5 MB  · sent ██░░░ 12 of 40``
        (a folder or standard input, of no known size: what was sent alone)."""
        parts = [_shorten(self.label)]
        if self.total:
            share = min(1.0, self.done / self.total)
            parts += [f"read {_bar(share)} {share:4.0%}", _sizes(self.done, self.total)]
        if self.delivered is not None:
            sent, waiting = self.delivered()
            known = sent + waiting
            parts.append(f"· sent {_bar(sent / known if known else 0.0)} {sent} of {known}")
        width = shutil.get_terminal_size((100, 24)).columns - 1
        return "  ".join(parts)[:width]  # a wrapped line could not be drawn over again

    def clear(self) -> None:
        """Clear the bar's line (drawn again at the next ``draw``)."""
        if self._drawn:
            self.stream.write(CLEAR)
            self.stream.flush()
            self._drawn = False

    def close(self) -> None:
        if self.shown:
            self.stream.write(CLEAR)
            self.stream.flush()
            self._drawn = False

    @contextmanager
    def lines_above(self, log: _Log | None = None) -> Iterator[None]:
        """While it lasts, what is written to stderr (``sys.stderr`` and ``log``'s stream)
        goes on its own line above the bar."""
        if not self.shown:
            yield
            return
        previous, previous_log = sys.stderr, log.stream if log is not None else None
        around = cast(TextIO, _AroundBar(self, sys.stderr))
        sys.stderr = around
        if log is not None:
            log.stream = around
        try:
            yield
        finally:
            sys.stderr = previous
            if log is not None:
                log.stream = previous_log


class _AroundBar:
    """stderr while the bar is shown: a write clears the bar's line first, and the bar is
    drawn again under a finished line."""

    def __init__(self, bar: ProgressBar, stream: TextIO) -> None:
        self._bar = bar
        self._stream = stream

    def write(self, text: str) -> int:
        self._bar.clear()
        written = self._stream.write(text)
        if text.endswith("\n"):
            self._stream.flush()
            self._bar.draw(now=True)
        return written

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _bar(share: float) -> str:
    filled = int(min(1.0, max(0.0, share)) * WIDTH)
    return "█" * filled + "░" * (WIDTH - filled)


def _sizes(done: int, total: int) -> str:
    if total < 1_000_000:
        return f"{done / 1e3:,.0f}/{total / 1e3:,.0f} kB"
    return f"{done / 1e6:,.0f}/{total / 1e6:,.0f} MB"


def _shorten(label: str, most: int = 28) -> str:
    return label if len(label) <= most else "…" + label[-(most - 1):]
