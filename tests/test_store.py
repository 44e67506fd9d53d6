"""The state database: private files, what was sent survives a reopen, checkpoints are atomic,
an unreadable file is set aside and reported, one process per job."""

from __future__ import annotations

import io
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from bot import store as store_module
from bot.errors import StateError, StateUnavailable
from bot.logs import EventLog
from bot.store import DB_NAME, Store, default_state_dir


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_state_directory_and_files_are_private(tmp_path: Path) -> None:
    state = tmp_path / "state"
    store = Store.open(state)
    store.ledger("T/C/").record("s1", "root", "1.0", b"d1")
    assert _mode(state) == 0o700
    for path in state.iterdir():
        if path.name.startswith(DB_NAME):
            assert _mode(path) == 0o600, path.name
    store.close()


def test_sent_messages_reactions_and_posts_in_flight_survive_a_reopen(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    ledger = store.ledger("T/C/")
    ledger.record("s1", "root", "1.0", b"d-root")
    ledger.record("s1", "tools:1", "2.0", b"d-tools")
    ledger.set_reaction("s1", "white_check_mark")
    ledger.begin_post("s1", "text:2")
    ledger.forget("s1", "tools:1")
    store.close()

    again = Store.open(tmp_path).ledger("T/C/")
    assert again.thread_of("s1") == "1.0"
    assert again.sent("s1", "root") is not None and again.sent("s1", "root").digest == b"d-root"
    assert again.sent("s1", "tools:1") is None
    assert again.reaction_of("s1") == "white_check_mark"
    assert again.in_doubt("s1", "text:2")
    assert not again.in_doubt("s1", "root")


def test_a_digest_is_stored_as_the_hex_text_an_earlier_store_holds(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    store.ledger("T/C/").record("s1", "root", "1.0", bytes.fromhex("01ab"))
    store.db.execute("INSERT INTO messages VALUES ('T/C/', 's1', 'tools:1', '2.0', 'ff00')")
    assert [row[0] for row in store.db.execute("SELECT digest FROM messages")] == ["01ab", "ff00"]
    store.close()
    again = Store.open(tmp_path).ledger("T/C/")
    digests = [again.sent("s1", key).digest for key in ("root", "tools:1")]
    assert digests == [b"\x01\xab", b"\xff\x00"]


def test_a_recorded_post_is_no_longer_in_flight(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    ledger = store.ledger("T/C/")
    ledger.begin_post("s1", "root")
    ledger.record("s1", "root", "1.0", b"d")
    store.close()
    assert not Store.open(tmp_path).ledger("T/C/").in_doubt("s1", "root")


def test_ledgers_of_different_channels_are_separate(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    store.ledger("T/C1/").record("s1", "root", "1.0", b"d")
    assert store.ledger("T/C2/").thread_of("s1") is None
    assert store.ledger("T/C1/").thread_of("s1") == "1.0"


def test_a_checkpoint_keeps_core_and_positions_together(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    store.save_checkpoint("job", 7, b"core-1", {"a.jsonl": {"offset": 10}})
    store.save_checkpoint("job", 7, b"core-2", {"a.jsonl": {"offset": 20}})
    store.close()
    checkpoint = Store.open(tmp_path).checkpoint("job")
    assert checkpoint is not None
    assert (checkpoint.version, checkpoint.core) == (7, b"core-2")
    assert checkpoint.positions == {"a.jsonl": {"offset": 20}}


def test_a_job_without_a_checkpoint_has_none(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    store.save_checkpoint("other", 1, b"x", {})
    assert store.checkpoint("job") is None
    store.drop_checkpoint("other")
    assert store.checkpoint("other") is None


def test_a_corrupt_state_file_is_set_aside_and_reported(tmp_path: Path) -> None:
    (tmp_path / DB_NAME).write_bytes(b"this is not a database, it never was" * 100)
    lines: list[str] = []

    class Lines:
        def write(self, text: str) -> None:
            lines.append(text)

        def flush(self) -> None:
            pass

    store = Store.open(tmp_path, EventLog(Lines()))  # type: ignore[arg-type]
    assert store.recovered
    assert store.ledger("T/C/").look_before_posting  # the channel may hold what we forgot
    aside = [p for p in tmp_path.iterdir() if p.name.startswith(f"{DB_NAME}.corrupt-")]
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not a database")
    assert any('"state_set_aside"' in line for line in lines)


def test_a_healthy_state_file_is_not_set_aside(tmp_path: Path) -> None:
    Store.open(tmp_path).close()
    store = Store.open(tmp_path)
    assert not store.recovered
    assert not store.ledger("T/C/").look_before_posting
    assert [p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name] == []


def test_a_second_process_on_the_same_job_is_refused(tmp_path: Path) -> None:
    first = Store.open(tmp_path)
    first.lock("job")
    second = Store.open(tmp_path)
    with pytest.raises(StateError, match="another slacktail"):
        second.lock("job")
    second.lock("another job")  # other jobs may share the state directory
    first.close()
    third = Store.open(tmp_path)
    third.lock("job")  # the lock went with the first process's store


def test_an_unwritable_state_directory_is_a_one_line_error(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        blocker = tmp_path / "file"
        blocker.write_text("x")
        with pytest.raises(StateError, match="cannot create the state directory"):
            Store.open(blocker / "state")
        return
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(StateError, match="not writable"):
        Store.open(locked)


def test_the_default_state_directory_follows_xdg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", "/somewhere/state")
    assert default_state_dir() == Path("/somewhere/state/slacktail")
    monkeypatch.delenv("XDG_STATE_HOME")
    assert default_state_dir() == Path.home() / ".local" / "state" / "slacktail"


def test_a_memory_store_keeps_a_ledger_for_the_run(tmp_path: Path) -> None:
    store = Store.memory()
    store.ledger("local/C/").record("s1", "root", "1.0", b"d")
    store.lock("job")  # nothing to lock
    assert store.ledger("local/C/").thread_of("s1") == "1.0"
    assert list(tmp_path.iterdir()) == []


def test_a_zero_byte_state_file_is_lost_state_and_every_message_is_looked_for_first(
    tmp_path: Path,
) -> None:
    store = Store.open(tmp_path)
    store.ledger("T/C/").record("s1", "root", "1.0", b"d")
    store.close()
    for suffix in ("", "-wal", "-shm"):  # what an emptied state file leaves
        path = tmp_path / f"{DB_NAME}{suffix}"
        if path.exists():
            path.write_bytes(b"")
    lines = io.StringIO()
    store = Store.open(tmp_path, EventLog(lines))
    assert store.recovered
    assert store.ledger("T/C/").look_before_posting
    assert '"state_emptied"' in lines.getvalue()


def test_a_locked_database_is_not_set_aside_and_says_try_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Store.open(tmp_path).close()
    holder = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")  # another process holds it, readers too
    holder.execute("BEGIN EXCLUSIVE")
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.05)
    try:
        with pytest.raises(StateUnavailable, match="try again later") as raised:
            Store.open(tmp_path)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert raised.value.exit_code == 75
    assert [p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name] == []
    assert not Store.open(tmp_path).recovered  # the same database, whole


class _FullDisk:
    """A connection to a database on a full disk: every statement fails as SQLite says."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def execute(self, *args: object) -> None:
        error = sqlite3.OperationalError("database or disk is full")
        error.sqlite_errorcode = 13  # type: ignore[attr-defined]
        raise error

    def close(self) -> None:
        pass


def test_a_full_disk_at_start_up_keeps_the_healthy_database_and_says_try_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store.open(tmp_path)
    store.ledger("T/C/").record("s1", "root", "1.0", b"d")
    store.close()
    monkeypatch.setattr(store_module.sqlite3, "connect", _FullDisk)
    with pytest.raises(StateUnavailable, match="disk is full"):
        Store.open(tmp_path)
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name] == []
    assert Store.open(tmp_path).ledger("T/C/").thread_of("s1") == "1.0"


def test_a_database_of_a_newer_schema_is_refused_not_set_aside(tmp_path: Path) -> None:
    Store.open(tmp_path).close()
    db = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    db.execute("UPDATE meta SET value = '99' WHERE name = 'schema'")
    db.close()
    with pytest.raises(StateError, match="schema version 99"):
        Store.open(tmp_path)
    assert [p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name] == []


@pytest.mark.parametrize(
    ("version", "core", "positions"),
    [
        (1, b"\x80\x04garbage", b"{}"),
        (1, b"", b"not json"),
        (1, b"", b"[1, 2]"),
        (1, b"", b'{"a.log": 5}'),
        ("abc", b"", b"{}"),
    ],
    ids=["core", "positions-not-json", "positions-a-list", "a-position-not-an-object", "version"],
)
def test_a_checkpoint_row_of_garbage_is_dropped_not_raised(
    tmp_path: Path, version: object, core: bytes, positions: bytes
) -> None:
    store = Store.open(tmp_path)
    store.db.execute("INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?)",
                     ("job", version, 0.0, core, positions))  # fmt: skip
    checkpoint = store.checkpoint("job")
    if checkpoint is not None:  # a row of the right shape: its core is checked when restored
        assert checkpoint.core == core
    else:
        assert store.db.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0] == 0
