"""Claude Code stream-json: detection, how each kind of line maps to records, and what every
corpus file of the family holds (numbers counted from the raw files, not from the parser)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.formats import claude_stream
from bot.formats.claude_stream import Parser, detect
from bot.records import (
    AssistantText,
    Compaction,
    Ignored,
    Notice,
    Origin,
    Record,
    SessionStarted,
    Thinking,
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import PermissionDenial, ResultStatus, SessionResult
from tests.conftest import FIXTURES, corpus_file, read_records
from tests.formats.helpers import (
    claims_every_value,
    gives_every_line_a_record,
    only,
    records_of,
    single,
)

FAMILY_DIR = "claude-stream-json"
CORPUS_FILES = (
    "ariel-frischer__claude-clean__claude-stream-json-log.log",
    "ariel-frischer__claude-clean__claude-stream-json-simple.jsonl",
    "banteg__takopi__claude_code_all_events.jsonl",
    "banteg__takopi__claude_code_api_error.jsonl",
    "banteg__takopi__claude_code_permission_denied.jsonl",
    "banteg__takopi__claude_streamjson_session.jsonl",
)


def corpus_records(name: str) -> list[Record]:
    return records_of(corpus_file(FAMILY_DIR, name))


def fixture_records(name: str) -> list[Record]:
    records, stats = read_records(FIXTURES / name)
    assert stats.unparsed == 0
    return records


def parse(*lines: dict[str, Any], source: str = "src") -> list[list[Record] | None]:
    parser = Parser(source)
    return [parser.parse(value, number) for number, value in enumerate(lines, start=1)]


def line(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "session_id": "s1", **fields}


def assistant(*blocks: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return line("assistant", message={"id": "msg_1", "content": list(blocks)}, **fields)


def user(content: Any, **fields: Any) -> dict[str, Any]:
    return line("user", message={"role": "user", "content": content}, **fields)


# --- detection -------------------------------------------------------------------------------


def test_detect_claims_every_line_of_every_corpus_file() -> None:
    for name in CORPUS_FILES:
        claims_every_value(claude_stream.FORMAT, corpus_file(FAMILY_DIR, name))


@pytest.mark.parametrize(
    "value",
    [
        {"type": "user", "sessionId": "s", "parentUuid": None, "message": {"content": "hi"}},
        {"type": "assistant", "session_id": "s", "parentUuid": "p", "message": {"content": []}},
        {"event": "RunStarted", "session_id": "s", "run_id": "r", "created_at": 1},
        {"role": "assistant", "content": None, "tool_calls": []},
        {"type": "user", "content": "Welcome!", "session_id": "s", "timestamp": "2025-10-21"},
        {"type": "system", "content": "Up", "metadata": {"subtype": "init"}, "session_id": "s"},
        {"type": "result", "content": "done", "session_id": "s"},
        {"type": "assistant", "message": {"content": []}},
        [{"type": "system", "subtype": "init", "session_id": "s"}],
        {"type": "system", "subtype": "init", "session_id": "s", "apiKeySource": "login"}
        | {"cwd": "/w", "model": "Auto", "permissionMode": "default"},
        {"type": "user", "session_id": "s", "message": {"role": "user", "content": []}},
        {"type": "assistant", "session_id": "s", "model_call_id": "m", "timestamp_ms": 1}
        | {"message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}},
        {"type": "result", "subtype": "success", "session_id": "s", "is_error": False}
        | {"duration_ms": 1, "result": "done", "request_id": "r"},
    ],
    ids=[
        "transcript",
        "transcript-snake",
        "agno",
        "openai",
        "backend-user",
        "backend-system",
        "result-without-subtype",
        "no-session-id",
        "a-list",
        "cursor-init-without-tools",
        "cursor-bare-user",
        "cursor-assistant",
        "cursor-result-without-turns",
    ],
)
def test_detect_rejects_transcripts_agno_openai_backend_and_cursor_lines(value: object) -> None:
    assert not detect(value)


def test_detect_claims_a_hook_line_that_comes_before_init() -> None:
    assert detect(line("system", subtype="hook_started", hook_name="SessionStart:startup"))
    assert detect(line("stream_event", event={"type": "message_start"}))


# --- parsing single lines --------------------------------------------------------------------


@pytest.mark.parametrize("value", [[1, 2], "text", 3, {"session_id": "s"}, {"type": 7}])
def test_values_that_are_not_typed_objects_are_not_this_format(value: object) -> None:
    assert Parser("src").parse(value, 1) is None


def test_user_or_assistant_line_without_a_message_is_not_this_format() -> None:
    assert parse(line("user", content="hi"), line("assistant")) == [None, None]


def test_a_line_without_session_id_takes_the_last_session_seen_else_the_source_name() -> None:
    result = {"type": "result", "subtype": "success", "is_error": False}
    first, _, last = parse(result, line("system", subtype="init"), result, source="run.log")
    assert first is not None and last is not None
    assert first[0].session_id == "run.log"
    assert last[0].session_id == "s1"


def test_timestamp_is_none_without_the_field_and_utc_with_it() -> None:
    plain, stamped = parse(
        assistant({"type": "text", "text": "a"}),
        assistant({"type": "text", "text": "b"}, timestamp="2026-01-05T10:00:01+02:00"),
    )
    assert plain is not None and stamped is not None
    assert plain[0].timestamp is None
    assert stamped[0].timestamp == datetime(2026, 1, 5, 8, 0, 1, tzinfo=UTC)


def test_parallel_tool_uses_in_one_line_become_calls_in_order_sharing_the_line() -> None:
    [records] = parse(
        assistant(
            {"type": "text", "text": "Two at once."},
            {"type": "tool_use", "id": "c1", "name": "Glob", "input": {"pattern": "*.py"}},
            {"type": "tool_use", "id": "c2", "name": "Grep", "input": {"pattern": "main"}},
        )
    )
    assert records is not None
    assert [type(r) for r in records] == [AssistantText, ToolCall, ToolCall]
    calls = [(r.call_id, r.name) for r in only(records, ToolCall)]
    assert calls == [("c1", "Glob"), ("c2", "Grep")]
    assert {r.line for r in records} == {1}
    assert only(records, AssistantText)[0].message_id == "msg_1"


def test_tool_input_given_as_json_text_is_parsed_and_invalid_json_is_kept_raw() -> None:
    [records] = parse(
        assistant(
            {"type": "tool_use", "id": "c1", "name": "Bash", "input": '{"command": "ls"}'},
            {"type": "tool_use", "id": "c2", "name": "Bash", "input": '{"command": '},
        )
    )
    assert records is not None
    good, bad = only(records, ToolCall)
    assert (good.input, good.raw_input) == ({"command": "ls"}, None)
    assert (bad.input, bad.raw_input) == ({}, '{"command": ')


def test_empty_text_is_skipped_and_a_line_with_nothing_to_show_is_one_ignored_record() -> None:
    empty, redacted = parse(
        assistant({"type": "text", "text": ""}, {"type": "thinking", "thinking": ""}),
        assistant({"type": "redacted_thinking", "data": "xx"}),
    )
    assert empty == [
        Ignored(Origin(session_id="s1", timestamp=None, line=1), kind="empty assistant")
    ]
    assert redacted is not None and [(type(r), r.kind) for r in only(redacted, Ignored)] == [
        (Ignored, "redacted_thinking")
    ]


def test_thinking_text_becomes_thinking() -> None:
    [records] = parse(assistant({"type": "thinking", "thinking": "Plan first."}))
    assert records is not None and [r.text for r in only(records, Thinking)] == ["Plan first."]


def test_todo_write_is_a_tool_call_followed_by_the_whole_todo_list() -> None:
    todos = [
        {"content": "Read", "status": "completed", "activeForm": "Reading"},
        {"id": "2", "content": "Write", "status": "pending", "priority": "high"},
    ]
    [records] = parse(
        assistant({"type": "tool_use", "id": "c9", "name": "TodoWrite", "input": {"todos": todos}})
    )
    assert records is not None and [type(r) for r in records] == [ToolCall, TodoUpdate]
    update = only(records, TodoUpdate)[0]
    assert update.call_id == "c9"
    assert update.todos == (
        Todo(content="Read", status="completed", active_form="Reading"),
        Todo(content="Write", status="pending", priority="high"),
    )


def test_user_content_as_a_string_is_user_text() -> None:
    [records] = parse(user("Please list the files."))
    text = "Please list the files."
    assert records == [UserText(Origin(session_id="s1", timestamp=None, line=1), text=text)]


def test_interruptions_mark_the_tool_result_and_the_user_line_is_a_warning() -> None:
    stop = "[Request interrupted by user for tool use]"
    result_line, text_line = parse(
        user([{"type": "tool_result", "tool_use_id": "c1", "content": stop, "is_error": True}]),
        user([{"type": "text", "text": "[Request interrupted by user]"}]),
    )
    assert result_line is not None and text_line is not None
    result = single(result_line, ToolResult)
    assert (result.call_id, result.interrupted, result.is_error) == ("c1", True, True)
    notice = single(text_line, Notice)
    assert (notice.kind, notice.level) == ("interrupted", "warning")


def test_an_ordinary_failed_tool_result_is_an_error_but_not_interrupted() -> None:
    [records] = parse(
        user([{"type": "tool_result", "tool_use_id": "c1", "content": "boom", "is_error": True}])
    )
    assert records is not None
    result = single(records, ToolResult)
    assert (result.is_error, result.interrupted, result.output) == (True, False, "boom")


def test_unknown_system_subtypes_are_notices_named_after_them() -> None:
    state, retry, nameless = parse(
        line("system", subtype="state", state={"phase": "idle"}),
        line("system", subtype="api_retry", attempt=2, error_status=529),
        line("system", subtype=None),
    )
    assert state == [
        Notice(
            Origin(session_id="s1", timestamp=None, line=1), kind="state", text="state: phase=idle"
        )
    ]
    assert retry is not None and (retry[0].kind, retry[0].level) == ("api_retry", "warning")
    assert retry[0].text == "api_retry: attempt=2, error_status=529"
    assert nameless is not None and nameless[0].kind == "system"


@pytest.mark.parametrize(
    "subtype", ["hook_started", "hook_progress", "task_progress", "thinking_tokens"]
)
def test_progress_ticks_are_ignored(subtype: str) -> None:
    assert parse(line("system", subtype=subtype)) == [
        [Ignored(Origin(session_id="s1", timestamp=None, line=1), kind=subtype)]
    ]


def test_a_failed_hook_is_a_warning_with_its_stderr() -> None:
    [records] = parse(
        line(
            "system",
            subtype="hook_response",
            hook_name="Stop",
            exit_code=2,
            outcome="error",
            stderr="lint failed\n",
            output="",
        )
    )
    assert records is not None
    assert (records[0].text, records[0].level) == (
        "Hook Stop failed (exit 2): lint failed",
        "warning",
    )


@pytest.mark.parametrize(
    ("result_line", "status"),
    [
        ({"subtype": "success", "is_error": False}, ResultStatus.SUCCEEDED),
        ({"subtype": "success", "is_error": True}, ResultStatus.FAILED),
        ({"subtype": "error_max_turns", "is_error": False}, ResultStatus.FAILED),
        ({"subtype": "error_max_budget_usd", "is_error": False}, ResultStatus.FAILED),
        ({"subtype": "error_during_execution", "is_error": True}, ResultStatus.FAILED),
        ({"subtype": "brand_new_subtype"}, ResultStatus.FAILED),
        ({"is_error": False}, ResultStatus.SUCCEEDED),
    ],
)
def test_result_fails_when_is_error_or_the_subtype_is_not_success(
    result_line: dict[str, Any], status: ResultStatus
) -> None:
    [records] = parse(line("result", **result_line))
    assert records is not None and single(records, SessionResult).status is status


def test_result_reads_older_cost_usd_and_keeps_an_unknown_subtype() -> None:
    [records] = parse(line("result", subtype="error", is_error=True, cost_usd=0.5, error="x"))
    assert records is not None
    result = single(records, SessionResult)
    assert (result.subtype, result.cost_usd, result.error) == ("error", 0.5, "x")


def said(mid: str | None, output: int, cache_read: int | None = None) -> dict[str, Any]:
    usage: dict[str, Any] = {"input_tokens": 2, "output_tokens": output}
    if cache_read is not None:
        usage["cache_read_input_tokens"] = cache_read
    message: dict[str, Any] = {"content": [{"type": "text", "text": "x"}], "usage": usage}
    return line("assistant", message=message if mid is None else message | {"id": mid})


def results_of(*lines: dict[str, Any]) -> list[SessionResult]:
    return [r for records in parse(*lines) for r in records or [] if isinstance(r, SessionResult)]


def test_a_result_without_usage_gives_its_runs_messages_tokens_each_message_once() -> None:
    first, second = results_of(
        said("msg_a", 5, 100),
        said("msg_a", 7, 100),  # a second block of msg_a: its usage again, not added
        said(None, 3),  # no id (Amp): a message of its own
        said(None, 3),
        line("result", subtype="success", num_turns=2),
        said(None, 4),
        line("result", subtype="success", num_turns=1),
    )
    assert (first.input_tokens, first.output_tokens, first.cache_read_tokens) == (6, 13, 100)
    assert first.cache_write_tokens is None
    assert (second.input_tokens, second.output_tokens, second.cache_read_tokens) == (2, 4, None)


def test_a_result_with_usage_keeps_its_own_tokens() -> None:
    usage = {"input_tokens": 10, "output_tokens": 20}
    (result,) = results_of(said("msg_a", 5), line("result", subtype="success", usage=usage))
    assert (result.input_tokens, result.output_tokens, result.cache_read_tokens) == (10, 20, None)


def test_a_result_without_usage_after_messages_without_usage_has_no_tokens() -> None:
    (result,) = results_of(assistant({"type": "text", "text": "hi"}), line("result", num_turns=1))
    assert (result.input_tokens, result.output_tokens) == (None, None)


def test_results_of_one_process_give_each_turn_its_own_share_of_the_running_totals() -> None:
    first, second = results_of(
        line("result", subtype="success", total_cost_usd=0.05,
             usage={"input_tokens": 10, "output_tokens": 100}),
        line("result", subtype="success", total_cost_usd=0.08,
             usage={"input_tokens": 15, "output_tokens": 160}),
    )  # fmt: skip
    assert (first.cost_usd, first.input_tokens, first.output_tokens) == (0.05, 10, 100)
    assert (second.cost_usd, second.input_tokens, second.output_tokens) == (0.03, 5, 60)


def test_a_result_below_the_one_before_is_another_process_and_taken_as_said() -> None:
    _, second = results_of(
        line("result", subtype="success", total_cost_usd=0.05, usage={"output_tokens": 100}),
        line("result", subtype="success", total_cost_usd=0.01, usage={"output_tokens": 20}),
    )
    assert (second.cost_usd, second.output_tokens) == (0.01, 20)


def test_another_sessions_result_is_not_a_share_of_the_first_ones() -> None:
    _, other = results_of(
        line("result", subtype="success", total_cost_usd=0.05, usage={"output_tokens": 100}),
        {**line("result", subtype="success", total_cost_usd=0.08, usage={"output_tokens": 160}),
         "session_id": "s2"},
    )  # fmt: skip
    assert (other.cost_usd, other.output_tokens) == (0.08, 160)


def test_unknown_top_level_type_is_a_notice_with_a_session_and_not_mine_without() -> None:
    named, anonymous, plumbing = parse(
        line("prompt_suggestion", suggestion="Run the tests"),
        {"type": "prompt_suggestion", "suggestion": "Run the tests"},
        {"type": "keep_alive"},
    )
    assert named == [
        Notice(
            Origin(session_id="s1", timestamp=None, line=1),
            kind="prompt_suggestion",
            text="prompt_suggestion: suggestion=Run the tests",
        )
    ]
    assert anonymous is None
    assert plumbing is not None and single(plumbing, Ignored).kind == "keep_alive"


def test_a_rate_limit_is_hidden_while_allowed_and_a_warning_otherwise() -> None:
    allowed, rejected = parse(
        line("rate_limit_event", rate_limit_info={"status": "allowed"}),
        line("rate_limit_event", rate_limit_info={"status": "rejected", "rateLimitType": "5h"}),
    )
    assert allowed is not None and type(allowed[0]) is Ignored
    assert rejected is not None and single(rejected, Notice).level == "warning"


# --- the fixture of newer CLI line shapes (2.1.x) ---------------------------------------------


def test_newer_cli_lines_map_hooks_tasks_permissions_and_compaction() -> None:
    records = fixture_records("claude_stream_cli2x.jsonl")
    notices = [(r.line, r.kind, r.level) for r in only(records, Notice)]
    assert notices == [
        (2, "hook_response", "info"),
        (8, "task_started", "info"),
        (9, "subagent_prompt", "info"),
        (12, "task_notification", "info"),
        (15, "permission_request", "warning"),
        (16, "permission_denied", "warning"),
        (18, "interrupted", "warning"),
        (19, "status", "info"),
        (23, "local_command", "info"),
        (25, "api_error", "error"),
    ]
    texts = {r.kind: r.text for r in only(records, Notice)}
    assert texts["task_started"] == "Task started: Survey the tests"
    assert texts["task_notification"] == "Task completed: Found one test file"
    assert texts["permission_request"] == "Waiting for permission to use Write: /work/demo/notes.md"
    assert texts["local_command"] == "Compacted"
    ignored = [(r.line, r.kind) for r in only(records, Ignored)]
    assert ignored == [
        (1, "hook_started"),
        (4, "rate_limit_event"),
        (5, "empty assistant"),
        (6, "thinking_tokens"),
        (20, "status"),
        (22, "synthetic user text"),
        (24, "stream_event"),
    ]


def test_newer_cli_subagent_prompt_and_calls_carry_the_task_call_id() -> None:
    records = fixture_records("claude_stream_cli2x.jsonl")
    attached = [(r.line, type(r).__name__) for r in records if r.parent_call == "toolu_task1"]
    assert attached == [(9, "Notice"), (10, "ToolCall"), (11, "ToolResult")]
    prompts = [r for r in only(records, Notice) if r.kind == "subagent_prompt"]
    assert [r.text for r in prompts] == ["List the test files."]
    assert not only(records, UserText)  # the parent agent's words, not a person's


def test_newer_cli_lines_keep_their_timestamps_and_the_control_request_its_session() -> None:
    records = fixture_records("claude_stream_cli2x.jsonl")
    by_line = {r.line: r for r in records}
    assert by_line[7].timestamp == datetime(2026, 1, 5, 10, 0, 2, tzinfo=UTC)
    assert by_line[14].timestamp is None
    assert by_line[15].session_id == "cc000001-0000-4000-8000-000000000001"
    assert {r.session_id for r in records} == {"cc000001-0000-4000-8000-000000000001"}


def test_newer_cli_camel_case_compaction_and_max_turns_result() -> None:
    records = fixture_records("claude_stream_cli2x.jsonl")
    assert single(records, Compaction).trigger == "manual"
    assert single(records, Compaction).pre_tokens == 50000
    result = single(records, SessionResult)
    assert (result.status, result.subtype, result.num_turns) == (
        ResultStatus.FAILED,
        "error_max_turns",
        12,
    )
    assert result.models == ("claude-sonnet-4-5", "claude-haiku-4-5")
    assert (result.cache_read_tokens, result.cache_write_tokens) == (30000, 4000)
    assert result.permission_denials == (
        PermissionDenial(tool_name="Write", call_id="toolu_write1", summary="/work/demo/notes.md"),
    )
    interrupted = [r.call_id for r in only(records, ToolResult) if r.interrupted]
    assert interrupted == ["toolu_write1"]


# --- seed 002 (ccpretty's message formats) ----------------------------------------------------


def test_seed_002_examples_map_to_a_session_its_calls_todos_and_two_results() -> None:
    records = fixture_records("claude_stream_seed002.jsonl")
    assert {r.session_id for r in records} == {"session_abc123"}
    started = single(records, SessionStarted)
    assert (started.agent, started.tools) == ("Claude Code", ("Bash", "Read", "Write", "Edit"))
    assert [r.message_id for r in only(records, AssistantText)] == ["msg_123"]
    assert [(r.call_id, r.name) for r in only(records, ToolCall)] == [
        ("tool_use_xyz789", "Bash"),
        ("tool_use_todo", "TodoWrite"),
    ]
    assert [(r.call_id, r.is_error) for r in only(records, ToolResult)] == [
        ("tool_use_xyz789", False),
        ("tool_use_abc", True),
    ]
    todos = single(records, TodoUpdate).todos
    assert [(t.content, t.status, t.priority) for t in todos] == [
        ("Implement feature X", "completed", "high"),
        ("Write tests", "in_progress", "medium"),
    ]
    success, failure = only(records, SessionResult)
    assert (success.status, success.cost_usd, success.num_turns, success.text) == (
        ResultStatus.SUCCEEDED,
        0.0234,
        5,
        "Task completed successfully",
    )
    assert (failure.status, failure.subtype, failure.error, failure.cost_usd) == (
        ResultStatus.FAILED,
        "error",
        "Task failed: Permission denied",
        0.0045,
    )


# --- the corpus, file by file -----------------------------------------------------------------


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_read_records_gives_every_corpus_line_a_record_and_leaves_none_unparsed(name: str) -> None:
    gives_every_line_a_record(corpus_file(FAMILY_DIR, name))


def test_log_file_real_run_with_bash_todos_and_one_failed_read() -> None:
    records = corpus_records(CORPUS_FILES[0])
    assert {r.session_id for r in records} == {"a2566954-4e4c-4265-b0b2-0e42f2a13909"}
    started = single(records, SessionStarted)
    assert (started.version, started.cwd, len(started.tools)) == (
        "2.0.25",
        "/home/ari/repos/claude-code-clean-output",
        19,
    )
    calls = only(records, ToolCall)
    assert Counter(c.name for c in calls) == {
        "Bash": 9,
        "TodoWrite": 5,
        "Glob": 2,
        "Read": 2,
        "Write": 2,
    }
    assert [r.call_id for r in only(records, ToolResult) if r.is_error] == [
        "toolu_01BRu9dqQuHZTbGcPMK9KFYZ"
    ]
    assert len(only(records, ToolResult)) == 20
    assert all(r.parent_call is None for r in records)
    updates = only(records, TodoUpdate)
    assert [u.call_id for u in updates] == [c.call_id for c in calls if c.name == "TodoWrite"]
    assert [len(u.todos) for u in updates] == [7, 7, 7, 7, 7]
    assert Counter(t.status for t in updates[0].todos) == {"in_progress": 1, "pending": 6}
    assert {t.status for t in updates[-1].todos} == {"completed"}
    assert len({r.message_id for r in only(records, AssistantText)}) == 6
    result = single(records, SessionResult)
    assert (result.status, result.subtype, result.num_turns, result.cost_usd) == (
        ResultStatus.SUCCEEDED,
        "success",
        46,
        0.29422439999999994,
    )
    assert (result.input_tokens, result.output_tokens) == (54, 6430)
    assert result.models == ("claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929")
    assert (result.permission_denials, result.errors) == ((), ())


def test_simple_file_two_task_subagents_attach_their_calls_to_the_task_call() -> None:
    records = corpus_records(CORPUS_FILES[1])
    assert {r.session_id for r in records} == {"6170607e-7232-407c-82c3-7fc983d60064"}
    calls = only(records, ToolCall)
    assert len(calls) == 21
    assert Counter(c.name for c in calls) == {
        "Glob": 6,
        "Read": 5,
        "Bash": 3,
        "Grep": 2,
        "Task": 2,
        "TodoWrite": 2,
        "WebSearch": 1,
    }
    explore, locator = [c for c in calls if c.name == "Task"]
    assert (explore.call_id, explore.input["subagent_type"]) == (
        "toolu_014ZNMnsnumfmXfL43RcsT8z",
        "Explore",
    )
    assert locator.call_id == "toolu_01Xnzv79g9egnUYoGxEL9fir"
    by_parent = Counter(r.parent_call for r in records if r.parent_call is not None)
    assert by_parent == {explore.call_id: 14, locator.call_id: 12}
    assert Counter(c.parent_call for c in calls) == {
        None: 8,
        explore.call_id: 7,
        locator.call_id: 6,
    }
    assert [(r.call_id, r.parent_call) for r in only(records, ToolResult) if r.is_error] == [
        ("toolu_014sXtzjSVwGmrrxLJ35xT22", explore.call_id)
    ]
    task_answers = [r for r in only(records, ToolResult) if r.call_id == explore.call_id]
    assert task_answers[0].parent_call is None
    assert task_answers[0].output.startswith("Perfect! Here's a quick")
    updates = only(records, TodoUpdate)
    assert [[t.status for t in u.todos] for u in updates] == [
        ["in_progress", "pending"],
        ["completed", "completed"],
    ]
    result = single(records, SessionResult)
    assert (result.status, result.num_turns, result.cost_usd) == (
        ResultStatus.SUCCEEDED,
        19,
        0.21085415,
    )
    assert (result.duration_ms, result.duration_api_ms) == (42800, 70130)


def test_all_events_file_parallel_calls_thinking_and_four_todo_updates() -> None:
    records = corpus_records(CORPUS_FILES[2])
    assert {r.session_id for r in records} == {"07007l8g-9h0i-3d4e-5f6g-7h8i9j0k1l2m"}
    calls = only(records, ToolCall)
    assert [c.name for c in calls] == [
        "TodoWrite",
        "Glob",
        "Grep",
        "Read",
        "TodoWrite",
        "Edit",
        "Task",
        "TodoWrite",
        "TodoWrite",
    ]
    lines_with_two_calls = [n for n, k in Counter(c.line for c in calls).items() if k > 1]
    assert lines_with_two_calls == [4, 6, 10]
    assert single(records, Thinking).text.startswith("The user wants me to demonstrate")
    assert not any(r.is_error for r in only(records, ToolResult))
    assert all(r.parent_call is None for r in records)
    updates = only(records, TodoUpdate)
    assert [u.call_id for u in updates] == [
        "toolu_01TODO01",
        "toolu_01TODO02",
        "toolu_01TODO03",
        "toolu_01TODO04",
    ]
    assert updates[0].todos[0] == Todo(
        content="Explore codebase structure",
        status="in_progress",
        active_form="Exploring codebase structure",
    )
    assert [sum(t.status == "completed" for t in u.todos) for u in updates] == [0, 1, 3, 4]
    result = single(records, SessionResult)
    assert (result.status, result.num_turns, result.cost_usd) == (ResultStatus.SUCCEEDED, 6, 0.0425)
    assert (result.cache_read_tokens, result.cache_write_tokens) == (5000, 1000)


def test_api_error_file_unknown_error_subtype_fails_with_the_error_text() -> None:
    records = corpus_records(CORPUS_FILES[3])
    assert {r.session_id for r in records} == {"04974i5d-6e7f-0a1b-2c3d-4e5f6g7h8i9j"}
    assert [(c.call_id, c.name) for c in only(records, ToolCall)] == [("toolu_01API01", "Glob")]
    assert only(records, ToolResult) == []
    result = single(records, SessionResult)
    assert (result.status, result.subtype, result.num_turns, result.cost_usd) == (
        ResultStatus.FAILED,
        "error",
        1,
        0.002,
    )
    assert result.error == "Rate limit exceeded. Please try again in 60 seconds."
    assert (result.text, result.models, result.errors) == (None, (), ())


def test_permission_denied_file_failed_bash_and_its_denial_in_the_result() -> None:
    records = corpus_records(CORPUS_FILES[4])
    assert {r.session_id for r in records} == {"05985j6e-7f8g-1b2c-3d4e-5f6g7h8i9j0k"}
    assert [c.name for c in only(records, ToolCall)] == ["Bash"]
    failed = single(records, ToolResult)
    assert (failed.call_id, failed.is_error, failed.output) == (
        "toolu_01PERM01",
        True,
        "Permission denied by user",
    )
    result = single(records, SessionResult)
    assert (result.status, result.subtype, result.num_turns, result.cost_usd) == (
        ResultStatus.SUCCEEDED,
        "success",
        1,
        0.0065,
    )
    assert result.permission_denials == (
        PermissionDenial(tool_name="Bash", call_id="toolu_01PERM01", summary="rm -rf /tmp/cache/*"),
    )


def test_two_session_file_keeps_each_lines_session_and_both_results() -> None:
    records = corpus_records(CORPUS_FILES[5])
    first, second = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa", "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb"
    assert [s.session_id for s in only(records, SessionStarted)] == [first, second]
    assert Counter(r.session_id for r in records) == {first: 11, second: 2}
    assert single(records, UserText).text.startswith("List the files in the current directory")
    calls = only(records, ToolCall)
    assert [(c.line, c.name) for c in calls] == [(3, "Bash"), (3, "Write")]
    assert [r.is_error for r in only(records, ToolResult)] == [False, False]
    compaction = single(records, Compaction)
    assert (compaction.session_id, compaction.trigger, compaction.pre_tokens) == (
        first,
        "auto",
        4096,
    )
    state = single(records, Notice)
    assert (state.kind, state.text) == ("state", "state: phase=idle")
    done, failed = only(records, SessionResult)
    assert (done.session_id, done.status, done.num_turns, done.cost_usd) == (
        first,
        ResultStatus.SUCCEEDED,
        2,
        0.012345,
    )
    assert (failed.session_id, failed.status, failed.subtype, failed.cost_usd) == (
        second,
        ResultStatus.FAILED,
        "error_during_execution",
        0.001,
    )
    assert failed.errors == ("Permission denied: cannot write to /root/secret.txt",)
    assert failed.permission_denials == (
        PermissionDenial(
            tool_name="Write", call_id="toolu_01WRITE_SECRET_EXAMPLE", summary="/root/secret.txt"
        ),
    )
