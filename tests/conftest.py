"""Shared test fixtures: where the corpus and seeds are, and small helpers to read them."""

from __future__ import annotations

import io
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
import pytest

from bot.build import stale_modules
from bot.formats.reader import ReaderStats, SourceReader
from bot.localslack import LocalSlack
from bot.logs import EventLog
from bot.records import Record
from bot.sources.files import read_bytes, split_lines

if TYPE_CHECKING:
    from bot.config import Settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SLACKTAIL_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "corpus"
SEEDS = SHARED / "seeds"
FIXTURES = Path(__file__).resolve().parent / "fixtures"

CORPUS_MISSING = (
    f"the shared corpus is not at {CORPUS} (set SLACKTAIL_SHARED to the folder holding corpus/)"
)


def pytest_sessionstart(session: pytest.Session) -> None:
    """An editable install's compiled core, older than a source changed since, would be tested
    instead of that source: stop at once and say so."""
    stale = stale_modules()
    if stale:
        pytest.exit(
            f"compiled modules are older than their sources ({', '.join(stale[:5])}...): "
            'install again (python3 -m pip install -e ".[dev]") or build pure Python '
            "(SLACKTAIL_COMPILE=0)",
            returncode=3,
        )


def corpus_file(family_dir: str, name: str) -> Path:
    """A corpus file's path; skips the test with a clear reason where the corpus is absent."""
    path = CORPUS / family_dir / name
    if not path.exists():
        pytest.skip(f"{CORPUS_MISSING}: {family_dir}/{name} not found")
    return path


def read_records(path: Path, family: str | None = None) -> tuple[list[Record], ReaderStats]:
    """Every record of one file, and the reader's counts."""
    reader = SourceReader(str(path), family=family)
    records: list[Record] = []
    for number, line in split_lines(read_bytes(path)):
        records.extend(reader.feed(line, number))
    records.extend(reader.finish())
    return records, reader.stats


def corpus_files() -> list[Path]:
    """Every data file of the corpus (empty where it is absent)."""
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.glob("*/*") if p.is_file() and p.suffix != ".md")


class Logged:
    """An ``EventLog`` that writes to memory (``log``), and the events it wrote."""

    def __init__(self) -> None:
        self.stream = io.StringIO()
        self.log = EventLog(self.stream)

    def all(self) -> list[dict[str, object]]:
        return [orjson.loads(line) for line in self.stream.getvalue().splitlines()]

    def named(self, name: str) -> list[dict[str, object]]:
        """The lines of the events ``name``, without ``at`` (the time), in order."""
        return [
            {key: value for key, value in line.items() if key != "at"}
            for line in self.all()
            if line["event"] == name
        ]


class FakeClock:
    """A monotonic clock that moves only when told to: ``advance(s)``, or ``sleep(s)`` given to
    code that paces itself (it always moves time on, so a zero wait cannot spin forever)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def sleep(self, seconds: float) -> None:
        self.now += max(seconds, 0.001)


@pytest.fixture(autouse=True)
def _private_state_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads or writes the user's own state directory."""
    state = tmp_path_factory.mktemp("xdg-state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.delenv("SLACKTAIL_STATE_DIR", raising=False)


@pytest.fixture
def follow_settings(monkeypatch: pytest.MonkeyPatch) -> Callable[[list[str]], Settings]:
    """The settings ``slacktail follow ARGS`` would follow with (the follow itself not run)."""
    from bot import commands
    from bot.cli import main

    seen: list[Settings] = []

    def follow(settings: Settings, path: str, **options: object) -> int:
        seen.append(settings)
        return 0

    def settings_of(args: list[str]) -> Settings:
        monkeypatch.setattr(commands, "follow", follow)
        assert main(["follow", *args]) == 0
        return seen.pop()

    return settings_of


WORKSPACE_TOKEN = "xoxb-workspace-test-0123456789"
WORKSPACE_SCALE = 40.0  # the local Slack's rate limits and slacktail's pacing, 40 times faster


@pytest.fixture
def workspace(monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalSlack]:
    """A local Slack that slacktail reaches as a real workspace: ``SLACK_BOT_TOKEN`` and the
    API's address in the environment, as a user sets them."""
    with LocalSlack(token=WORKSPACE_TOKEN, scale=WORKSPACE_SCALE) as server:
        monkeypatch.setenv("SLACK_BOT_TOKEN", WORKSPACE_TOKEN)
        monkeypatch.setenv("SLACK_API_URL", server.base_url)
        monkeypatch.setenv("SLACKTAIL_RATE_SCALE", str(WORKSPACE_SCALE))
        monkeypatch.delenv("SLACKTAIL_CHANNEL", raising=False)
        yield server


def wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> bool:
    """Whether ``condition`` became true before ``timeout`` seconds passed (checked often)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
