"""OpenAI Codex ``codex exec --json`` and its legacy ``{"id","msg"}`` stream: detection, how each
event and item maps to records, and what every corpus file of the family holds (numbers counted
from the raw files, not from the parser)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blocks.root import status_line
from bot import snapshot
from bot.formats import codex_exec, detect_family, openai_messages
from bot.formats.codex_exec import Parser, detect
from bot.preview import build_preview, preview_document
from bot.records import (
    AssistantText,
    Delegation,
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
from bot.session import Session
from bot.session.tool_calls import shown_name
from bot.sources.files import split_lines
from tests.conftest import corpus_file, corpus_files, read_records
from tests.formats.helpers import only, parsed_by, single

FAMILY_DIR = "codex-exec-json"
LEGACY_DIR, LEGACY = "codex-rollout", "Karrq__vibe-kanban__codex.rs.legacy-extract.jsonl"
CORPUS_FILES = (
    "banteg__takopi__codex_exec_json_all_formats.jsonl",
    "banteg__takopi__codex_exec_json_phase_and_unknown.jsonl",
    "jnarowski__agentcmd__stream-output-1.jsonl",
    "jnarowski__agentcmd__stream-output-2.jsonl",
    "jnarowski__agentcmd__stream-output-3.jsonl",
    "jnarowski__agentcmd__stream-output-4.jsonl",
    "jnarowski__agentcmd__stream-output-5.jsonl",
    "jnarowski__agentcmd__stream-output-multi-1.jsonl",
    "shane-kercheval__switchboard__auth-failure.jsonl",
    "shane-kercheval__switchboard__errored.jsonl",
    "shane-kercheval__switchboard__file-change.jsonl",
    "shane-kercheval__switchboard__mcp-tool-call.jsonl",
    "shane-kercheval__switchboard__rate-limits.stream.jsonl",
    "shane-kercheval__switchboard__resume.jsonl",
    "shane-kercheval__switchboard__text-only.jsonl",
)
ALL_FILES = [(FAMILY_DIR, name) for name in CORPUS_FILES] + [(LEGACY_DIR, LEGACY)]


def path_of(folder: str, name: str) -> Path:
    return corpus_file(folder, name)


def corpus_records(name: str, folder: str = FAMILY_DIR) -> list[Record]:
    records, stats = read_records(path_of(folder, name))
    assert stats.unparsed == 0
    return records


def parse(*lines: dict[str, Any], source: str = "src") -> list[Record]:
    """Every record of ``lines``, read by one parser, then its ``finish``."""
    return parsed_by(Parser(source), lines)


THREAD = {"type": "thread.started", "thread_id": "t1"}


def item(event: str, /, **fields: Any) -> dict[str, Any]:
    return {"type": f"item.{event}", "item": {"id": "item_1", **fields}}


def usage(given: int, cached: int, output: int) -> dict[str, Any]:
    return {"type": "turn.completed", "usage": {"input_tokens": given,
            "cached_input_tokens": cached, "output_tokens": output}}  # fmt: skip


def legacy(kind: str, **fields: Any) -> dict[str, Any]:
    return {"id": "1", "msg": {"type": kind, **fields}}


def tokens(result: SessionResult) -> tuple[int | None, ...]:
    return (result.input_tokens, result.cache_read_tokens, result.output_tokens,
            result.reasoning_tokens)  # fmt: skip


# --- detection -------------------------------------------------------------------------------


@pytest.mark.parametrize(("folder", "name"), ALL_FILES, ids=[n for _, n in ALL_FILES])
def test_detect_claims_every_line_of_every_corpus_file(folder: str, name: str) -> None:
    data = path_of(folder, name).read_bytes()
    values = [orjson.loads(raw) for _, raw in split_lines(data) if raw.strip()]
    assert values and all(detect(value) for value in values)
    assert detect_family(values[0]) is codex_exec.FORMAT


def test_detect_claims_no_value_of_any_other_corpus_file() -> None:
    others = [p for p in corpus_files() if p.parent.name != FAMILY_DIR and p.name != LEGACY]
    if not others:
        pytest.skip("the shared corpus is absent")
    claimed = [
        (path.name, raw[:80]) for path in others for _, raw in split_lines(path.read_bytes())
        if raw.strip() and detect(orjson.loads(raw))
    ]  # fmt: skip
    assert claimed == []


@pytest.mark.parametrize(
    "value",
    [
        {"thread_id": "t", "type": "assistant", "content": "{}"},
        {"type": "thread.started"},
        {"type": "turn.started", "session_id": "s"},
        {"type": "error", "message": "x", "timestamp": "2026-01-01T00:00:00Z"},
        {"type": "item.completed", "item": "text"},
        {"type": "item.completed", "item": {"type": "agent_message"}},
        {"type": "item.removed", "item": {"id": "item_0", "type": "agent_message"}},
        {"type": "session.created", "session": {}},
        {"timestamp": "t", "type": "event_msg", "payload": {"type": "task_started"}},
        {"id": "1", "msg": "text"},
        {"id": "1", "msg": {"type": "task_started"}, "session_id": "s"},
        {"prompt": "hi", "model": "m"},
        {"model": "m", "workdir": "/w", "role": "user"},
        [THREAD],
    ],
    ids=[
        "suna-row",
        "thread-without-id",
        "turn-with-other-keys",
        "error-with-other-keys",
        "item-not-an-object",
        "item-without-id",
        "unknown-item-event",
        "realtime-session",
        "codex-rollout",
        "legacy-msg-not-an-object",
        "legacy-with-other-keys",
        "prompt-with-other-keys",
        "config-with-other-keys",
        "a-list",
    ],
)
def test_detect_rejects_lookalikes(value: object) -> None:
    assert not detect(value)


def test_openai_messages_no_longer_claims_a_thread_start_but_still_a_suna_row() -> None:
    assert not openai_messages.detect(THREAD)
    assert openai_messages.detect({"thread_id": "t", "type": "assistant", "content": "{}"})


# --- the corpus, file by file -----------------------------------------------------------------


@pytest.mark.parametrize(("folder", "name"), ALL_FILES, ids=[n for _, n in ALL_FILES])
def test_read_records_gives_every_corpus_line_a_record_and_leaves_none_unparsed(
    folder: str, name: str
) -> None:
    path = path_of(folder, name)
    records, stats = read_records(path)
    assert stats.unparsed == 0
    assert {r.line for r in records} == {n for n, raw in split_lines(path.read_bytes()) if raw}


def test_all_formats_file_every_tool_kind_three_failures_todos_and_two_turns() -> None:
    records = corpus_records(CORPUS_FILES[0])
    assert {r.session_id for r in records} == {"0199a213-81c0-7800-8aa1-bbab2a035a53"}
    calls = only(records, ToolCall)
    assert Counter(c.name for c in calls) == {
        "shell": 2,
        "apply_patch": 2,
        "mcp__github__search_issues": 2,
        "web_search": 1,
    }
    results = only(records, ToolResult)
    assert [r.call_id for r in results] == [c.call_id for c in calls]
    assert [r.call_id for r in results if r.is_error] == ["item_2", "item_4", "item_6"]
    assert [r.output for r in results if r.is_error] == [
        "Exit code 1\n....F\n",
        "update src/compute_answer.py",
        "tool timeout",
    ]
    timeout = next(c for c in calls if c.call_id == "item_6")
    assert (timeout.input, timeout.raw_input) == ({}, None)  # arguments: null
    updates = only(records, TodoUpdate)
    assert [[t.status for t in u.todos] for u in updates] == [
        ["pending", "pending", "pending"],
        ["completed", "pending", "pending"],
        ["completed", "completed", "completed"],
    ]
    assert single(records, Thinking).text == "Root cause: compute_answer() returned 0."
    assert [(n.kind, n.level) for n in only(records, Notice)] == [
        ("error", "warning"),
        ("error", "warning"),
    ]
    done, failed = only(records, SessionResult)
    assert (done.status, done.text) == (
        ResultStatus.SUCCEEDED,
        "Updated src/compute_answer.py and tests pass.",
    )
    assert tokens(done) == (1584, 256, 732, None)
    assert (failed.status, failed.error) == (
        ResultStatus.FAILED,
        "Aborted: required dependency `npm` is missing; cannot continue.",
    )
    assert tokens(failed) == (None, None, None, None)


def test_phase_file_delegates_to_a_worker_links_it_and_notes_the_unknown_item() -> None:
    records = corpus_records(CORPUS_FILES[1])
    delegation = single(records, Delegation)
    assert (delegation.call_id, delegation.member, delegation.task) == (
        "item_3",
        "worker-thread",
        "Find failing tests",
    )
    link = single(records, SubagentLink)
    assert (link.agent_id, link.call_id) == ("worker-thread", "item_3")
    answer = single(records, ToolResult)
    assert (answer.call_id, answer.output, answer.is_error) == ("item_3", "done", False)
    assert only(records, ToolCall) == []
    unknown = single(records, Notice)
    assert (unknown.kind, unknown.level) == ("future_item", "info")
    assert '"count":2' in unknown.text
    assert [t.text for t in only(records, AssistantText)] == [
        "Inspecting repository state.",
        "Implemented the requested changes.",
    ]
    result = single(records, SessionResult)
    assert (result.text, tokens(result)) == ("Implemented the requested changes.", (10, 0, 5, None))


# name: (thread id, shell calls, file changes, thinking, tokens in (not cached)/cached/out)
STREAM_OUTPUTS = {
    "jnarowski__agentcmd__stream-output-1.jsonl": ("019a2d7a-41c4", 0, 0, 1, (2946, 0, 7)),
    "jnarowski__agentcmd__stream-output-2.jsonl": ("019a2d7a-6455", 1, 0, 1, (1048, 4992, 129)),
    "jnarowski__agentcmd__stream-output-3.jsonl": ("019a2d7a-8e1c", 0, 1, 1, (1912, 4096, 51)),
    "jnarowski__agentcmd__stream-output-4.jsonl": ("019a2d7b-231d", 1, 0, 2, (967, 5120, 204)),
    "jnarowski__agentcmd__stream-output-5.jsonl": ("019a2d7b-7fb8", 1, 0, 2, (3142, 2944, 223)),
}


@pytest.mark.parametrize("name", list(STREAM_OUTPUTS))
def test_captured_runs_one_session_their_calls_thinking_answer_and_tokens(name: str) -> None:
    thread, shells, patches, thoughts, (given, cached, output) = STREAM_OUTPUTS[name]
    records = corpus_records(name)
    (session,) = {r.session_id for r in records}
    assert session.startswith(thread)
    assert single(records, SessionStarted).agent == "Codex"
    calls = only(records, ToolCall)
    assert Counter(c.name for c in calls) == Counter(shell=shells, apply_patch=patches) - Counter()
    assert [r.is_error for r in only(records, ToolResult)] == [False] * len(calls)
    assert len(only(records, Thinking)) == thoughts
    answer = only(records, AssistantText)[-1].text
    result = single(records, SessionResult)
    assert (result.status, result.text) == (ResultStatus.SUCCEEDED, answer)
    assert tokens(result) == (given, cached, output, None)


def test_all_formats_file_shows_its_mcp_calls_by_server_tool_and_query() -> None:
    (session,) = build_preview([path_of(FAMILY_DIR, CORPUS_FILES[0])]).sessions()
    shown = [(shown_name(c.name), c.summary) for c in session.calls.values() if "mcp__" in c.name]
    assert shown == [("github › search_issues", "exec --json"), ("github › search_issues", "")]


def test_a_run_cut_after_its_turn_started_has_no_result_and_stays_running() -> None:
    records = corpus_records("jnarowski__agentcmd__stream-output-multi-1.jsonl")
    assert [type(r) for r in records] == [SessionStarted, Ignored]
    document = preview_document(build_preview([path_of(FAMILY_DIR, CORPUS_FILES[7])]))
    assert [s["status"] for s in document["sessions"]] == ["running"]


def test_auth_failure_retries_are_info_notices_and_the_turn_fails() -> None:
    records = corpus_records("shane-kercheval__switchboard__auth-failure.jsonl")
    notices = only(records, Notice)
    assert Counter((n.kind, n.level) for n in notices) == {
        ("status", "info"): 9,
        ("error", "warning"): 1,
    }
    assert all(n.text.startswith("Reconnecting... ") for n in notices if n.kind == "status")
    result = single(records, SessionResult)
    assert result.status is ResultStatus.FAILED
    assert result.error == notices[-1].text
    assert result.error.startswith("unexpected status 401 Unauthorized")


def test_bad_model_error_is_a_warning_and_the_failed_turns_error() -> None:
    records = corpus_records("shane-kercheval__switchboard__errored.jsonl")
    assert single(records, Notice).level == "warning"
    result = single(records, SessionResult)
    assert result.status is ResultStatus.FAILED
    message = "The 'invalid-model-name' model is not supported when using Codex with a ChatGPT "
    assert result.error == message + "account. (HTTP 400)"
    assert single(records, Notice).text == result.error


def test_an_error_whose_message_is_a_json_envelope_says_its_inner_message() -> None:
    envelope = '{"type":"error","status":429,"error":{"message":"Slow down"}}'
    records = parse(THREAD, {"type": "error", "message": envelope},
                    {"type": "turn.failed", "error": {"message": envelope}})  # fmt: skip
    assert [only(records, Notice)[0].text, single(records, SessionResult).error] == [
        "Slow down (HTTP 429)"
    ] * 2


def test_an_error_message_of_json_without_an_inner_message_is_kept_as_it_is() -> None:
    text = '{"status":500}'
    records = parse(THREAD, {"type": "turn.failed", "error": {"message": text}})
    assert single(records, SessionResult).error == text


def test_file_change_file_failed_git_status_and_a_two_file_patch() -> None:
    records = corpus_records("shane-kercheval__switchboard__file-change.jsonl")
    calls = only(records, ToolCall)
    assert [(c.call_id, c.name) for c in calls] == [("item_1", "shell"), ("item_4", "apply_patch")]
    assert [len(c.input["changes"]) for c in calls if c.name == "apply_patch"] == [2]
    failed, patched = only(records, ToolResult)
    assert failed.is_error and failed.output.startswith("Exit code 128\nfatal: not a git")
    assert not patched.is_error
    assert tokens(single(records, SessionResult)) == (13943, 47616, 396, 0)


def test_mcp_call_failed_with_a_null_error_says_the_text_of_its_result() -> None:
    records = corpus_records("shane-kercheval__switchboard__mcp-tool-call.jsonl")
    call = single(records, ToolCall)
    assert (call.name, call.input) == ("mcp__example_mcp_server__list_tags", {})
    result = single(records, ToolResult)
    assert (result.is_error, result.output) == (True, "Invalid or expired token")


@pytest.mark.parametrize(
    ("name", "given", "cached", "output"),
    [
        ("shane-kercheval__switchboard__rate-limits.stream.jsonl", 8016, 7552, 5),
        ("shane-kercheval__switchboard__text-only.jsonl", 8016, 7552, 5),
        ("shane-kercheval__switchboard__resume.jsonl", 8374, 22784, 10),
    ],
)
def test_text_only_runs_answer_ack_with_their_tokens(
    name: str, given: int, cached: int, output: int
) -> None:
    records = corpus_records(name)
    assert {r.session_id for r in records} == {"00000000-0000-7000-8000-000000000001"}
    result = single(records, SessionResult)
    assert (result.text, tokens(result)) == ("ack", (given, cached, output, 0))


def test_legacy_extract_two_runs_named_after_the_source() -> None:
    records = corpus_records(LEGACY, LEGACY_DIR)
    path = str(path_of(LEGACY_DIR, LEGACY))
    first = [r for r in records if r.session_id == path]
    second = [r for r in records if r.session_id == f"{path}#2"]
    assert len(first) + len(second) == len(records)
    assert single(first, SessionStarted).agent == "Codex"
    call = single(first, ToolCall)
    assert (call.call_id, call.name, call.input["command"], call.input["cwd"]) == (
        "call_I1o1QnQDtlLjGMg4Vd9HXJLd",
        "shell",
        "bash -lc 'ls -1'",
        "/Users/user/dev/vk-wip",
    )
    assert single(first, ToolResult).output.startswith("AGENT.md\nCLAUDE.md\n")
    result = single(first, SessionResult)
    assert result.status is ResultStatus.SUCCEEDED
    assert (result.text or "").startswith("I can see the directory structure")
    assert tokens(result) == (None, None, None, None)  # its token_count comes after it
    assert single(first, UserText).text.endswith("Task title: describe this repo")
    assert single(first, Notice).text.startswith("Missing environment variable")
    started = single(second, SessionStarted)
    assert (started.model, started.cwd) == (
        "codex-mini-latest",
        "/private/var/folders/4m/6cwx14sx59lc2k9km5ph76gh0000gn/T/vibe-kanban-dev/"
        "vk-ec8b-describe-t",
    )
    patch = single(second, ToolCall)
    assert (patch.name, [c["kind"] for c in patch.input["changes"]]) == ("apply_patch", ["update"])
    assert not single(second, ToolResult).is_error
    assert single(second, AssistantText).text.startswith("I've made a small restructuring")
    assert only(second, SessionResult) == []


def test_preview_statuses_of_the_family() -> None:
    statuses = {}
    for folder, name in ALL_FILES:
        document = preview_document(build_preview([path_of(folder, name)]))
        statuses[name] = [s["status"] for s in document["sessions"]]
    assert Counter(tuple(s) for s in statuses.values()) == {
        ("succeeded",): 11,
        ("failed",): 3,
        ("running",): 1,
        ("succeeded", "running"): 1,
    }


# --- exec --json: events ----------------------------------------------------------------------


def test_the_thread_id_of_the_first_line_names_every_later_line() -> None:
    records = parse(THREAD, {"type": "turn.started"}, item("completed", type="reasoning", text="t"))
    assert [r.session_id for r in records] == ["t1", "t1", "t1"]
    assert [r.timestamp for r in records] == [None, None, None]


def test_lines_before_any_thread_start_are_a_session_named_after_the_source() -> None:
    records = parse({"type": "turn.started"}, source="log.jsonl")
    assert [(type(r), r.session_id) for r in records] == [
        (SessionStarted, "log.jsonl"),
        (Ignored, "log.jsonl"),
    ]


def test_turn_usage_is_the_threads_running_total_so_a_turn_reports_the_difference() -> None:
    records = parse(THREAD, usage(100, 40, 10), {"type": "turn.started"}, usage(250, 100, 30))
    first, second = only(records, SessionResult)
    assert tokens(first) == (60, 40, 10, None)
    assert tokens(second) == (90, 60, 20, None)


def test_another_thread_starts_its_own_running_total() -> None:
    other = {"type": "thread.started", "thread_id": "t2"}
    records = parse(THREAD, usage(100, 40, 10), other, usage(30, 0, 3))
    assert [(r.session_id, tokens(r)) for r in only(records, SessionResult)] == [
        ("t1", (60, 40, 10, None)),
        ("t2", (30, 0, 3, None)),
    ]


def test_a_total_that_went_down_is_taken_as_it_is() -> None:
    records = parse(THREAD, usage(100, 40, 10), usage(50, 0, 5))
    assert tokens(only(records, SessionResult)[1]) == (50, 0, 5, None)


def test_a_resumed_run_is_the_same_session_and_its_items_get_their_runs_number() -> None:
    shell = item("completed", type="command_execution", command="ls", aggregated_output="",
                 exit_code=0, status="completed")  # fmt: skip
    records = parse(THREAD, shell, usage(10, 0, 1), THREAD, shell, usage(25, 0, 3))
    assert {r.session_id for r in records} == {"t1"}
    assert [c.call_id for c in only(records, ToolCall)] == ["item_1", "item_1@2"]
    assert [tokens(r) for r in only(records, SessionResult)] == [
        (10, 0, 1, None),
        (15, 0, 2, None),
    ]
    assert [type(r) for r in records].count(SessionStarted) == 2


def test_a_resumed_thread_takes_its_last_result() -> None:
    failed = {"type": "turn.failed", "error": {"message": "boom"}}
    path_records = parse(THREAD, failed, THREAD, usage(5, 0, 1))
    assert [r.status for r in only(path_records, SessionResult)] == [
        ResultStatus.FAILED,
        ResultStatus.SUCCEEDED,
    ]


def test_a_turn_failed_with_a_string_error_says_it() -> None:
    result = parse(THREAD, {"type": "turn.failed", "error": "quota"})[-1]
    assert isinstance(result, SessionResult)
    assert (result.status, result.error) == (ResultStatus.FAILED, "quota")


def test_the_result_text_is_the_final_answer_even_if_commentary_follows() -> None:
    final = item("completed", type="agent_message", phase="final_answer", text="answer")
    later = {"type": "item.completed", "item": {"id": "item_2", "type": "agent_message",
                                                "phase": "commentary", "text": "x"}}  # fmt: skip
    result = parse(THREAD, final, later, usage(1, 0, 1))[-1]
    assert isinstance(result, SessionResult) and result.text == "answer"


def test_a_turn_with_no_message_has_a_result_without_text() -> None:
    result = parse(THREAD, usage(1, 0, 1))[-1]
    assert isinstance(result, SessionResult) and result.text is None


@pytest.mark.parametrize(
    ("message", "kind", "level"),
    [
        ("Reconnecting... 1/5 (stream disconnected)", "status", "info"),
        ("stream disconnected before completion", "error", "warning"),
    ],
)
def test_a_stream_error_is_a_notice_retries_low_key(message: str, kind: str, level: str) -> None:
    notice = parse(THREAD, {"type": "error", "message": message})[-1]
    assert isinstance(notice, Notice)
    assert (notice.kind, notice.level, notice.text) == (kind, level, message)


def test_a_request_for_user_input_is_a_warning_naming_the_questions() -> None:
    value = {"type": "request_user_input", "id": "turn-1", "call_id": "c1",
             "questions": [{"id": "q", "header": "Pick", "question": "Which branch?"}]}  # fmt: skip
    notice = parse(THREAD, value)[-1]
    assert isinstance(notice, Notice)
    assert (notice.kind, notice.level) == ("request_user_input", "warning")
    assert notice.text == "Codex asks for input: Which branch?"


def test_an_unknown_event_is_a_notice() -> None:
    notice = parse(THREAD, {"type": "thread.archived", "reason": "old"})[-1]
    assert isinstance(notice, Notice)
    assert notice.kind == "thread.archived"
    assert notice.text == 'Codex event thread.archived: {"reason":"old"}'


def test_an_unknown_item_event_is_a_notice() -> None:
    value = {"type": "item.deleted", "item": {"id": "item_1", "type": "agent_message"}}
    notice = parse(THREAD, value)[-1]
    assert isinstance(notice, Notice) and notice.kind == "item.deleted"


@pytest.mark.parametrize(
    "value",
    [[1, 2], "text", 3, {"type": 7}, {"type": "item.completed", "item": {"id": "x"}}],
)
def test_values_that_are_not_typed_events_are_not_this_format(value: object) -> None:
    assert Parser("src").parse(value, 1) is None


# --- exec --json: items -----------------------------------------------------------------------


def test_a_command_is_called_when_it_starts_and_answered_when_it_completes() -> None:
    fields = {"type": "command_execution", "command": "bash -lc ls", "aggregated_output": ""}
    records = parse(
        THREAD,
        item("started", **fields, status="in_progress"),
        item("updated", **fields, status="in_progress"),
        item("completed", **{**fields, "aggregated_output": "a\n"}, exit_code=0,
             status="completed"),
    )[1:]
    assert [type(r) for r in records] == [ToolCall, Ignored, ToolResult]
    call, _, result = records
    assert isinstance(call, ToolCall) and isinstance(result, ToolResult)
    assert (call.call_id, call.name, call.input) == ("item_1", "shell", {"command": "bash -lc ls"})
    assert (result.call_id, result.output, result.is_error) == ("item_1", "a\n", False)


def test_a_command_seen_only_when_complete_is_called_then_answered() -> None:
    value = item("completed", type="command_execution", command="x", aggregated_output="",
                 exit_code=0, status="completed")  # fmt: skip
    records = parse(THREAD, value)[1:]
    assert [type(r) for r in records] == [ToolCall, ToolResult]
    assert records[0].origin is records[1].origin


@pytest.mark.parametrize(
    ("exit_code", "status", "output", "is_error"),
    [
        (0, "completed", "ok", False),
        (2, "failed", "Exit code 2\nok", True),
        (None, "failed", "ok", True),
        (None, "declined", "Declined", True),
    ],
)
def test_a_command_fails_on_its_status_or_exit_code(
    exit_code: int | None, status: str, output: str, is_error: bool
) -> None:
    given = "" if status == "declined" else "ok"
    value = item("completed", type="command_execution", command="x", aggregated_output=given,
                 exit_code=exit_code, status=status)  # fmt: skip
    result = parse(THREAD, value)[-1]
    assert isinstance(result, ToolResult)
    assert (result.output, result.is_error) == (output, is_error)


def test_a_file_change_is_an_apply_patch_call_listing_its_changes() -> None:
    changes = [{"path": "a.py", "kind": "update", "diff": "@@"}, {"path": "b.py", "kind": "add"}]
    records = parse(THREAD, item("completed", type="file_change", changes=changes,
                                 status="completed"))[1:]  # fmt: skip
    call, result = records
    assert isinstance(call, ToolCall) and isinstance(result, ToolResult)
    assert call.input == {"changes": [{"path": "a.py", "kind": "update"},
                                      {"path": "b.py", "kind": "add"}]}  # fmt: skip
    assert (result.output, result.is_error) == ("update a.py\nadd b.py", False)


@pytest.mark.parametrize(
    ("fields", "output", "is_error"),
    [
        ({"error": "socket closed", "status": "failed"}, "socket closed", True),
        ({"error": {"message": "tool timeout"}, "status": "failed"}, "tool timeout", True),
        ({"error": {"message": "odd"}, "status": "completed"}, "odd", True),
        ({"result": {"content": [], "structured_content": {"n": 1}}, "status": "completed"},
         '{"n":1}', False),
        ({"result": {"content": [{"type": "text", "text": "no"}]}, "status": "failed"},
         "no", True),
    ],
    ids=["error-string", "error-message", "error-despite-status", "structured", "failed-result"],
)
def test_an_mcp_call_fails_on_its_status_or_any_error_shape(
    fields: dict[str, Any], output: str, is_error: bool
) -> None:
    value = item("completed", type="mcp_tool_call", server="s", tool="t", arguments={"a": 1},
                 **{"result": None, "error": None, **fields})  # fmt: skip
    call, result = parse(THREAD, value)[1:]
    assert isinstance(call, ToolCall) and isinstance(result, ToolResult)
    assert (call.name, call.input) == ("mcp__s__t", {"a": 1})
    assert (result.output, result.is_error) == (output, is_error)


def test_mcp_arguments_that_are_not_an_object_are_shown_raw() -> None:
    value = item("started", type="mcp_tool_call", server="s", tool="t", arguments=[1, 2],
                 status="in_progress")  # fmt: skip
    call = parse(THREAD, value)[-1]
    assert isinstance(call, ToolCall) and (call.input, call.raw_input) == ({}, "[1,2]")


def test_a_web_search_is_a_call_and_an_empty_result() -> None:
    action = {"type": "search", "query": "q"}
    call, result = parse(THREAD, item("completed", type="web_search", query="q",
                                      action=action))[1:]  # fmt: skip
    assert isinstance(call, ToolCall) and isinstance(result, ToolResult)
    assert (call.name, call.input) == ("web_search", {"query": "q", "action": action})
    assert (result.output, result.is_error) == ("", False)


def test_a_todo_list_is_a_todo_update_at_every_phase() -> None:
    todos = [{"text": "a", "completed": True}, {"text": "b", "completed": False}]
    records = parse(THREAD, *(item(p, type="todo_list", items=todos)
                              for p in ("started", "updated", "completed")))[1:]  # fmt: skip
    assert [type(r) for r in records] == [TodoUpdate] * 3
    update = records[0]
    assert isinstance(update, TodoUpdate)
    assert [(t.content, t.status) for t in update.todos] == [("a", "completed"), ("b", "pending")]
    assert update.call_id == "item_1"


def spawn(phase: str, receivers: list[str], states: dict[str, Any]) -> dict[str, Any]:
    return item(phase, type="collab_tool_call", tool="spawn_agent", sender_thread_id="main",
                receiver_thread_ids=receivers, prompt="Find tests", agents_states=states,
                status="completed" if phase == "completed" else "in_progress")  # fmt: skip


def test_a_spawn_whose_thread_is_known_only_at_its_end_is_linked_then_once() -> None:
    states = {"w1": {"status": "completed", "message": "found 3"}}
    records = parse(THREAD, spawn("started", [], {}), spawn("completed", ["w1"], states))[1:]
    assert [type(r) for r in records] == [Delegation, SubagentLink, ToolResult]
    delegation, link, result = records
    assert isinstance(delegation, Delegation) and isinstance(link, SubagentLink)
    assert (delegation.member, delegation.task) == ("", "Find tests")
    assert (link.agent_id, link.call_id) == ("w1", "item_1")
    assert isinstance(result, ToolResult) and result.output == "found 3"


def test_a_spawn_linked_when_it_starts_is_not_linked_again() -> None:
    states = {"w1": {"status": "completed", "message": None}}
    records = parse(THREAD, spawn("started", ["w1"], {}), spawn("completed", ["w1"], states))
    assert len(only(records, SubagentLink)) == 1
    assert single(records, ToolResult).output == "completed"


def test_wait_is_a_tool_call_answered_with_every_agents_state() -> None:
    states = {"w1": {"status": "completed", "message": "ok"}, "w2": {"status": "errored"}}
    value = item("completed", type="collab_tool_call", tool="wait", sender_thread_id="main",
                 receiver_thread_ids=["w1", "w2"], prompt=None, agents_states=states,
                 status="failed")  # fmt: skip
    call, result = parse(THREAD, value)[1:]
    assert isinstance(call, ToolCall) and isinstance(result, ToolResult)
    assert (call.name, call.input) == ("wait", {"receiver_thread_ids": ["w1", "w2"]})
    assert (result.output, result.is_error) == ("w1: ok\nw2: errored", True)


def test_reasoning_and_agent_messages_are_said_when_complete() -> None:
    records = parse(
        THREAD,
        item("started", type="agent_message", text=""),
        item("completed", type="agent_message", text="hi"),
        item("completed", type="reasoning", text="hmm"),
    )[1:]
    assert [type(r) for r in records] == [Ignored, AssistantText, Thinking]
    assert isinstance(records[1], AssistantText) and records[1].message_id == "item_1"


def test_plan_deltas_are_held_and_the_completed_plan_is_said_once() -> None:
    delta = {"type": "item.plan.delta", "item_id": "item_1", "delta": "1. do"}
    records = parse(THREAD, delta, delta, item("completed", type="plan", text="1. do it"))[1:]
    assert [type(r) for r in records] == [Ignored, Ignored, AssistantText]
    assert isinstance(records[-1], AssistantText) and records[-1].text == "1. do it"


def test_a_plan_still_streaming_at_the_end_is_said_by_finish() -> None:
    delta = {"type": "item.plan.delta", "item_id": "item_1", "delta": "1. do"}
    records = parse(THREAD, delta, {**delta, "delta": " it"})
    assert isinstance(records[-1], AssistantText) and records[-1].text == "1. do it"


def test_an_error_item_is_a_warning() -> None:
    notice = parse(THREAD, item("completed", type="error", message="model rerouted"))[-1]
    assert isinstance(notice, Notice)
    assert (notice.kind, notice.level, notice.text) == ("error", "warning", "model rerouted")


def test_an_unknown_item_is_a_notice_when_it_completes() -> None:
    records = parse(THREAD, item("started", type="image_view", path="a.png"),
                    item("completed", type="image_view", path="a.png"))[1:]  # fmt: skip
    assert [type(r) for r in records] == [Ignored, Notice]
    assert records[1].kind == "image_view" and "a.png" in records[1].text  # type: ignore[attr-defined]


# --- the legacy stream ------------------------------------------------------------------------

CONFIG = {"workdir": "/w", "model": "o4-mini", "provider": "openai", "approval": "never",
          "sandbox": "read-only"}  # fmt: skip


def test_legacy_config_and_prompt_start_a_session_named_after_the_source() -> None:
    records = parse(CONFIG, {"prompt": "fix it"}, legacy("user_message", message="fix it"),
                    source="run.log")  # fmt: skip
    assert [type(r) for r in records] == [SessionStarted, UserText, Ignored]
    started = records[0]
    assert isinstance(started, SessionStarted)
    assert (started.session_id, started.model, started.cwd) == ("run.log", "o4-mini", "/w")


def test_legacy_second_run_in_one_file_is_another_session() -> None:
    records = parse(CONFIG, legacy("task_started"), CONFIG, source="run.log")
    assert [r.session_id for r in records] == ["run.log", "run.log", "run.log#2"]


def test_legacy_command_fails_on_its_exit_code() -> None:
    records = parse(
        legacy("exec_command_begin", call_id="c1", command=["bash", "-lc", "make x"], cwd="/w"),
        legacy("exec_command_end", call_id="c1", stdout="out", stderr="err", exit_code=2),
    )
    call, result = only(records, ToolCall)[0], single(records, ToolResult)
    assert call.input == {"command": "bash -lc 'make x'", "cwd": "/w"}
    assert (result.output, result.is_error) == ("Exit code 2\nout\nerr", True)


def test_legacy_end_without_its_begin_is_called_first() -> None:
    records = parse(legacy("patch_apply_end", call_id="p", stdout="", stderr="no", success=False))
    assert [type(r) for r in records] == [SessionStarted, ToolCall, ToolResult]
    assert isinstance(records[2], ToolResult) and records[2].is_error


@pytest.mark.parametrize(
    ("result", "output", "is_error"),
    [
        ({"Ok": {"content": [{"type": "text", "text": "fine"}], "isError": False}}, "fine", False),
        ({"Ok": {"content": [{"type": "text", "text": "bad"}], "isError": True}}, "bad", True),
        ({"Err": "rejected"}, "rejected", True),
    ],
)
def test_legacy_mcp_call_ok_or_err(result: dict[str, Any], output: str, is_error: bool) -> None:
    invocation = {"server": "notes", "tool": "find", "arguments": {"q": "x"}}
    records = parse(legacy("mcp_tool_call_begin", call_id="m", invocation=invocation),
                    legacy("mcp_tool_call_end", call_id="m", invocation=invocation,
                           duration="1s", result=result))  # fmt: skip
    call, answer = single(records, ToolCall), single(records, ToolResult)
    assert (call.name, call.input) == ("mcp__notes__find", {"q": "x"})
    assert (answer.output, answer.is_error) == (output, is_error)


def test_legacy_task_sums_its_token_counts_into_its_result() -> None:
    records = parse(
        legacy("task_started"),
        legacy("token_count", input_tokens=10, cached_input_tokens=2, output_tokens=3,
               reasoning_output_tokens=1, total_tokens=13),
        legacy("token_count", info={"last_token_usage": {"input_tokens": 20, "output_tokens": 4},
                                    "total_token_usage": {"input_tokens": 30}}),
        legacy("token_count", info=None),
        legacy("task_complete", last_agent_message="done"),
    )  # fmt: skip
    result = single(records, SessionResult)
    assert (result.status, result.text, tokens(result)) == (
        ResultStatus.SUCCEEDED,
        "done",
        (28, 2, 7, 1),
    )


def test_legacy_error_in_a_task_fails_its_completion() -> None:
    records = parse(legacy("task_started"), legacy("error", message="quota exceeded"),
                    legacy("task_complete", last_agent_message=None))  # fmt: skip
    assert single(records, Notice).level == "warning"
    result = single(records, SessionResult)
    assert (result.status, result.error, result.text) == (
        ResultStatus.FAILED,
        "quota exceeded",
        None,
    )


def test_legacy_error_whose_message_is_a_json_envelope_says_its_inner_message() -> None:
    envelope = '{"type":"error","status":400,"error":{"message":"Unsupported model"}}'
    records = parse(legacy("task_started"), legacy("error", message=envelope),
                    legacy("stream_error", message=envelope),
                    legacy("task_complete", last_agent_message=None))  # fmt: skip
    said = "Unsupported model (HTTP 400)"
    assert [n.text for n in only(records, Notice)] == [said, said]
    assert single(records, SessionResult).error == said


def test_legacy_extract_error_of_plain_text_is_said_as_it_is() -> None:
    records = corpus_records(LEGACY, LEGACY_DIR)
    (notice,) = only(records, Notice)
    assert notice.text == (
        "Missing environment variable: `OPENAI_API_KEY`. Create an API key "
        "(https://platform.openai.com) and export it as an environment variable."
    )


def test_legacy_aborted_turn_fails_as_aborted() -> None:
    result = parse(legacy("turn_aborted", reason="interrupted"))[-1]
    assert isinstance(result, SessionResult)
    assert (result.status, result.subtype, result.error) == (
        ResultStatus.FAILED,
        "aborted",
        "interrupted",
    )


def test_legacy_text_plan_approvals_deltas_and_unknown_events() -> None:
    records = parse(
        legacy("agent_reasoning", text="thinking"),
        legacy("agent_message", message="hello"),
        legacy("plan_update", plan=[{"step": "a", "status": "in_progress"}]),
        legacy("exec_approval_request", call_id="c", command=["rm", "-rf", "x"], cwd="/"),
        legacy("agent_message_delta", delta="he"),
        legacy("stream_error", message="Reconnecting... 1/5"),
        legacy("brand_new", value=1),
    )[1:]
    assert [type(r) for r in records] == [Thinking, AssistantText, TodoUpdate, Notice, Ignored,
                                          Notice, Notice]  # fmt: skip
    plan = records[2]
    assert isinstance(plan, TodoUpdate) and [(t.content, t.status) for t in plan.todos] == [
        ("a", "in_progress")
    ]
    notices = [r for r in records if isinstance(r, Notice)]
    assert [(n.kind, n.level) for n in notices] == [
        ("approval", "warning"),
        ("stream_error", "info"),
        ("brand_new", "info"),
    ]
    assert notices[0].text == "Waiting for approval: rm -rf x"


# --- state ------------------------------------------------------------------------------------


def test_a_parser_snapshot_mid_stream_goes_on_where_it_was() -> None:
    parser = Parser("src")
    parser.parse(THREAD, 1)
    parser.parse(usage(100, 0, 10), 2)
    parser.parse(item("started", type="command_execution", command="x", status="in_progress"), 3)
    restored = snapshot.loads(snapshot.dumps(parser))
    done = item("completed", type="command_execution", command="x", aggregated_output="",
                exit_code=0, status="completed")  # fmt: skip
    assert [type(r) for r in restored.parse(done, 4) or []] == [ToolResult]
    result = (restored.parse(usage(150, 0, 12), 5) or [None])[0]
    assert isinstance(result, SessionResult) and result.session_id == "t1"
    assert tokens(result) == (50, 0, 2, None)


def test_calls_that_never_complete_do_not_grow_the_state_without_bound() -> None:
    parser = Parser("src")
    parser.parse(THREAD, 1)
    for n in range(5000):
        started = {"type": "item.started", "item": {"id": f"item_{n}", "type": "web_search",
                                                    "query": "q"}}  # fmt: skip
        parser.parse(started, n + 2)
    assert len(snapshot.dumps(parser)) < 400_000


def _nested(inner: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    """Lists and objects of ``inner`` values (a named function: hypothesis read the lambda
    that stood here as one not using its argument, and warned that it could not recurse)."""
    return st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)


_ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5), _nested, max_leaves=6
)
_TYPES = ["thread.started", "turn.started", "turn.completed", "turn.failed", "item.started",
          "item.updated", "item.completed", "item.plan.delta", "error", "request_user_input",
          "other"]  # fmt: skip
_ITEM_TYPES = ["agent_message", "reasoning", "command_execution", "file_change",
               "mcp_tool_call", "web_search", "todo_list", "collab_tool_call", "plan", "error",
               "other"]  # fmt: skip
_FIELDS = ["thread_id", "usage", "error", "message", "questions", "item_id", "delta"]
_ITEM_FIELDS = ["text", "command", "aggregated_output", "exit_code", "status", "changes",
                "server", "tool", "arguments", "result", "error", "query", "action", "items",
                "receiver_thread_ids", "prompt", "agents_states", "phase"]  # fmt: skip
_ITEM = st.fixed_dictionaries(
    {"id": st.sampled_from(["item_0", "item_1"]), "type": st.sampled_from(_ITEM_TYPES)},
    optional={key: _ANY_JSON for key in _ITEM_FIELDS},
)
_EVENT = st.fixed_dictionaries(
    {"type": st.sampled_from(_TYPES)},
    optional={"item": _ITEM | _ANY_JSON, **{key: _ANY_JSON for key in _FIELDS}},
)
_LEGACY_EVENT = st.fixed_dictionaries(
    {"id": st.just("1"), "msg": st.fixed_dictionaries(
        {"type": st.sampled_from(["exec_command_begin", "exec_command_end", "patch_apply_begin",
                                  "patch_apply_end", "mcp_tool_call_begin", "mcp_tool_call_end",
                                  "token_count", "task_complete", "error", "plan_update",
                                  "agent_message", "turn_aborted"])},
        optional={key: _ANY_JSON for key in ("call_id", "command", "stdout", "exit_code",
                                             "changes", "invocation", "result", "info", "plan",
                                             "message", "success", "input_tokens")})},
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(_EVENT | _LEGACY_EVENT, max_size=10))
def test_any_event_shapes_give_records_never_an_exception(values: list[dict[str, Any]]) -> None:
    parser = Parser("src")
    for number, value in enumerate(values, start=1):
        records = parser.parse(value, number)
        assert records is None or all(isinstance(r, Record) for r in records)
    assert all(isinstance(r, Record) for r in parser.finish())


def status_line_of(records: list[Record]) -> str:
    """The root's status line of the one session ``records`` make."""
    session = Session("t1")
    for record in records:
        session.apply(record)
    return status_line(session)


def test_a_resumed_thread_shows_its_runs_tokens_summed_and_a_failed_run_hides_none() -> None:
    failed = {"type": "turn.failed", "error": {"message": "boom"}}
    records = parse(THREAD, usage(100, 40, 10), THREAD, usage(300, 100, 25), THREAD, failed)
    assert [r.output_tokens for r in only(records, SessionResult)] == [10, 15, None]
    assert status_line_of(records).endswith(" · 25 tokens out")  # the thread's total: 10 + 15


def test_all_formats_files_header_keeps_the_first_turns_tokens_past_the_failed_second() -> None:
    assert status_line_of(corpus_records(CORPUS_FILES[0])).endswith(" · 732 tokens out · todos 3/3")
