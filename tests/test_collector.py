"""bot.collector: the cycle collector runs rarely, and still runs."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from bot.collector import YOUNG, collect_rarely


@pytest.fixture(autouse=True)
def _restore_collector() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


class _Node:
    def __init__(self) -> None:
        self.other: object = self


def test_collect_rarely_leaves_what_exists_out_of_later_collections() -> None:
    collect_rarely()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[0] == YOUNG


def test_a_cycle_made_after_collect_rarely_is_still_collected_without_asking() -> None:
    collect_rarely()
    node = _Node()
    gone = weakref.ref(node)
    del node
    kept: list[list[int]] = [[] for _ in range(YOUNG * 2)]  # a young collection's worth
    assert gone() is None
    assert len(kept) == YOUNG * 2
