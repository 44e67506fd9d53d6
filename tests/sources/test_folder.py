"""Following a folder or a glob: every session file found once, new files picked up (by events,
or by polling), files deleted and created again kept by their follower, idle files closed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.errors import InputError
from bot.sources.folder import FolderWatch, is_folder_target, parent_session, split_target
from bot.sources.follow import FileFollower
from bot.sources.lines import Line
from bot.sources.source import Rotated
from bot.sources.watch import ChangeWatch
from tests.sources.helpers import data


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    """A folder laid out like ``~/.claude/projects``."""
    session = tmp_path / "proj" / "s1.jsonl"
    subagent = tmp_path / "proj" / "s1" / "subagents" / "agent-a1.jsonl"
    subagent.parent.mkdir(parents=True)
    for path in (session, subagent):
        path.write_bytes(b"{}\n")
    (tmp_path / "proj" / "settings.json").write_bytes(b"{}")
    return tmp_path


@pytest.fixture
def polling() -> Iterator[tuple[ChangeWatch, FakeClock]]:
    clock = FakeClock()
    watch = ChangeWatch(events=False, poll_interval=1.0, clock=clock)
    yield watch, clock
    watch.close()


def names(followers: list[FileFollower]) -> list[str]:
    return [follower.path.name for follower in followers]


def write(path: Path, chunk: bytes) -> None:
    with path.open("ab") as file:
        file.write(chunk)


def test_a_folder_gives_its_sessions_and_their_subagents_json_lines_only(projects: Path) -> None:
    with_folder = FolderWatch(str(projects), watch=ChangeWatch(events=False))
    try:
        assert names(with_folder.new_files()) == ["s1.jsonl", "agent-a1.jsonl"]
    finally:
        with_folder.close()
        with_folder.watch.close()


def test_a_new_file_is_picked_up_on_a_file_system_event(projects: Path) -> None:
    watch = ChangeWatch(recheck_interval=3600.0)
    if not watch.events:
        pytest.skip("no file-system events here")
    folder = FolderWatch(str(projects), watch=watch, rescan_interval=3600.0)
    try:
        for follower in folder.new_files():
            follower.read_available()
        assert not folder.ready()
        (projects / "proj" / "s2.jsonl").write_bytes(b"{}\n")
        assert folder.wait_ready(5)
        assert names(folder.new_files()) == ["s2.jsonl"]
    finally:
        folder.close()
        watch.close()


def test_an_appended_line_wakes_a_watched_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")
    watch = ChangeWatch(recheck_interval=3600.0)
    if not watch.events:
        pytest.skip("no file-system events here")
    try:
        with FileFollower(path, watch=watch) as follower:
            assert follower.read_available() == []
            write(path, b"hello\n")
            assert follower.wait_ready(5)
            assert data(follower.read_available()) == [b"hello"]
    finally:
        watch.close()


def test_without_events_new_files_are_found_by_polling(
    projects: Path, polling: tuple[ChangeWatch, FakeClock]
) -> None:
    watch, clock = polling
    folder = FolderWatch(str(projects), watch=watch, clock=clock)
    assert len(folder.new_files()) == 2
    (projects / "proj" / "s2.jsonl").write_bytes(b"{}\n")
    assert folder.new_files() == []  # not yet time to look
    clock.now += 1.0
    assert names(folder.new_files()) == ["s2.jsonl"]


def test_a_file_is_handed_out_once_whatever_happens_to_it(
    projects: Path, polling: tuple[ChangeWatch, FakeClock]
) -> None:
    watch, clock = polling
    folder = FolderWatch(str(projects), watch=watch, clock=clock)
    session, _ = folder.new_files()
    assert data(session.read_available()) == [b"{}"]
    session.path.unlink()
    clock.now += 1.0
    assert folder.new_files() == []
    session.path.write_bytes(b'{"again": 1}\n')
    clock.now += 1.0
    assert folder.new_files() == []
    assert session.read_available() == [Rotated(3, 13), Line(1, 13, b'{"again": 1}')]


def test_a_glob_follows_only_what_it_matches(tmp_path: Path) -> None:
    for name in ("a/run-1.jsonl", "b/run-2.jsonl", "b/other.jsonl"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    folder = FolderWatch(str(tmp_path / "*" / "run-*.jsonl"), watch=ChangeWatch(events=False))
    assert names(folder.new_files()) == ["run-1.jsonl", "run-2.jsonl"]
    folder.close()


def test_files_left_out_by_select_are_not_followed(projects: Path) -> None:
    folder = FolderWatch(
        str(projects), watch=ChangeWatch(events=False), select=lambda p: "agent" not in p.name
    )
    assert names(folder.new_files()) == ["s1.jsonl"]
    folder.close()


def test_a_stored_position_is_resumed(projects: Path) -> None:
    session = projects / "proj" / "s1.jsonl"
    with FileFollower(session) as first:
        first.read_available()
        position = first.position()
    write(session, b"{}\n")
    folder = FolderWatch(
        str(projects), watch=ChangeWatch(events=False),
        resume=lambda p: position if p == session else None,
    )  # fmt: skip
    resumed = folder.new_files()[0]
    assert resumed.read_available() == [Line(2, 6, b"{}")]
    folder.close()


def test_an_idle_file_is_closed_and_opened_again_when_it_grows(
    projects: Path, polling: tuple[ChangeWatch, FakeClock]
) -> None:
    watch, clock = polling
    folder = FolderWatch(str(projects), watch=watch, clock=clock, close_idle_after=30)
    session, _ = folder.new_files()
    session.read_available()
    clock.now += 31
    assert session.read_available() == []
    assert session.parked
    write(session.path, b"more\n")
    clock.now += 1
    assert session.ready()
    assert data(session.read_available()) == [b"more"]
    assert not session.parked


def test_a_folder_or_glob_target_is_told_from_a_file(projects: Path) -> None:
    assert is_folder_target(str(projects))
    assert is_folder_target(str(projects / "*.jsonl"))
    assert not is_folder_target(str(projects / "proj" / "s1.jsonl"))


def test_a_glob_under_a_missing_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such folder"):
        split_target(str(tmp_path / "nope" / "*.jsonl"))


def test_a_subagent_file_names_its_session() -> None:
    assert parent_session(Path("p/abc/subagents/agent-1.jsonl")) == "abc"
    assert parent_session(Path("p/abc.jsonl")) is None
