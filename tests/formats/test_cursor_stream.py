"""Cursor CLI stream-json: detection apart from Claude Code's, thinking deltas joined, tool calls
from ``tool_call`` events, streamed assistant text not shown twice, and what every corpus file
holds (numbers counted from the raw files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import orjson
import pytest

from bot.formats import claude_stream, cursor_stream, detect_family
from bot.formats.cursor_stream import Parser, detect
from bot.preview import build_preview, preview_document
from bot.records import (
    AssistantText,
    Ignored,
    Notice,
    Record,
    SessionStarted,
    SubagentLink,
    Thinking,
    TodoUpdate,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import ResultStatus, SessionResult
from bot.session import SessionSettings, Verbosity
from tests.conftest import corpus_file
from tests.formats.helpers import gives_every_line_a_record, only, records_of

FAMILY_DIR = "cursor-stream-json"
FULL = "reifying__cursor-hack__full_session.jsonl"
PARALLEL = "reifying__cursor-hack__parallel-sleep.jsonl"
SUBAGENT = "reifying__cursor-hack__subagent-sleep.jsonl"
CORPUS_FILES = (FULL, PARALLEL, SUBAGENT)
R = TypeVar("R", bound=Record)


def corpus_records(name: str) -> list[Record]:
    return records_of(corpus_file(FAMILY_DIR, name))


def parse(*lines: dict[str, Any]) -> list[Record]:
    parser = Parser("src")
    out: list[Record] = []
    for number, value in enumerate(lines, start=1):
        records = parser.parse(value, number)
        assert records, value  # every line gives at least one record
        out.extend(records)
    return out + parser.finish()


def preview_of(path: Path) -> dict[str, Any]:
    """The ``preview --json --verbosity verbose`` document of one file."""
    preview = build_preview([path], settings=SessionSettings(verbosity=Verbosity.VERBOSE))
    return preview_document(preview)


def event(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "session_id": "c1", **fields}


def thinking(text: str) -> dict[str, Any]:
    return event("thinking", subtype="delta", text=text, timestamp_ms=1770823841542)


def tool(subtype: str, key: str, args: dict[str, Any], result: Any = None, **fields: Any) -> Any:
    body: dict[str, Any] = {"args": args}
    if result is not None:
        body["result"] = result
    call_id = fields.pop("call_id", "call_1")
    return event("tool_call", subtype=subtype, call_id=call_id, tool_call={key: body}, **fields)


def shell(command: str, result: Any = None, call_id: str = "call_1") -> list[dict[str, Any]]:
    args = {"command": command, "toolCallId": call_id}
    return [
        tool("started", "shellToolCall", args, call_id=call_id),
        tool("completed", "shellToolCall", args, result, call_id=call_id),
    ]


def assistant(text: str, **fields: Any) -> dict[str, Any]:
    message = {"role": "assistant", "content": [{"type": "text", "text": text}]}
    return event("assistant", message=message, **fields)


# --- detection -------------------------------------------------------------------------------


def test_the_reader_detects_every_corpus_file_as_cursor_by_its_first_line() -> None:
    for name in CORPUS_FILES:
        first = orjson.loads(corpus_file(FAMILY_DIR, name).read_bytes().splitlines()[0])
        assert detect_family(first) is cursor_stream.FORMAT, name


def test_detect_claims_cursors_own_events_and_leaves_its_bare_lines_to_the_stream() -> None:
    lines = [orjson.loads(raw) for raw in corpus_file(FAMILY_DIR, FULL).read_bytes().splitlines()]
    claimed = [value["type"] for value in lines if detect(value)]
    own = ["system", "thinking", "thinking", "assistant", "tool_call", "tool_call", "result"]
    assert claimed == own
    # The bare user line and the final assistant line are claimed by no format at all.
    assert [detect_family(value) for value in (lines[1], lines[7])] == [None, None]


@pytest.mark.parametrize(
    "value",
    [
        {"type": "system", "subtype": "init", "session_id": "s", "apiKeySource": "none"}
        | {"permissionMode": "default", "tools": ["Bash"], "mcp_servers": []},
        {"type": "result", "subtype": "success", "session_id": "s", "num_turns": 2}
        | {"request_id": "r", "is_error": False},
        {"type": "assistant", "session_id": "s", "uuid": "u", "timestamp_ms": 1}
        | {"message": {"role": "assistant", "content": []}},
        {"type": "thinking", "subtype": "delta", "text": "x"},
        {"type": "tool_call", "session_id": "s", "call_id": "c", "tool_call": "shell"},
        [{"type": "thinking", "subtype": "delta", "session_id": "s"}],
    ],
    ids=[
        "claude-init",
        "claude-result",
        "claude-assistant",
        "no-session",
        "tool-call-not-an-object",
        "a-list",
    ],
)
def test_detect_rejects_claude_lines_and_shapes_that_are_not_cursors(value: object) -> None:
    assert not detect(value)


def test_claude_stream_no_longer_claims_any_cursor_line() -> None:
    for name in CORPUS_FILES:
        lines = corpus_file(FAMILY_DIR, name).read_bytes().splitlines()
        assert not [raw for raw in lines if claude_stream.detect(orjson.loads(raw))], name


# --- thinking --------------------------------------------------------------------------------


def test_thinking_deltas_are_joined_into_one_thinking_at_completed() -> None:
    deltas = [thinking(token) for token in ("**Planning", " the", " run**")]
    records = parse(*deltas, event("thinking", subtype="completed", timestamp_ms=1770823845095))
    assert [r.text for r in only(records, Thinking)] == ["**Planning the run**"]
    assert [r.kind for r in only(records, Ignored)] == ["thinking delta"] * 3
    assert only(records, Thinking)[0].line == 4


def test_two_hundred_thinking_deltas_make_one_message_not_two_hundred(tmp_path: Path) -> None:
    init = event("system", subtype="init", apiKeySource="login", model="Auto")
    lines = [init, *(thinking(f"w{n} ") for n in range(215))]
    lines.append(event("thinking", subtype="completed"))
    path = tmp_path / "cursor.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(line) for line in lines) + b"\n")
    (session,) = preview_of(path)["sessions"]
    kinds = [m["key"].split(":")[0] for m in session["messages"]]
    assert (kinds.count("thinking"), kinds.count("notice")) == (1, 0)


def test_thinking_without_completed_is_given_before_the_next_event_or_at_the_end() -> None:
    records = parse(thinking("a"), thinking("b"), assistant("Done.", model_call_id="m"))
    kinds = [type(r).__name__ for r in records]
    assert kinds == ["Ignored", "Ignored", "Thinking", "AssistantText"]
    assert only(records, Thinking)[0].text == "ab"
    unfinished = parse(thinking("still "), thinking("thinking"))
    assert [(r.text, r.line) for r in only(unfinished, Thinking)] == [("still thinking", 2)]


def test_whitespace_only_thinking_gives_no_thinking() -> None:
    records = parse(thinking(" "), event("thinking", subtype="completed"))
    assert only(records, Thinking) == []
    assert [r.kind for r in only(records, Ignored)] == ["thinking delta", "thinking completed"]


# --- tool calls ------------------------------------------------------------------------------


def test_a_shell_call_starts_and_completes_with_its_output_and_the_name_of_its_kind() -> None:
    success = {"success": {"exitCode": 0, "stdout": "a.py\n", "stderr": "", "command": "ls"}}
    records = parse(*shell("ls", success))
    (call,) = only(records, ToolCall)
    (result,) = only(records, ToolResult)
    assert (call.name, call.input["command"], call.call_id) == ("Shell", "ls", "call_1")
    assert (result.call_id, result.output, result.is_error, result.name) == (
        "call_1",
        "a.py\n",
        False,
        "Shell",
    )


def test_a_call_id_with_a_newline_is_kept_whole() -> None:
    call_id = "call_MZSwjBaQ\nfc_05e0124e"
    records = parse(*shell("sleep 6", {"success": {"exitCode": 0}}, call_id=call_id))
    assert [r.call_id for r in records if isinstance(r, (ToolCall, ToolResult))] == [call_id] * 2


@pytest.mark.parametrize(
    ("result", "output"),
    [
        ({"success": {"exitCode": 2, "stderr": "no such file"}}, "Exit code 2\nno such file"),
        ({"failure": {"exitCode": 1, "stdout": "", "stderr": "boom"}}, "Exit code 1\nboom"),
        ({"error": {"errorMessage": "Tool crashed"}}, "Tool crashed"),
        ({"rejected": {"reason": "not in print mode"}}, "Rejected: not in print mode"),
    ],
    ids=["exit-code", "failure", "error", "rejected"],
)
def test_a_call_fails_on_failure_error_rejection_or_an_exit_code_other_than_zero(
    result: dict[str, Any], output: str
) -> None:
    (tool_result,) = only(parse(*shell("x", result)), ToolResult)
    assert (tool_result.is_error, tool_result.output) == (True, output)


@pytest.mark.parametrize(
    ("failure", "output"),
    [
        ({"stdout": "3\n", "stderr": "error: x", "interleavedOutput": ""}, "3\nerror: x"),
        ({"stdout": "built 3", "stderr": "error: x"}, "built 3\nerror: x"),
        ({"stdout": "only out", "stderr": ""}, "only out"),
        ({"stdout": "a", "stderr": "b", "interleavedOutput": "b\na"}, "b\na"),
    ],
    ids=["interleaved-empty", "interleaved-missing", "no-stderr", "interleaved"],
)
def test_a_failed_command_shows_its_stdout_and_its_stderr(
    failure: dict[str, Any], output: str
) -> None:
    result = {"success": {"exitCode": 1, **failure}}
    (tool_result,) = only(parse(*shell("make", result)), ToolResult)
    assert (tool_result.is_error, tool_result.output) == (True, f"Exit code 1\n{output}")


def test_a_call_seen_only_completed_gives_its_call_before_its_result() -> None:
    completed = shell("make", {"success": {"exitCode": 0, "stdout": "ok"}})[1]
    records = parse(completed)
    assert [type(r).__name__ for r in records] == ["ToolCall", "ToolResult"]


@pytest.mark.parametrize(
    ("key", "args", "name"),
    [
        ("readToolCall", {"path": "README.md"}, "Read"),
        ("lsToolCall", {"path": "."}, "Ls"),
        ("semSearchToolCall", {"query": "x"}, "SemSearch"),
        ("mcpToolCall", {"providerIdentifier": "gh", "toolName": "issue"}, "mcp__gh__issue"),
    ],
)
def test_the_tool_is_named_after_its_key_and_an_mcp_tool_after_server_and_tool(
    key: str, args: dict[str, Any], name: str
) -> None:
    (call,) = only(parse(tool("started", key, args)), ToolCall)
    assert (call.name, dict(call.input)) == (name, args)


def test_a_read_result_shows_the_files_content() -> None:
    content = {"success": {"content": "# Project\n", "totalLines": 1, "isEmpty": False}}
    records = parse(tool("started", "readToolCall", {"path": "R.md"}))
    records += parse(tool("completed", "readToolCall", {"path": "R.md"}, content))
    assert only(records, ToolResult)[0].output == "# Project\n"


def test_a_function_tool_takes_its_name_and_its_arguments_given_as_json_text() -> None:
    function = {"name": "web_search", "arguments": '{"query": "cursor cli"}'}
    value = event("tool_call", subtype="started", call_id="c9", tool_call={"function": function})
    (call,) = only(parse(value), ToolCall)
    assert (call.name, dict(call.input), call.raw_input) == (
        "web_search",
        {"query": "cursor cli"},
        None,
    )


def test_the_todo_tool_gives_the_list_in_claudes_statuses() -> None:
    todos = [
        {"id": "1", "content": "Write tests", "status": "TODO_STATUS_IN_PROGRESS"},
        {"id": "2", "content": "Ship", "status": "TODO_STATUS_PENDING"},
    ]
    done = [dict(todos[0], status="TODO_STATUS_COMPLETED"), todos[1]]
    records = parse(
        tool("started", "updateTodosToolCall", {"todos": todos}),
        tool("completed", "updateTodosToolCall", {"todos": todos}, {"success": {"todos": done}}),
    )
    updates = only(records, TodoUpdate)
    assert [[t.status for t in u.todos] for u in updates] == [
        ["in_progress", "pending"],
        ["completed", "pending"],
    ]
    assert {u.call_id for u in updates} == {"call_1"}


def test_a_tool_call_of_an_unknown_shape_or_subtype_is_a_notice() -> None:
    odd = event("tool_call", subtype="started", call_id="c", tool_call={})
    progress = tool("progress", "shellToolCall", {"command": "ls"})
    records = parse(odd, progress)
    assert [(r.kind, r.level) for r in only(records, Notice)] == [("tool_call", "warning")] * 2
    assert only(records, ToolCall) == []


# --- assistant text --------------------------------------------------------------------------


def test_assistant_messages_are_text_named_by_their_model_call() -> None:
    records = parse(assistant("I'll run it.", model_call_id="m-1", timestamp_ms=1), assistant("ok"))
    texts = only(records, AssistantText)
    assert [(t.text, t.delta, t.message_id) for t in texts] == [
        ("I'll run it.", False, "m-1"),
        ("ok", False, None),
    ]


def test_streamed_text_deltas_are_joined_and_their_whole_repetition_is_not_shown_twice() -> None:
    records = parse(
        assistant("I'll ", timestamp_ms=1),
        assistant("run it.", timestamp_ms=2),
        assistant("I'll run it.", model_call_id="m-1", timestamp_ms=3),  # before the tool call
        *shell("ls", {"success": {"exitCode": 0}}),
        assistant("Done", timestamp_ms=4),
        assistant(".", timestamp_ms=5),
        assistant("Done."),  # the final repetition
    )
    texts = only(records, AssistantText)
    assert [(t.text, t.delta) for t in texts] == [
        ("I'll ", True),
        ("run it.", True),
        ("Done", True),
        (".", True),
    ]
    assert [r.kind for r in only(records, Ignored)] == ["assistant text repeated"] * 2


def test_a_whole_message_that_differs_from_the_streamed_text_is_shown() -> None:
    records = parse(assistant("Hel", timestamp_ms=1), assistant("Something else."))
    assert [t.text for t in only(records, AssistantText)] == ["Hel", "Something else."]


def test_a_result_that_glues_the_runs_messages_together_gives_the_last_message() -> None:
    prompt = event("user", message={"role": "user", "content": [{"type": "text", "text": "Go"}]})
    glued = event("result", subtype="success", result="First, ls.Then it ran.All done.")
    records = parse(
        prompt,
        assistant("First, ls.", model_call_id="m-1", timestamp_ms=1),
        *shell("ls", {"success": {"exitCode": 0}}),
        assistant("Then it ran.", model_call_id="m-2", timestamp_ms=2),
        assistant("All done", timestamp_ms=3),  # streamed, then repeated whole
        assistant(".", timestamp_ms=4),
        assistant("All done."),
        glued,
        prompt,
        assistant("Other."),
        event("result", subtype="success", result="Other."),
    )
    assert [r.text for r in only(records, SessionResult)] == ["All done.", "Other."]


def test_a_result_that_is_not_the_runs_messages_glued_is_kept_as_written() -> None:
    records = parse(
        assistant("One."),
        assistant("Two."),
        event("result", subtype="success", result="One.Three"),
        assistant("Two."),
        event("result", subtype="success", result="A summary of it"),
    )
    assert [r.text for r in only(records, SessionResult)] == ["One.Three", "A summary of it"]


# --- other lines -----------------------------------------------------------------------------


def test_init_starts_a_cursor_session_with_its_model_and_directory() -> None:
    init = event("system", subtype="init", apiKeySource="login", cwd="/w", model="Auto")
    (started,) = parse(init | {"permissionMode": "default"})
    assert isinstance(started, SessionStarted)
    assert (started.agent, started.model, started.cwd, started.session_id) == (
        "Cursor",
        "Auto",
        "/w",
        "c1",
    )


def test_a_failed_result_names_its_error_and_an_unknown_type_or_system_line_is_a_notice() -> None:
    failed = event("result", subtype="error", is_error=True, error="Rate limited", duration_ms=9)
    records = parse(failed, event("status", state="busy"), event("system", subtype="hook"))
    (result,) = only(records, SessionResult)
    assert (result.status, result.error, result.duration_ms, result.cost_usd) == (
        ResultStatus.FAILED,
        "Rate limited",
        9,
        None,
    )
    assert [r.kind for r in only(records, Notice)] == ["status", "hook"]


def test_a_user_line_is_the_prompt_and_values_that_are_not_typed_objects_are_not_mine() -> None:
    prompt = event("user", message={"role": "user", "content": [{"type": "text", "text": "Go"}]})
    assert [r.text for r in only(parse(prompt), UserText)] == ["Go"]
    parser = Parser("src")
    assert [parser.parse(v, 1) for v in ([1], "x", {"type": 3}, event("user"))] == [None] * 4


# --- the corpus, file by file ----------------------------------------------------------------


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_read_records_gives_every_corpus_line_a_record_and_leaves_none_unparsed(name: str) -> None:
    gives_every_line_a_record(corpus_file(FAMILY_DIR, name))


def test_full_session_one_shell_call_one_joined_thinking_and_a_result() -> None:
    records = corpus_records(FULL)
    assert {r.session_id for r in records} == {"d43015b9-0707-43f4-b2df-0bcea7891654"}
    started = only(records, SessionStarted)
    assert [(s.agent, s.model, s.cwd) for s in started] == [
        ("Cursor", "Auto", "/home/user/project")
    ]
    assert [t.text for t in only(records, Thinking)] == ["**Planning"]
    (call,) = only(records, ToolCall)
    assert (call.call_id, call.name, call.input["command"]) == ("call_1", "Shell", "sleep 5")
    assert [(r.call_id, r.is_error, r.output) for r in only(records, ToolResult)] == [
        ("call_1", False, "")
    ]
    assert [t.message_id for t in only(records, AssistantText)] == [
        "5bf03e32-be64-48d4-a5ed-c4a0a939b88c-0-otyz",
        None,
    ]
    (result,) = only(records, SessionResult)
    assert (result.status, result.text, result.duration_ms, result.cost_usd) == (
        ResultStatus.SUCCEEDED,
        "done",
        21509,
        None,
    )
    assert result.input_tokens is None and result.num_turns is None


def test_parallel_file_two_calls_with_newlines_in_their_ids_finish_in_any_order() -> None:
    records = corpus_records(PARALLEL)
    calls = only(records, ToolCall)
    assert [c.input["command"] for c in calls] == ["sleep 6", "sleep 4"]
    assert all("\n" in c.call_id for c in calls)
    results = only(records, ToolResult)
    assert [r.call_id for r in results] == [calls[1].call_id, calls[0].call_id]
    assert not any(r.is_error for r in results)
    assert only(records, Thinking) == []
    (result,) = only(records, SessionResult)
    assert (result.status, result.duration_ms) == (ResultStatus.SUCCEEDED, 13039)
    # line 9's result is lines 3 and 8 glued ("…exactly `done`.done"): its text is line 8's
    assert result.text == "done"


def test_parallel_file_preview_shows_the_answer_once_and_not_the_glued_messages() -> None:
    (session,) = preview_of(corpus_file(FAMILY_DIR, PARALLEL))["sessions"]
    shown = orjson.dumps(session).decode()
    assert "`done`.done" not in shown


def test_subagent_file_has_one_plain_shell_call_and_no_subagent() -> None:
    records = corpus_records(SUBAGENT)
    assert [(c.name, c.input["command"]) for c in only(records, ToolCall)] == [("Shell", "sleep 8")]
    assert only(records, SubagentLink) == []
    assert [t.text for t in only(records, AssistantText)] == ["done"]
    (result,) = only(records, SessionResult)
    assert (result.status, result.text, result.duration_ms) == (
        ResultStatus.SUCCEEDED,
        "done",
        16460,
    )


@pytest.mark.parametrize(("name", "calls"), [(FULL, 1), (PARALLEL, 2), (SUBAGENT, 1)])
def test_preview_shows_one_cursor_session_with_its_calls_and_none_failed(
    name: str, calls: int
) -> None:
    (session,) = preview_of(corpus_file(FAMILY_DIR, name))["sessions"]
    assert (session["agent"], session["status"]) == ("Cursor", "succeeded")
    assert [t["status"] for t in session["tools"]] == ["ok"] * calls
