"""``follow --replay-speed N``: a finished log played at N times the pace it was written, so a
person watching the channel sees its threads grow as they did (tools ⏳, then ✅).

The pace is the records' own: the first record with a time is applied at once, and each later
one when the time between them in the log, divided by N, has passed. A record with no time
goes with the one before it (a log without times is read as it comes). Each source keeps its
records in its own order, against one timeline shared by all: the sessions of a folder replay
side by side, as they ran. Each record keeps where its line was read (``LineRead``, for Full
output's positions) until it is applied.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from datetime import datetime, timedelta

from bot.formats.reader import SourceReader
from bot.outputs import LineRead
from bot.records import Record

# When it is due (on the clock), read by, the record, where its line was read (None: not known)
Held = tuple[float, SourceReader, Record, LineRead | None]
Released = list[tuple[SourceReader, list[Record], LineRead | None]]


class Replay:
    """Records held until they are due: ``hold`` them as they are read, apply what ``due``
    gives back. ``holding`` while any waits (a checkpoint must not get ahead of them)."""

    def __init__(
        self,
        speed: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not speed > 0:
            raise ValueError("the replay speed must be positive")
        self.speed = speed
        self.clock, self.sleep = clock, sleep
        self._origin: tuple[float, datetime] | None = None  # (clock, log time) of the first
        self._queues: dict[str, deque[Held]] = {}  # by source
        self._last_due: dict[str, float] = {}

    @property
    def holding(self) -> bool:
        return any(self._queues.values())

    def hold(
        self, reader: SourceReader, records: list[Record], at: LineRead | None = None
    ) -> None:
        """Keep ``records`` (read from ``reader``'s source, from the line ``at``) until their
        time comes."""
        if not records:
            return
        now = self.clock()
        queue = self._queues.setdefault(reader.source, deque())
        last = self._last_due.get(reader.source, now) if queue else now
        for record in records:
            due = self._due(record.timestamp, now)
            last = last if due is None else max(last, due)
            queue.append((last, reader, record, at))
        self._last_due[reader.source] = last

    def forget(self, source: str) -> None:
        """Drop what ``source`` has held (a document rewritten: it is read again whole)."""
        self._queues.pop(source, None)

    def due(self) -> Released:
        """The records whose time has come, per source and line, in the order they were read."""
        return self._release(self.clock())

    def release_all(self) -> Released:
        """Every record held, at once (the input ended and delivery is to finish)."""
        return self._release(float("inf"))

    def log_now(self) -> datetime | None:
        """The time in the log the replay has reached (its sessions' times are the log's: a
        session's elapsed time and quiet are measured against it); ``None`` before the first
        record with a time."""
        if self._origin is None:
            return None
        start, first = self._origin
        return first + timedelta(seconds=(self.clock() - start) * self.speed)

    def next_in(self) -> float | None:
        """Seconds until the next held record is due (None: nothing is held)."""
        heads = [queue[0][0] for queue in self._queues.values() if queue]
        return max(0.0, min(heads) - self.clock()) if heads else None

    def _due(self, stamp: datetime | None, now: float) -> float | None:
        if stamp is None:
            return None
        if self._origin is None:
            self._origin = (now, stamp)
        start, first = self._origin
        return start + (stamp - first).total_seconds() / self.speed

    def _release(self, moment: float) -> Released:
        released: Released = []
        for queue in self._queues.values():
            while queue and queue[0][0] <= moment:
                _, reader, record, at = queue.popleft()
                if released and released[-1][0] is reader and released[-1][2] is at:
                    released[-1][1].append(record)
                else:
                    released.append((reader, [record], at))
        return released
