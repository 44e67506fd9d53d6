"""Gemini CLI tool calls (shared by its stream and its session files): a shell command's exit
code, a session file's call result, and what each kind of tool becomes."""

from __future__ import annotations

from typing import Any

import pytest

from bot.formats.gemini_tools import call_records, call_result, response_texts, shell_failed
from bot.records import Delegation, Origin, TodoUpdate, ToolCall

ORIGIN = Origin("s", None, 1)


def shell_output(exit_code: str, signal: str = "0") -> str:
    return (
        "Command: pip install x\nDirectory: (root)\nOutput: bash: pip: command not found\n"
        f"Error: (none)\nExit Code: {exit_code}\nSignal: {signal}\nBackground PIDs: (none)\n"
        "Process Group PGID: 88536"
    )


@pytest.mark.parametrize(
    ("output", "failed"),
    [
        (shell_output("0"), False),
        (shell_output("127"), True),
        (shell_output("1"), True),
        (shell_output("(none)", "15"), True),
        (shell_output("(none)"), True),
        ("Output: done\nSignal: 15\nProcess Group PGID: 7", True),
        ("Output: done\nProcess Group PGID: 7", False),  # newer CLIs write no exit code of 0
        ("<untrusted_context>\nOutput: x\nExit Code: 2\n</untrusted_context>", True),
        ("Output: Exit Code: 1\nError: (none)\nExit Code: 0\nSignal: 0", False),
        ("Command moved to background (PID: 42). Output hidden.", False),
        ("", False),
    ],
    ids=[
        "exit-0",
        "exit-127",
        "exit-1",
        "killed",
        "none",
        "signal",
        "no-trailer-code",
        "wrapped",
        "output-mentions-a-code",
        "background",
        "empty",
    ],
)
def test_a_shell_command_failed_when_its_trailer_says_so(output: str, failed: bool) -> None:
    assert shell_failed(output) is failed


def call(status: str, response: dict[str, Any], name: str = "read_file") -> dict[str, Any]:
    result = [{"functionResponse": {"id": "c1", "name": name, "response": response}}]
    return {"id": "c1", "name": name, "args": {}, "status": status, "result": result}


def test_a_successful_call_result_is_its_output() -> None:
    result = call_result(call("success", {"output": "hello"}), ORIGIN, "c1", "read_file")
    assert (result.call_id, result.name, result.output) == ("c1", "read_file", "hello")
    assert (result.is_error, result.interrupted) == (False, False)


def test_an_error_call_result_is_its_error_message() -> None:
    result = call_result(call("error", {"error": "Path must be absolute: ."}), ORIGIN, "c1", "ls")
    assert (result.output, result.is_error, result.interrupted) == (
        "Path must be absolute: .",
        True,
        False,
    )


def test_a_cancelled_call_failed_and_was_interrupted() -> None:
    cancelled = call("cancelled", {"error": "[Operation Cancelled] Reason: User cancelled."})
    result = call_result(cancelled, ORIGIN, "c1", "run_shell_command")
    assert (result.is_error, result.interrupted) == (True, True)


def test_a_successful_shell_call_with_a_nonzero_exit_code_failed() -> None:
    failed = call("success", {"output": shell_output("127")}, name="run_shell_command")
    assert call_result(failed, ORIGIN, "c1", "run_shell_command").is_error
    passed = call("success", {"output": shell_output("0")}, name="run_shell_command")
    assert not call_result(passed, ORIGIN, "c1", "run_shell_command").is_error
    other = call("success", {"output": shell_output("127")}, name="read_file")
    assert not call_result(other, ORIGIN, "c1", "read_file").is_error


def test_without_a_response_the_result_display_is_shown() -> None:
    bare = {"id": "c1", "name": "x", "status": "success", "result": None, "resultDisplay": "Done"}
    assert call_result(bare, ORIGIN, "c1", "x").output == "Done"


@pytest.mark.parametrize(
    ("result", "texts"),
    [
        ("plain", ("plain", "")),
        ([{"functionResponse": {"response": {"output": "a"}}}, {"text": "b"}], ("a\nb", "")),
        ([{"functionResponse": {"response": {"content": [1]}}}], ('{"content":[1]}', "")),
        ([{"functionResponse": {"response": {"output": "x", "error": "y"}}}], ("x", "y")),
        (None, ("", "")),
        ([42, {"inlineData": {"mimeType": "image/png"}}], ("", "")),
    ],
    ids=["string", "parts", "other-response", "both", "none", "no-text"],
)
def test_response_texts_reads_every_part(result: object, texts: tuple[str, str]) -> None:
    assert response_texts(result) == texts


def test_an_ordinary_tool_is_one_call_and_write_todos_adds_the_list() -> None:
    (plain,) = call_records(ORIGIN, "c1", "glob", {"pattern": "*.py"})
    assert isinstance(plain, ToolCall) and dict(plain.input) == {"pattern": "*.py"}
    todo_call, update = call_records(ORIGIN, "c2", "write_todos", {"todos": [{"status": "x"}]})
    assert isinstance(todo_call, ToolCall) and isinstance(update, TodoUpdate)
    assert [(t.content, t.status) for t in update.todos] == [("", "x")]
    (no_args,) = call_records(ORIGIN, "c3", "list_mcp_resources", None)
    assert isinstance(no_args, ToolCall) and (no_args.input, no_args.raw_input) == ({}, None)


def test_a_subagent_given_no_task_text_gets_its_arguments_as_the_task() -> None:
    (delegation,) = call_records(ORIGIN, "d1", "invoke_agent", {"agent_name": "x", "depth": 2})
    assert isinstance(delegation, Delegation)
    assert (delegation.member, delegation.task) == ("x", '{"depth":2}')
    (unnamed,) = call_records(ORIGIN, "d2", "invoke_agent", {})
    assert isinstance(unnamed, Delegation) and (unnamed.member, unnamed.task) == ("subagent", "")
