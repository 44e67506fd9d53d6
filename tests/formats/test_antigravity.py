"""Antigravity CLI transcripts: detection, how each kind of step maps to records, the pairing of
tool steps with calls, and what every corpus file of the family holds (numbers counted from the
raw files, not from the parser)."""

from __future__ import annotations

from typing import Any

import pytest

from bot import snapshot
from bot.formats import FORMATS, antigravity, detect_family
from bot.formats.antigravity import Parser, conversation_of, detect
from bot.formats.antigravity_steps import NO_RESULT
from bot.preview import build_preview, preview_document
from bot.records import (
    AssistantText,
    Ignored,
    Notice,
    Record,
    SessionStarted,
    Thinking,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import SessionResult, TurnEnded
from bot.session import Session, SessionStatus
from tests.conftest import FIXTURES, corpus_file
from tests.formats.helpers import only, parsed_by, records_of, single
from tests.formats.helpers import raw_values as raw_steps

FAMILY_DIR = "antigravity"
MCP = "shane-kercheval__switchboard__mcp-tool-wrapper.transcript.jsonl"
TOOL_USE = "shane-kercheval__switchboard__tool-use.transcript.jsonl"
CORPUS_FILES = (MCP, TOOL_USE)
OUT_OF_ORDER = "antigravity_out_of_order.transcript.jsonl"


def step(index: int, kind: str, source: str = "MODEL", **fields: Any) -> dict[str, Any]:
    return {"step_index": index, "source": source, "type": kind, "status": "DONE", **fields}


def planner(index: int, *names: str, **fields: Any) -> dict[str, Any]:
    calls = [{"name": name, "args": {}} for name in names]
    return step(index, "PLANNER_RESPONSE", tool_calls=calls, **fields)


def session_of(records: list[Record]) -> Session:
    """The session of ``records`` (one) at the end of their input."""
    session = Session(records[0].session_id)
    for record in records:
        session.apply(record)
    session.close(expects_result=False)
    return session


def parse(*steps: dict[str, Any], source: str = "t.jsonl") -> list[Record]:
    return parsed_by(Parser(source), steps)


def answers(records: list[Record]) -> dict[str, tuple[str, bool]]:
    return {r.call_id: (r.output, r.is_error) for r in only(records, ToolResult)}


# --- detection ---------------------------------------------------------------------------------


def test_the_format_is_registered_and_reports_no_result() -> None:
    assert antigravity.FORMAT in FORMATS
    assert (antigravity.FORMAT.name, antigravity.FORMAT.agent) == (
        "antigravity-transcript",
        "Antigravity",
    )
    assert antigravity.FORMAT.reports_result is False


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_detect_claims_every_step_of_every_corpus_file(name: str) -> None:
    for value in raw_steps(corpus_file(FAMILY_DIR, name)):
        assert detect(value)
        assert detect_family(value) is antigravity.FORMAT


@pytest.mark.parametrize(
    "value",
    [
        {"event": "step_update", "step_update": {"step_index": 2, "step_type": "tool"}},
        {"step_index": True, "source": "MODEL", "type": "RUN_COMMAND"},
        {"step_index": 2, "source": "MODEL"},
        {"step_index": 2, "source": "someone", "type": "RUN_COMMAND"},
        {"type": "assistant", "session_id": "s", "message": {}},
        ["step_index", 1],
    ],
    ids=["stream-json step", "bool index", "no type", "unknown source", "claude", "list"],
)
def test_detect_refuses_lookalikes(value: object) -> None:
    assert not detect(value)


def test_a_value_of_another_shape_is_not_mine() -> None:
    parser = Parser("t.jsonl")
    assert parser.parse({"type": "USER_INPUT"}, 1) is None
    assert parser.parse({"step_index": "1", "type": "USER_INPUT"}, 2) is None
    assert parser.parse([1, 2], 3) is None


# --- the session ---------------------------------------------------------------------------


def test_the_session_is_the_conversation_directory_of_the_transcripts_path() -> None:
    brain = "/home/me/.gemini/antigravity-cli/brain/0b8e2f4c-1d2a-4c55-9f00-3c1f7e2a9b10"
    assert conversation_of(f"{brain}/.system_generated/logs/transcript.jsonl") == brain[-36:]
    assert conversation_of(f"{brain}/.system_generated/logs/transcript_full.jsonl") == brain[-36:]


def test_elsewhere_the_session_is_the_files_name() -> None:
    assert conversation_of("/tmp/logs/run-7.transcript.jsonl") == "run-7.transcript"
    assert conversation_of("stdin") == "stdin"


def test_the_first_step_starts_the_session_with_the_model_of_the_settings_change() -> None:
    (started, user) = parse(
        step(
            0,
            "USER_INPUT",
            "USER_EXPLICIT",
            content="<USER_REQUEST>\nhi\n</USER_REQUEST>\n"
            "<USER_SETTINGS_CHANGE>\nThe user changed setting `Model Selection` from None to "
            "Gemini 3.5 Flash (High). Done.</USER_SETTINGS_CHANGE>",
        ),
    )
    assert isinstance(started, SessionStarted) and isinstance(user, UserText)
    assert (started.agent, started.model, started.session_id) == (
        "Antigravity",
        "Gemini 3.5 Flash (High)",
        "t",
    )
    assert user.text == "hi"


def test_a_prompt_without_its_request_tag_is_said_whole() -> None:
    records = parse(step(0, "USER_INPUT", "USER_EXPLICIT", content="  just words  "))
    assert single(records, UserText).text == "just words"
    assert single(records, SessionStarted).model is None


def test_a_later_model_change_is_a_notice() -> None:
    settings = (
        "<USER_REQUEST>\ngo\n</USER_REQUEST><USER_SETTINGS_CHANGE>The user changed "
        "setting `Model Selection` from A to {}. Done.</USER_SETTINGS_CHANGE>"
    )
    records = parse(
        step(0, "USER_INPUT", "USER_EXPLICIT", content=settings.format("Gemini 3.5 Pro")),
        step(5, "USER_INPUT", "USER_EXPLICIT", content=settings.format("Gemini 3.5 Pro")),
        step(9, "USER_INPUT", "USER_EXPLICIT", content=settings.format("Gemini 3.5 Flash")),
    )
    assert single(records, SessionStarted).model == "Gemini 3.5 Pro"
    model = single(records, Notice)
    assert (model.kind, model.text, model.line) == ("model", "Model: Gemini 3.5 Flash", 3)


# --- planner responses and their calls ------------------------------------------------------


def test_a_planner_response_says_its_thinking_then_its_answer_which_ends_the_turn() -> None:
    records = parse(step(2, "PLANNER_RESPONSE", thinking="hmm", content="ack"))
    assert [type(r) for r in records] == [SessionStarted, Thinking, AssistantText, TurnEnded]
    assert [records[1].text, records[2].text] == ["hmm", "ack"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "fields",
    [
        {"content": "Checking first.", "tool_calls": [{"name": "list_dir", "args": {}}]},
        {"thinking": "hmm", "tool_calls": [{"name": "list_dir", "args": {}}]},
        {"thinking": "hmm"},  # no answer yet
        {"content": "  ", "tool_calls": []},
    ],
    ids=["text-and-call", "call", "thinking-only", "blank"],
)
def test_a_planner_response_with_a_call_or_no_answer_does_not_end_the_turn(
    fields: dict[str, Any],
) -> None:
    assert only(parse(step(2, "PLANNER_RESPONSE", **fields)), TurnEnded) == []


def test_each_argument_is_decoded_once_from_its_json_text() -> None:
    args = {
        "CommandLine": '"ls -F"',
        "WaitMsBeforeAsync": "0",
        "Flags": '["-a"]',
        "Plain": "not json",
        "Native": 3,
    }
    records = parse(step(2, "PLANNER_RESPONSE", tool_calls=[{"name": "run_command", "args": args}]))
    call = single(records, ToolCall)
    assert (call.call_id, call.name) == ("2:0", "run_command")
    assert call.input == {
        "CommandLine": "ls -F",
        "WaitMsBeforeAsync": 0,
        "Flags": ["-a"],
        "Plain": "not json",
        "Native": 3,
    }


def test_an_mcp_call_is_named_as_claude_names_one_with_its_arguments_as_input() -> None:
    args = {
        "ServerName": '"notes"',
        "ToolName": '"edit_content"',
        "Arguments": '{"id": "n1"}',
        "toolAction": '"Edit"',
    }
    records = parse(
        step(8, "PLANNER_RESPONSE", tool_calls=[{"name": "call_mcp_tool", "args": args}])
    )
    call = single(records, ToolCall)
    assert (call.name, call.input) == ("mcp__notes__edit_content", {"id": "n1"})


def test_a_call_of_no_known_shape_is_kept_raw() -> None:
    records = parse(step(2, "PLANNER_RESPONSE", tool_calls=["odd", {"name": "x", "args": "y"}]))
    odd, named = only(records, ToolCall)
    assert (odd.call_id, odd.name, odd.raw_input) == ("2:0", "tool", '"odd"')
    assert (named.call_id, named.name, named.input, named.raw_input) == ("2:1", "x", {}, '"y"')


# --- pairing -------------------------------------------------------------------------------


def test_the_kth_call_of_step_p_is_answered_by_step_p_plus_1_plus_k() -> None:
    records = parse(
        planner(2, "a", "b"), step(3, "RUN_COMMAND", content="A"), step(4, "VIEW_FILE", content="B")
    )
    assert answers(records) == {"2:0": ("A", False), "2:1": ("B", False)}


def test_a_step_written_before_its_planner_response_waits_for_the_call() -> None:
    parser = Parser("t.jsonl")
    assert parser.parse(step(0, "USER_INPUT", "USER_EXPLICIT", content="go"), 1) is not None
    assert parser.parse(step(27, "CODE_ACTION", content="edited"), 2) == []
    records = parser.parse(planner(26, "replace_file_content", "write_to_file"), 3) or []
    assert [(type(r), getattr(r, "call_id", None)) for r in records] == [
        (ToolCall, "26:0"),
        (ToolResult, "26:0"),
        (ToolCall, "26:1"),
    ]
    assert records[1].line == 2  # the result keeps its own line
    second = parser.parse(step(28, "CODE_ACTION", content="created"), 4) or []
    assert [(type(r), getattr(r, "call_id", None)) for r in second] == [(ToolResult, "26:1")]
    assert parser.finish() == []


def test_a_gap_in_step_index_before_a_planner_response_changes_nothing() -> None:
    records = parse(
        step(0, "USER_INPUT", "USER_EXPLICIT", content="go"),
        planner(3, "a"),
        step(4, "X", content="done"),
        step(9, "PLANNER_RESPONSE", content="ok"),
    )
    assert answers(records) == {"3:0": ("done", False)}
    assert only(records, Notice) == []


def test_a_gap_between_a_call_and_its_step_is_paired_at_the_end_of_input() -> None:
    records = parse(planner(3, "a"), step(5, "RUN_COMMAND", content="late"))
    assert answers(records) == {"3:0": ("late", False)}
    assert only(records, Notice) == []


def test_a_rejected_call_does_not_take_the_next_calls_result() -> None:
    records = parse(
        planner(2, "rejected", "ran"),
        step(4, "RUN_COMMAND", content="out"),
        step(5, "PLANNER_RESPONSE", content="done"),
    )
    assert answers(records) == {"2:1": ("out", False), "2:0": (NO_RESULT, True)}
    assert records[-2].line == 3  # said at the end, at the last step read
    # the transcript stopped on an answer: its turn's end is said again after that result
    assert [(type(r), r.line) for r in records[-3:]] == [
        (TurnEnded, 3), (ToolResult, 3), (TurnEnded, 3)
    ]  # fmt: skip
    assert session_of(records).status is SessionStatus.WAITING


def test_a_call_the_transcript_stops_at_stays_open() -> None:
    records = parse(planner(2, "ls"))
    assert single(records, ToolCall).call_id == "2:0"
    assert only(records, ToolResult) == []


def test_a_step_that_answers_no_call_is_a_warning_at_the_end() -> None:
    records = parse(
        step(0, "USER_INPUT", "USER_EXPLICIT", content="go"),
        step(4, "RUN_COMMAND", content="orphan"),
        planner(4, "late"),
    )
    notice = single(records, Notice)
    assert (notice.kind, notice.level, notice.line) == ("unmatched_result", "warning", 2)
    assert notice.text == "Step 4 (RUN_COMMAND) answers no tool call: orphan"
    assert only(records, ToolResult) == []


def test_the_parser_comes_back_from_a_snapshot_with_a_held_step() -> None:
    parser = Parser("t.jsonl")
    parser.parse(step(3, "RUN_COMMAND", content="early"), 1)
    restored = snapshot.loads(snapshot.dumps(parser))
    records = restored.parse(planner(2, "a"), 2) or []
    assert answers(records) == {"2:0": ("early", False)}


# --- failures and other steps ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "failed"),
    [
        ({"content": "The command completed successfully.\nOutput:\nok"}, False),
        ({"content": "Created At: now\nThe command failed with exit code: 1\nOutput:\nboom"}, True),
        ({"content": "Output:\nThe command failed with exit code: 128"}, False),
        ({"status": "FAILED", "content": "half"}, True),
    ],
    ids=["success", "exit code", "the words in the output", "FAILED"],
)
def test_a_tool_step_fails_on_its_status_or_its_commands_exit_code(
    fields: dict[str, Any], failed: bool
) -> None:
    records = parse(planner(2, "run_command"), step(3, "RUN_COMMAND", **fields))
    assert single(records, ToolResult).is_error is failed


def test_a_steps_error_is_its_output() -> None:
    records = parse(
        planner(2, "grep_search"),
        step(3, "GREP_SEARCH", status="FAILED", content="x", error="unreadable"),
    )
    assert answers(records) == {"2:0": ("unreadable", True)}


def test_an_invalid_tool_call_error_is_the_calls_failed_result() -> None:
    error = "model output error: invalid tool call error (invalid_args) no such file"
    records = parse(planner(8, "view_file"), step(9, "ERROR_MESSAGE", "SYSTEM", error=error))
    assert answers(records) == {"8:0": (error, True)}
    assert only(records, Notice) == []


def test_a_quota_error_is_an_error_notice_and_answers_no_call() -> None:
    records = parse(
        planner(2, "run_command"),
        step(3, "ERROR_MESSAGE", "SYSTEM", error="RESOURCE_EXHAUSTED (code 429)"),
    )
    notice = single(records, Notice)
    assert (notice.kind, notice.level, notice.text) == (
        "error",
        "error",
        "RESOURCE_EXHAUSTED (code 429)",
    )
    assert only(records, ToolResult) == []  # the call stays open: its step is still to come


def test_history_and_system_messages_are_hidden_and_an_unknown_step_is_a_notice() -> None:
    records = parse(
        step(1, "CONVERSATION_HISTORY", "SYSTEM"),
        step(2, "SYSTEM_MESSAGE", "SYSTEM", content="[Notice] restarted"),
        step(3, "CHECKPOINT", "SYSTEM", content="saved"),
    )
    assert [r.kind for r in only(records, Ignored)] == ["CONVERSATION_HISTORY", "SYSTEM_MESSAGE"]
    notice = single(records, Notice)
    assert (notice.kind, notice.text, notice.level) == ("checkpoint", "saved", "info")


# --- the corpus, file by file ----------------------------------------------------------------


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_every_corpus_step_gives_a_record_and_none_is_unparsed(name: str) -> None:
    path = corpus_file(FAMILY_DIR, name)
    records = records_of(path)
    assert {r.line for r in records} == set(range(1, len(raw_steps(path)) + 1))
    assert {r.session_id for r in records} == {name.removesuffix(".jsonl")}


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_every_call_of_a_corpus_file_is_answered_by_the_step_its_number_names(name: str) -> None:
    path = corpus_file(FAMILY_DIR, name)
    raw = raw_steps(path)
    line_of_step = {value["step_index"]: number for number, value in enumerate(raw, 1)}
    expected = {
        f"{value['step_index']}:{k}": line_of_step[value["step_index"] + 1 + k]
        for value in raw
        if value["type"] == "PLANNER_RESPONSE"
        for k in range(len(value.get("tool_calls", [])))
    }
    records = records_of(path)
    assert [c.call_id for c in only(records, ToolCall)] == list(expected)
    assert {r.call_id: r.line for r in only(records, ToolResult)} == expected
    failed = [
        v
        for v in raw
        if v["status"] == "FAILED"
        or v.get("content", "").startswith("The command failed with exit code:")
        or v["type"] == "ERROR_MESSAGE"
    ]
    assert [r for r in only(records, ToolResult) if r.is_error] == failed == []
    assert only(records, SessionResult) == []


def test_mcp_wrapper_file_one_mcp_call_after_a_gap_and_the_answer() -> None:
    records = records_of(corpus_file(FAMILY_DIR, MCP))
    assert single(records, SessionStarted).model is None
    assert single(records, UserText).text == "Retrieve sample context"
    call = single(records, ToolCall)
    assert (call.call_id, call.name, call.input) == ("3:0", "mcp__notes_alias__get_context", {})
    assert answers(records) == {"3:0": ("context available", False)}
    assert single(records, Thinking).text == "Retrieving sample context."
    assert single(records, AssistantText).text == "ack"


def test_tool_use_file_two_calls_with_decoded_arguments_and_the_answer() -> None:
    records = records_of(corpus_file(FAMILY_DIR, TOOL_USE))
    assert single(records, SessionStarted).model == "Gemini 3.5 Flash (High)"
    assert single(records, UserText).text == (
        "Read the file MARKER.txt in current directory and reply with its contents only."
    )
    assert [(c.call_id, c.name, c.input) for c in only(records, ToolCall)] == [
        (
            "2:0",
            "run_command",
            {"CommandLine": "ls -F", "Cwd": "/tmp/agy-probe", "WaitMsBeforeAsync": 0},
        ),
        ("4:0", "view_file", {"AbsolutePath": "/tmp/agy-probe/MARKER.txt"}),
    ]
    assert answers(records)["4:0"][0].startswith("1: SWITCHBOARD_AGY_PROBE_42\n")
    assert single(records, Ignored).kind == "CONVERSATION_HISTORY"
    assert single(records, AssistantText).text == "SWITCHBOARD_AGY_PROBE_42"


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_a_corpus_transcript_ends_on_its_answer_waiting_for_the_user(name: str) -> None:
    # each file's last step is a PLANNER_RESPONSE with content and no tool_calls (its only one)
    records = records_of(corpus_file(FAMILY_DIR, name))
    (ended,) = only(records, TurnEnded)
    assert ended.line == max(r.line for r in records)
    (session,) = preview_document(build_preview([corpus_file(FAMILY_DIR, name)]))["sessions"]
    assert (session["agent"], session["status"]) == ("Antigravity", "waiting")
    assert {tool["status"] for tool in session["tools"]} == {"ok"}


# --- a fixture of our own: out of order, failures, a resumed conversation ----------------------


def test_fixture_out_of_order_steps_pair_and_failures_are_errors() -> None:
    path = FIXTURES / OUT_OF_ORDER
    records = records_of(path)
    assert [(c.call_id, c.name) for c in only(records, ToolCall)] == [
        ("3:0", "run_command"),
        ("5:0", "view_file"),
        ("5:1", "grep_search"),
        ("9:0", "replace_file_content"),
    ]
    assert {call: failed for call, (_, failed) in answers(records).items()} == {
        "3:0": True,
        "5:0": False,
        "5:1": True,
        "9:0": True,
    }
    # the view_file result (line 5, step 6) comes right after its call (line 6, step 5)
    order = [(type(r).__name__, r.line) for r in records if isinstance(r, ToolCall | ToolResult)]
    assert order[2:5] == [("ToolCall", 6), ("ToolResult", 5), ("ToolCall", 6)]
    notices = only(records, Notice)
    assert [(n.kind, n.level) for n in notices] == [("error", "error"), ("model", "info")]
    assert [u.text for u in only(records, UserText)] == [
        "Fix the typo in notes.txt and check the repository.",
        "Try again.",
    ]
    assert single(records, SessionStarted).model == "Gemini 3.5 Pro (High)"
    # two answers (steps 13 and 16, on lines 12 and 14): each ends a turn, the second after the
    # user's "Try again."
    assert [e.line for e in only(records, TurnEnded)] == [12, 14]
