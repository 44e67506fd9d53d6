"""Following a folder or a glob: every session file found once, new files picked up (by events,
or by polling), files deleted and created again kept by their follower, idle files closed, files
and folders it cannot read said once and followed once they can be read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import events
from bot.errors import InputError
from bot.sources.document import DocumentFollower
from bot.sources.folder import FolderOptions, FolderWatch, FollowedFile, parent_session
from bot.sources.follow import FileFollower
from bot.sources.lines import Line
from bot.sources.opening import RETRY_S
from bot.sources.patterns import SESSION_FILES, is_folder_target, split_target
from bot.sources.source import Item, Rewritten, Rotated, SourceEvent
from bot.sources.watch import ChangeWatch
from tests.sources.helpers import Denied, data, said


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


def names(followers: list[FollowedFile]) -> list[str]:
    return [follower.path.name for follower in followers]


def relative(root: Path, followers: list[FollowedFile]) -> list[str]:
    return [follower.path.relative_to(root).as_posix() for follower in followers]


def make(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"{}\n")


# Where each agent keeps its sessions (beside files that are not sessions), and what is followed.
AGENT_FOLDERS = {
    ".claude/projects": (
        ["-w-app/0b1c.jsonl", "-w-app/0b1c/subagents/agent-a1.jsonl"],
        ["-w-app/0b1c/tool-results/r1.txt"],
    ),
    ".codex/sessions": (["2026/01/02/rollout-2026-01-02T10-00-00-0b1c.jsonl"], []),
    ".gemini/tmp": (
        ["3f2a/chats/session-2025-10-27T19-55-981c87cb.json",
         "3f2a/chats/session-2026-01-02T10-00-0b1c2d3e.jsonl"],
        ["3f2a/logs.json", "3f2a/checkpoint-mytag.json", "settings.json"],
    ),
    ".gemini/antigravity-cli/brain": (
        ["0b1c-uuid/.system_generated/logs/transcript.jsonl"],
        ["0b1c-uuid/.system_generated/logs/transcript_full.jsonl"],
    ),
    ".pi/agent/sessions": (["--w-app--/2026-01-02T10-00-00_0b1c.jsonl"], ["settings.json"]),
    ".kimi-code/sessions": (["wd_app_3f2a/0b1c/agents/main/wire.jsonl"], ["config.json"]),
}  # fmt: skip


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


def test_a_session_document_is_followed_whole_and_a_settings_file_not_at_all(
    tmp_path: Path,
) -> None:
    make(tmp_path, "proj/s1.jsonl", "tmp/3f2a/chats/session-1.json", "settings.json")
    folder = FolderWatch(str(tmp_path), watch=ChangeWatch(events=False))
    found = folder.new_files()
    assert relative(tmp_path, found) == ["proj/s1.jsonl", "tmp/3f2a/chats/session-1.json"]
    assert [type(f) for f in found] == [FileFollower, DocumentFollower]
    folder.close()


@pytest.mark.parametrize("agent_folder", sorted(AGENT_FOLDERS))
def test_each_agents_session_files_are_found_in_its_folder(
    tmp_path: Path, agent_folder: str
) -> None:
    sessions, others = AGENT_FOLDERS[agent_folder]
    root = tmp_path / agent_folder
    make(root, *sessions, *others)
    folder = FolderWatch(str(root), watch=ChangeWatch(events=False))
    assert relative(root, folder.new_files()) == sorted(sessions)
    folder.close()


def test_a_transcripts_twin_is_left_out_beside_it(tmp_path: Path) -> None:
    logs = tmp_path / "brain" / "0b1c" / ".system_generated" / "logs"
    make(logs, "transcript.jsonl", "transcript_full.jsonl")
    folder = FolderWatch(str(logs), watch=ChangeWatch(events=False))
    assert names(folder.new_files()) == ["transcript.jsonl"]
    folder.close()


def test_patterns_replace_the_session_files_looked_for(tmp_path: Path) -> None:
    make(tmp_path, "a/s1.jsonl", "a/run.json", "b/notes.log")
    folder = FolderWatch(
        str(tmp_path),
        FolderOptions(patterns=["**/*.log", "a/*.json"]),
        watch=ChangeWatch(events=False),
    )
    assert relative(tmp_path, folder.new_files()) == ["a/run.json", "b/notes.log"]
    assert folder.pattern_text == f"{tmp_path}/**/*.log, {tmp_path}/a/*.json"
    folder.close()


def test_a_document_in_a_folder_is_read_again_whole_when_rewritten(
    tmp_path: Path, polling: tuple[ChangeWatch, FakeClock]
) -> None:
    watch, clock = polling
    document = tmp_path / "chats" / "session-1.json"
    make(tmp_path, "chats/session-1.json")
    folder = FolderWatch(str(tmp_path), FolderOptions(clock=clock), watch=watch)
    (found,) = folder.new_files()
    assert found.read_available() == [Line(1, 3, b"{}\n")]
    document.write_bytes(b'{"messages": []}')
    clock.now += 1.0
    assert folder.ready()
    assert found.read_available() == [Rewritten(16, 3), Line(1, 16, b'{"messages": []}')]


def test_a_rewritten_document_wakes_the_folder_on_a_file_system_event(tmp_path: Path) -> None:
    watch = ChangeWatch(recheck_interval=3600.0)
    if not watch.events:
        pytest.skip("no file-system events here")
    make(tmp_path, "chats/session-1.json")
    folder = FolderWatch(str(tmp_path), FolderOptions(rescan_interval=3600.0), watch=watch)
    try:
        (document,) = folder.new_files()
        document.read_available()
        assert not folder.ready()
        (tmp_path / "chats" / "session-1.json").write_bytes(b'{"messages": []}')
        assert folder.wait_ready(5)
        assert document.read_available() == [Rewritten(16, 3), Line(1, 16, b'{"messages": []}')]
    finally:
        folder.close()
        watch.close()


def test_a_new_file_is_picked_up_on_a_file_system_event(projects: Path) -> None:
    watch = ChangeWatch(recheck_interval=3600.0)
    if not watch.events:
        pytest.skip("no file-system events here")
    folder = FolderWatch(str(projects), FolderOptions(rescan_interval=3600.0), watch=watch)
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
    folder = FolderWatch(str(projects), FolderOptions(clock=clock), watch=watch)
    assert len(folder.new_files()) == 2
    (projects / "proj" / "s2.jsonl").write_bytes(b"{}\n")
    assert folder.new_files() == []  # not yet time to look
    clock.now += 1.0
    assert names(folder.new_files()) == ["s2.jsonl"]


def test_a_file_is_handed_out_once_whatever_happens_to_it(
    projects: Path, polling: tuple[ChangeWatch, FakeClock]
) -> None:
    watch, clock = polling
    folder = FolderWatch(str(projects), FolderOptions(clock=clock), watch=watch)
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
    folder = FolderWatch(
        str(projects), FolderOptions(clock=clock, close_idle_after=30), watch=watch
    )
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


def test_a_folder_target_looks_for_the_session_files_a_glob_for_itself(projects: Path) -> None:
    assert split_target(str(projects)) == (projects, SESSION_FILES)
    assert split_target(str(projects / "*" / "s*.jsonl")) == (projects, ("*/s*.jsonl",))


def test_the_gemini_chats_folder_itself_followed_finds_its_session_documents(
    tmp_path: Path,
) -> None:
    chats = tmp_path / "3f2a" / "chats"
    make(tmp_path, "3f2a/chats/session-1.json", "3f2a/chats/settings.json")
    assert split_target(str(chats)) == (chats, (*SESSION_FILES, "session-*.json"))
    folder = FolderWatch(str(chats), watch=ChangeWatch(events=False))
    found = folder.new_files()
    assert relative(chats, found) == ["session-1.json"]
    assert [type(f) for f in found] == [DocumentFollower]
    folder.close()
    brain = tmp_path / "brain" / ".system_generated"
    brain.mkdir(parents=True)
    assert split_target(str(brain))[1][len(SESSION_FILES) :] == ("logs/transcript.jsonl",)


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


def said_names(items: list[Item]) -> list[str]:
    return [event.name for event in said(items)]


def test_a_file_it_cannot_read_is_said_once_and_the_others_are_followed(
    projects: Path, polling: tuple[ChangeWatch, FakeClock], monkeypatch: pytest.MonkeyPatch
) -> None:
    watch, clock = polling
    denied = Denied(monkeypatch)
    denied.deny(projects / "proj" / "s1.jsonl")
    folder = FolderWatch(str(projects), FolderOptions(clock=clock), watch=watch)
    session, subagent = folder.new_files()
    assert said_names(session.read_available()) == ["unreadable"]
    assert data(subagent.read_available()) == [b"{}"]
    clock.now += RETRY_S
    assert session.read_available() == []
    denied.allow(session.path)
    clock.now += RETRY_S
    assert session.read_available() == [
        SourceEvent(
            events.Readable(str(session.path)), f"{session.path}: can be read again; reading it"
        ),
        Line(1, 3, b"{}"),
    ]


def test_a_new_file_it_cannot_read_yet_is_followed_once_it_can_be(
    projects: Path, polling: tuple[ChangeWatch, FakeClock], monkeypatch: pytest.MonkeyPatch
) -> None:
    watch, clock = polling
    denied = Denied(monkeypatch)
    folder = FolderWatch(str(projects), FolderOptions(clock=clock), watch=watch)
    folder.new_files()
    late = projects / "proj" / "s2.jsonl"
    late.write_bytes(b'{"late": 1}\n')
    denied.deny(late)
    clock.now += 1.0
    (found,) = folder.new_files()
    assert said_names(found.read_available()) == ["unreadable"]
    denied.allow(late)
    clock.now += RETRY_S
    assert data(found.read_available()) == [b'{"late": 1}']


def test_a_folder_it_cannot_list_is_said_once_and_its_files_followed_once_it_can_be(
    projects: Path, polling: tuple[ChangeWatch, FakeClock], monkeypatch: pytest.MonkeyPatch
) -> None:
    watch, clock = polling
    denied = Denied(monkeypatch)
    locked = projects / "proj" / "s1"
    denied.deny(locked)
    folder = FolderWatch(str(projects), FolderOptions(clock=clock), watch=watch)
    assert names(folder.new_files()) == ["s1.jsonl"]
    (unreadable,) = folder.take_events()
    assert unreadable.event == events.Unreadable(str(projects), "Permission denied", str(locked))
    assert unreadable.text is not None
    assert unreadable.text.startswith(f"warning: {locked}: cannot read this folder (Permission")
    clock.now += 1.0
    assert folder.new_files() == []
    assert folder.take_events() == []  # said once
    denied.allow(locked)
    clock.now += 1.0
    assert names(folder.new_files()) == ["agent-a1.jsonl"]
    assert said(folder.take_events()) == [events.Readable(str(projects), str(locked))]
