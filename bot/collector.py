"""How often Python's cycle collector runs while slacktail reads a log.

The pipeline makes many short-lived containers (each line's parsed JSON, its records, the
blocks of each message) and next to no reference cycles: over the replay benchmark's 120,000
lines the collector found 21 objects in all. With CPython's defaults it still walked the young
objects every 700 allocations and, now and then, every object alive — the modules, the open
sessions — to find them.
"""

from __future__ import annotations

import gc
from typing import Final

YOUNG: Final = 50_000  # net container allocations between two collections of the young
OLDER: Final = 20  # young collections between two collections of the middle generation
OLDEST: Final = 100  # middle collections between two collections of everything


def collect_rarely() -> None:
    """Leave what exists now (the modules, the settings) out of every later collection, and
    collect the young every ``YOUNG`` allocations instead of every 700. Buys the replay
    benchmark's ratio 0.245 → 0.275 (``python -m benchmarks.replay --mb 200``, compiled,
    best of 3, see benchmarks/PERFORMANCE.md). Cycles are still collected: a young object that
    is garbage waits for at most ``YOUNG`` allocations, about 10 MB."""
    gc.freeze()
    gc.set_threshold(YOUNG, OLDER, OLDEST)
