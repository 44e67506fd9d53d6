"""How a file is followed (``FileOptions``), and the defaults: chunk size, read limit, polling."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.sources.lines import DEFAULT_MAX_LINE_BYTES

CHUNK_BYTES = 64 * 1024
READ_LIMIT_BYTES = 1024 * 1024
POLL_INTERVAL = 0.25


@dataclass(frozen=True)
class FileOptions:
    """How a file is followed; the defaults: like ``tail -F``, for ever.

    A missing or unreadable file is an ``InputError`` at once, unless ``wait_for_file``: then it
    is read once it appears, or can be read. With ``stop_at_end`` the follower reads to the
    file's current end, emits the partial last line and closes (backfill, ``--once``);
    otherwise it never closes by itself. With ``close_idle_after`` seconds without new lines
    the file is closed (``park``) until its path changes: hundreds of idle files do not hold
    hundreds of open files. A line over ``max_line_bytes`` is skipped; the file is read in
    chunks of ``chunk_bytes``, at most ``read_limit`` bytes per call, and, without a
    ``ChangeWatch``, looked at every ``poll_interval`` seconds of ``clock``.
    """

    wait_for_file: bool = False
    stop_at_end: bool = False
    close_idle_after: float | None = None
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    poll_interval: float = POLL_INTERVAL
    chunk_bytes: int = CHUNK_BYTES
    read_limit: int = READ_LIMIT_BYTES
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
