"""The change watch: file-system events mark the paths they name, once; new entries are told
apart; without events, waiting is bounded by the polling interval, and a folder it cannot watch
is polled, said once."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import events
from bot.sources.watch import ChangeWatch
from tests.sources.helpers import said, wait_until


@pytest.fixture
def watch(tmp_path: Path) -> Iterator[ChangeWatch]:
    watch = ChangeWatch()
    if not watch.events:
        pytest.skip("no file-system events here")
    watch.watch_folder(tmp_path, recursive=True)
    yield watch
    watch.close()


def test_a_write_marks_the_file_once(watch: ChangeWatch, tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b"x\n")
    wait_until(lambda: watch.take(os.path.abspath(path)))
    assert not watch.take(os.path.abspath(path))


def test_a_new_file_in_a_new_subfolder_is_a_new_entry(watch: ChangeWatch, tmp_path: Path) -> None:
    assert watch.take_new_entries()  # the first scan is always due
    assert not watch.take_new_entries()
    (tmp_path / "sub").mkdir()
    wait_until(watch.take_new_entries)
    (tmp_path / "sub" / "b.jsonl").write_bytes(b"")
    wait_until(lambda: watch.take(str(tmp_path / "sub" / "b.jsonl")))


def test_an_event_wakes_a_waiter(watch: ChangeWatch, tmp_path: Path) -> None:
    watch.wait(0)  # forget what came before
    (tmp_path / "c.jsonl").write_bytes(b"")
    assert watch.wait(5)


def test_without_events_a_wait_lasts_at_most_the_polling_interval() -> None:
    watch = ChangeWatch(events=False, poll_interval=0.01)
    started = time.monotonic()
    assert not watch.wait(60)
    assert time.monotonic() - started < 5
    assert not watch.events


def test_a_folder_it_cannot_watch_is_polled_and_said_once(tmp_path: Path) -> None:
    watch = ChangeWatch(poll_interval=0.5)
    if not watch.events:
        pytest.skip("no file-system events here")
    missing = tmp_path / "gone"
    watch.watch_folder(missing, recursive=True)  # the observer cannot watch what is not there
    (polling,) = said(watch.take_events())
    assert isinstance(polling, events.Polling)
    assert (polling.folder, polling.every_s) == (str(missing), 0.5) and polling.error
    assert not watch.events and watch.recheck_interval == 0.5
    assert watch.take_events() == []  # said once
