"""Noticing changes to files without looking at them: file-system events, polling as a fallback.

A ``ChangeWatch`` runs watchdog's observer (inotify on Linux, FSEvents on macOS) on the folders
of the files followed. Each event marks the paths it names as changed and wakes whoever waits in
``wait``. Followers look at a file only when it was marked (``take``), or every
``recheck_interval`` seconds whatever happened: events can be missed (a full event queue, a
network file system), and the recheck is what makes following correct. Where the observer
cannot start (no inotify, too many watches), ``recheck_interval`` is the polling interval, and
a ``polling`` event says so (``take_events``).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from watchdog.events import (
    DirCreatedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from bot import events
from bot.sources.source import SourceEvent

RECHECK_S = 2.0  # with events: each file is looked at this often anyway
POLL_S = 0.5  # without events: how often files are looked at
EVENTS = [
    FileCreatedEvent, FileModifiedEvent, FileMovedEvent, FileDeletedEvent, FileClosedEvent,
    DirCreatedEvent, DirMovedEvent,
]  # fmt: skip
NEW_ENTRY = ("created", "moved")


class ChangeWatch:
    """Which watched paths changed since they were last asked about, and a wake-up for waiting.

    ``events=False`` (or an observer that cannot start) polls: ``wait`` then waits
    ``poll_interval`` seconds, and every file is looked at that often.
    """

    def __init__(
        self,
        *,
        events: bool = True,
        recheck_interval: float = RECHECK_S,
        poll_interval: float = POLL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._changed: set[str] = set()
        self._new_entries = True  # a file or folder appeared: folders are scanned again
        self._wake = threading.Event()
        self._folders: dict[str, bool] = {}  # folder → watched recursively
        self._poll_interval = poll_interval
        self._said: list[SourceEvent] = []  # to be said once each (``take_events``)
        self._observer = self._start_observer() if events else None
        self.recheck_interval = recheck_interval if self._observer else poll_interval

    @property
    def events(self) -> bool:
        """Whether file-system events arrive (else only polling)."""
        return self._observer is not None

    def watch_file(self, path: Path) -> None:
        self.watch_folder(Path(os.path.abspath(path)).parent, recursive=False)

    def watch_folder(self, folder: Path, *, recursive: bool) -> None:
        """Receive events for ``folder``'s entries (and, ``recursive``, those of every folder
        under it, new ones included). A folder already covered is not watched twice."""
        key = os.path.abspath(folder)
        if self._covered(key, recursive):
            return
        self._folders[key] = recursive
        if self._observer is None:
            return
        try:
            self._observer.schedule(_Events(self), key, recursive=recursive, event_filter=EVENTS)
        except OSError as error:  # missing folder, no inotify, the watch limit reached
            self._polling(key, error)
            self.close()
            self.recheck_interval = self._poll_interval

    def take_events(self) -> list[SourceEvent]:
        """What happened to the watch since the last call: events stopped, polling instead."""
        said, self._said = self._said, []
        return said

    def _polling(self, folder: str | None, error: OSError) -> None:
        every = self._poll_interval
        text = (f"warning: {folder + ': ' if folder else ''}no file-system events ({error}); "
                f"polling every {every:g} s instead")  # fmt: skip
        self._said.append(SourceEvent(events.Polling(folder, str(error), every), text))

    def _start_observer(self) -> BaseObserver | None:
        observer = Observer()
        try:
            observer.start()
        except OSError as error:
            self._polling(None, error)
            return None
        return observer

    def take(self, path: str) -> bool:
        """Whether ``path`` (absolute) changed since the last ``take`` of it."""
        with self._lock:
            if path in self._changed:
                self._changed.discard(path)
                return True
            return False

    def take_new_entries(self) -> bool:
        """Whether a file or folder appeared (or was renamed) since the last call."""
        with self._lock:
            new, self._new_entries = self._new_entries, False
            return new

    def wait(self, timeout: float) -> bool:
        """Block until an event arrives or ``timeout`` seconds passed (without events: at most
        ``poll_interval`` seconds); whether an event arrived."""
        if self._observer is None:
            timeout = min(timeout, self._poll_interval)
        woken = self._wake.wait(max(timeout, 0.0))
        self._wake.clear()
        return woken

    def close(self) -> None:
        observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            observer.join(timeout=2)

    def mark(self, event: FileSystemEvent) -> None:
        """On the observer's thread: mark the paths ``event`` names and wake the waiter."""
        paths = [os.fsdecode(p) for p in (event.src_path, event.dest_path) if p]
        with self._lock:
            self._changed.update(paths)
            if event.event_type in NEW_ENTRY:
                self._new_entries = True
        self._wake.set()

    def _covered(self, key: str, recursive: bool) -> bool:
        if self._folders.get(key) in (True, recursive):
            return True
        return any(
            deep and key.startswith(folder.rstrip(os.sep) + os.sep)
            for folder, deep in self._folders.items()
        )


class Lookout:
    """When a follower should look at its file (absolute ``path``): when ``watch`` saw a change
    to it, or ``recheck_interval`` seconds after it last looked anyway; without a watch, always.
    ``done()`` says it looked and saw all there was: it waits for the next change."""

    def __init__(self, watch: ChangeWatch | None, path: str, clock: Callable[[], float]) -> None:
        self._watch = watch
        self._path = path
        self._clock = clock
        self._due = True
        self._looked_at = float("-inf")

    def due(self) -> bool:
        watch = self._watch
        if watch is None:
            return True
        if watch.take(self._path) or self._clock() - self._looked_at >= watch.recheck_interval:
            self._due = True
        return self._due

    def done(self) -> None:
        if self._watch is not None:
            self._due = False
            self._looked_at = self._clock()


class Waitable(Protocol):
    def ready(self) -> bool: ...


def wait_for_change(watch: ChangeWatch, sources: Sequence[Waitable], timeout: float) -> bool:
    """Like ``wait_for_data``, woken by ``watch``'s events instead of polling."""
    deadline = watch.clock() + timeout
    while True:
        if any(source.ready() for source in sources):
            return True
        remaining = deadline - watch.clock()
        if remaining <= 0:
            return False
        watch.wait(min(remaining, watch.recheck_interval))


class _Events(FileSystemEventHandler):
    def __init__(self, watch: ChangeWatch) -> None:
        self._watch = watch

    def on_any_event(self, event: FileSystemEvent) -> None:
        self._watch.mark(event)
