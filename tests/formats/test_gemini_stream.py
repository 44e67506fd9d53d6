"""Gemini CLI stream-json: detection, how each event maps to records, the benign trailing
error, and what every corpus file of the family holds (numbers counted from the raw files with
a separate script, then written down)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import snapshot
from bot.formats import gemini_stream
from bot.formats.gemini_stream import Parser, detect
from bot.records import (
    AssistantText,
    Delegation,
    Ignored,
    Notice,
    Record,
    SessionStarted,
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import ResultStatus, SessionResult
from bot.session import Session
from bot.session.thread import TextBatch
from tests.conftest import FIXTURES, corpus_file, read_records
from tests.formats.helpers import ANY_JSON as _ANY_JSON
from tests.formats.helpers import (
    claims_every_value,
    gives_every_line_a_record,
    only,
    parsed_by,
    records_of,
    single,
)

FAMILY_DIR = "gemini"
STREAM_FILES = (
    "shane-kercheval__switchboard__error-invalid-model.stream.jsonl",
    "shane-kercheval__switchboard__happy-path.stream.jsonl",
    "shane-kercheval__switchboard__mcp-content-mutations.stream.jsonl",
    "shane-kercheval__switchboard__resume.stream.jsonl",
    "shane-kercheval__switchboard__tool-use.stream.jsonl",
    "shun-shobon__gemicord__log.jsonl",
)
BENIGN = "Invalid stream: The model returned an empty response or malformed tool call."


def event(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "timestamp": "2026-05-17T22:13:45.273Z", **fields}


def parse(*values: dict[str, Any], source: str = "src") -> list[Record]:
    """The records of ``values``, less the SessionStarted that the first line of a stream
    without an init gives (tested on its own: ``test_a_stream_without_init_is_started…``)."""
    records = parsed_by(Parser(source), values, finish=False)
    return records if values and values[0]["type"] == "init" else records[1:]


def corpus_records(name: str) -> list[Record]:
    return records_of(corpus_file(FAMILY_DIR, name))


INIT = event("init", session_id="s1", model="gemini-3-flash-preview")
USER = event("message", role="user", content="Read MARKER.txt")


def answer(text: str) -> dict[str, Any]:
    return event("message", role="assistant", content=text, delta=True)


# --- detection -------------------------------------------------------------------------------


def test_detect_claims_every_line_of_every_stream_corpus_file() -> None:
    for name in STREAM_FILES:
        claims_every_value(gemini_stream.FORMAT, corpus_file(FAMILY_DIR, name))


@pytest.mark.parametrize(
    "value",
    [
        {"role": "user", "content": "hi"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text"}]},
        {"type": "result", "subtype": "success", "session_id": "s", "timestamp": "2026-01-01"},
        {"type": "error", "message": "boom", "timestamp": "2026-01-01T00:00:00Z"},
        {"type": "init", "model": "m", "timestamp": "2026-01-01T00:00:00Z"},
        {"type": "tool_use", "tool_name": "x", "tool_id": "1"},
        {"sessionId": "s", "projectHash": "h", "startTime": "2026-01-01T00:00:00Z"},
        [{"type": "init", "session_id": "s", "model": "m", "timestamp": "2026-01-01"}],
    ],
    ids=[
        "openai",
        "responses-item",
        "claude-result",
        "codex-error",
        "no-session",
        "no-time",
        "gemini-session",
        "a-list",
    ],
)
def test_detect_refuses_values_of_other_shapes(value: object) -> None:
    assert not detect(value)


def test_a_value_that_is_not_an_object_with_a_type_is_not_mine() -> None:
    parser = Parser("src")
    assert parser.parse([1, 2], 1) is None
    assert parser.parse({"timestamp": "2026-01-01T00:00:00Z"}, 2) is None


# --- one event at a time ---------------------------------------------------------------------


def test_init_starts_the_session_and_names_the_lines_that_follow() -> None:
    records = parse(answer("before"), INIT | {"cli_version": "0.44.0"}, USER)
    assert [r.session_id for r in records] == ["src", "s1", "s1"]
    started = single(records, SessionStarted)
    assert (started.agent, started.model, started.version) == (
        "Gemini CLI",
        "gemini-3-flash-preview",
        "0.44.0",
    )
    assert records[1].timestamp == datetime(2026, 5, 17, 22, 13, 45, 273000, tzinfo=UTC)


def test_streamed_chunks_are_deltas_that_the_session_joins_with_no_separator() -> None:
    records = parse(INIT, USER, answer("SWITCHBOARD_GEMINI_PROBE_TOOL_5F8A2"), answer("1"))
    assert [(r.text, r.delta) for r in only(records, AssistantText)] == [
        ("SWITCHBOARD_GEMINI_PROBE_TOOL_5F8A2", True),
        ("1", True),
    ]
    session = Session("s1")
    for record in records:
        session.apply(record)
    (batch,) = [item for item in session.items if isinstance(item, TextBatch)]
    assert batch.text == "SWITCHBOARD_GEMINI_PROBE_TOOL_5F8A21"


def test_a_whole_assistant_message_is_not_a_delta_and_an_empty_one_is_ignored() -> None:
    whole = event("message", role="assistant", content="Done.")
    empty = event("message", role="assistant", content="", delta=True)
    text, ignored = parse(whole, empty)
    assert isinstance(text, AssistantText) and not text.delta
    assert isinstance(ignored, Ignored)


def test_a_tool_result_finds_its_call_by_tool_id_and_takes_its_name() -> None:
    records = parse(
        event("tool_use", tool_name="update_topic", tool_id="t1", parameters={"title": "T"}),
        event("tool_use", tool_name="read_file", tool_id="t2", parameters={"file_path": "M"}),
        event("tool_result", tool_id="t2", status="success", output=""),
        event("tool_result", tool_id="t1", status="success", output="Topic: T"),
    )
    calls, results = only(records, ToolCall), only(records, ToolResult)
    assert [(c.call_id, c.name, dict(c.input)) for c in calls] == [
        ("t1", "update_topic", {"title": "T"}),
        ("t2", "read_file", {"file_path": "M"}),
    ]
    assert [(r.call_id, r.name, r.output, r.is_error) for r in results] == [
        ("t2", "read_file", "", False),
        ("t1", "update_topic", "Topic: T", False),
    ]


def test_a_failed_tool_result_shows_its_error_message() -> None:
    records = parse(
        event("tool_use", tool_name="read_file", tool_id="t1", parameters={}),
        event(
            "tool_result",
            tool_id="t1",
            status="error",
            error={"type": "FILE_NOT_FOUND", "message": "File not found: M"},
        ),
    )
    result = single(records, ToolResult)
    assert (result.is_error, result.output) == (True, "File not found: M")


def test_write_todos_is_a_call_followed_by_the_whole_todo_list() -> None:
    todos = [
        {"description": "Read the code", "status": "completed"},
        {"description": "Fix the bug", "status": "in_progress"},
        {"description": "Ask about the API", "status": "blocked"},
    ]
    records = parse(
        event("tool_use", tool_name="write_todos", tool_id="w1", parameters={"todos": todos})
    )
    call, update = records
    assert isinstance(call, ToolCall) and call.name == "write_todos"
    assert isinstance(update, TodoUpdate) and update.call_id == "w1"
    assert update.todos == (
        Todo("Read the code", "completed"),
        Todo("Fix the bug", "in_progress"),
        Todo("Ask about the API", "blocked"),
    )


@pytest.mark.parametrize(
    ("name", "parameters", "member", "task"),
    [
        ("invoke_agent", {"agent_name": "generalist", "prompt": "Fix it"}, "generalist", "Fix it"),
        ("delegate_to_agent", {"agent_name": "cli_help", "question": "How?"}, "cli_help", "How?"),
        (
            "codebase_investigator",
            {"objective": "Map the code"},
            "codebase_investigator",
            "Map the code",
        ),
    ],
    ids=["invoke_agent", "delegate_to_agent", "by-name"],
)
def test_a_subagent_tool_is_a_delegation_answered_by_its_tool_result(
    name: str, parameters: dict[str, str], member: str, task: str
) -> None:
    records = parse(
        event("tool_use", tool_name=name, tool_id="d1", parameters=parameters),
        event("tool_result", tool_id="d1", status="success", output="The report"),
    )
    delegation, result = records
    assert isinstance(delegation, Delegation)
    assert (delegation.call_id, delegation.member, delegation.task) == ("d1", member, task)
    assert isinstance(result, ToolResult) and (result.call_id, result.name) == ("d1", name)


def test_parameters_that_are_not_an_object_are_shown_as_given() -> None:
    (call,) = parse(event("tool_use", tool_name="x", tool_id="1", parameters="not json"))
    assert isinstance(call, ToolCall) and (call.input, call.raw_input) == ({}, "not json")


@pytest.mark.parametrize(
    ("severity", "level"),
    [("warning", "warning"), ("error", "error"), ("fatal", "warning"), (None, "warning")],
)
def test_an_error_event_is_a_notice_at_its_severity(severity: str | None, level: str) -> None:
    (notice,) = parse(event("error", severity=severity, message="Loop detected"))
    assert isinstance(notice, Notice)
    assert (notice.kind, notice.text, notice.level) == (level, "Loop detected", level)


def test_an_unknown_event_type_is_a_notice() -> None:
    (notice,) = parse(event("heartbeat", n=1))
    assert isinstance(notice, Notice) and notice.kind == "heartbeat"
    assert notice.text.startswith("heartbeat: {")


# --- the result ------------------------------------------------------------------------------


def test_the_result_reads_fresh_and_cached_tokens_duration_and_models() -> None:
    stats = {
        "total_tokens": 20625,
        "input_tokens": 20525,
        "output_tokens": 100,
        "cached": 7559,
        "input": 12966,
        "duration_ms": 2855,
        "tool_calls": 2,
        "models": {"gemini-3-flash-preview": {}, "gemini-3.1-flash-lite": {}},
    }
    (result,) = parse(event("result", status="success", stats=stats))
    assert isinstance(result, SessionResult)
    assert (result.status, result.subtype, result.error) == (
        ResultStatus.SUCCEEDED,
        "success",
        None,
    )
    assert (result.input_tokens, result.output_tokens, result.cache_read_tokens) == (
        12966,
        100,
        7559,
    )
    assert result.duration_ms == 2855
    assert result.models == ("gemini-3-flash-preview", "gemini-3.1-flash-lite")
    assert (result.cost_usd, result.num_turns, result.reasoning_tokens) == (None, None, None)


def test_without_the_fresh_input_count_it_is_the_input_less_the_cached() -> None:
    stats = {"input_tokens": 1000, "cached": 400, "output_tokens": 5}
    (result,) = parse(event("result", status="success", stats=stats))
    assert isinstance(result, SessionResult) and result.input_tokens == 600
    (bare,) = parse(event("result", status="success"))
    assert isinstance(bare, SessionResult)
    assert (bare.input_tokens, bare.output_tokens, bare.duration_ms, bare.models) == (
        None,
        None,
        None,
        (),
    )


def test_a_failed_result_says_its_error() -> None:
    failed = event("result", status="error", error={"type": "unknown", "message": "API Error"})
    (result,) = parse(INIT, USER, failed)[2:]
    assert isinstance(result, SessionResult)
    assert (result.status, result.subtype, result.error) == (
        ResultStatus.FAILED,
        "error",
        "API Error",
    )


def test_a_benign_trailing_error_after_a_streamed_answer_is_a_warning_not_a_failure() -> None:
    records, stats = read_records(FIXTURES / "gemini_stream_benign_error.jsonl")
    assert stats.unparsed == 0
    notice = single(records, Notice)
    assert (notice.kind, notice.level, notice.text) == ("trailing_error", "warning", BENIGN)
    result = single(records, SessionResult)
    assert (result.status, result.subtype, result.error) == (ResultStatus.SUCCEEDED, None, None)
    assert (result.input_tokens, result.cache_read_tokens, result.output_tokens) == (2000, 900, 100)
    assert result.models == ("gemini-3.1-flash-lite", "gemini-3-flash-preview")


def test_the_same_error_without_an_answer_fails_the_session_and_says_why() -> None:
    records = parse(
        INIT,
        USER,
        event("error", severity="error", message=BENIGN),
        event("result", status="error", stats={}),
    )
    notice, result = records[2:]
    assert isinstance(notice, Notice) and (notice.kind, notice.level) == ("error", "error")
    assert isinstance(result, SessionResult)
    assert (result.status, result.error) == (ResultStatus.FAILED, BENIGN)


def test_a_benign_error_named_only_by_the_result_is_a_warning_notice_before_success() -> None:
    benign = event("result", status="error", error={"type": "unknown", "message": BENIGN})
    notice, result = parse(INIT, USER, answer("All done."), benign)[3:]
    assert isinstance(notice, Notice)
    assert (notice.kind, notice.level, notice.text) == ("trailing_error", "warning", BENIGN)
    assert isinstance(result, SessionResult)
    assert (result.status, result.error) == (ResultStatus.SUCCEEDED, None)


def test_a_benign_error_said_by_an_event_and_the_result_is_one_warning() -> None:
    records = parse(
        INIT,
        USER,
        answer("All done."),
        event("error", severity="error", message=BENIGN),
        event("result", status="error", error={"type": "unknown", "message": BENIGN}),
    )
    assert single(records, Notice).level == "warning"
    assert single(records, SessionResult).status is ResultStatus.SUCCEEDED


def test_a_result_whose_figures_are_all_zero_has_unknown_tokens_and_duration() -> None:
    zeros = {"total_tokens": 0, "input_tokens": 0, "output_tokens": 0, "cached": 0, "input": 0}
    stats = zeros | {"duration_ms": 0, "tool_calls": 0, "models": {"m": zeros}}
    (result,) = parse(event("result", status="error", stats=stats))
    assert isinstance(result, SessionResult)
    figures = (result.input_tokens, result.output_tokens, result.cache_read_tokens)
    assert (*figures, result.duration_ms) == (None, None, None, None)
    assert result.models == ("m",)
    (measured,) = parse(event("result", status="success", stats=stats | {"output_tokens": 3}))
    assert isinstance(measured, SessionResult)
    assert (measured.input_tokens, measured.output_tokens, measured.duration_ms) == (0, 3, 0)


def test_an_answer_to_an_earlier_prompt_does_not_excuse_the_next_one() -> None:
    records = parse(
        INIT,
        USER,
        answer("first answer"),
        USER,
        event("error", severity="error", message=BENIGN),
        event("result", status="error", stats={}),
    )
    assert single(records, SessionResult).status is ResultStatus.FAILED


def test_another_error_after_a_streamed_answer_still_fails_the_session() -> None:
    records = parse(
        INIT,
        USER,
        answer("partial"),
        event("error", severity="error", message="Maximum session turns exceeded"),
        event("result", status="error", stats={}),
    )
    assert single(records, Notice).level == "error"
    result = single(records, SessionResult)
    assert (result.status, result.error) == (ResultStatus.FAILED, "Maximum session turns exceeded")


def test_the_parser_is_saved_in_a_checkpoint_and_goes_on_where_it_was() -> None:
    parser = Parser("src")
    parser.parse(INIT, 1)
    parser.parse(event("tool_use", tool_name="read_file", tool_id="t1", parameters={}), 2)
    restored: Parser = snapshot.loads(snapshot.dumps(parser))
    (result,) = restored.parse(event("tool_result", tool_id="t1", status="success"), 3) or []
    assert isinstance(result, ToolResult)
    assert (result.session_id, result.name) == ("s1", "read_file")


_FIELDS = [
    "session_id",
    "model",
    "role",
    "content",
    "delta",
    "tool_name",
    "tool_id",
    "parameters",
    "status",
    "output",
    "error",
    "severity",
    "message",
    "stats",
]
_TYPES = ["init", "message", "tool_use", "tool_result", "error", "result", "other"]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {"type": st.sampled_from(_TYPES)}, optional={key: _ANY_JSON for key in _FIELDS}
        ),
        max_size=12,
    )
)
def test_any_event_shapes_give_records_never_an_exception(events: list[dict[str, Any]]) -> None:
    records = parse(*events)
    assert all(isinstance(r, Record) for r in records)


# --- the corpus, file by file ----------------------------------------------------------------


@pytest.mark.parametrize("name", STREAM_FILES)
def test_every_line_of_every_corpus_file_gives_a_record_of_its_line(name: str) -> None:
    gives_every_line_a_record(corpus_file(FAMILY_DIR, name))


def test_invalid_model_fails_with_the_api_error_and_unknown_tokens_and_duration() -> None:
    records = corpus_records(STREAM_FILES[0])
    assert {r.session_id for r in records} == {"00000000-0000-4000-8000-000000000003"}
    assert single(records, SessionStarted).model == "does-not-exist-model"
    assert single(records, UserText).text == "say hi"
    result = single(records, SessionResult)
    assert (result.status, result.error) == (
        ResultStatus.FAILED,
        "[API Error: Requested entity was not found.]",
    )
    # line 3's stats are all 0: the request never ran, nothing was measured
    assert (result.input_tokens, result.output_tokens, result.duration_ms) == (None, None, None)
    assert result.cache_read_tokens is None
    assert result.models == ("does-not-exist-model",)


def test_happy_path_answers_ack_and_succeeds() -> None:
    records = corpus_records(STREAM_FILES[1])
    assert {r.session_id for r in records} == {"00000000-0000-4000-8000-000000000001"}
    assert [r.text for r in only(records, AssistantText)] == ["ack"]
    result = single(records, SessionResult)
    assert (result.status, result.input_tokens, result.output_tokens) == (
        ResultStatus.SUCCEEDED,
        10178,
        1,
    )
    assert (result.cache_read_tokens, result.duration_ms) == (0, 1021)
    assert result.models == ("gemini-3-flash-preview",)


def test_mcp_calls_without_init_or_result_belong_to_the_source() -> None:
    path = corpus_file(FAMILY_DIR, STREAM_FILES[2])
    records = corpus_records(STREAM_FILES[2])
    assert {r.session_id for r in records} == {str(path)}
    assert [(c.call_id, c.name) for c in only(records, ToolCall)] == [
        ("mcp_edit_1", "mcp__notes_alias__edit_content"),
        ("mcp_context_1", "mcp__notes_alias__get_context"),
    ]
    assert [(r.call_id, r.output, r.is_error) for r in only(records, ToolResult)] == [
        ("mcp_edit_1", "updated", False),
        ("mcp_context_1", "context", False),
    ]
    assert only(records, SessionResult) == []
    # no init line: the first line still names the agent
    started = single(records, SessionStarted)
    assert (started.agent, started.model, started.line) == ("Gemini CLI", None, 1)


def test_a_stream_without_init_is_started_by_its_first_line_and_an_init_is_not_doubled() -> None:
    records = parsed_by(Parser("src"), [USER, answer("hi")], finish=False)
    assert [type(r).__name__ for r in records] == ["SessionStarted", "UserText", "AssistantText"]
    assert isinstance(records[0], SessionStarted) and records[0].agent == "Gemini CLI"
    assert [type(r).__name__ for r in parse(INIT, USER)] == ["SessionStarted", "UserText"]


def test_resume_reads_cached_tokens() -> None:
    records = corpus_records(STREAM_FILES[3])
    assert {r.session_id for r in records} == {"00000000-0000-4000-8000-000000000001"}
    result = single(records, SessionResult)
    assert (result.input_tokens, result.cache_read_tokens, result.output_tokens) == (2617, 7577, 7)
    assert result.duration_ms == 2334


def test_tool_use_runs_two_parallel_calls_and_streams_the_marker() -> None:
    records = corpus_records(STREAM_FILES[4])
    calls, results = only(records, ToolCall), only(records, ToolResult)
    assert [c.name for c in calls] == ["update_topic", "read_file"]
    assert [(r.name, r.is_error) for r in results] == [
        ("update_topic", False),
        ("read_file", False),
    ]
    texts = only(records, AssistantText)
    assert all(t.delta for t in texts)
    assert "".join(t.text for t in texts) == "SWITCHBOARD_GEMINI_PROBE_TOOL_5F8A21"
    result = single(records, SessionResult)
    assert (result.status, result.input_tokens, result.output_tokens) == (
        ResultStatus.SUCCEEDED,
        12966,
        100,
    )


def test_gemicord_lists_a_directory_in_seven_chunks_and_has_no_models() -> None:
    records = corpus_records(STREAM_FILES[5])
    assert {r.session_id for r in records} == {"26c6651e-444c-42da-94a6-26b6bab096f0"}
    assert single(records, SessionStarted).model == "auto-gemini-2.5"
    assert len(only(records, AssistantText)) == 7
    (call,) = only(records, ToolCall)
    assert (call.name, dict(call.input)) == ("list_directory", {"dir_path": "."})
    result = single(records, ToolResult)
    assert (result.call_id, result.output) == (call.call_id, "Listed 13 item(s). (2 ignored)")
    outcome = single(records, SessionResult)
    assert (outcome.status, outcome.input_tokens, outcome.cache_read_tokens) == (
        ResultStatus.SUCCEEDED,
        3223,
        9598,
    )
    assert (outcome.output_tokens, outcome.duration_ms, outcome.models) == (186, 5760, ())
