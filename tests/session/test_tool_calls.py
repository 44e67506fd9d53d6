from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.session.tool_calls import SUMMARY_LIMIT, describe_call


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("Bash", {"command": "npm test", "description": "Run tests"}, "npm test"),
        ("Read", {"file_path": "/src/app.py"}, "/src/app.py"),
        ("Read", {"file_path": "/a.py", "offset": 10, "limit": 20}, "/a.py:10-30"),
        ("Edit", {"file_path": "/a.py", "old_string": "x", "new_string": "y"}, "/a.py"),
        ("MultiEdit", {"file_path": "/a.py", "edits": [{}, {}]}, "/a.py (2 edits)"),
        ("Write", {"file_path": "/b.txt", "content": "hello"}, "/b.txt"),
        ("Grep", {"pattern": "TODO", "path": "src"}, "TODO in src"),
        ("Glob", {"pattern": "**/*.go"}, "**/*.go"),
        ("WebFetch", {"url": "https://x.test/a", "prompt": "sum"}, "https://x.test/a"),
        ("WebSearch", {"query": "slack rate limits"}, "slack rate limits"),
        ("Task", {"description": "Explore", "subagent_type": "Explore"}, "Explore: Explore"),
        ("mcp__github__create_issue", {"title": "Bug"}, 'github › create_issue: {"title":"Bug"}'),
        ("web_search", {"query": "larry"}, "larry"),
        ("read", {"filePath": "/src/app.py", "offset": 10, "limit": 5}, "/src/app.py:10-15"),
        ("list", {"filePath": "/src"}, "/src"),
    ],
)
def test_summary_fits_the_tool(name: str, args: dict[str, object], expected: str) -> None:
    assert describe_call(name, args) == expected


def test_invalid_json_arguments_are_shown_raw() -> None:
    assert describe_call("get_capital", {}, raw_input='{"country": "Fr') == '{"country": "Fr'


def test_summary_is_one_line_and_bounded() -> None:
    summary = describe_call("Bash", {"command": "echo a\n" * 200})
    assert "\n" not in summary
    assert len(summary) <= SUMMARY_LIMIT


def test_unknown_tool_without_known_fields_shows_its_arguments_as_json() -> None:
    assert describe_call("lookup", {"n": 3}) == '{"n":3}'


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "bc", " ", "\n", "\t\t", "    ", "é"]), max_size=2500))
def test_a_long_command_is_summarised_as_if_read_whole(parts: list[str]) -> None:
    command = "run" + "".join(parts)
    whole = " ".join(command.split())
    expected = whole if len(whole) <= SUMMARY_LIMIT else whole[: SUMMARY_LIMIT - 1] + "…"
    assert describe_call("Bash", {"command": command}) == expected


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab é\u00a0\u2028\x0b\x0c\x1c\r\n\t"), max_size=60))
def test_any_white_space_in_a_summary_is_collapsed_to_single_spaces(text: str) -> None:
    expected = " ".join(("x " + text).split())
    assert describe_call("Bash", {"command": "x " + text}) == expected[:SUMMARY_LIMIT]


def test_todo_list_summary_is_its_progress_and_the_item_in_hand() -> None:
    todos = [
        {"content": "Ask", "status": "completed", "activeForm": "Asking"},
        {"content": "Narrow", "status": "in_progress", "activeForm": "Narrowing to a room"},
        {"content": "Guess", "status": "pending"},
    ]
    assert describe_call("TodoWrite", {"todos": todos}) == "3 todos, 1 done · Narrowing to a room"
    assert describe_call("TodoWrite", {"todos": todos[:1]}) == "1 todo, 1 done"


def test_todo_list_summary_of_an_odd_shape_falls_back_to_the_arguments() -> None:
    assert describe_call("TodoWrite", {"todos": "none"}) == '{"todos":"none"}'
