from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.session.tool_calls import (
    SUMMARY_LIMIT,
    describe_call,
    mcp_tool,
    result_preview,
    shown_name,
)


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
        ("mcp__github__create_issue", {"title": "Bug"}, "Bug"),
        ("web_search", {"query": "larry"}, "larry"),
        ("read", {"filePath": "/src/app.py", "offset": 10, "limit": 5}, "/src/app.py:10-15"),
        ("list", {"filePath": "/src"}, "/src"),
        ("skill", {"name": "using-superpowers"}, "using-superpowers"),  # Amp's
        ("update_topic", {"strategic_intent": "Read M.", "title": "Reading M", "summary": "I…"},
         "Reading M"),  # Gemini's
    ],
)  # fmt: skip
def test_summary_fits_the_tool(name: str, args: dict[str, object], expected: str) -> None:
    assert describe_call(name, args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"q": "exec --json", "limit": 5}, "exec --json"),  # its first text argument
        ({"id": "n-1", "query": "todo"}, "todo"),  # the argument that says what it does
        ({"limit": 5}, '{"limit":5}'),  # no text: its JSON, as another tool's
        ({}, ""),
    ],
)
def test_an_mcp_call_is_summarised_by_its_arguments_text_not_its_json(
    args: dict[str, object], expected: str
) -> None:
    assert describe_call("mcp__github__search_issues", args) == expected


def test_an_mcp_call_follows_its_tools_own_summary_rule() -> None:
    assert describe_call("mcp__fs__read", {"file_path": "/w/a.py", "limit": 3}, None, "/w") == (
        "a.py:1-4"
    )


@pytest.mark.parametrize(
    ("name", "shown", "parts"),
    [
        ("mcp__github__search_issues", "github › search_issues", ("github", "search_issues")),
        ("mcp__notes__edit__v2", "notes › edit__v2", ("notes", "edit__v2")),
        ("mcp__github", "mcp__github", None),
        ("mcp____tool", "mcp____tool", None),
        ("Bash", "Bash", None),
    ],
)
def test_an_mcp_tools_name_is_shown_as_server_and_tool(
    name: str, shown: str, parts: tuple[str, str] | None
) -> None:
    assert (shown_name(name), mcp_tool(name)) == (shown, parts)


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
    assert describe_call("TodoWrite", {"todos": "none"}) == "none"
    assert describe_call("TodoWrite", {"todos": 3}) == '{"todos":3}'


def test_an_unknown_tool_is_summarised_by_its_first_text_argument_not_its_json() -> None:
    assert describe_call("find_file", {"file_name": "missing_colon.py"}) == "missing_colon.py"
    assert describe_call("click", {"element_id": 120, "label": " ", "x": "REPORTS"}) == "REPORTS"
    assert describe_call("wait_agent", {"targets": ["a-1", "b-2"], "n": 2}) == "a-1, b-2"
    assert describe_call("wait_agent", {"targets": ["a-1", 2]}) == '{"targets":["a-1",2]}'


def test_a_codex_plan_is_summarised_as_its_steps_and_the_one_in_hand() -> None:
    plan = [{"step": "Read", "status": "completed"}, {"step": "Fix it", "status": "in_progress"},
            {"step": "Test", "status": "pending"}]  # fmt: skip
    assert describe_call("update_plan", {"plan": plan}) == "3 steps, 1 done · Fix it"
    assert describe_call("update_plan", {"plan": plan[2:]}) == "1 step, 0 done"


def test_a_question_to_the_user_is_summarised_by_the_first_question() -> None:
    asked = [{"question": "Which rig?", "header": "Rig"}, {"question": "Which tools?"}]
    assert describe_call("AskUserQuestion", {"questions": asked}) == "Which rig? (+1 more)"
    assert describe_call("AskUserQuestion", {"questions": asked[1:]}) == "Which tools?"
    assert describe_call("AskUserQuestion", {"questions": [{"header": "Rig"}]}) == "Rig"
    assert describe_call("AskUserQuestion", {"questions": []}) == '{"questions":[]}'


PATCH = "*** Begin Patch\n*** Add File: /w/a.py\n+x\n*** Update File: b.py\n@@\n-y\n*** End Patch"


@pytest.mark.parametrize("key", ["patchText", "patch", "input"])  # Amp's, Codex's two
def test_a_patch_is_summarised_as_the_files_it_touches(key: str) -> None:
    assert describe_call("apply_patch", {key: PATCH}, cwd="/w") == "a.py (+1 more)"


def test_a_patch_naming_no_file_is_shown_as_it_is() -> None:
    assert describe_call("apply_patch", {"patchText": "*** Begin Patch"}) == "*** Begin Patch"


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("Read", {"file_path": "/home/me/app/src/a.py"}, "src/a.py"),
        ("Read", {"file_path": "/home/me/app/a.py", "offset": 3, "limit": 2}, "a.py:3-5"),
        ("Grep", {"pattern": "TODO", "path": "/home/me/app/lib"}, "TODO in lib"),
        ("Glob", {"pattern": "*.py", "path": "/home/me/app"}, "*.py"),
        ("read", {"filePath": "/home/me/app/x.ts"}, "x.ts"),
        ("list_directory", {"path": "/home/me/app/src"}, "src"),
        ("Read", {"file_path": "/home/me/apple/a.py"}, "/home/me/apple/a.py"),  # not below
        ("Read", {"file_path": "/etc/hosts"}, "/etc/hosts"),
        ("Bash", {"command": "cat /home/me/app/a.py"}, "cat /home/me/app/a.py"),  # as run
    ],
)
def test_paths_below_the_working_directory_are_shown_relative_to_it(
    name: str, args: dict[str, object], expected: str
) -> None:
    assert describe_call(name, args, cwd="/home/me/app/") == expected


@pytest.mark.parametrize(
    ("args", "cwd", "expected"),
    [
        ({"changes": [{"path": "/w/a.txt", "kind": "add"}, {"path": "/w/b", "kind": "update"}]},
         None, "/w/a.txt (+1 more)"),
        ({"changes": [{"path": "/w/src/a.txt", "kind": "add"}]}, "/w", "src/a.txt"),
        ({"patch": "*** Begin Patch", "path": "a.txt (+2 more)"}, None, "a.txt (+2 more)"),
    ],
    ids=["file-change-two", "file-change-relative", "rollout-patch"],
)  # fmt: skip
def test_a_patch_is_summarized_by_its_files_not_its_json(
    args: dict[str, object], cwd: str | None, expected: str
) -> None:
    assert describe_call("apply_patch", args, cwd=cwd) == expected


def test_a_windows_path_is_shown_relative_to_its_working_directory() -> None:
    args = {"file_path": "e:\\Workspace\\log\\src\\a.py"}
    assert describe_call("Read", args, cwd="e:\\Workspace\\log") == "src\\a.py"


@pytest.mark.parametrize(
    "output",
    [
        "The file /home/me/app/a.py has been updated successfully.",
        "The file /home/me/app/a.py has been updated. Here's the result of running `cat -n` on a "
        "snippet of the edited file:\n     1→x = 1",
        "File created successfully at: /home/me/app/b.py",
        "Applied 2 edits to /home/me/app/a.py:\n1. Replaced \"a\" with \"b\"",
        "Successfully wrote 1092 bytes to src/x.ts",
        "Success. Updated the following files:\nM a.py",
    ],
)
def test_a_result_that_only_repeats_its_call_is_not_shown(output: str) -> None:
    assert result_preview(output, 200, failed=False) == ("", 0, 0)


def test_a_failure_is_shown_whatever_it_says() -> None:
    said = "The file /x has been updated, but the hook failed"
    assert result_preview(said, 200, failed=True)[0] == said


def test_read_lines_lose_their_numbers_and_the_reminder_after_them() -> None:
    output = (
        '     1→"""Math."""\n     2→\n     3→def add(a, b):\n    10→    return a + b\n\n'
        "<system-reminder>\nWhenever you read a file, consider whether it is malware.\n"
        "</system-reminder>\n"
    )
    shown, size, lines = result_preview(output, 200, failed=False)
    assert shown == '"""Math."""\n\ndef add(a, b):\n    return a + b'
    assert (size, lines) == (len(output), 8)  # the last newline ends the last line


def test_a_reminder_within_an_output_goes_with_the_white_space_before_it() -> None:
    output = "error: x\n\n<system-reminder>a</system-reminder>\nnext\t<system-reminder>b"
    assert result_preview(output, 200, failed=True)[0] == "error: x\nnext"


def test_reminders_side_by_side_all_go() -> None:
    output = "ok <system-reminder>a</system-reminder>  <system-reminder>b</system-reminder> done"
    assert result_preview(output, 200, failed=True)[0] == "ok done"


def test_tab_numbered_lines_lose_their_numbers_too() -> None:
    assert result_preview("     1\tx\n     2\ty", 200, failed=False)[0] == "x\ny"


def test_a_result_that_merely_starts_with_a_number_keeps_it() -> None:
    assert result_preview("3 passed\n1 failed", 200, failed=False)[0] == "3 passed\n1 failed"


def test_result_paths_below_the_working_directory_are_shown_relative_to_it() -> None:
    output = "/home/me/app/src/a.py\n/home/me/app/src/b.py\n/etc/hosts"
    shown = result_preview(output, 200, failed=False, cwd="/home/me/app")[0]
    assert shown == "src/a.py\nsrc/b.py\n/etc/hosts"
