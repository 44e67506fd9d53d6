"""Checkpoints of the follower's core: the format readers and the sessions, with the position
of every source they reflect, saved together so that an offset is committed only with what it
produced.

The core is pure and deterministic, so after a restart it is restored from the last
checkpoint, each source is read again from its committed position, and the messages it then
wants are compared with what the store says was sent: nothing already in the channel is posted
again. The core is saved as an explicit snapshot (``bot.snapshot``: plain data, the fields of
the classes ``bot.snapshot_classes`` names), versioned by its schema, not by the build: a
checkpoint written by the compiled core is read by the pure one and back. A checkpoint of
another schema, or one that cannot be read, is dropped (the sources are then read from the
start, and the messages already sent are updated in place, not posted again).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from bot import events, snapshot
from bot.errors import InputError
from bot.formats.reader import SourceReader
from bot.logs import EventLog
from bot.session import Session, SessionBook
from bot.sources.position import stored_position
from bot.store import Store

# The snapshot's schema: a checkpoint of another one (or of a slacktail that pickled) is dropped.
CORE_VERSION: Final = snapshot.SCHEMA
_VERSION_TAG: Final = f"slacktail snapshot {CORE_VERSION}\n".encode()  # of a retired session
MIN_INTERVAL_S = 1.0
COST_FACTOR = 20  # a checkpoint waits at least this many times as long as the last one took


@dataclass
class CoreState:
    """What the pure core knows: everything a restart needs besides the store's ledger."""

    book: SessionBook
    readers: dict[str, SourceReader] = field(default_factory=dict)  # source name -> reader
    families: dict[str, str] = field(default_factory=dict)  # session id -> its log family
    ended: set[str] = field(default_factory=set)  # sources whose input ended
    # document source -> the sessions read from it (dropped and rebuilt when it is rewritten)
    produced: dict[str, set[str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Restored:
    core: CoreState | None
    positions: dict[str, dict[str, Any]]


class Checkpoints:
    """One job's checkpoints in the store, taken when due (adaptive: cheap ones often)."""

    def __init__(
        self,
        store: Store,
        job: str,
        *,
        log: EventLog | None = None,
        clock: Callable[[], float] = time.monotonic,
        min_interval_s: float = MIN_INTERVAL_S,
    ) -> None:
        self.store, self.job = store, job
        self.log = log or EventLog(None)
        self.clock = clock
        self.min_interval_s = min_interval_s
        self.saved = 0
        self._last_at = float("-inf")
        self._last_cost = 0.0

    def restore(self) -> Restored:
        """The last checkpoint's core and positions; nothing if there is none or it cannot be
        read by this version (reported: the sources are then read from their start)."""
        checkpoint = self.store.checkpoint(self.job)
        if checkpoint is None:
            return Restored(None, {})
        if checkpoint.version != CORE_VERSION:
            self._drop("written by another version of slacktail")
            return Restored(None, {})
        try:
            core = _core_of(snapshot.loads(checkpoint.core))
        except snapshot.SnapshotError as error:
            self._drop(f"unreadable ({error})")
            return Restored(None, {})
        if core is None:
            self._drop("not a slacktail checkpoint")
            return Restored(None, {})
        unreadable = _unreadable_position(checkpoint.positions)
        if unreadable is not None:  # its core would be read again from where it cannot say
            self._drop(f"the position of {unreadable} is unreadable")
            return Restored(None, {})
        self.log.event(events.Resumed(len(core.book.sessions), len(checkpoint.positions)))
        return Restored(core, checkpoint.positions)

    def due(self) -> bool:
        wait = max(self.min_interval_s, self._last_cost * COST_FACTOR)
        return self.clock() - self._last_at >= wait

    def save(self, core: CoreState, positions: dict[str, dict[str, Any]]) -> None:
        started = self.clock()
        blob = snapshot.dumps(plain_core(core))
        self.store.save_checkpoint(self.job, CORE_VERSION, blob, positions)
        self._last_at = self.clock()
        self._last_cost = self._last_at - started
        self.saved += 1

    # --- finished sessions, out of memory -------------------------------------------------

    def archive(self, session: Session) -> None:
        """Keep a finished session in the store instead of in memory."""
        blob = _VERSION_TAG + snapshot.dumps(session)
        self.store.archive(self.job, session.session_id, blob)

    def archived_ids(self) -> set[str]:
        return self.store.archived_ids(self.job)

    def is_archived(self, session_id: str) -> bool:
        """Whether this job retired ``session_id`` to the store (it ended: kept there, not in
        memory). Asked from the app's thread: a store it cannot read says no."""
        try:
            return self.store.archived(self.job, session_id) is not None
        except sqlite3.Error:
            return False

    def unarchive(self, session_id: str) -> Session | None:
        """An archived session, back for a late record of it (None: it cannot be read)."""
        blob = self.store.archived(self.job, session_id)
        if blob is None or not blob.startswith(_VERSION_TAG):
            return None
        try:
            session = snapshot.loads(blob[len(_VERSION_TAG) :])
        except snapshot.SnapshotError as error:
            self.log.event(events.ArchivedSessionUnreadable(session_id, str(error)))
            return None
        return session if isinstance(session, Session) else None

    def drop_archived(self, session_id: str) -> None:
        """Forget an archived session (it is being built again from its source)."""
        self.store.drop_archived(self.job, session_id)

    def _drop(self, why: str) -> None:
        self.log.event(events.CheckpointDropped(why, reading_from="the start of each source"))
        self.store.drop_checkpoint(self.job)


def plain_core(core: CoreState) -> dict[str, Any]:
    """The core's fields, by name (``tests/test_checkpoints.py`` checks that none is left out)."""
    return {"book": core.book, "readers": core.readers, "families": core.families,
            "ended": core.ended, "produced": core.produced}  # fmt: skip


def _core_of(plain: Any) -> CoreState | None:
    """The core of a snapshot's value, or None when it is not one."""
    if not isinstance(plain, dict) or plain.keys() != _CORE_FIELDS:
        return None
    book, readers, families = plain["book"], plain["readers"], plain["families"]
    ended, produced = plain["ended"], plain["produced"]
    if not (isinstance(book, SessionBook) and isinstance(readers, dict)
            and all(isinstance(reader, SourceReader) for reader in readers.values())
            and isinstance(families, dict) and isinstance(ended, set)
            and isinstance(produced, dict)
            and all(isinstance(ids, set) for ids in produced.values())):  # fmt: skip
        return None
    return CoreState(book, readers, families, ended, produced)


_CORE_FIELDS: Final = {"book", "readers", "families", "ended", "produced"}


def _unreadable_position(positions: dict[str, dict[str, Any]]) -> str | None:
    """The first source whose stored position is not one slacktail wrote (a file's or a
    document's), or None."""
    for name, position in positions.items():
        try:
            stored_position(position)
        except InputError:
            return name
    return None
