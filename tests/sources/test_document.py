"""Following a JSON document rewritten in place: its whole content each time it changes (after a
``Rewritten`` marker once something was returned), nothing while it is unchanged or half
written, after a restart only a content other than the one read before, and a file it cannot
read for a while said once and read once it can be."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from bot import events
from bot.sources.document import DocumentFollower, DocumentOptions, is_document_file
from bot.sources.lines import Line, LongLine
from bot.sources.opening import RETRY_S
from bot.sources.position import FilePosition
from bot.sources.source import Rewritten, SourceEvent
from bot.sources.watch import ChangeWatch
from tests.conftest import FakeClock
from tests.sources.helpers import Denied

ONE = {"history": [{"role": "user", "content": "fix it"}]}
TWO = {"history": [*ONE["history"], {"role": "assistant", "content": "fixed"}]}
AN_HOUR_NS = 3600 * 1_000_000_000


def document(value: object) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2)


def write(path: Path, value: object, *, settled: bool = True) -> bytes:
    """Write ``value`` in place (as an agent does: truncate and write), an hour old unless
    ``settled`` is false (written just now)."""
    data = document(value)
    path.write_bytes(data)
    if settled:
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - AN_HOUR_NS))
    return data


@pytest.fixture
def traj(tmp_path: Path) -> Path:
    return tmp_path / "run-1.traj"


def test_a_document_is_read_whole_as_line_one(traj: Path) -> None:
    data = write(traj, ONE)
    follower = DocumentFollower(traj)
    assert follower.read_available() == [Line(1, len(data), data)]


def test_an_unchanged_document_gives_nothing_more(traj: Path) -> None:
    write(traj, ONE)
    follower = DocumentFollower(traj)
    follower.read_available()
    assert not follower.ready()
    assert follower.read_available() == []
    write(traj, ONE)  # written again the same (another time: the file's state changed)
    assert follower.ready()
    assert follower.read_available() == []


def test_a_rewritten_document_comes_again_whole_after_a_marker(traj: Path) -> None:
    first = write(traj, ONE)
    follower = DocumentFollower(traj)
    follower.read_available()
    data = write(traj, TWO)
    assert follower.ready()
    assert follower.read_available() == [
        Rewritten(len(data), len(first)), Line(1, len(data), data)
    ]


def test_a_document_replaced_by_a_rename_comes_again(traj: Path) -> None:
    first = write(traj, ONE)
    follower = DocumentFollower(traj)
    follower.read_available()
    written = traj.with_suffix(".tmp")
    data = write(written, TWO)
    written.replace(traj)
    assert follower.read_available() == [
        Rewritten(len(data), len(first)), Line(1, len(data), data)
    ]


def test_a_half_written_document_waits_for_the_rest(traj: Path) -> None:
    data = document(ONE)
    traj.write_bytes(data[: len(data) // 2])
    follower = DocumentFollower(traj)
    assert follower.read_available() == []
    traj.write_bytes(data)
    assert follower.read_available() == [Line(1, len(data), data)]


def test_a_document_as_python_writes_it_with_nan_is_whole(traj: Path) -> None:
    data = b'{\n  "info": {"model_stats": {"instance_cost": NaN}}\n}'
    traj.write_bytes(data)
    assert DocumentFollower(traj).read_available() == [Line(1, len(data), data)]


def test_a_second_write_in_the_same_clock_tick_is_not_missed(traj: Path) -> None:
    now = [0]
    write(traj, {"status": "running"}, settled=False)
    stat = traj.stat()
    now[0] = stat.st_mtime_ns  # read at once: another write may come in the same tick
    follower = DocumentFollower(traj, DocumentOptions(file_time_ns=lambda: now[0]))
    follower.read_available()
    data = write(traj, {"status": "success"}, settled=False)  # the same size...
    os.utime(traj, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # ...and the same time
    assert follower.read_available() == []  # not settled yet: the same state, not read again
    now[0] += 2_000_000_000
    assert follower.ready()
    assert follower.read_available() == [Rewritten(len(data), len(data)), Line(1, len(data), data)]
    assert not follower.ready()  # read once settled: its state is trusted again


def test_a_missing_document_is_waited_for(traj: Path) -> None:
    follower = DocumentFollower(traj)
    assert follower.read_available() == []
    assert not follower.ready()
    data = write(traj, ONE)
    assert follower.ready()
    assert follower.read_available() == [Line(1, len(data), data)]


def test_a_restart_gives_nothing_when_the_content_is_the_one_read_before(traj: Path) -> None:
    write(traj, ONE)
    first = DocumentFollower(traj)
    first.read_available()
    write(traj, ONE)  # written again the same while slacktail was down
    assert DocumentFollower(traj, resume=first.position()).read_available() == []


def test_a_restart_gives_a_content_changed_meanwhile_after_a_marker(traj: Path) -> None:
    before = write(traj, ONE)
    first = DocumentFollower(traj)
    first.read_available()
    data = write(traj, TWO)
    resumed = DocumentFollower(traj, resume=first.position())
    assert resumed.read_available() == [
        Rewritten(len(data), len(before)), Line(1, len(data), data)
    ]


def test_a_path_followed_as_lines_before_is_replaced_by_its_document(traj: Path) -> None:
    data = write(traj, ONE)
    lines = FilePosition(str(traj), 1, 2, "", 0, 10, 1)  # what a FileFollower had read
    follower = DocumentFollower(traj, resume=lines)
    assert follower.read_available() == [Rewritten(len(data)), Line(1, len(data), data)]


def test_nothing_read_yet_is_a_position_that_resumes_nothing(traj: Path) -> None:
    blank = DocumentFollower(traj).position()
    assert not blank.read
    data = write(traj, ONE)
    assert DocumentFollower(traj, resume=blank).read_available() == [Line(1, len(data), data)]


def test_stop_at_end_reads_once_and_closes(traj: Path) -> None:
    data = write(traj, ONE)
    follower = DocumentFollower(traj, DocumentOptions(stop_at_end=True))
    assert follower.ready()
    assert follower.read_available() == [Line(1, len(data), data)]
    assert follower.closed and not follower.ready()


def test_at_the_end_a_content_that_is_no_document_is_given_line_by_line(traj: Path) -> None:
    traj.write_bytes(b'{\n"half": [\n')
    follower = DocumentFollower(traj, DocumentOptions(stop_at_end=True))
    assert [item.data for item in follower.read_available() if isinstance(item, Line)] == [
        b"{", b'"half": [', b"",
    ]  # fmt: skip


def test_a_document_over_the_limit_is_a_long_line(traj: Path) -> None:
    data = write(traj, TWO)
    follower = DocumentFollower(traj, DocumentOptions(max_bytes=10))
    assert follower.read_available() == [LongLine(1, len(data), len(data))]
    assert follower.read_available() == []


def test_with_a_watch_the_file_is_looked_at_after_a_change_or_a_recheck(traj: Path) -> None:
    clock = FakeClock()
    watch = ChangeWatch(events=False, poll_interval=1.0, clock=clock)
    first = write(traj, ONE)
    follower = DocumentFollower(traj, DocumentOptions(clock=clock), watch=watch)
    follower.read_available()
    data = write(traj, TWO)
    assert follower.read_available() == []  # not looked at before the recheck
    clock.advance(1.0)
    assert follower.read_available() == [
        Rewritten(len(data), len(first)), Line(1, len(data), data)
    ]


def test_json_and_traj_files_are_documents_unless_they_hold_json_lines(tmp_path: Path) -> None:
    (tmp_path / "session-1.json").write_bytes(b"")  # just created: written whole later
    (tmp_path / "run.traj").write_bytes(document(ONE))
    (tmp_path / "events.json").write_bytes(b'{"a": 1}\n{"b": 2}\n')
    (tmp_path / "pretty.jsonl").write_bytes(document(ONE))
    assert is_document_file(tmp_path / "session-1.json")
    assert is_document_file(tmp_path / "run.traj")
    assert not is_document_file(tmp_path / "events.json")
    assert not is_document_file(tmp_path / "pretty.jsonl")
    assert is_document_file(tmp_path / "pretty.jsonl", look_inside=True)


def test_a_document_it_cannot_read_is_said_once_and_read_once_it_can_be(
    traj: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    denied, clock = Denied(monkeypatch), FakeClock()
    data = write(traj, ONE)
    denied.deny(traj)
    follower = DocumentFollower(traj, DocumentOptions(clock=clock))
    (said,) = follower.read_available()
    assert isinstance(said, SourceEvent)
    error = f"{traj}: cannot read it (Permission denied)"
    assert said.event == events.Unreadable(str(traj), error)
    assert said.text == f"warning: {error}; reading on, and this file once it can be read"
    assert not follower.ready()  # not tried again at once: no busy loop
    clock.advance(RETRY_S)
    assert follower.read_available() == []  # said once
    denied.allow(traj)
    clock.advance(RETRY_S)
    assert follower.ready()
    assert follower.read_available() == [
        SourceEvent(events.Readable(str(traj)), f"{traj}: can be read again; reading it"),
        Line(1, len(data), data),
    ]


def test_a_json_file_it_cannot_read_yet_is_taken_for_the_document_its_name_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "session-1.json"
    path.write_bytes(document(ONE))
    Denied(monkeypatch).deny(path)
    assert is_document_file(path)
