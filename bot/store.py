"""slacktail's state on disk: one SQLite database (WAL) in the state directory, mode 0600.

It holds, per destination (a workspace's channel, or a thread in it), what was sent: each
message's ts and the digest of the payload last sent, the reaction on each root, and the posts
in flight (sent, outcome unknown). Per job (a destination and what is followed) it holds one
checkpoint: the core's state (the format readers and the sessions) with every source's
position, written together in one transaction, so an offset is committed only with what it
produced. Each change of what was sent is written as it happens.

Only a state file SQLite itself reports as corrupt (or as not a database) is set aside (renamed
``state.db.corrupt-…``), never silently replaced: the run reads its sources from the start and
looks for each message in the channel before posting it. A zero-byte state file (what is left
when one was emptied) is treated the same way: what was sent is lost, so every message is
looked for before it is posted. A full disk, a lock held by another process or a failed read is
none of these: it is a one-line error, exit 75, and a service manager tries again later (see
``bot.errors``). A job is run by one process at a time (a lock file).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from bot import events
from bot.delivery.ledger import Ledger, Sent
from bot.errors import StateError, StateUnavailable
from bot.logs import EventLog

DB_NAME = "state.db"
BUSY_TIMEOUT_S = 10.0  # how long a call waits for another process's lock on the database
SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS checkpoints (
    job TEXT PRIMARY KEY, version INTEGER NOT NULL, saved_at REAL NOT NULL,
    core BLOB NOT NULL, positions BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS messages (
    destination TEXT NOT NULL, session TEXT NOT NULL, key TEXT NOT NULL,
    ts TEXT NOT NULL, digest TEXT NOT NULL, PRIMARY KEY (destination, session, key));
CREATE TABLE IF NOT EXISTS reactions (
    destination TEXT NOT NULL, session TEXT NOT NULL, name TEXT NOT NULL,
    PRIMARY KEY (destination, session));
CREATE TABLE IF NOT EXISTS archived (
    job TEXT NOT NULL, session TEXT NOT NULL, state BLOB NOT NULL, PRIMARY KEY (job, session));
CREATE TABLE IF NOT EXISTS in_flight (
    destination TEXT NOT NULL, session TEXT NOT NULL, key TEXT NOT NULL, since REAL NOT NULL,
    PRIMARY KEY (destination, session, key));
"""


def default_state_dir() -> Path:
    """``$XDG_STATE_HOME/slacktail``, else ``~/.local/state/slacktail``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "slacktail"


@dataclass(frozen=True, slots=True)
class Checkpoint:
    version: int
    core: bytes  # the core state's snapshot (see ``bot.checkpoints``)
    positions: dict[str, dict[str, Any]]  # source name -> its position


class Store:
    """The state database. ``Store.open(dir)`` creates what is missing; ``Store.memory()``
    keeps nothing after the process (the embedded local Slack does not outlive it either)."""

    def __init__(
        self,
        db: sqlite3.Connection,
        path: Path | None,
        *,
        recovered: bool = False,
        emptied: bool = False,
    ):
        self.db = db
        self.path = path
        self.recovered = recovered or emptied  # what was sent is not known: look before posting
        self.emptied = emptied  # (the state file was empty; else it was set aside)
        self._locks: list[int] = []

    @classmethod
    def memory(cls) -> Store:
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        db.executescript(_SCHEMA)
        return cls(db, None)

    @classmethod
    def open(cls, state_dir: Path, log: EventLog | None = None) -> Store:
        """The database in ``state_dir`` (made 0700 if missing; the file 0600)."""
        _make_private_dir(state_dir)
        path = state_dir / DB_NAME
        log = log or EventLog(None)
        emptied = _emptied(path)
        try:
            store = cls(_connect(path), path, emptied=emptied)
        except sqlite3.Error as error:
            if not isinstance(error, sqlite3.DatabaseError) or not _corrupt(error):
                raise _unusable(path, error) from None
            aside = _set_aside(path)
            log.event(events.StateSetAside(str(path), str(aside), str(error)))
            try:
                return cls(_connect(path), path, recovered=True)
            except sqlite3.Error as again:
                raise _unusable(path, again) from None
        if emptied:
            log.event(events.StateEmptied(str(path), looking_before_posting=True))
        return store

    def close(self) -> None:
        for fd in self._locks:
            os.close(fd)  # closing the descriptor releases its lock
        self._locks.clear()
        self.db.close()

    def lock(self, job: str) -> None:
        """Hold the job's lock for this process's life; a second process is refused."""
        if self.path is None:
            return
        lock_path = self.path.parent / f"job-{_short(job)}.lock"
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StateError(
                f"{self.path.parent}: another slacktail is following the same thing to the same "
                "channel with this state directory; stop it, or give this one another --state-dir"
            ) from None
        self._locks.append(fd)

    # --- checkpoints ----------------------------------------------------------------------

    def checkpoint(self, job: str) -> Checkpoint | None:
        """The job's checkpoint; None when there is none, or when its row is not one this
        store wrote (it is then dropped: the sources are read again from their start)."""
        row = self.db.execute(
            "SELECT version, core, positions FROM checkpoints WHERE job = ?", (job,)
        ).fetchone()
        if row is None:
            return None
        try:
            version, core, positions = int(row[0]), bytes(row[1]), orjson.loads(row[2])
        except (TypeError, ValueError, orjson.JSONDecodeError):
            positions = None
        if not _positions_shape(positions):
            self.drop_checkpoint(job)
            return None
        return Checkpoint(version, core, positions)

    def save_checkpoint(
        self, job: str, version: int, core: bytes, positions: dict[str, dict[str, Any]]
    ) -> None:
        """The core's state and the sources' positions it reflects, in one transaction."""
        with self._transaction():
            self.db.execute(
                "INSERT OR REPLACE INTO checkpoints VALUES (?, ?, ?, ?, ?)",
                (job, version, time.time(), core, orjson.dumps(positions)),
            )

    def drop_checkpoint(self, job: str) -> None:
        with self._transaction():
            self.db.execute("DELETE FROM checkpoints WHERE job = ?", (job,))

    # --- finished sessions, out of memory -------------------------------------------------

    def archive(self, job: str, session_id: str, state: bytes) -> None:
        with self._transaction():
            self.db.execute("INSERT OR REPLACE INTO archived VALUES (?, ?, ?)",
                            (job, session_id, state))  # fmt: skip

    def archived(self, job: str, session_id: str) -> bytes | None:
        row = self.db.execute(
            "SELECT state FROM archived WHERE job = ? AND session = ?", (job, session_id)
        ).fetchone()
        return bytes(row[0]) if row is not None else None

    def drop_archived(self, job: str, session_id: str) -> None:
        with self._transaction():
            self.db.execute("DELETE FROM archived WHERE job = ? AND session = ?", (job, session_id))

    def archived_ids(self, job: str) -> set[str]:
        rows = self.db.execute("SELECT session FROM archived WHERE job = ?", (job,))
        return {str(row[0]) for row in rows}

    # --- what was sent --------------------------------------------------------------------

    def ledger(self, destination: str) -> StoredLedger:
        return StoredLedger(self, destination)

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        try:
            self.db.execute("BEGIN IMMEDIATE")
            yield
            self.db.execute("COMMIT")
        except sqlite3.Error as error:
            with suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise _unusable(self.path or Path(":memory:"), error) from None


class StoredLedger(Ledger):
    """A ``Ledger`` loaded from the store, each change written through as it happens."""

    def __init__(self, store: Store, destination: str) -> None:
        super().__init__(look_before_posting=store.recovered)
        self.store, self.destination = store, destination
        where = (destination,)
        db = store.db
        for session, key, ts, fingerprint in db.execute(
            "SELECT session, key, ts, digest FROM messages WHERE destination = ?", where
        ):
            self.threads.setdefault(session, {})[key] = Sent(ts, bytes.fromhex(fingerprint))
        for session, name in db.execute(
            "SELECT session, name FROM reactions WHERE destination = ?", where
        ):
            self.reactions[session] = name
        for session, key in db.execute(
            "SELECT session, key FROM in_flight WHERE destination = ?", where
        ):
            self.posting.add((session, key))

    def begin_post(self, session_id: str, key: str) -> None:
        with self.store._transaction():
            self.store.db.execute("INSERT OR REPLACE INTO in_flight VALUES (?, ?, ?, ?)",
                                  (self.destination, session_id, key, time.time()))  # fmt: skip
        super().begin_post(session_id, key)

    def record(self, session_id: str, key: str, ts: str, payload_digest: bytes) -> None:
        row = (self.destination, session_id, key)
        with self.store._transaction():
            self.store.db.execute("INSERT OR REPLACE INTO messages VALUES (?, ?, ?, ?, ?)",
                                  (*row, ts, payload_digest.hex()))  # fmt: skip
            self.store.db.execute(
                "DELETE FROM in_flight WHERE destination = ? AND session = ? AND key = ?", row
            )
        super().record(session_id, key, ts, payload_digest)

    def forget(self, session_id: str, key: str) -> None:
        with self.store._transaction():
            self.store.db.execute(
                "DELETE FROM messages WHERE destination = ? AND session = ? AND key = ?",
                (self.destination, session_id, key),
            )
        super().forget(session_id, key)

    def forget_thread(self, session_id: str) -> None:
        where = (self.destination, session_id)
        with self.store._transaction():
            for table in ("messages", "reactions", "in_flight"):
                self.store.db.execute(
                    f"DELETE FROM {table} WHERE destination = ? AND session = ?", where
                )
        super().forget_thread(session_id)

    def set_reaction(self, session_id: str, name: str) -> None:
        with self.store._transaction():
            self.store.db.execute("INSERT OR REPLACE INTO reactions VALUES (?, ?, ?)",
                                  (self.destination, session_id, name))  # fmt: skip
        super().set_reaction(session_id, name)


def _connect(path: Path) -> sqlite3.Connection:
    try:
        if not path.exists():
            os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
        os.chmod(path, 0o600)
    except OSError as error:
        raise StateError(f"{path}: cannot use the state file ({error.strerror})") from None
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                         timeout=BUSY_TIMEOUT_S)  # fmt: skip
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")  # a commit survives a power cut, not just a kill
        problem = db.execute("PRAGMA quick_check").fetchone()[0]
        if problem != "ok":
            raise sqlite3.DatabaseError(f"integrity check: {problem}")
        db.executescript(_SCHEMA)
        _check_version(db)
    except (sqlite3.Error, StateError):
        db.close()
        raise
    for suffix in ("-wal", "-shm"):
        with suppress(FileNotFoundError):
            os.chmod(f"{path}{suffix}", 0o600)
    return db


def _emptied(path: Path) -> bool:
    """A state file that exists but holds nothing (nor has a write-ahead log that would):
    what slacktail had sent is lost."""
    try:
        if path.stat().st_size != 0:
            return False
    except FileNotFoundError:
        return False
    wal = Path(f"{path}-wal")
    return not wal.exists() or wal.stat().st_size == 0


# SQLite's primary result codes (https://sqlite.org/rescode.html)
_CORRUPT = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB: the file is not a database SQLite can read
_TRY_AGAIN = (5, 6, 10, 13, 15)  # BUSY, LOCKED, IOERR, FULL, PROTOCOL: may pass by itself


def _corrupt(error: sqlite3.DatabaseError) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:  # raised by slacktail's own checks (integrity, schema)
        return str(error).startswith("integrity check")
    return code & 0xFF in _CORRUPT


def _unusable(path: Path, error: sqlite3.Error) -> Exception:
    """The error to stop with when the database cannot be used as it is: to try again later
    (a full disk, a lock, a failed read), or for the user to fix (permissions, a newer
    schema)."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in _TRY_AGAIN:
        return StateUnavailable(f"{path}: the state database cannot be used now ({error}); "
                                "nothing was changed, try again later")  # fmt: skip
    return StateError(f"{path}: the state database cannot be used ({error})")


def _positions_shape(positions: object) -> bool:
    return isinstance(positions, dict) and all(
        isinstance(name, str) and isinstance(position, dict)
        for name, position in positions.items()
    )


def _check_version(db: sqlite3.Connection) -> None:
    row = db.execute("SELECT value FROM meta WHERE name = 'schema'").fetchone()
    if row is None:
        db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
    elif row[0] != str(SCHEMA_VERSION):
        raise StateError(f"the state database has schema version {row[0]}; this slacktail "
                         f"reads {SCHEMA_VERSION}: use the slacktail that wrote it, or "
                         "another --state-dir")  # fmt: skip


def _set_aside(path: Path) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{path}{suffix}")
        if source.exists():
            try:
                source.rename(Path(f"{aside}{suffix}"))
            except OSError as error:
                raise StateError(f"{path}: unreadable, and cannot be set aside ({error})") from None
    return aside


def _make_private_dir(state_dir: Path) -> None:
    try:
        state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise StateError(f"{state_dir}: cannot create the state directory ({error})") from None
    if not os.access(state_dir, os.W_OK | os.X_OK):
        raise StateError(f"{state_dir}: the state directory is not writable")


def _short(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
