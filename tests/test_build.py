"""The build: the core compiled or pure, and compiled modules out of date with their sources."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bot import snapshot
from bot.build import compiled, description, stale_modules
from bot.records import Origin, Todo, TodoUpdate
from bot.result_records import SessionResult
from bot.session import SessionBook

SUFFIX = ".cpython-311-x86_64-linux-gnu.so"


def _tree(root: Path, built_after_source: bool | None) -> Path:
    """A checkout with one core source and, unless ``built_after_source`` is None, its
    compiled loader and the core's library, built before or after the source changed."""
    folder = root / "bot" / "session"
    folder.mkdir(parents=True)
    source = folder / "state.py"
    source.write_text("x = 1\n")
    if built_after_source is None:
        return root
    built = [folder / f"state{SUFFIX}", root / f"0123abcd__mypyc{SUFFIX}"]
    for path in built:
        path.write_bytes(b"\0")
    source_at, built_at = (1_000_000, 2_000_000) if built_after_source else (2_000_000, 1_000_000)
    os.utime(source, (source_at, source_at))
    for path in built:
        os.utime(path, (built_at, built_at))
    return root


def test_a_source_changed_after_the_core_was_compiled_is_stale(tmp_path: Path) -> None:
    assert stale_modules(_tree(tmp_path, built_after_source=False)) == ["bot/session/state.py"]


def test_a_core_compiled_after_its_sources_changed_is_not_stale(tmp_path: Path) -> None:
    assert stale_modules(_tree(tmp_path, built_after_source=True)) == []


def test_a_pure_python_checkout_has_nothing_stale(tmp_path: Path) -> None:
    assert stale_modules(_tree(tmp_path, built_after_source=None)) == []


def test_the_version_says_whether_the_core_is_compiled() -> None:
    assert description() == ("compiled core (mypyc)" if compiled() else "pure Python core")


def test_records_and_sessions_come_back_equal_from_a_snapshot() -> None:
    todos = TodoUpdate(Origin("s", None, 1), todos=(Todo("write", "completed", "Writing"),))
    book = SessionBook()
    book.apply(todos)
    book.apply(SessionResult(Origin("s", None, 2)))
    again = snapshot.loads(snapshot.dumps(book))
    assert snapshot.loads(snapshot.dumps(todos)) == todos
    assert again.sessions["s"].todos == book.sessions["s"].todos
    assert again.records == 2


@pytest.mark.skipif(
    os.environ.get("SLACKTAIL_COMPILE") == "0", reason="installed as pure Python on purpose"
)
@pytest.mark.skipif(
    shutil.which("cc") is None, reason="no C compiler here: the core installs as pure Python"
)
def test_the_core_is_compiled_where_a_compiler_is_present() -> None:
    assert compiled(), 'the core runs as pure Python: install again (pip install -e ".[dev]")'
