"""How tool calls are grouped into messages: up to ``tools_per_group`` calls, and a group at
least half full whose calls all finished takes no more: the agent's next step starts a new
message (a post), and the finished one is final."""

from __future__ import annotations

from bot.session.thread import ToolGroup
from tests.session.test_state import call, result, session_of, started


def group_sizes(*records: object) -> list[int]:
    session = session_of(started(), *records)
    return [len(item.call_ids) for item in session.items if isinstance(item, ToolGroup)]


def finished_calls(count: int, first: int = 0) -> list[object]:
    return [record for i in range(first, first + count)
            for record in (call(f"c{i}"), result(f"c{i}"))]  # fmt: skip


def test_a_half_full_group_whose_calls_all_finished_ends_at_the_next_call() -> None:
    assert group_sizes(*finished_calls(6), call("next")) == [6, 1]


def test_a_group_under_half_full_takes_the_next_call() -> None:
    assert group_sizes(*finished_calls(5), call("next")) == [6]


def test_a_group_with_a_call_still_running_takes_the_next_call() -> None:
    assert group_sizes(*finished_calls(5), call("slow"), call("next")) == [7]
