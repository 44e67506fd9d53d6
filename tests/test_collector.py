"""bot.collector: the cycle collector runs rarely while slacktail reads, and still runs."""

from __future__ import annotations

import gc
import weakref

from bot.collector import YOUNG, collecting_rarely


class _Node:
    def __init__(self) -> None:
        self.other: object = self


def test_collecting_rarely_leaves_what_exists_out_of_collections_while_it_lasts() -> None:
    with collecting_rarely():
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold()[0] == YOUNG


def test_collecting_rarely_restores_the_collector_as_it_was() -> None:
    before = gc.get_threshold()
    with collecting_rarely():
        pass
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_cycle_made_while_collecting_rarely_is_still_collected_without_asking() -> None:
    with collecting_rarely():
        node = _Node()
        gone = weakref.ref(node)
        del node
        kept: list[list[int]] = [[] for _ in range(YOUNG * 2)]  # a young collection's worth
        assert gone() is None
        assert len(kept) == YOUNG * 2
