"""A progress bar on stderr while a large file is replayed: shown only on a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30
MIN_BYTES = 5_000_000  # smaller files are done before a bar would help
EVERY_S = 0.1


class ProgressBar:
    """``update(done)`` redraws at most every ``EVERY_S`` seconds; ``close()`` clears the line.
    Silent when the stream is not a terminal or the work is small."""

    def __init__(self, total: int, label: str, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = total
        self.label = label
        self.shown = total >= MIN_BYTES and self.stream.isatty()
        self._last = 0.0

    def update(self, done: int) -> None:
        if not self.shown:
            return
        now = time.monotonic()
        if now - self._last < EVERY_S and done < self.total:
            return
        self._last = now
        share = min(1.0, done / self.total) if self.total else 1.0
        filled = int(share * WIDTH)
        bar = "█" * filled + "░" * (WIDTH - filled)
        sizes = f"{done / 1e6:,.0f}/{self.total / 1e6:,.0f} MB"
        self.stream.write(f"\r{self.label} {bar} {share:4.0%} {sizes}")
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
