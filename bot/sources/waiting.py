"""Waiting, by polling, for one of several sources to have data."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from bot.sources.file_options import POLL_INTERVAL
from bot.sources.follow import FileFollower
from bot.sources.source import Source


def wait_for_data(
    sources: Sequence[Source],
    timeout: float,
    *,
    poll_interval: float | None = None,
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], None] | None = None,
) -> bool:
    """Block until one of ``sources`` is ready (a file grew or shrank) or ``timeout`` seconds
    passed; whether one is ready. Polls every ``poll_interval`` seconds; the interval, clock and
    sleep default to the first ``FileFollower``'s (else 0.25 s and the real ones)."""
    first = next((s for s in sources if isinstance(s, FileFollower)), None)
    interval = poll_interval if poll_interval is not None else _interval(first)
    now = clock or (first.clock if first is not None else time.monotonic)
    pause = sleep or (first.sleep if first is not None else time.sleep)
    deadline = now() + timeout
    while True:
        if any(source.ready() for source in sources):
            return True
        remaining = deadline - now()
        if remaining <= 0:
            return False
        pause(min(interval, remaining))


def _interval(first: FileFollower | None) -> float:
    return first.poll_interval if first is not None else POLL_INTERVAL
