"""The backend format (seed 000): normalised system/user/assistant rows with metadata."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.formats import backend
from bot.formats.reader import SourceReader
from bot.records import (
    AssistantText,
    Ignored,
    Notice,
    Record,
    SessionStarted,
    Thinking,
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import ResultStatus, SessionResult
from bot.sources.files import split_lines
from tests.conftest import FIXTURES, corpus_file, read_records
from tests.formats.helpers import ANY_JSON as JSON
from tests.formats.helpers import only as of_type

TWENTY_QUESTIONS = "synthetic__seed-000__twenty_questions.jsonl"
FRED = "0801e1da-1f96-4461-b296-39460b58ea78"


def parse_lines(values: list[dict[str, Any]], source: str = "backend.jsonl") -> list[Record]:
    parser = backend.Parser(source)
    out: list[Record] = []
    for number, value in enumerate(values, start=1):
        records = parser.parse(value, number)
        assert records is not None, value
        out.extend(records)
    return out + parser.finish()


def parse_file(path: Path) -> list[Record]:
    return parse_lines(lines_of(path))


def lines_of(path: Path) -> list[Any]:
    """The file's JSON values as ``read_records`` sees them (a whole document is one value)."""
    return [orjson.loads(raw) for _, raw in split_lines(path.read_bytes()) if raw.strip()]


@pytest.fixture(scope="module")
def twenty_questions() -> list[Record]:
    return parse_file(corpus_file("legion-backend", TWENTY_QUESTIONS))


# --- detection -----------------------------------------------------------------------------------


def test_detect_claims_every_row_of_the_backend_corpus_file() -> None:
    rows = lines_of(corpus_file("legion-backend", TWENTY_QUESTIONS))
    assert len(rows) == 15
    assert all(backend.detect(row) for row in rows)


def test_detect_claims_every_seed_000_example() -> None:
    assert all(backend.detect(row) for row in lines_of(FIXTURES / "backend_seed_000.jsonl"))


def test_detect_rejects_a_claude_stream_line_that_looks_like_a_row() -> None:
    line = {
        "type": "assistant",
        "message": {"role": "assistant"},
        "session_id": "s",
        "timestamp": "2025-01-01T00:00:00Z",
    }
    assert not backend.detect(line)


def test_detect_needs_metadata_or_timestamp() -> None:
    assert not backend.detect({"type": "user", "content": "hi"})
    assert backend.detect({"type": "user", "content": "hi", "timestamp": 1761073198.3})
    assert backend.detect({"type": "user", "metadata": {}})


def test_detect_rejects_non_string_content_and_other_types() -> None:
    assert not backend.detect({"type": "user", "content": [{"type": "text"}], "metadata": {}})
    assert not backend.detect({"type": "result", "content": "", "metadata": {}})
    assert not backend.detect(["type", "user"])


# --- the corpus file -----------------------------------------------------------------------------


def test_twenty_questions_is_one_session_started_by_client_launched(
    twenty_questions: list[Record],
) -> None:
    started = of_type(twenty_questions, SessionStarted)
    first = started[0]
    assert (first.session_id, first.line, first.agent) == (FRED, 1, "Claude Code (backend)")
    assert twenty_questions[0] is started[0]
    assert {r.session_id for r in twenty_questions} == {FRED}


def test_twenty_questions_init_after_client_launched_is_a_second_start(
    twenty_questions: list[Record],
) -> None:
    assert [(r.line, r.kind) for r in of_type(twenty_questions, Ignored)] == [
        (15, "empty_row"),  # "Tool results: 0 results" with no metadata
    ]
    started = of_type(twenty_questions, SessionStarted)
    assert [s.line for s in started] == [1, 2]  # the session stage hides the second


def test_twenty_questions_has_four_tool_calls_by_name(twenty_questions: list[Record]) -> None:
    calls = of_type(twenty_questions, ToolCall)
    assert [(c.call_id, c.name) for c in calls] == [
        ("toolu_01SMt2ETHn8ocNGdRXJaWaWF", "mcp__legion__send_comm"),
        ("toolu_02Read", "Read"),
        ("toolu_03Bash", "Bash"),
        ("toolu_04Todo", "TodoWrite"),
    ]
    assert calls[2].input == {"command": "cat scoreboard.txt", "description": "Show scoreboard"}


def test_twenty_questions_only_the_bash_call_failed(twenty_questions: list[Record]) -> None:
    failed = [r.call_id for r in of_type(twenty_questions, ToolResult) if r.is_error]
    assert failed == ["toolu_03Bash"]


def test_twenty_questions_results_name_calls_except_the_orphan(
    twenty_questions: list[Record],
) -> None:
    call_ids = {c.call_id for c in of_type(twenty_questions, ToolCall)}
    results = [r.call_id for r in of_type(twenty_questions, ToolResult)]
    assert results == [
        "toolu_01SMt2ETHn8ocNGdRXJaWaWF",
        "toolu_03Bash",
        "toolu_02Read",
        "toolu_99Orphan",
        "toolu_04Todo",
    ]
    assert [r for r in results if r not in call_ids] == ["toolu_99Orphan"]


def test_twenty_questions_parallel_results_keep_their_own_timestamps(
    twenty_questions: list[Record],
) -> None:
    bash, read = of_type(twenty_questions, ToolResult)[1:3]
    assert bash.timestamp == datetime.fromtimestamp(1761073203.8, tz=UTC)
    assert read.timestamp == datetime.fromtimestamp(1761073203.9, tz=UTC)


def test_twenty_questions_todowrite_is_followed_by_the_todo_list(
    twenty_questions: list[Record],
) -> None:
    position = next(
        i for i, r in enumerate(twenty_questions) if getattr(r, "name", "") == "TodoWrite"
    )
    update = twenty_questions[position + 1]
    assert isinstance(update, TodoUpdate)
    assert update.call_id == "toolu_04Todo"
    assert update.todos == (
        Todo("Ask category questions", "completed", "Asking category questions"),
        Todo("Narrow to a room", "in_progress", "Narrowing to a room"),
        Todo("Guess the object", "pending", "Guessing the object"),
    )


def test_twenty_questions_thinking_comes_before_its_text(twenty_questions: list[Record]) -> None:
    line_4 = [r for r in twenty_questions if r.line == 4]
    assert [type(r) for r in line_4] == [Thinking, AssistantText]
    assert isinstance(line_4[0], Thinking)
    assert line_4[0].text == "Start broad: appliance vs furniture."


def test_twenty_questions_shows_texts_but_no_placeholders(twenty_questions: list[Record]) -> None:
    assistant = [(r.line, r.text) for r in of_type(twenty_questions, AssistantText)]
    assert [line for line, _ in assistant] == [4, 7, 8, 13]
    assert "Assistant response" not in [text for _, text in assistant]
    users = of_type(twenty_questions, UserText)
    assert [u.line for u in users] == [3]
    assert not any(u.text.startswith("Tool results:") for u in users)


def test_twenty_questions_other_system_subtype_is_a_notice(twenty_questions: list[Record]) -> None:
    notices = of_type(twenty_questions, Notice)
    assert [(n.line, n.kind, n.text, n.level) for n in notices] == [
        (14, "permission_mode_change", "Permission mode changed", "info")
    ]


def test_twenty_questions_mixes_iso_and_unix_timestamps_into_utc(
    twenty_questions: list[Record],
) -> None:
    by_line = {r.line: r.timestamp for r in twenty_questions}
    assert by_line[3] == datetime(2025, 10, 21, 18, 59, 2, 228585, tzinfo=UTC)
    assert by_line[13] == datetime.fromtimestamp(1761073210.75, tz=UTC)


def test_read_records_leaves_nothing_unparsed_in_the_corpus_file() -> None:
    records, stats = read_records(corpus_file("legion-backend", TWENTY_QUESTIONS))
    assert (stats.lines, stats.unparsed) == (16, 0)  # 15 rows and the final newline
    assert len(records) == 20


def test_the_reader_detects_the_corpus_file_as_backend() -> None:
    reader = SourceReader("legion")
    first = corpus_file("legion-backend", TWENTY_QUESTIONS).read_bytes().splitlines()[0]
    reader.feed(first, 1)
    assert reader.family == "backend"


# --- the seed's examples -------------------------------------------------------------------------


def test_seed_examples_start_each_session_once() -> None:
    records = parse_file(FIXTURES / "backend_seed_000.jsonl")
    started = of_type(records, SessionStarted)
    assert [(s.session_id, s.line) for s in started] == [
        ("05e06a0c-cff9-4c22-9560-de519616dc0e", 1),
        (FRED, 2),
    ]


def test_seed_examples_map_to_text_calls_results_and_thinking() -> None:
    records = parse_file(FIXTURES / "backend_seed_000.jsonl")
    shown = [(type(r).__name__, r.line) for r in records if type(r) is not SessionStarted]
    assert shown == [
        ("UserText", 2),
        ("ToolResult", 3),
        ("AssistantText", 4),
        ("ToolCall", 5),
        ("Thinking", 6),
        ("AssistantText", 6),
    ]
    result = of_type(records, ToolResult)[0]
    assert (result.output, result.is_error) == ("Message sent to fred", False)


def test_rows_without_session_id_belong_to_the_last_session_seen() -> None:
    records = parse_file(FIXTURES / "backend_seed_000.jsonl")
    assert {r.session_id for r in records if r.line >= 4} == {FRED}


# --- edge cases ----------------------------------------------------------------------------------


def test_a_session_whose_first_row_is_not_system_starts_with_the_assistant_model() -> None:
    records = parse_lines(
        [
            {
                "type": "assistant",
                "content": "Hi",
                "timestamp": 1.0e9,
                "metadata": {"model": "claude-opus-4"},
                "session_id": "s1",
            }
        ]
    )
    assert [type(r) for r in records] == [SessionStarted, AssistantText]
    assert isinstance(records[0], SessionStarted)
    assert records[0].model == "claude-opus-4"


def test_init_row_first_gives_model_cwd_and_tools() -> None:
    init = {
        "type": "system",
        "content": "",
        "timestamp": 1.0e9,
        "session_id": "s",
        "metadata": {
            "subtype": "init",
            "model": "m",
            "working_directory": "/w",
            "tools": ["Read", "Bash"],
        },
    }
    (started,) = parse_lines([init])
    assert isinstance(started, SessionStarted)
    assert (started.model, started.cwd, started.tools) == ("m", "/w", ("Read", "Bash"))


def test_session_id_comes_from_metadata_else_last_seen_else_the_source() -> None:
    records = parse_lines(
        [
            {"type": "user", "content": "no id yet", "timestamp": 1.0e9},
            {"type": "user", "content": "a", "metadata": {"session_id": "from-meta"}},
            {"type": "user", "content": "b", "timestamp": 1.0e9},
        ],
        source="logs/backend.jsonl",
    )
    texts = {r.text: r.session_id for r in of_type(records, UserText)}
    assert texts == {"no id yet": "logs/backend.jsonl", "a": "from-meta", "b": "from-meta"}


def test_two_sessions_in_one_file_each_start_once() -> None:
    rows = [
        {"type": "user", "content": "x", "timestamp": 1.0e9, "session_id": s}
        for s in ("a", "b", "a", "b")
    ]
    started = of_type(parse_lines(rows), SessionStarted)
    assert [s.session_id for s in started] == ["a", "b"]


def test_a_second_start_row_of_a_session_is_a_start_that_fills_in_details() -> None:
    launched = {
        "type": "system",
        "content": "",
        "metadata": {"subtype": "client_launched"},
        "session_id": "s",
    }
    init = {**launched, "metadata": {"subtype": "init", "model": "opus"}}
    records = parse_lines([launched, init])
    assert [type(r) for r in records] == [SessionStarted, SessionStarted]
    assert isinstance(records[1], SessionStarted) and records[1].model == "opus"


def test_missing_content_and_missing_metadata_are_tolerated() -> None:
    records = parse_lines([{"type": "assistant", "timestamp": 1.0e9, "session_id": "s"}])
    assert [type(r) for r in records] == [SessionStarted, Ignored]


def test_empty_tool_uses_and_a_list_result_content() -> None:
    rows = [
        {
            "type": "user",
            "content": "Tool results: 1 results",
            "session_id": "s",
            "metadata": {
                "tool_uses": [],
                "tool_results": [
                    {
                        "tool_use_id": "t1",
                        "content": [
                            {"type": "text", "text": "line one"},
                            {"type": "text", "text": "line two"},
                        ],
                    }
                ],
            },
        }
    ]
    (result,) = of_type(parse_lines(rows), ToolResult)
    assert (result.call_id, result.output, result.is_error) == ("t1", "line one\nline two", False)
    assert result.timestamp is None


def test_user_text_next_to_tool_results_is_still_shown() -> None:
    rows = [
        {
            "type": "user",
            "content": "and also this",
            "session_id": "s",
            "metadata": {"tool_results": [{"tool_use_id": "t1", "content": "ok"}]},
        }
    ]
    kinds = [type(r) for r in parse_lines(rows)]
    assert kinds == [SessionStarted, UserText, ToolResult]


def test_a_system_row_with_is_error_is_an_error_notice() -> None:
    rows = [
        {
            "type": "system",
            "content": "boom",
            "session_id": "s",
            "metadata": {"subtype": "error_during_execution", "is_error": True},
        }
    ]
    (notice,) = of_type(parse_lines(rows), Notice)
    assert (notice.kind, notice.text, notice.level) == ("error_during_execution", "boom", "error")


def test_a_result_row_is_the_session_result() -> None:
    rows = [
        {
            "type": "result",
            "content": "Done",
            "session_id": "s",
            "timestamp": 1.0e9,
            "metadata": {
                "subtype": "success",
                "is_error": False,
                "num_turns": 3,
                "total_cost_usd": 0.25,
                "duration_ms": 1200,
            },
        }
    ]
    (result,) = of_type(parse_lines(rows), SessionResult)
    assert result.status is ResultStatus.SUCCEEDED
    assert (result.subtype, result.num_turns, result.cost_usd, result.duration_ms) == (
        "success",
        3,
        0.25,
        1200,
    )


def test_values_that_are_not_rows_are_not_understood() -> None:
    parser = backend.Parser("x")
    assert parser.parse([1, 2], 1) is None
    assert parser.parse({"content": "no type"}, 2) is None
    assert parser.parse("text", 3) is None


# --- robustness ----------------------------------------------------------------------------------

ROW = st.fixed_dictionaries(
    {"type": st.sampled_from(["system", "user", "assistant", "result", "error"]) | JSON},
    optional={
        "content": JSON,
        "timestamp": JSON,
        "session_id": JSON,
        "subtype": JSON,
        "metadata": st.fixed_dictionaries(
            {},
            optional={
                k: JSON
                for k in (
                    "subtype",
                    "session_id",
                    "model",
                    "tools",
                    "is_error",
                    "tool_uses",
                    "tool_results",
                    "thinking_content",
                    "thinking_blocks",
                    "working_directory",
                )
            },
        )
        | JSON,
    },
)


@settings(max_examples=100, deadline=None)
@given(st.lists(ROW | JSON, max_size=4))
def test_any_row_shapes_give_records_or_none_never_an_exception(values: list[Any]) -> None:
    parser = backend.Parser("fuzz")
    for number, value in enumerate(values, start=1):
        backend.detect(value)
        records = parser.parse(value, number)
        assert records is None or all(isinstance(r, Record) for r in records)
