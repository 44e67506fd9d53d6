"""The state database: private files, what was sent survives a reopen, checkpoints are atomic,
an unreadable file is set aside and reported, one process per job."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from bot.errors import StateError
from bot.logs import EventLog
from bot.store import DB_NAME, Store, default_state_dir


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_state_directory_and_files_are_private(tmp_path: Path) -> None:
    state = tmp_path / "state"
    store = Store.open(state)
    store.ledger("T/C/").record("s1", "root", "1.0", "d1")
    assert _mode(state) == 0o700
    for path in state.iterdir():
        if path.name.startswith(DB_NAME):
            assert _mode(path) == 0o600, path.name
    store.close()


def test_sent_messages_reactions_and_posts_in_flight_survive_a_reopen(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    ledger = store.ledger("T/C/")
    ledger.record("s1", "root", "1.0", "d-root")
    ledger.record("s1", "tools:1", "2.0", "d-tools")
    ledger.set_reaction("s1", "white_check_mark")
    ledger.begin_post("s1", "text:2")
    ledger.forget("s1", "tools:1")
    store.close()

    again = Store.open(tmp_path).ledger("T/C/")
    assert again.thread_of("s1") == "1.0"
    assert again.sent("s1", "root") is not None and again.sent("s1", "root").digest == "d-root"
    assert again.sent("s1", "tools:1") is None
    assert again.reaction_of("s1") == "white_check_mark"
    assert again.in_doubt("s1", "text:2")
    assert not again.in_doubt("s1", "root")


def test_a_recorded_post_is_no_longer_in_flight(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    ledger = store.ledger("T/C/")
    ledger.begin_post("s1", "root")
    ledger.record("s1", "root", "1.0", "d")
    store.close()
    assert not Store.open(tmp_path).ledger("T/C/").in_doubt("s1", "root")


def test_ledgers_of_different_channels_are_separate(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    store.ledger("T/C1/").record("s1", "root", "1.0", "d")
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
    store.ledger("local/C/").record("s1", "root", "1.0", "d")
    store.lock("job")  # nothing to lock
    assert store.ledger("local/C/").thread_of("s1") == "1.0"
    assert list(tmp_path.iterdir()) == []
