"""Waiting on a condition with a deadline, never a bare sleep."""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.sources.lines import Line
from bot.sources.source import Item, Source

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
