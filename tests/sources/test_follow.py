"""The file follower: appends picked up, partial lines held, a missing file refused, a shrinking
file read again after a marker, a path it cannot read for a while said once and read once it
can be, and waiting on files with an injected clock."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from bot import events
from bot.errors import InputError
from bot.sources.file_options import FileOptions
from bot.sources.follow import FileFollower
from bot.sources.lines import BOM, Line, LineOverLimit, LongLine
from bot.sources.opening import RETRY_S
from bot.sources.source import Item, Rotated, Source, SourceEvent, Truncated
from bot.sources.waiting import wait_for_data
from bot.sources.watch import ChangeWatch
from tests.conftest import FakeClock
from tests.sources.helpers import Denied, data, said


class FakeTime:
    """A clock that only moves when slept on; ``on_sleep`` runs at each sleep."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []
        self.on_sleep: list[tuple[int, Path, bytes]] = []  # (at sleep #n, append to path, data)

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        for at, path, chunk in self.on_sleep:
            if at == len(self.sleeps):
                append(path, chunk)


def append(path: Path, chunk: bytes) -> None:
    with path.open("ab") as file:
        file.write(chunk)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "agent.jsonl"
    path.write_bytes(b"")
    return path


def test_appended_lines_are_picked_up_on_each_read(log: Path) -> None:
    with FileFollower(log) as follower:
        assert follower.read_available() == []
        append(log, b"one\ntwo\n")
        assert follower.read_available() == [Line(1, 4, b"one"), Line(2, 8, b"two")]
        assert follower.read_available() == []
        append(log, b"three\n")
        assert follower.read_available() == [Line(3, 14, b"three")]


def test_lines_already_in_the_file_are_read_from_the_start(log: Path) -> None:
    log.write_bytes(b"a\nb\n")
    with FileFollower(log) as follower:
        assert data(follower.read_available()) == [b"a", b"b"]


def test_a_partial_line_is_held_until_it_is_completed(log: Path) -> None:
    with FileFollower(log) as follower:
        append(log, b'{"a": ')
        assert follower.read_available() == []
        assert follower.offset == 0
        append(log, b"1}\n")
        assert follower.read_available() == [Line(1, 9, b'{"a": 1}')]
        assert follower.offset == 9


def test_reading_starts_at_a_given_offset_after_a_given_line(log: Path) -> None:
    log.write_bytes(b"old\nnew\n")
    with FileFollower(log, offset=4, line_number=1) as follower:
        assert follower.read_available() == [Line(2, 8, b"new")]


def test_a_missing_file_is_a_one_line_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError) as error:
        FileFollower(tmp_path / "nope.jsonl")
    assert str(error.value) == f"{tmp_path / 'nope.jsonl'}: no such file"


def test_a_directory_is_a_one_line_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        FileFollower(tmp_path)


def test_a_missing_file_is_waited_for_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "later.jsonl"
    with FileFollower(path, FileOptions(wait_for_file=True)) as follower:
        assert not follower.ready()
        assert follower.read_available() == []
        path.write_bytes(b"hello\n")
        assert follower.ready()
        assert data(follower.read_available()) == [b"hello"]


def test_a_truncated_file_gives_a_marker_then_its_new_lines_from_the_start(log: Path) -> None:
    with FileFollower(log) as follower:
        append(log, b"first\nsecond\n")
        assert len(follower.read_available()) == 2
        log.write_bytes(b"new\n")
        assert follower.read_available() == [Truncated(offset=13, size=4), Line(1, 4, b"new")]
        append(log, b"more\n")
        assert follower.read_available() == [Line(2, 9, b"more")]


def test_truncation_drops_a_held_partial_line(log: Path) -> None:
    with FileFollower(log) as follower:
        append(log, b"complete\nhalf")
        follower.read_available()
        log.write_bytes(b"")
        assert follower.read_available() == [Truncated(offset=13, size=0)]
        append(log, b"fresh\n")
        assert follower.read_available() == [Line(1, 6, b"fresh")]


def test_an_offset_past_the_end_is_taken_as_a_truncation(log: Path) -> None:
    log.write_bytes(b"short\n")
    with FileFollower(log, offset=100, line_number=9) as follower:
        assert follower.read_available() == [Truncated(offset=100, size=6), Line(1, 6, b"short")]


def test_one_read_returns_at_most_its_limit_and_the_rest_comes_next(log: Path) -> None:
    log.write_bytes(b"".join(b"%03d\n" % n for n in range(100)))  # 400 bytes
    with FileFollower(log, FileOptions(chunk_bytes=16, read_limit=64)) as follower:
        first = follower.read_available()
        assert len(first) == 16
        assert follower.ready()
        rest: list[bytes] = []
        while follower.ready():
            rest.extend(data(follower.read_available()))
        assert data(first) + rest == [b"%03d" % n for n in range(100)]


def test_a_long_line_in_the_file_is_a_marker_and_the_next_lines_are_read(log: Path) -> None:
    log.write_bytes(b"a\n" + b"z" * 100 + b"\nb\n")
    with FileFollower(log, FileOptions(max_line_bytes=50, chunk_bytes=8)) as follower:
        assert follower.read_available() == [
            Line(1, 2, b"a"),
            LineOverLimit(2, 50),  # said as soon as the line held passed the limit
            LongLine(2, 103, 100),
            Line(3, 105, b"b"),
        ]


def test_stopping_at_the_end_emits_the_partial_last_line_and_closes(log: Path) -> None:
    log.write_bytes(b"one\nlast")
    follower = FileFollower(log, FileOptions(stop_at_end=True))
    assert follower.read_available() == [Line(1, 4, b"one"), Line(2, 8, b"last")]
    assert follower.closed
    assert follower.read_available() == []
    assert not follower.ready()


def test_wait_for_data_returns_at_once_when_a_file_grew(log: Path) -> None:
    fake = FakeTime()
    follower = FileFollower(log, FileOptions(clock=fake.clock, sleep=fake.sleep))
    append(log, b"x\n")
    assert wait_for_data([follower], timeout=10)
    assert fake.sleeps == []


def test_wait_for_data_gives_up_after_the_timeout(log: Path) -> None:
    fake = FakeTime()
    follower = FileFollower(
        log, FileOptions(poll_interval=0.25, clock=fake.clock, sleep=fake.sleep)
    )
    assert not wait_for_data([follower], timeout=1.0)
    assert fake.sleeps == [0.25, 0.25, 0.25, 0.25]


def test_wait_for_data_wakes_when_any_of_several_files_grows(tmp_path: Path) -> None:
    fake = FakeTime()
    paths = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    for path in paths:
        path.write_bytes(b"")
    followers: list[Source] = [
        FileFollower(path, FileOptions(poll_interval=0.5, clock=fake.clock, sleep=fake.sleep))
        for path in paths
    ]
    fake.on_sleep.append((3, paths[1], b"late\n"))
    assert wait_for_data(followers, timeout=60)
    assert len(fake.sleeps) == 3
    assert data(followers[1].read_available()) == [b"late"]


def test_wait_ready_sees_a_write_from_another_thread(log: Path) -> None:
    follower = FileFollower(log, FileOptions(poll_interval=0.01))
    writer = threading.Timer(0.02, append, args=(log, b"hi\n"))
    writer.start()
    try:
        assert follower.wait_ready(timeout=5)
    finally:
        writer.join()
    assert data(follower.read_available()) == [b"hi"]


def test_a_file_replaced_by_a_longer_one_is_read_again_after_a_marker(log: Path) -> None:
    with FileFollower(log) as follower:
        append(log, b"old\n")
        follower.read_available()
        log.write_bytes(b"brand new\n")  # copytruncate, then written again before we looked
        assert follower.read_available() == [Truncated(4, 10), Line(1, 10, b"brand new")]


def test_a_file_cut_short_keeping_its_first_lines_goes_on_at_the_cut(log: Path) -> None:
    with FileFollower(log) as follower:
        append(log, b"one\ntwo\nthree\n")
        follower.read_available()
        with log.open("r+b") as file:
            file.truncate(4)
        assert follower.read_available() == [Truncated(14, 4, 4, 1)]
        append(log, b"four\n")
        assert follower.read_available() == [Line(2, 9, b"four")]


def test_a_file_cut_short_mid_line_goes_on_at_the_cut(log: Path) -> None:
    with FileFollower(log) as follower:
        append(log, b"one\ntwo\nthree\n")
        follower.read_available()
        with log.open("r+b") as file:
            file.truncate(6)
        assert follower.read_available() == [Truncated(14, 6, 6, 1)]
        append(log, b"four\n")
        assert follower.read_available() == [Line(2, 11, b"four")]


def test_a_cut_partial_line_is_dropped_and_the_complete_lines_kept(log: Path) -> None:
    with FileFollower(log) as follower:
        append(log, b"one\nhalf a li")
        assert data(follower.read_available()) == [b"one"]
        with log.open("r+b") as file:
            file.truncate(8)
        assert follower.read_available() == [Truncated(13, 8, 4, 1)]
        append(log, b"ne\n")
        assert follower.read_available() == [Line(2, 11, b"halfne")]


def test_a_renamed_file_is_read_to_its_end_then_the_new_file_from_its_start(log: Path) -> None:
    with FileFollower(log) as follower:
        append(log, b"a\n")
        follower.read_available()
        append(log, b"b\nc")
        log.rename(log.with_name("agent.jsonl.1"))
        log.write_bytes(b"new\n")
        assert follower.read_available() == [
            Line(2, 4, b"b"),
            Line(3, 5, b"c"),
            Rotated(5, 4),
            Line(1, 4, b"new"),
        ]
        assert follower.position().inode == log.stat().st_ino


def test_a_deleted_file_is_read_to_its_end_and_waited_for(log: Path) -> None:
    with FileFollower(log) as follower:
        append(log, b"a\n")
        log.unlink()
        assert data(follower.read_available()) == [b"a"]
        assert not follower.ready()
        assert follower.read_available() == []
        log.write_bytes(b"again\n")
        assert follower.ready()
        assert follower.read_available() == [Rotated(2, 6), Line(1, 6, b"again")]


def test_a_byte_order_mark_is_dropped_from_the_first_line_only(log: Path) -> None:
    log.write_bytes(BOM + b"one\n" + BOM + b"two\n")
    with FileFollower(log) as follower:
        assert follower.read_available() == [Line(1, 7, b"one"), Line(2, 14, BOM + b"two")]


def test_invalid_utf8_is_returned_as_bytes(log: Path) -> None:
    log.write_bytes(b"\xff\xfe ok\n")
    with FileFollower(log) as follower:
        assert data(follower.read_available()) == [b"\xff\xfe ok"]


def test_the_position_is_after_the_last_line_returned(log: Path) -> None:
    log.write_bytes(b"one\ntwo\npart")
    with FileFollower(log) as follower:
        follower.read_available()
        position = follower.position()
    stat = log.stat()
    assert (position.offset, position.line) == (8, 2)
    assert (position.device, position.inode) == (stat.st_dev, stat.st_ino)
    assert (position.fingerprint_size, position.path) == (8, str(log))


def test_a_watched_file_is_not_looked_at_until_a_change_or_a_recheck(log: Path) -> None:
    fake = FakeTime()
    watch = ChangeWatch(events=False, poll_interval=2.0, clock=fake.clock)
    with FileFollower(log, FileOptions(clock=fake.clock), watch=watch) as follower:
        assert follower.read_available() == []
        append(log, b"x\n")
        assert not follower.ready()
        fake.now += 2.0
        assert follower.ready()
        assert data(follower.read_available()) == [b"x"]


# --- a path it cannot read for a while ---------------------------------------------------------


def said_names(items: list[Item]) -> list[str]:
    return [event.name for event in said(items)]


def test_an_unreadable_file_is_said_once_then_read_once_it_can_be(
    log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    denied, clock = Denied(monkeypatch), FakeClock()
    denied.deny(log)
    append(log, b"a\n")
    follower = FileFollower(log, FileOptions(wait_for_file=True, clock=clock))
    (unreadable,) = follower.read_available()
    assert unreadable == SourceEvent(
        events.Unreadable(str(log), f"{log}: cannot read it (Permission denied)"),
        f"warning: {log}: cannot read it (Permission denied); reading on, and this file once "
        "it can be read",
    )
    clock.advance(RETRY_S)
    assert follower.read_available() == []  # tried again: said once only
    denied.allow(log)
    assert not follower.ready()  # not tried again before RETRY_S
    clock.advance(RETRY_S)
    assert follower.ready()
    items = follower.read_available()
    assert said_names(items) == ["readable"]
    assert data(items) == [b"a"]


def test_an_unreadable_file_is_still_an_error_when_it_is_not_waited_for(
    log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Denied(monkeypatch).deny(log)
    with pytest.raises(InputError, match="cannot read it"):
        FileFollower(log)


def test_an_unreadable_file_read_to_its_end_is_said_and_closes(
    log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Denied(monkeypatch).deny(log)
    follower = FileFollower(log, FileOptions(wait_for_file=True, stop_at_end=True))
    assert said_names(follower.read_available()) == ["unreadable"]
    assert follower.closed


@pytest.mark.parametrize("replacement", ["a folder", "a file it may not read"])
def test_a_path_rotated_to_what_it_cannot_read_keeps_reading_and_switches_once_it_can(
    log: Path, monkeypatch: pytest.MonkeyPatch, replacement: str
) -> None:
    denied, clock = Denied(monkeypatch), FakeClock()
    follower = FileFollower(log, FileOptions(clock=clock))
    append(log, b"a\n")
    assert data(follower.read_available()) == [b"a"]
    old = log.rename(log.with_name("agent.jsonl.1"))
    if replacement == "a folder":
        log.mkdir()
    else:
        denied.deny(log)
        log.write_bytes(b"new\n")
    append(old, b"b\n")
    items = follower.read_available()
    assert said_names(items) == ["unreadable"]
    assert data(items) == [b"b"]  # the old file is read on
    append(old, b"c\n")
    assert follower.ready()
    assert follower.read_available() == [Line(3, 6, b"c")]  # said once only
    if replacement == "a folder":
        log.rmdir()
        log.write_bytes(b"new\n")
    denied.allow(log)
    clock.advance(RETRY_S)
    items = follower.read_available()
    assert said_names(items) == ["readable"]
    assert [item for item in items if not isinstance(item, SourceEvent)] == [
        Rotated(6, 4),
        Line(1, 4, b"new"),
    ]


def test_a_path_it_cannot_read_is_not_ready_until_it_is_tried_again(
    log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No busy loop: a waiting main loop is not woken at once, again and again."""
    clock = FakeClock()
    follower = FileFollower(log, FileOptions(clock=clock))
    log.unlink()
    log.mkdir()
    follower.read_available()
    assert not follower.ready()
    assert not wait_for_data([follower], 0.5, clock=clock, sleep=clock.sleep)
    clock.advance(RETRY_S)
    assert follower.ready()


def test_a_path_that_became_a_pipe_is_said_and_never_waited_on(log: Path) -> None:
    follower = FileFollower(log)
    log.unlink()
    os.mkfifo(log)  # opening it as a file would wait for a writer
    items: list[object] = []
    reading = threading.Thread(target=lambda: items.extend(follower.read_available()), daemon=True)
    reading.start()
    reading.join(5)
    assert not reading.is_alive()
    (pipe,) = items
    assert isinstance(pipe, SourceEvent) and pipe.text is not None
    assert pipe.text.startswith(f"warning: {log}: not a regular file")
