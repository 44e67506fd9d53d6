"""The session book: routing records to sessions, and releasing the sessions a caller is done
with."""

from __future__ import annotations

import pytest

import bot.session.book as book_module
from bot import snapshot
from bot.records import AssistantText, Origin, SessionStarted, Thinking, ToolCall, UserText
from bot.session import SessionBook, SessionSettings, Verbosity


def _book(*session_ids: str) -> SessionBook:
    book = SessionBook()
    for number, session_id in enumerate(session_ids, start=1):
        book.apply(SessionStarted(Origin(session_id, None, number)))
    return book


def test_a_released_session_is_forgotten() -> None:
    book = _book("a", "b")
    book.release("a")
    assert list(book.sessions) == ["b"]


def test_a_late_record_of_a_released_session_is_counted_not_applied() -> None:
    book = _book("a", "b")
    book.release("a")
    assert book.apply(AssistantText(Origin("a", None, 3), text="late")) is None
    assert "a" not in book.sessions
    assert book.late == 1


def test_releasing_the_session_of_the_last_record_forgets_it_too() -> None:
    book = _book("a")
    book.release("a")
    assert book.apply(ToolCall(Origin("a", None, 2), call_id="x", name="Read")) is None
    assert book.sessions == {}


def test_a_dropped_session_is_built_anew_by_its_records() -> None:
    book = _book("a", "b")
    book.apply(AssistantText(Origin("a", None, 3), text="old"))
    book.drop("a")
    assert list(book.sessions) == ["b"]
    session = book.apply(AssistantText(Origin("a", None, 1), text="new"))
    assert session is not None
    assert [getattr(item, "text", None) for item in session.items] == ["new"]


def test_a_released_session_once_dropped_takes_records_again() -> None:
    book = _book("a")
    book.release("a")
    book.drop("a")
    assert book.apply(SessionStarted(Origin("a", None, 1))) is not None
    assert book.late == 0


def test_releasing_an_unknown_session_changes_nothing() -> None:
    book = _book("a")
    book.release("zzz")
    assert list(book.sessions) == ["a"]
    assert book.apply(AssistantText(Origin("zzz", None, 2), text="new")) is not None


def test_the_least_recent_session_is_the_one_whose_last_record_is_oldest() -> None:
    book = _book("a", "b", "c")
    book.apply(AssistantText(Origin("a", None, 4), text="again"))
    least = book.least_recent()
    assert least is not None and least.session_id == "b"


def test_an_empty_book_has_no_least_recent_session() -> None:
    book = _book("a")
    book.release("a")
    assert book.least_recent() is None


def test_tombstones_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(book_module, "TOMBSTONES", 2)
    book = _book("a", "b", "c")
    for session_id in ("a", "b", "c"):
        book.release(session_id)
    assert book.apply(SessionStarted(Origin("a", None, 9))) is not None  # its tombstone is gone
    assert book.apply(SessionStarted(Origin("c", None, 10))) is None


def test_a_book_survives_a_snapshot_with_its_released_sessions() -> None:
    book = _book("a", "b")
    book.release("a")
    copy = snapshot.loads(snapshot.dumps(book))
    assert copy.apply(AssistantText(Origin("a", None, 3), text="late")) is None
    assert list(copy.sessions) == ["b"]
    assert copy.least_recent() is copy.sessions["b"]


def test_a_line_with_a_known_uid_is_applied_once_whoever_sends_it_again() -> None:
    book = SessionBook()
    book.apply(SessionStarted(Origin("a", None, 1)))
    first = Origin("a", None, 2, uid="u-2")
    assert book.apply(AssistantText(first, text="hello")) is not None
    assert book.apply(ToolCall(first, call_id="t", name="Bash")) is not None  # same line
    again = Origin("a", None, 7, uid="u-2")  # the line sent again
    assert book.apply(AssistantText(again, text="hello")) is None
    assert book.apply(ToolCall(again, call_id="t", name="Bash")) is None
    assert book.repeated == 2


def test_lines_copied_into_a_resumed_sessions_file_are_applied_once() -> None:
    book = SessionBook()
    book.apply(UserText(Origin("old", None, 1, uid="u-1"), text="fix it"))
    copied = Origin("new", None, 1, uid="u-1")  # the resumed session's file starts with it
    assert book.apply(UserText(copied, text="fix it")) is None
    assert book.apply(UserText(Origin("new", None, 2, uid="u-9"), text="and now")) is not None
    assert set(book.sessions) == {"old", "new"}


def test_lines_without_a_uid_are_never_taken_for_repeats() -> None:
    book = SessionBook()
    for line in (1, 2):
        assert book.apply(AssistantText(Origin("a", None, line), text="the ", delta=True))
    assert book.repeated == 0


def test_sessions_restored_into_a_run_of_other_settings_follow_this_runs() -> None:
    book = SessionBook(SessionSettings(verbosity=Verbosity.QUIET))
    book.apply(SessionStarted(Origin("s", None, 1), agent="Claude Code"))
    book.sessions["s"].take_changes()
    now = SessionSettings(verbosity=Verbosity.VERBOSE, controls=True)
    book.use_settings(now)
    session = book.sessions["s"]
    assert session.settings == now and session.take_changes() is None  # rendered again whole
    book.apply(Thinking(Origin("s", None, 2), text="a thought"))  # shown only when verbose
    assert any(item.key.startswith("thinking") for item in session.items)
