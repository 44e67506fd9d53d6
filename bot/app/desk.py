"""The approvals desk: permission requests and their decisions, shared by processes.

`slacktail approvals` (an MCP server that Claude Code starts) writes a request and waits for its
decision; the follower that owns the request's session shows it in the session's thread; a click
on Approve or Deny (the app's control) decides it. They are three processes, or threads of two:
they meet in one SQLite table in the state directory (``approvals.db``, WAL, mode 0600).

A request is decided once: the first decision (a person's, or the timeout's) stands, and any
later one is refused, never applied. Every change bumps the table's ``seq``, so a follower asks
only for what changed since it last looked.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

DB_NAME: Final = "approvals.db"
ALLOW: Final = "allow"
DENY: Final = "deny"
TIMEOUT: Final = "timeout"  # no answer in time: the agent is told no
KEEP_S: Final = 86400.0  # decided requests older than this are forgotten
BUSY_TIMEOUT_S: Final = 10.0

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS requests (
    id TEXT PRIMARY KEY, tool TEXT NOT NULL, summary TEXT NOT NULL, tool_use_id TEXT,
    hint TEXT, created REAL NOT NULL, deadline REAL NOT NULL, session TEXT,
    decision TEXT, decided_by TEXT, decided_at REAL, seq INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS requests_seq ON requests (seq);
"""
_COLUMNS: Final = (
    "id, tool, summary, tool_use_id, hint, created, deadline, session, decision, decided_by, "
    "decided_at, seq"
)
_NEXT_SEQ: Final = "(SELECT COALESCE(MAX(seq), 0) + 1 FROM requests)"


@dataclass(frozen=True)
class Request:
    """One permission request. ``summary`` is short and already redacted; ``hint`` is the
    asking agent's working directory; ``session`` the session it was shown in (once placed);
    ``decision`` is None while it waits, else ALLOW, DENY or TIMEOUT. Times: epoch seconds."""

    id: str
    tool: str
    summary: str
    tool_use_id: str | None
    hint: str | None
    created: float
    deadline: float
    session: str | None = None
    decision: str | None = None
    decided_by: str | None = None
    decided_at: float | None = None
    seq: int = 0

    @property
    def timeout_s(self) -> float:
        return self.deadline - self.created


class Desk:
    """The requests table at ``path``; ``clock`` gives epoch seconds. Safe to share between
    threads (one connection, one lock)."""

    def __init__(self, path: Path, clock: Callable[[], float] = time.time) -> None:
        self.path, self.clock = path, clock
        self._lock = threading.Lock()
        if not path.exists():  # made private before anything is written in it
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        self._db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                   check_same_thread=False)  # fmt: skip
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    @classmethod
    def open(cls, state_dir: Path, clock: Callable[[], float] = time.time) -> Desk:
        """The desk in ``state_dir`` (made 0700 if missing)."""
        state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        return cls(state_dir / DB_NAME, clock)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def ask(
        self, tool: str, summary: str, *, tool_use_id: str | None, hint: str | None,
        timeout_s: float,
    ) -> Request:  # fmt: skip
        """Write a new request, waiting at most ``timeout_s`` for its decision."""
        now = self.clock()
        request_id = secrets.token_hex(8)
        with self._lock:
            self._db.execute("DELETE FROM requests WHERE created < ? AND decision IS NOT NULL",
                             (now - KEEP_S,))  # fmt: skip
            self._db.execute(
                f"INSERT INTO requests ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, "
                f"NULL, NULL, {_NEXT_SEQ})",
                (request_id, tool, summary, tool_use_id, hint, now, now + timeout_s),
            )
        found = self.get(request_id)
        assert found is not None
        return found

    def get(self, request_id: str) -> Request | None:
        with self._lock:
            row = self._db.execute(f"SELECT {_COLUMNS} FROM requests WHERE id = ?",
                                   (request_id,)).fetchone()  # fmt: skip
        return None if row is None else Request(*row)

    def changed_since(self, seq: int) -> list[Request]:
        """The requests written or changed after ``seq``, in the order of their change."""
        with self._lock:
            rows = self._db.execute(f"SELECT {_COLUMNS} FROM requests WHERE seq > ? ORDER BY seq",
                                    (seq,)).fetchall()  # fmt: skip
        return [Request(*row) for row in rows]

    def place(self, request_id: str, session: str) -> bool:
        """Show the request in ``session``'s thread: True for the first to place it."""
        with self._lock:
            cursor = self._db.execute(
                f"UPDATE requests SET session = ?, seq = {_NEXT_SEQ} "
                "WHERE id = ? AND session IS NULL",
                (session, request_id),
            )
        return cursor.rowcount == 1

    def decide(self, request_id: str, decision: str, by: str | None = None) -> bool:
        """Record ``decision`` (ALLOW or DENY by a person, or TIMEOUT): True if it was applied,
        False if the request was already decided, or its time ran out before a person's."""
        now = self.clock()
        in_time = "" if decision == TIMEOUT else " AND deadline > ?"
        values: tuple[object, ...] = (decision, by, now, request_id)
        with self._lock:
            cursor = self._db.execute(
                f"UPDATE requests SET decision = ?, decided_by = ?, decided_at = ?, "
                f"seq = {_NEXT_SEQ} WHERE id = ? AND decision IS NULL{in_time}",
                values if decision == TIMEOUT else (*values, now),
            )
        return cursor.rowcount == 1

    def expire(self) -> int:
        """Time out every request whose deadline passed (its asker may be gone); how many."""
        with self._lock:
            cursor = self._db.execute(
                f"UPDATE requests SET decision = ?, decided_at = deadline, seq = {_NEXT_SEQ} "
                "WHERE decision IS NULL AND deadline <= ?",
                (TIMEOUT, self.clock()),
            )
        return cursor.rowcount
