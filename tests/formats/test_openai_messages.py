"""The openai-messages format: OpenAI chat messages, traces, SWE-agent .traj and Suna rows."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.formats import backend, openai_messages
from bot.formats.openai_messages import AGENT
from bot.formats.reader import SourceReader
from bot.preview import build_preview, preview_document
from bot.records import (
    AssistantText,
    Ignored,
    Notice,
    Origin,
    Record,
    SessionStarted,
    Thinking,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import ResultStatus, SessionResult
from bot.sources.files import split_lines
from tests.conftest import FIXTURES, corpus_file, read_records
from tests.formats.helpers import ANY_JSON as JSON
from tests.formats.helpers import only as of_type

DIR = "openai-messages"
SUNA_ROWS = "synthetic__seed-004__suna_db_rows.jsonl"
CODE = "invariantlabs-ai__explorer__code.jsonl"
WEBARENA = "invariantlabs-ai__explorer__webarena.jsonl"
BAD_ARGUMENTS = (
    "invariantlabs-ai__explorer__trace_with_non_json_parseable_tool_call_arguments.jsonl"
)
SIMPLE_TRAJ = "SWE-agent__SWE-agent__function_calling_simple.traj"
MARSHMALLOW_TRAJ = "SWE-agent__SWE-agent__marshmallow-code__marshmallow-1867.function_calling.traj"
ALL_FILES = [SUNA_ROWS, CODE, WEBARENA, BAD_ARGUMENTS, SIMPLE_TRAJ, MARSHMALLOW_TRAJ]
THREAD = "a3f0c7de-1111-4c2b-9a55-000000000001"


def values_of(path: Path) -> list[tuple[Any, int]]:
    """The file's JSON values as ``read_records`` numbers them (a whole document is line 1)."""
    return [(orjson.loads(raw), n) for n, raw in split_lines(path.read_bytes()) if raw.strip()]


def parse_values(values: list[tuple[Any, int]], source: str = "messages.jsonl") -> list[Record]:
    parser = openai_messages.Parser(source)
    out: list[Record] = []
    for value, number in values:
        records = parser.parse(value, number)
        assert records is not None, value
        out.extend(records)
    return out + parser.finish()


def parse_file(path: Path) -> list[Record]:
    return parse_values(values_of(path), source=str(path))


def parse_messages(*messages: dict[str, Any]) -> list[Record]:
    return parse_values([(m, n) for n, m in enumerate(messages, start=1)])


def corpus_records(name: str) -> tuple[Path, list[Record]]:
    path = corpus_file(DIR, name)
    return path, parse_file(path)


def unmatched_results(records: list[Record]) -> list[ToolResult]:
    calls = {c.call_id for c in of_type(records, ToolCall)}
    return [r for r in of_type(records, ToolResult) if r.call_id not in calls]


# --- detection -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FILES)
def test_detect_claims_every_value_of_every_corpus_file_but_metadata_lines(name: str) -> None:
    values = [v for v, _ in values_of(corpus_file(DIR, name)) if not _is_metadata_line(v)]
    assert values
    assert all(openai_messages.detect(v) for v in values)


def _is_metadata_line(value: object) -> bool:
    return isinstance(value, dict) and value.keys() == {"metadata"}


def test_detect_cannot_tell_a_metadata_line_alone() -> None:
    assert not openai_messages.detect({"metadata": {"description": "Traces"}})


def test_detect_claims_every_seed_004_example() -> None:
    for name in ("openai_seed_004_rows.jsonl", "openai_seed_004_messages.jsonl"):
        assert all(openai_messages.detect(v) for v, _ in values_of(FIXTURES / name))


@pytest.mark.parametrize("name", ALL_FILES)
def test_backend_detect_rejects_every_openai_corpus_value(name: str) -> None:
    assert not any(backend.detect(v) for v, _ in values_of(corpus_file(DIR, name)))


def test_detect_rejects_an_agno_stored_run_although_it_holds_messages() -> None:
    run = {"run_id": "r", "messages": [{"role": "user", "content": "hi"}], "events": []}
    assert not openai_messages.detect(run)


def test_detect_rejects_a_gemini_stream_message_event_but_not_a_message_with_a_time() -> None:
    gemini = {"type": "message", "timestamp": "2026-05-17T22:11:45Z", "role": "user",
              "content": "hi"}  # fmt: skip
    assert not openai_messages.detect(gemini)
    assert openai_messages.detect({"role": "user", "content": "hi", "timestamp": "2026-05-17"})


def test_detect_rejects_values_without_roles() -> None:
    for value in ([], [1], {"role": "narrator"}, {"messages": []}, {"history": [{"x": 1}]}, "x"):
        assert not openai_messages.detect(value), value


# --- read_records over the corpus ----------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FILES)
def test_read_records_leaves_nothing_unparsed(name: str) -> None:
    _, stats = read_records(corpus_file(DIR, name))
    assert stats.unparsed == 0


@pytest.mark.parametrize("name", ALL_FILES)
def test_the_reader_detects_the_corpus_file_as_openai_messages(name: str) -> None:
    reader = SourceReader(name)
    for number, raw in split_lines(corpus_file(DIR, name).read_bytes()):
        reader.feed(raw, number)
    assert reader.family == "openai-messages"


# --- Suna rows (seed 004 corpus file) ------------------------------------------------------------


@pytest.fixture(scope="module")
def suna() -> list[Record]:
    return corpus_records(SUNA_ROWS)[1]


def test_suna_rows_are_one_thread_started_once(suna: list[Record]) -> None:
    assert {r.session_id for r in suna} == {THREAD}
    assert [(s.line, s.agent) for s in of_type(suna, SessionStarted)] == [(1, "Suna agent")]
    assert type(suna[0]) is SessionStarted


def test_suna_rows_have_three_calls_and_the_search_timeout_failed(suna: list[Record]) -> None:
    calls = [(c.call_id, c.name) for c in of_type(suna, ToolCall)]
    assert calls == [
        ("tooluse_FLTrjOjmSQmzWZCwoun-IA", "web_search"),
        ("tooluse_5ZHGh5jGQLq0xSREXP7yWw", "web_search"),
        ("tooluse_badargs", "create_file"),
    ]
    results = [(r.call_id, r.is_error) for r in of_type(suna, ToolResult)]
    assert results == [
        ("tooluse_FLTrjOjmSQmzWZCwoun-IA", False),
        ("tooluse_5ZHGh5jGQLq0xSREXP7yWw", True),
        ("tooluse_badargs", False),
    ]
    assert unmatched_results(suna) == []


def test_suna_invalid_arguments_are_shown_raw(suna: list[Record]) -> None:
    bad = of_type(suna, ToolCall)[2]
    assert bad.input == {}
    assert bad.raw_input == '{"path": "report.md", "content": "# Larry'
    assert of_type(suna, ToolCall)[0].input == {
        "query": "Larry Ellison biography",
        "num_results": 10,
    }


def test_suna_cached_block_is_hidden_and_never_a_user_turn(suna: list[Record]) -> None:
    assert [(r.line, r.kind) for r in of_type(suna, Ignored) if r.kind == "cached_block"] == [
        (10, "cached_block")
    ]
    assert [u.text for u in of_type(suna, UserText)] == ["research about larry ellison"]


def test_suna_texts_keep_channel_mentions_and_show_the_compressed_row(suna: list[Record]) -> None:
    texts = [(a.line, a.text) for a in of_type(suna, AssistantText)]
    assert [line for line, _ in texts] == [4, 7, 11]
    assert texts[1][1].endswith("retrying with a narrower query... (truncated)")
    assert texts[2][1] == (
        "Here is the report: Larry Ellison co-founded Oracle in 1977. <!channel> see report.md"
    )


def test_suna_status_system_and_response_end_rows_are_hidden(suna: list[Record]) -> None:
    hidden = [(r.line, r.kind) for r in of_type(suna, Ignored)]
    assert hidden == [
        (1, "status"),
        (2, "system_prompt"),
        (10, "cached_block"),
        (12, "llm_response_end"),
        (13, "status"),
    ]
    assert of_type(suna, Notice) == []


def test_suna_timestamps_come_from_created_at(suna: list[Record]) -> None:
    result = of_type(suna, ToolResult)[1]
    assert result.timestamp is not None
    assert result.timestamp.isoformat() == "2025-11-02T10:00:06+00:00"


# --- invariant explorer traces -------------------------------------------------------------------


def test_code_trace_is_one_session_after_its_metadata_line() -> None:
    path, records = corpus_records(CODE)
    assert [(r.line, r.kind) for r in of_type(records, Ignored)] == [(1, "metadata")]
    started = of_type(records, SessionStarted)
    assert [(s.session_id, s.agent) for s in started] == [(f"{path}#2", "OpenAI-style agent")]


def test_code_trace_has_six_calls_each_answered() -> None:
    _, records = corpus_records(CODE)
    names = [c.name for c in of_type(records, ToolCall)]
    assert names == [
        "plan",
        "internal:execute_block",
        "get_most_recent_transactions",
        "internal:execute_block",
        "internal:execute_block",
        "internal:execute_block",
    ]
    assert len(of_type(records, ToolResult)) == 6
    assert unmatched_results(records) == []
    assert not any(r.is_error for r in of_type(records, ToolResult))


def test_code_trace_results_with_ids_naming_no_call_go_to_the_waiting_call() -> None:
    _, records = corpus_records(CODE)
    pairs = [(r.call_id, r.name) for r in of_type(records, ToolResult)]
    assert pairs == [
        ("planner:0", None),
        ("1", "get_most_recent_transactions"),
        ("planner:0:0", None),
        ("planner:0:1", None),
        ("planner:0:2", None),
        ("planner:0:3", None),
    ]


def test_code_trace_ends_with_the_answer() -> None:
    _, records = corpus_records(CODE)
    assert of_type(records, AssistantText)[-1].text == "1050"


def test_webarena_each_trace_line_is_its_own_session() -> None:
    path, records = corpus_records(WEBARENA)
    started = [s.session_id for s in of_type(records, SessionStarted)]
    assert started == [f"{path}#2", f"{path}#3"]
    assert [u.text for u in of_type(records, UserText)] == [
        "What is the top-1 best-selling product in 2022",
        "What is the top-1 best-selling brand in Quarter 1 2022",
    ]


def test_webarena_calls_by_session_and_name() -> None:
    path, records = corpus_records(WEBARENA)
    by_session = {
        s: [c.name for c in of_type(records, ToolCall) if c.session_id == s]
        for s in (f"{path}#2", f"{path}#3")
    }
    assert by_session == {
        f"{path}#2": ["stop", "stop"],
        f"{path}#3": ["click", "click", "type", "type", "click", "stop", "stop"],
    }
    assert all(c.input for c in of_type(records, ToolCall))  # arguments given as objects
    assert len({c.call_id for c in of_type(records, ToolCall)}) == 9


def test_webarena_results_without_ids_go_to_the_oldest_waiting_call() -> None:
    _, records = corpus_records(WEBARENA)
    calls = of_type(records, ToolCall)
    results = of_type(records, ToolResult)
    assert len(results) == 9
    # Each trace opens with the page observation before any call: the only unmatched results.
    assert [r.line for r in unmatched_results(records)] == [2, 3]
    matched = [r.call_id for r in results if r not in unmatched_results(records)]
    answered = [c.call_id for c in calls if c.call_id in matched]
    assert matched == answered  # in call order
    assert [c.name for c in calls if c.call_id not in matched] == ["stop", "stop"]
    assert not any(r.is_error for r in results)


def test_non_json_arguments_are_kept_raw() -> None:
    _, records = corpus_records(BAD_ARGUMENTS)
    assert [type(r) for r in records] == [SessionStarted, Ignored, UserText, ToolCall]
    call = of_type(records, ToolCall)[0]
    assert (call.call_id, call.name, call.input) == (
        "call_wrrKpr7XnsTaNcHp3nssmJzH",
        "get_capital",
        {},
    )
    assert call.raw_input == '["fiction", "mystery"], ["Agatha Christie", "Dan Brown"]'
    assert of_type(records, AssistantText) == []  # content null


# --- SWE-agent trajectories


def test_simple_traj_is_one_swe_agent_session_named_after_the_file() -> None:
    _, records = corpus_records(SIMPLE_TRAJ)
    assert {r.session_id for r in records} == {"SWE-agent__SWE-agent__function_calling_simple"}
    (started,) = of_type(records, SessionStarted)
    assert (started.agent, started.model) == ("SWE-agent", None)
    assert records[1] == Ignored(Origin(started.session_id, None, 1), kind="system_prompt")


def test_simple_traj_calls_are_answered_and_nothing_failed() -> None:
    _, records = corpus_records(SIMPLE_TRAJ)
    assert [c.name for c in of_type(records, ToolCall)] == [
        "find_file",
        "open",
        "edit",
        "bash",
        "submit",
    ]
    assert [r.call_id for r in of_type(records, ToolResult)] == [
        c.call_id for c in of_type(records, ToolCall)
    ]
    assert not any(r.is_error for r in of_type(records, ToolResult))
    assert of_type(records, SessionResult) == []  # no info in this file


def test_traj_thought_is_not_shown_twice() -> None:
    _, records = corpus_records(SIMPLE_TRAJ)
    texts = [a.text for a in of_type(records, AssistantText)]
    assert len(texts) == 5
    assert len(set(texts)) == 5


def test_marshmallow_traj_reused_call_ids_get_their_own_results() -> None:
    _, records = corpus_records(MARSHMALLOW_TRAJ)
    calls = of_type(records, ToolCall)
    assert [c.name for c in calls] == [
        "create",
        "edit",
        "bash",
        "bash",
        "find_file",
        "open",
        "edit",
        "edit",
        "bash",
        "bash",
        "submit",
    ]
    assert len({c.call_id for c in calls}) == 11
    assert [c.call_id for c in calls if "#" in c.call_id] == [
        "call_5iDdbOYybq7L19vqXmR0DPaU#2",
        "call_ahToD2vM0aQWJPkRmy5cumru#2",
        "call_q3VsBszvsntfyPkxeHq4i5N1#2",
        "call_5iDdbOYybq7L19vqXmR0DPaU#3",
        "call_5iDdbOYybq7L19vqXmR0DPaU#4",
    ]
    assert [r.call_id for r in of_type(records, ToolResult)] == [c.call_id for c in calls]


def test_marshmallow_traj_model_and_final_result() -> None:
    _, records = corpus_records(MARSHMALLOW_TRAJ)
    (started,) = of_type(records, SessionStarted)
    assert started.model == "gpt-4o"
    (result,) = of_type(records, SessionResult)
    assert records[-1] is result
    # model_stats: instance_cost 0, tokens_sent 0, tokens_received 0, api_calls 11
    assert (result.status, result.subtype, result.num_turns) == (
        ResultStatus.SUCCEEDED,
        "submitted",
        11,
    )
    assert (result.cost_usd, result.input_tokens, result.output_tokens) == (None, None, None)
    assert result.models == ("gpt-4o",)


def test_a_traj_gives_cost_and_tokens_only_where_swe_agent_counted_them() -> None:
    uncounted = {"instance_cost": 0, "tokens_sent": 0, "tokens_received": 0, "api_calls": 0}
    counted = {"instance_cost": 0.25, "tokens_sent": 9000, "tokens_received": 300, "api_calls": 4}
    figures = []
    for stats in (uncounted, counted, None):
        info: dict[str, Any] = {"exit_status": "submitted"}
        if stats is not None:
            info["model_stats"] = stats
        doc = {"history": [{"role": "user", "content": "fix it"}], "info": info}
        (result,) = of_type(parse_values([(doc, 1)], source="t.traj"), SessionResult)
        figures.append((result.cost_usd, result.input_tokens, result.output_tokens))
        figures.append((result.num_turns,))
    assert figures == [
        (None, None, None), (0,), (0.25, 9000, 300), (4,), (None, None, None), (None,)
    ]


def test_a_traj_that_did_not_submit_failed_with_its_exit_status() -> None:
    doc = {
        "history": [{"role": "user", "content": "fix it"}],
        "info": {"exit_status": "exit_cost", "model_stats": {"instance_cost": 3.1}},
    }
    records = parse_values([(doc, 1)], source="runs/django-123.traj")
    (result,) = of_type(records, SessionResult)
    assert (result.session_id, result.status, result.subtype, result.cost_usd) == (
        "django-123",
        ResultStatus.FAILED,
        "exit_cost",
        3.1,
    )


# --- the seed's examples -------------------------------------------------------------------------


def test_seed_rows_json_strings_compressed_rows_and_status() -> None:
    records = parse_file(FIXTURES / "openai_seed_004_rows.jsonl")
    shown = [(type(r).__name__, getattr(r, "text", getattr(r, "kind", ""))) for r in records]
    assert shown == [
        ("SessionStarted", ""),
        ("Ignored", "status"),
        ("Ignored", "system_prompt"),
        ("UserText", "Hello!"),
        ("UserText", "Hello! (truncated)..."),
        ("AssistantText", "I'll conduct a comprehensive research on Larry Ellison for you."),
        ("ToolCall", ""),
        ("ToolResult", ""),
    ]
    assert unmatched_results(records) == []


def test_seed_messages_one_per_line_are_one_session() -> None:
    records = parse_file(FIXTURES / "openai_seed_004_messages.jsonl")
    assert len(of_type(records, SessionStarted)) == 1
    assert [u.text for u in of_type(records, UserText)] == [
        "research about larry ellison",
        "New message",
    ]
    assert [r.kind for r in of_type(records, Ignored)] == ["system_prompt", "cached_block"]
    assert [c.name for c in of_type(records, ToolCall)] == ["web_search", "web_search"]
    (result,) = of_type(records, ToolResult)
    assert (result.call_id, result.name) == ("tooluse_FLTrjOjmSQmzWZCwoun-IA", "web_search")


# --- Kimi Code's print mode ---------------------------------------------------------------------

KIMI_PRINT = FIXTURES / "kimi_print_stream_json.jsonl"
KIMI_SESSION = "session_01kimi7f3a"


def _resume_hint(session_id: str = KIMI_SESSION) -> dict[str, Any]:
    return {
        "role": "meta",
        "type": "session.resume_hint",
        "session_id": session_id,
        "content": f"To resume this session: kimi -r {session_id}",
    }


def test_kimi_print_stream_ends_with_a_start_that_names_kimi_code_and_a_resume_notice() -> None:
    records, stats = read_records(KIMI_PRINT)
    assert stats.unparsed == 0
    assert {r.session_id for r in records} == {str(KIMI_PRINT)}
    assert [s.agent for s in of_type(records, SessionStarted)] == [AGENT, "Kimi Code"]
    assert [(c.name, dict(c.input)) for c in of_type(records, ToolCall)] == [
        ("Grep", {"pattern": "export function"})
    ]
    assert [r.call_id for r in of_type(records, ToolResult)] == ["call_1"]
    (hint,) = of_type(records, Notice)
    assert (hint.kind, hint.line) == ("resume_hint", 4)
    assert hint.text == f"To resume this session: kimi -r {KIMI_SESSION}"


def test_kimi_print_preview_labels_the_session_kimi_code() -> None:
    (session,) = preview_document(build_preview([KIMI_PRINT]))["sessions"]
    assert (session["agent"], [t["status"] for t in session["tools"]]) == ("Kimi Code", ["ok"])


def test_a_resume_hint_before_any_message_files_the_messages_under_kimis_session() -> None:
    records = parse_messages(_resume_hint("s-9"), {"role": "assistant", "content": "Hi"})
    assert {r.session_id for r in records} == {"s-9"}
    assert [s.agent for s in of_type(records, SessionStarted)] == ["Kimi Code"]
    assert [t.text for t in of_type(records, AssistantText)] == ["Hi"]


def test_other_meta_lines_are_hidden_by_their_type() -> None:
    no_session = {"role": "meta", "type": "session.resume_hint"}
    records = parse_messages({"role": "meta", "type": "system.version"}, no_session)
    assert [r.kind for r in of_type(records, Ignored)] == [
        "meta system.version",
        "meta session.resume_hint",
    ]
    assert of_type(records, SessionStarted) == []


# --- edge cases ----------------------------------------------------------------------------------


def _row(kind: str, content: object, metadata: object = "{}", thread: str = "t1") -> dict[str, Any]:
    return {
        "message_id": "m",
        "thread_id": thread,
        "type": kind,
        "content": content,
        "metadata": metadata,
        "is_llm_message": True,
        "created_at": "2025-01-01T00:00:00Z",
    }


def _call_row(call_id: str, name: str) -> dict[str, Any]:
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
    return _row("assistant", {"role": "assistant", "content": None, "tool_calls": [call]})


def test_a_failed_run_status_is_an_error_notice() -> None:
    status = _row("status", {"role": "system", "status_type": "error", "message": "Rate limited"})
    (notice,) = of_type(parse_values([(status, 1)]), Notice)
    assert (notice.kind, notice.text, notice.level) == ("status", "Rate limited", "error")


def test_ordinary_status_rows_stay_hidden() -> None:
    rows = [
        _row("status", {"status_type": t})
        for t in ("thread_run_start", "tool_failed", "finish", "thread_run_end")
    ]
    records = parse_values([(r, n) for n, r in enumerate(rows, 1)])
    assert [getattr(r, "kind", None) for r in records[1:]] == ["status"] * 4


def test_tool_failure_flags_in_content() -> None:
    records = parse_values(
        [
            (_call_row("c1", "shell"), 1),
            (
                _row(
                    "tool",
                    {
                        "role": "tool",
                        "tool_call_id": "c1",
                        "content": "ToolResult(success=False, output='no')",
                    },
                ),
                2,
            ),
            (_call_row("c2", "shell"), 3),
            (
                _row(
                    "tool",
                    {
                        "role": "tool",
                        "tool_call_id": "c2",
                        "content": '{"success": false, "output": "x"}',
                    },
                ),
                4,
            ),
            (_call_row("c3", "shell"), 5),
            (
                _row(
                    "tool",
                    {
                        "role": "tool",
                        "tool_call_id": "c3",
                        "content": '{"success": true, "output": "y"}',
                    },
                ),
                6,
            ),
        ]
    )
    assert [(r.call_id, r.is_error) for r in of_type(records, ToolResult)] == [
        ("c1", True),
        ("c2", True),
        ("c3", False),
    ]


def test_suna_tool_execution_wrapper_gives_name_output_and_failure() -> None:
    execution = {
        "tool_execution": {
            "function_name": "create_file",
            "tool_call_id": None,
            "result": {"success": False, "output": "", "error": "disk full"},
        }
    }
    tool_row = _row("tool", {"role": "user", "content": orjson.dumps(execution).decode()})
    (result,) = of_type(parse_values([(tool_row, 1)]), ToolResult)
    assert (result.name, result.output, result.is_error) == ("create_file", "disk full", True)


def test_metadata_given_as_an_object_and_content_as_an_object() -> None:
    rows = [
        _call_row("c1", "web_search"),
        _row("tool", {"tool_call_id": "c1", "content": "ok"}, metadata={"status": "failed"}),
    ]
    (result,) = of_type(parse_values([(r, n) for n, r in enumerate(rows, 1)]), ToolResult)
    assert (result.call_id, result.output, result.is_error) == ("c1", "ok", True)


def test_a_tool_row_takes_its_call_id_from_metadata() -> None:
    rows = [_call_row("c9", "web_search"), _row("tool", "plain output", '{"tool_call_id": "c9"}')]
    (result,) = of_type(parse_values([(r, n) for n, r in enumerate(rows, 1)]), ToolResult)
    assert (result.call_id, result.output) == ("c9", "plain output")


def test_two_threads_are_two_sessions() -> None:
    rows = [
        _row("user", "a", thread="t1"),
        _row("user", "b", thread="t2"),
        _row("user", "c", thread="t1"),
    ]
    started = of_type(parse_values([(r, n) for n, r in enumerate(rows, 1)]), SessionStarted)
    assert [s.session_id for s in started] == ["t1", "t2"]


def test_unknown_row_types_are_hidden_by_name() -> None:
    records = parse_values([(_row("assistant_response_end", {"model": "m"}), 1)])
    assert [getattr(r, "kind", None) for r in records] == [None, "assistant_response_end"]


def test_arguments_as_an_object_and_as_valid_json_that_is_not_an_object() -> None:
    records = parse_messages(
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "a", "function": {"name": "f", "arguments": {"x": 1}}},
                {"id": "b", "function": {"name": "g", "arguments": "[1, 2]"}},
                {"id": "c", "function": {"name": "h", "arguments": ""}},
            ],
        }
    )
    calls = [(c.input, c.raw_input) for c in of_type(records, ToolCall)]
    assert calls == [({"x": 1}, None), ({}, "[1, 2]"), ({}, None)]


def test_a_tool_message_without_id_answers_the_oldest_waiting_call() -> None:
    records = parse_messages(
        {
            "role": "assistant",
            "tool_calls": [
                {"function": {"name": "first", "arguments": "{}"}},
                {"function": {"name": "second", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "content": "one"},
        {"role": "tool", "content": "two"},
    )
    calls = {c.call_id: c.name for c in of_type(records, ToolCall)}
    assert [calls[r.call_id] for r in of_type(records, ToolResult)] == ["first", "second"]


def test_a_result_with_an_unknown_id_and_nothing_waiting_is_an_orphan_of_that_id() -> None:
    (result,) = of_type(
        parse_messages({"role": "tool", "tool_call_id": "ghost", "content": "x"}), ToolResult
    )
    assert result.call_id == "ghost"


def test_tool_call_ids_list_gives_one_result_per_id() -> None:
    records = parse_messages(
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "a", "function": {"name": "f"}},
                {"id": "b", "function": {"name": "g"}},
            ],
        },
        {"role": "tool", "tool_call_ids": ["a", "b"], "content": "both"},
    )
    assert [(r.call_id, r.output) for r in of_type(records, ToolResult)] == [
        ("a", "both"),
        ("b", "both"),
    ]


def test_reasoning_content_is_thinking_before_the_text() -> None:
    records = parse_messages({"role": "assistant", "content": "42", "reasoning_content": "think"})
    assert [type(r) for r in records] == [SessionStarted, Thinking, AssistantText]


def test_single_messages_belong_to_the_source_session() -> None:
    records = parse_values([({"role": "user", "content": "hi"}, 1)], source="chat.jsonl")
    assert {r.session_id for r in records} == {"chat.jsonl"}


def test_values_of_no_known_shape_are_not_understood() -> None:
    parser = openai_messages.Parser("x")
    for value in (42, "text", {"foo": 1}, [1, 2], {"metadata": {}, "other": 1}):
        assert parser.parse(value, 1) is None, value
    assert parser.parse({"metadata": {"description": "d"}}, 1) == [
        Ignored(Origin("x", None, 1), kind="metadata")
    ]


def _checkpoint_size(calls: int, threads: int) -> int:
    """The size of the parser's checkpoint after ``calls`` unanswered calls over ``threads``."""
    parser = openai_messages.Parser("x")
    for n in range(calls):
        parser.parse(_call_row(f"c{n:06}", "f") | {"thread_id": f"t{n % threads:06}"}, n)
    return len(pickle.dumps(parser))


@pytest.mark.parametrize("threads", [1, 10**6], ids=["one thread", "a thread each"])
def test_parser_state_stays_bounded_over_many_threads_and_unanswered_calls(threads: int) -> None:
    assert _checkpoint_size(16_000, threads) < 1.1 * _checkpoint_size(8_000, threads)


def test_an_old_traj_turns_actions_into_calls_and_the_next_user_message_into_results() -> None:
    doc = {
        "history": [
            {"role": "system", "content": "SETTING", "agent": "primary"},
            {"role": "user", "content": "Fix the issue", "agent": "primary"},
            {
                "role": "assistant",
                "content": "Look first.\n```\nls -a\n```",
                "thought": "Look first.",
                "action": "ls -a\n",
                "agent": "primary",
            },
            {"role": "user", "content": "setup.py\nsrc", "agent": "primary"},
            {
                "role": "assistant",
                "content": "Done.\n```\nsubmit\n```",
                "thought": "Done.",
                "action": "submit\n",
                "agent": "primary",
            },
        ]
    }
    records = parse_values([(doc, 1)], source="old.traj")
    assert [u.text for u in of_type(records, UserText)] == ["Fix the issue"]
    assert [a.text for a in of_type(records, AssistantText)] == ["Look first.", "Done."]
    calls = of_type(records, ToolCall)
    assert [(c.name, dict(c.input)) for c in calls] == [
        ("ls", {"command": "ls -a"}),
        ("submit", {"command": "submit"}),
    ]
    (result,) = of_type(records, ToolResult)
    assert (result.call_id, result.output) == (calls[0].call_id, "setup.py\nsrc")


# --- robustness ----------------------------------------------------------------------------------

ROLE = st.sampled_from(["system", "user", "assistant", "tool", "function"]) | JSON
CALL = st.fixed_dictionaries(
    {},
    optional={
        "id": JSON,
        "function": st.fixed_dictionaries(
            {}, optional={"name": JSON, "arguments": st.sampled_from(["{}", "{bad", "[1]"]) | JSON}
        ),
    },
)
MESSAGE = st.fixed_dictionaries(
    {"role": ROLE},
    optional={
        "content": JSON
        | st.lists(
            st.fixed_dictionaries({"type": JSON}, optional={"text": JSON, "cache_control": JSON})
        ),
        "tool_calls": st.lists(CALL, max_size=2) | JSON,
        "tool_call_id": JSON,
        "tool_call_ids": JSON,
        "name": JSON,
        "thought": JSON,
        "reasoning_content": JSON,
        "function_call": CALL | JSON,
    },
)
ROW = st.fixed_dictionaries(
    {"thread_id": JSON, "type": st.sampled_from(["user", "assistant", "tool", "status"]) | JSON},
    optional={
        "content": JSON | MESSAGE | MESSAGE.map(lambda m: orjson.dumps(m).decode()),
        "metadata": JSON,
        "created_at": JSON,
        "message_id": JSON,
    },
)
DOCUMENT = st.fixed_dictionaries(
    {},
    optional={
        "history": st.lists(MESSAGE, max_size=3) | JSON,
        "info": JSON,
        "messages": st.lists(MESSAGE, max_size=3) | JSON,
        "replay_config": JSON,
    },
)


@settings(max_examples=100, deadline=None)
@given(st.lists(MESSAGE | ROW | DOCUMENT | st.lists(MESSAGE, max_size=3) | JSON, max_size=4))
def test_any_value_shapes_give_records_or_none_never_an_exception(values: list[Any]) -> None:
    parser = openai_messages.Parser("fuzz.traj")
    for number, value in enumerate(values, start=1):
        openai_messages.detect(value)
        records = parser.parse(value, number)
        assert records is None or all(isinstance(r, Record) for r in records)
