"""Checkpoints of the core: a restore anywhere in a log gives the same threads as reading it
straight through; a checkpoint from another version, or an unreadable one, is dropped and
reported; checkpoints are taken when due, not on every turn."""

from __future__ import annotations

import io
import pickle
import sqlite3
from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path

import pytest

from blocks.thread import thread_messages
from bot import snapshot
from bot.checkpoints import CORE_VERSION, Checkpoints, CoreState, plain_core
from bot.cli import main
from bot.formats.reader import SourceReader
from bot.localslack import LocalSlack
from bot.logs import EventLog
from bot.session import SessionBook
from bot.sources.files import is_document, read_bytes, split_lines
from bot.sources.position import DocumentPosition, FilePosition
from bot.store import Store
from tests.conftest import FIXTURES, FakeClock, corpus_files

NOW = datetime(2026, 1, 1, tzinfo=UTC)
LINE_FILES = [p for p in corpus_files() if not is_document(p.read_bytes())]


def _feed(core: CoreState, name: str, lines: list[tuple[int, bytes]]) -> None:
    reader = core.readers.setdefault(name, SourceReader(name))
    for number, line in lines:
        for record in reader.feed(line, number):
            core.book.apply(record, NOW)


def _threads(core: CoreState) -> dict[str, list[tuple[str, str]]]:
    for reader in core.readers.values():
        for record in reader.finish():
            core.book.apply(record, NOW)
    core.book.close()
    return {
        session_id: [(m.key, m.text) for m in thread_messages(session, NOW)]
        for session_id, session in core.book.sessions.items()
    }


@pytest.mark.parametrize("path", LINE_FILES, ids=[f"{p.parent.name}/{p.name}" for p in LINE_FILES])
def test_a_core_restored_midway_gives_the_same_threads(path: Path) -> None:
    lines = list(split_lines(read_bytes(path)))
    straight = CoreState(SessionBook())
    _feed(straight, path.name, lines)
    expected = _threads(straight)
    for cut in sorted({1, len(lines) // 3, len(lines) // 2, len(lines) - 1}):
        first = CoreState(SessionBook())
        _feed(first, path.name, lines[:cut])
        checkpoints = Checkpoints(Store.memory(), "job")
        checkpoints.save(first, {})
        restored = checkpoints.restore().core
        assert restored is not None, f"cut at line {cut}"
        _feed(restored, path.name, lines[cut:])
        assert _threads(restored) == expected, f"cut at line {cut}"


def test_a_checkpoint_holds_every_field_of_the_core() -> None:
    assert set(plain_core(CoreState(SessionBook()))) == {f.name for f in fields(CoreState)}


def test_a_saved_checkpoint_is_restored(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    core = CoreState(SessionBook(), families={"s1": "agno"}, ended={"a.jsonl"})
    position = FilePosition("a.jsonl", 1, 2, "ab", 2, offset=5, line=1).to_dict()
    Checkpoints(store, "job").save(core, {"a.jsonl": position})
    restored = Checkpoints(store, "job").restore()
    assert restored.core is not None
    assert restored.core.families == {"s1": "agno"} and restored.core.ended == {"a.jsonl"}
    assert restored.positions == {"a.jsonl": position}


def test_no_checkpoint_restores_nothing(tmp_path: Path) -> None:
    restored = Checkpoints(Store.open(tmp_path), "job").restore()
    assert restored.core is None and restored.positions == {}


def _log() -> tuple[EventLog, io.StringIO]:
    stream = io.StringIO()
    return EventLog(stream), stream


def test_a_checkpoint_of_another_schema_is_dropped_and_reported(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    core = snapshot.dumps(plain_core(CoreState(SessionBook())))
    store.save_checkpoint("job", CORE_VERSION + 1, core, {})
    log, out = _log()
    restored = Checkpoints(store, "job", log=log).restore()
    assert restored.core is None and restored.positions == {}
    assert '"checkpoint_dropped"' in out.getvalue() and "another version" in out.getvalue()
    assert store.checkpoint("job") is None


def test_an_unreadable_checkpoint_is_dropped_and_reported(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    store.save_checkpoint("job", CORE_VERSION, b"\x80\x05garbage", {"a": {"offset": 1}})
    log, out = _log()
    restored = Checkpoints(store, "job", log=log).restore()
    assert restored.core is None and restored.positions == {}
    assert "unreadable" in out.getvalue()


def test_a_pickled_checkpoint_of_an_older_slacktail_is_dropped_and_reported(
    tmp_path: Path,
) -> None:
    store = Store.open(tmp_path)
    older = 0x9E3779B9  # a version as it was then: a digest of slacktail's version and its build
    store.save_checkpoint("job", older, pickle.dumps({"book": "a pickled core"}), {})
    log, out = _log()
    assert Checkpoints(store, "job", log=log).restore().core is None
    assert "another version" in out.getvalue() and store.checkpoint("job") is None


@pytest.mark.parametrize(
    "value", [{"not": "a core"}, [1, 2], {"book": 1, "readers": {}, "families": {}, "ended": [],
              "produced": {}}],
    ids=["another-dict", "a-list", "fields-of-other-types"],
)  # fmt: skip
def test_a_checkpoint_holding_something_else_is_dropped(tmp_path: Path, value: object) -> None:
    store = Store.open(tmp_path)
    store.save_checkpoint("job", CORE_VERSION, snapshot.dumps(value), {})
    log, out = _log()
    assert Checkpoints(store, "job", log=log).restore().core is None
    assert "not a slacktail checkpoint" in out.getvalue()


def test_checkpoints_are_due_at_most_every_interval(tmp_path: Path) -> None:
    clock = FakeClock()
    checkpoints = Checkpoints(Store.open(tmp_path), "job", clock=clock, min_interval_s=1.0)
    assert checkpoints.due()
    checkpoints.save(CoreState(SessionBook()), {})
    assert not checkpoints.due()
    clock.advance(1.0)
    assert checkpoints.due()


@pytest.mark.parametrize(
    "garbage",
    [b"\x80\x04\x95\xff\xff\xff\xff\xff\xff\xff\x7f", b"\x80\x05}q\x00(X\x01", b"\x80\x04K\x01.",
     bytes(range(256)), pickle.dumps(list(range(3)))[:-3] + b"\x8c\xff", b'{"book": {"$r": 9',
     b'{"$SessionBook": []}', b'{"$Nobody": [1]}'],
    ids=["huge-frame", "truncated", "an-int", "every-byte", "cut-off", "json-cut-off",
         "too-few-fields", "an-unknown-class"],
)  # fmt: skip
def test_a_checkpoint_of_any_garbage_is_dropped_never_raised(
    tmp_path: Path, garbage: bytes
) -> None:
    store = Store.open(tmp_path)
    store.save_checkpoint("job", CORE_VERSION, garbage, {})
    log, out = _log()
    assert Checkpoints(store, "job", log=log).restore().core is None
    assert "checkpoint_dropped" in out.getvalue()
    assert store.checkpoint("job") is None


def test_a_documents_position_is_restored_with_the_files(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    positions = {
        "a.jsonl": FilePosition("a.jsonl", 1, 2, "ab", 2, offset=5, line=1).to_dict(),
        "run.traj": DocumentPosition("run.traj", 1, 3, 120, 7, "c0ffee").to_dict(),
    }
    Checkpoints(store, "job").save(CoreState(SessionBook()), positions)
    restored = Checkpoints(store, "job").restore()
    assert restored.core is not None and restored.positions == positions


def test_a_checkpoint_whose_position_was_tampered_with_is_dropped_whole(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    core = CoreState(SessionBook())
    store.save_checkpoint("job", CORE_VERSION, snapshot.dumps(plain_core(core)),
                          {"a.log": {"offset": -1}})  # fmt: skip
    log, out = _log()
    restored = Checkpoints(store, "job", log=log).restore()
    assert restored.core is None and restored.positions == {}
    assert "the position of a.log is unreadable" in out.getvalue()


def _session_of(path: Path) -> tuple[CoreState, str]:
    core = CoreState(SessionBook())
    _feed(core, path.name, list(split_lines(read_bytes(path))))
    return core, next(iter(core.book.sessions))


@pytest.mark.parametrize("path", LINE_FILES[:8], ids=[p.name for p in LINE_FILES[:8]])
def test_a_retired_session_comes_back_as_it_was(tmp_path: Path, path: Path) -> None:
    core, session_id = _session_of(path)
    checkpoints = Checkpoints(Store.open(tmp_path), "job")
    session = core.book.sessions[session_id]
    checkpoints.archive(session)
    again = checkpoints.unarchive(session_id)
    assert again is not None
    assert thread_messages(again, NOW) == thread_messages(session, NOW)


def test_a_retired_session_that_cannot_be_read_is_reported_not_raised(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    log, out = _log()
    checkpoints = Checkpoints(store, "job", log=log)
    store.archive("job", "s1", f"slacktail snapshot {CORE_VERSION}\n".encode() + b'{"$Session"')
    store.archive("job", "s2", b"\x12\x34\x56\x78" + pickle.dumps("an older slacktail's"))
    assert checkpoints.unarchive("s1") is None and checkpoints.unarchive("s2") is None
    assert out.getvalue().count("archived_session_unreadable") == 1


def test_a_checkpoint_of_an_older_schema_is_dropped_once_and_nothing_is_posted_twice(
    workspace: LocalSlack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    flags = ["follow", "--once", "--channel", "agents", "--state-dir", str(state),
             str(FIXTURES / "preview_mentions.jsonl")]  # fmt: skip
    assert main(flags) == 0
    posts = [r for r in workspace.requests if r.method == "chat.postMessage"]
    db = sqlite3.connect(state / "state.db")
    with db:
        db.execute("UPDATE checkpoints SET version = ?", (CORE_VERSION - 1,))
    db.close()
    capsys.readouterr()
    assert main(flags) == 0
    err = capsys.readouterr().err
    assert err.count('"checkpoint_dropped"') == 1 and "another version" in err
    assert [r for r in workspace.requests if r.method == "chat.postMessage"] == posts
    assert len(workspace.channel_messages()) == 1
