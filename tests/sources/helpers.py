"""Waiting on a condition with a deadline, never a bare sleep; paths that may not be read."""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.events import Event
from bot.sources.lines import Line
from bot.sources.source import Item, Source, SourceEvent

TIMEOUT = 5.0


def wait_until(predicate: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    """Return as soon as ``predicate()`` holds; fail once ``timeout`` seconds passed."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {timeout} s")
        time.sleep(0.002)


def collect(
    source: Source, until: Callable[[list[Item]], bool], timeout: float = TIMEOUT
) -> list[Item]:
    """Items read from ``source`` (waiting on it between reads) until ``until(items)`` holds."""
    deadline = time.monotonic() + timeout
    items: list[Item] = []
    while True:
        items.extend(source.read_available())
        if until(items):
            return items
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"after {timeout} s, only {items!r}")
        source.wait_ready(min(remaining, 0.05))


def until_lines(count: int) -> Callable[[list[Item]], bool]:
    return lambda items: sum(isinstance(item, Line) for item in items) >= count


def until_closed(source: Source) -> Callable[[list[Item]], bool]:
    return lambda _items: source.closed


def data(items: list[Item]) -> list[bytes]:
    """The bytes of the lines among ``items``."""
    return [item.data for item in items if isinstance(item, Line)]


def said(items: list[Item]) -> list[Event]:
    """The events among ``items`` (what the follower would write to its log)."""
    return [item.event for item in items if isinstance(item, SourceEvent)]


class Denied:
    """Paths that may not be read: opening one (``os.open``) or listing one (``os.scandir``)
    fails with EACCES, as after ``chmod 000`` for anyone but root (the tests may run as root)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: set[str] = set()
        self._open = os.open
        self._scandir = os.scandir
        monkeypatch.setattr(os, "open", self._refused_open)
        monkeypatch.setattr(os, "scandir", self._refused_scandir)

    def deny(self, path: Path) -> None:
        self.paths.add(os.path.abspath(path))

    def allow(self, path: Path) -> None:
        self.paths.discard(os.path.abspath(path))

    def _check(self, path: Any) -> None:
        name = os.fsdecode(path) if not isinstance(path, int) else ""
        if name and os.path.abspath(name) in self.paths:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), name)

    def _refused_open(self, path: Any, flags: int, mode: int = 0o777, **kwargs: Any) -> int:
        self._check(path)
        return self._open(path, flags, mode, **kwargs)

    def _refused_scandir(self, path: Any = ".") -> Iterator[os.DirEntry[str]]:
        self._check(path)
        return self._scandir(path)
