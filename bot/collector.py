"""How often Python's cycle collector runs while slacktail reads logs.

The pipeline makes many short-lived containers (each line's parsed JSON, its records, the
blocks of each message) and next to no reference cycles: over 150,000 lines of the replay
benchmark the collector found 21 objects in all, yet with CPython's defaults it ran 303 times
(every 700 allocations, now and then over every object alive: the modules, the open sessions),
5 % of the pipeline's CPU time.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import Final

YOUNG: Final = 50_000  # net container allocations between two collections of the young
OLDER: Final = 20  # young collections between two collections of the middle generation
OLDEST: Final = 100  # middle collections between two collections of everything


@contextlib.contextmanager
def collecting_rarely() -> Iterator[None]:
    """While it lasts, what exists at its start (the modules, the settings) is left out of
    every collection, and the young are collected every ``YOUNG`` allocations instead of every
    700; as before afterwards. Buys the replay benchmark 5 % of its CPU time (0.077 s of
    1.54 s over 150,000 lines, 303 collections → 0; see benchmarks/PERFORMANCE.md). Cycles are
    still collected: a young one waits for at most ``YOUNG`` allocations, a few MB."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG, OLDER, OLDEST)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
