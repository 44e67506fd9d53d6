"""Positions: plain data that round-trips, and a restart that resumes the same file, notices a
file cut or replaced meanwhile, and finds a file rotated meanwhile."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bot import events
from bot.errors import InputError
from bot.sources.file_options import FileOptions
from bot.sources.follow import FileFollower
from bot.sources.lines import Line
from bot.sources.position import DocumentPosition, FilePosition, find_moved, stored_position
from bot.sources.source import Rotated, SourceEvent, Truncated
from tests.sources.helpers import data


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "app.jsonl"
    path.write_bytes(b"one\ntwo\n")
    return path


def left_at(log: Path) -> FilePosition:
    """The position of a follower that read the whole file, then stopped."""
    with FileFollower(log) as follower:
        follower.read_available()
        return follower.position()


def test_a_position_round_trips_through_json(log: Path) -> None:
    position = left_at(log)
    assert FilePosition.from_dict(orjson.loads(orjson.dumps(position.to_dict()))) == position


def test_a_stored_position_is_a_documents_or_a_files(log: Path) -> None:
    document = DocumentPosition(str(log), 1, 2, 30, 40, "c0ffee")
    assert stored_position(orjson.loads(orjson.dumps(document.to_dict()))) == document
    assert stored_position(left_at(log).to_dict()) == left_at(log)


def test_a_stored_document_position_with_a_wrong_field_is_an_input_error(log: Path) -> None:
    stored = DocumentPosition(str(log), 1, 2, 30, 40, "c0ffee").to_dict() | {"size": -1}
    with pytest.raises(InputError, match="size"):
        stored_position(stored)


def test_a_stored_position_with_a_wrong_field_is_an_input_error(log: Path) -> None:
    stored = left_at(log).to_dict() | {"offset": "8"}
    with pytest.raises(InputError, match="offset"):
        FilePosition.from_dict(stored)


def test_a_restart_goes_on_where_the_same_file_was_left(log: Path) -> None:
    position = left_at(log)
    with log.open("ab") as file:
        file.write(b"three\n")
    with FileFollower(log, resume=position) as follower:
        assert follower.read_available() == [Line(3, 14, b"three")]


def test_a_file_cut_while_down_is_read_again_after_a_marker(log: Path) -> None:
    position = left_at(log)
    with log.open("r+b") as file:
        file.truncate(0)
        file.write(b"x\n")
    with FileFollower(log, resume=position) as follower:
        assert follower.read_available() == [Truncated(8, 2), Line(1, 2, b"x")]


def test_a_file_replaced_in_place_while_down_is_read_again_after_a_marker(log: Path) -> None:
    position = left_at(log)
    log.write_bytes(b"new content, longer\n")  # the same inode, other first bytes
    with FileFollower(log, resume=position) as follower:
        assert follower.read_available() == [Truncated(8, 20), Line(1, 20, b"new content, longer")]


def test_a_file_rotated_while_down_is_finished_then_the_new_one_read(log: Path) -> None:
    position = left_at(log)
    with log.open("ab") as file:
        file.write(b"three\n")
    log.rename(log.with_name("app.jsonl.1"))
    log.write_bytes(b"fresh\n")
    with FileFollower(log, resume=position) as follower:
        assert follower.read_available() == [
            SourceEvent(events.Moved(str(log), str(log.with_name("app.jsonl.1")))),
            Line(3, 14, b"three"),
            Rotated(14, 6),
            Line(1, 6, b"fresh"),
        ]


def test_a_rotated_file_is_found_by_its_inode_and_first_bytes(log: Path) -> None:
    position = left_at(log)
    moved = log.rename(log.with_name("app.jsonl.1"))
    assert find_moved(position) == moved
    moved.write_bytes(b"ONE\ntwo\n")  # same inode, other first bytes: not the file read
    assert find_moved(position) is None


def test_a_file_gone_while_down_gives_a_marker_then_the_new_file(log: Path) -> None:
    position = left_at(log)
    elsewhere = log.parent / "elsewhere"
    elsewhere.mkdir()
    log.rename(elsewhere / log.name)  # out of its folder, and its inode not free for reuse
    log.write_bytes(b"fresh\n")
    with FileFollower(log, resume=position) as follower:
        assert follower.read_available() == [Rotated(8, 6), Line(1, 6, b"fresh")]


def test_a_new_file_that_may_reuse_the_inode_is_read_from_its_start(log: Path) -> None:
    position = left_at(log)
    log.unlink()
    log.write_bytes(b"fresh\n")
    with FileFollower(log, resume=position) as follower:
        marker, *lines = follower.read_available()
    assert isinstance(marker, Truncated)  # a Truncated (same inode) or a Rotated (another)
    assert lines == [Line(1, 6, b"fresh")]


def test_a_missing_file_with_no_rotated_copy_is_an_input_error(log: Path) -> None:
    position = left_at(log)
    log.unlink()
    with pytest.raises(InputError, match="no such file"):
        FileFollower(log, resume=position)


def test_a_missing_file_is_waited_for_and_keeps_its_position(log: Path) -> None:
    position = left_at(log)
    log.unlink()
    with FileFollower(log, FileOptions(wait_for_file=True), resume=position) as follower:
        assert follower.read_available() == []
        assert follower.position() == position
        log.write_bytes(b"later\n")
        assert data(follower.read_available()) == [b"later"]


def test_a_rotated_file_whose_path_is_not_back_yet_is_read_to_its_end(log: Path) -> None:
    position = left_at(log)
    with log.open("ab") as file:
        file.write(b"three\n")
    log.rename(log.with_name("app.jsonl.1"))
    with FileFollower(log, resume=position) as follower:
        assert data(follower.read_available()) == [b"three"]
        assert not follower.ready()
        log.write_bytes(b"new\n")
        assert follower.read_available() == [Rotated(14, 4), Line(1, 4, b"new")]
