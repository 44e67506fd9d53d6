"""OpenCode ``run --format json``: detection, how each event maps to records, and what every
corpus file of the family holds (numbers counted from the raw files, then written down)."""

from __future__ import annotations

from typing import Any

import pytest

from blocks.root import status_line
from bot import snapshot
from bot.formats import opencode
from bot.formats.opencode import Parser, detect
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
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
    Usage,
)
from bot.result_records import PermissionDenial, ResultStatus, SessionResult, TurnEnded
from bot.session import Session
from bot.session.thread import ResultItem
from tests.conftest import corpus_file
from tests.formats.helpers import (
    claims_every_value,
    gives_every_line_a_record,
    only,
    parsed_by,
    records_of,
    single,
    spending_of,
)

FAMILY_DIR = "opencode"
RUN_JSON = "banteg__takopi__opencode_run_json.jsonl"
STREAM_ERROR = "banteg__takopi__opencode_stream_error.jsonl"
STREAM_SUCCESS = "banteg__takopi__opencode_stream_success.jsonl"
NO_REASON = "banteg__takopi__opencode_stream_success_no_reason.jsonl"
CORPUS_FILES = (RUN_JSON, STREAM_ERROR, STREAM_SUCCESS, NO_REASON)
T0 = 1767036059338  # epoch ms


def corpus_records(name: str) -> list[Record]:
    return records_of(corpus_file(FAMILY_DIR, name))


def event(kind: str, session: str = "ses_1", at: int = T0, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "timestamp": at, "sessionID": session, **fields}


def part(kind: str, part_type: str, at: int = T0, **fields: Any) -> dict[str, Any]:
    return event(kind, at=at, part={"type": part_type, "messageID": "msg_1", **fields})


def tool(name: str, state: dict[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    return part("tool_use", "tool", callID=call_id, tool=name, state=state)


def finish(reason: str | None = None, at: int = T0, **fields: Any) -> dict[str, Any]:
    given = {"reason": reason} if reason is not None else {}
    return part("step_finish", "step-finish", at=at, **given, **fields)


def parse(*values: Any) -> list[Record]:
    """The records of ``values``, as one source; every value must be understood."""
    return parsed_by(Parser("src"), values)


# --- detection -------------------------------------------------------------------------------


def test_detect_claims_every_line_of_every_corpus_file() -> None:
    for name in CORPUS_FILES:
        claims_every_value(opencode.FORMAT, corpus_file(FAMILY_DIR, name))


@pytest.mark.parametrize(
    "value",
    [
        {"type": "text", "sessionId": "s", "part": {"type": "text", "text": "hi"}},
        {"type": "text", "session_id": "s", "part": {"type": "text", "text": "hi"}},
        {"type": "text", "sessionID": "s"},
        {"type": "error", "sessionID": "s"},
        {"type": "session.updated", "sessionID": "s", "properties": {}},
        {"type": "text", "sessionID": "", "part": {}},
        {"type": "message_end", "message": {"role": "assistant", "content": []}},
        [{"type": "text", "sessionID": "s", "part": {}}],
    ],
    ids=[
        "transcript-key",
        "stream-json-key",
        "part-type-without-part",
        "error-without-error",
        "server-event",
        "empty-session",
        "pi-event",
        "a-list",
    ],
)
def test_detect_refuses_other_families_and_incomplete_lines(value: object) -> None:
    assert not detect(value)


@pytest.mark.parametrize(
    "value", [[1], "text", {"sessionID": "s"}, {"type": 3, "sessionID": "s"}, {"type": "text"}]
)
def test_values_that_are_not_typed_lines_of_a_session_are_not_this_format(value: object) -> None:
    assert Parser("src").parse(value, 1) is None


def test_a_part_event_whose_part_is_not_an_object_is_not_this_format() -> None:
    assert Parser("src").parse(event("text", part="hello"), 1) is None


# --- sessions, text, thinking ----------------------------------------------------------------


def test_the_first_line_of_each_session_also_starts_it() -> None:
    records = parse(
        part("step_start", "step-start"),
        part("text", "text", text="a"),
        event("step_start", session="ses_2", part={"type": "step-start"}),
    )
    started = only(records, SessionStarted)
    assert [(s.session_id, s.agent, s.line) for s in started] == [
        ("ses_1", "OpenCode", 1),
        ("ses_2", "OpenCode", 3),
    ]
    assert isinstance(records[1], Ignored) and records[1].kind == "step_start"


def test_text_is_assistant_text_of_its_message_and_blank_text_is_ignored() -> None:
    records = parse(part("text", "text", text="Done."), part("text", "text", text="  "))
    text = single(records, AssistantText)
    assert (text.text, text.message_id, text.delta) == ("Done.", "msg_1", False)
    assert [r.kind for r in only(records, Ignored)] == ["empty text"]


def test_reasoning_is_thinking() -> None:
    records = parse(part("reasoning", "reasoning", text="Let me look."))
    assert single(records, Thinking).text == "Let me look."


def test_timestamps_are_epoch_milliseconds() -> None:
    (started, _) = parse(part("step_start", "step-start", at=1767036059338))
    assert started.timestamp is not None
    assert started.timestamp.isoformat() == "2025-12-29T19:20:59.338000+00:00"


# --- tools -----------------------------------------------------------------------------------


def test_a_completed_tool_is_its_call_then_its_result_on_the_same_line() -> None:
    state = {"status": "completed", "input": {"command": "ls"}, "output": "a\nb\n"}
    records = parse(tool("bash", state))
    call, result = only(records, ToolCall)[0], only(records, ToolResult)[0]
    assert records.index(call) < records.index(result)
    assert (call.call_id, call.name, call.input) == ("call_1", "bash", {"command": "ls"})
    assert (result.call_id, result.output, result.is_error, result.name) == (
        "call_1",
        "a\nb\n",
        False,
        "bash",
    )
    assert call.line == result.line == 1


@pytest.mark.parametrize(
    ("metadata", "failed"),
    [
        ({"exit": 0}, False),
        ({"exit": 1}, True),
        ({"exitCode": 0}, False),
        ({"exitCode": 2}, True),
        ({"exit": 0, "exitCode": 3}, False),  # `exit` first, as the newer versions write it
        ({}, False),
    ],
    ids=["exit-0", "exit-1", "exitCode-0", "exitCode-2", "exit-wins", "no-code"],
)
def test_a_bash_call_failed_when_its_exit_code_is_not_0(
    metadata: dict[str, int], failed: bool
) -> None:
    state = {"status": "completed", "input": {"command": "x"}, "output": "", "metadata": metadata}
    assert single(parse(tool("bash", state)), ToolResult).is_error is failed


def test_a_tool_in_error_fails_with_its_error_as_output() -> None:
    state = {"status": "error", "input": {"filePath": "/x"}, "error": "File not found: /x"}
    result = single(parse(tool("read", state)), ToolResult)
    assert (result.is_error, result.output) == (True, "File not found: /x")


def test_a_tool_not_yet_ended_is_a_call_without_a_result() -> None:
    records = parse(tool("bash", {"status": "running", "input": {"command": "sleep 9"}}))
    assert single(records, ToolCall).name == "bash"
    assert only(records, ToolResult) == []


def test_todowrite_also_updates_the_todo_list() -> None:
    todos = [
        {"id": "1", "content": "Read the code", "status": "completed", "priority": "high"},
        {"id": "2", "content": "Fix the bug", "status": "in_progress", "priority": "medium"},
    ]
    state = {"status": "completed", "input": {"todos": todos}, "output": "[]"}
    records = parse(tool("todowrite", state, call_id="call_t"))
    assert [type(r) for r in records] == [SessionStarted, ToolCall, TodoUpdate, ToolResult]
    update = single(records, TodoUpdate)
    assert update.call_id == "call_t"
    assert update.todos == (
        Todo("Read the code", "completed", priority="high"),
        Todo("Fix the bug", "in_progress", priority="medium"),
    )


def test_task_is_a_delegation_linked_to_its_child_session_and_answered() -> None:
    state = {
        "status": "completed",
        "input": {"description": "Find the parser", "prompt": "Look…", "subagent_type": "explore"},
        "output": "task_id: ses_child\n\n<task_result>\nIn bot/\n</task_result>",
        "metadata": {"sessionId": "ses_child", "model": {"modelID": "m", "providerID": "p"}},
    }
    records = parse(tool("task", state, call_id="call_task"))
    assert [type(r) for r in records] == [SessionStarted, Delegation, SubagentLink, ToolResult]
    delegation = single(records, Delegation)
    assert (delegation.call_id, delegation.member, delegation.task) == (
        "call_task",
        "explore",
        "Find the parser",
    )
    link = single(records, SubagentLink)
    assert (link.agent_id, link.call_id) == ("ses_child", "call_task")
    assert single(records, ToolResult).output.endswith("</task_result>")


def test_tool_input_given_as_text_is_kept_raw() -> None:
    state = {"status": "completed", "input": "ls -la", "output": ""}
    call = single(parse(tool("bash", state)), ToolCall)
    assert (call.input, call.raw_input) == ({}, "ls -la")


# --- steps and results -----------------------------------------------------------------------


def test_each_step_is_its_own_usage_and_the_result_gives_none_of_its_own() -> None:
    first = {"input": 500, "output": 50, "reasoning": 0, "cache": {"read": 100, "write": 0}}
    second = {"input": 600, "output": 30, "reasoning": 10, "cache": {"read": 200, "write": 50}}
    records = parse(
        finish("tool-calls", cost=0.003, tokens=first),
        finish("stop", at=T0 + 2500, cost=0.002, tokens={**second, "total": 890}),
    )
    one, two = only(records, Usage)
    assert (one.cost_usd, one.input_tokens, one.output_tokens, one.reasoning_tokens) == (
        0.003, 500, 50, 0)  # fmt: skip
    assert (one.cache_read_tokens, one.cache_write_tokens) == (100, 0)
    assert (two.cost_usd, two.input_tokens, two.cache_read_tokens, two.cache_write_tokens) == (
        0.002, 600, 200, 50)  # fmt: skip
    result = single(records, SessionResult)
    assert (result.status, result.subtype, result.num_turns) == (ResultStatus.SUCCEEDED, "stop", 2)
    assert (result.cost_usd, result.input_tokens, result.output_tokens) == (None, None, None)
    assert result.duration_ms == 2500


def test_the_session_adds_the_steps_up_once_in_its_header_and_on_its_result() -> None:
    first = {"input": 500, "output": 50, "cache": {"read": 100}}
    session = Session("ses_1")
    for record in parse(finish("tool-calls", cost=0.003, tokens=first)):
        session.apply(record)
    assert "$0.0030 · 50 tokens out" in status_line(session)  # while it runs
    for record in parse(finish("stop", cost=0.002, tokens={"input": 600, "output": 30})):
        session.apply(record)
    spent = session.spent
    assert spent is not None and spent.cost_usd == pytest.approx(0.005)
    assert (spent.input_tokens, spent.output_tokens, spent.cache_read_tokens) == (1100, 80, 100)
    shown = session.items[-1]
    assert isinstance(shown, ResultItem)
    assert (shown.result.input_tokens, shown.result.output_tokens) == (1100, 80)
    assert "$0.0050 · 80 tokens out" in status_line(session)


def test_a_number_no_step_gives_stays_unknown() -> None:
    usage = single(parse(finish("stop", tokens={"output": 5})), Usage)
    assert (usage.cost_usd, usage.input_tokens, usage.output_tokens) == (None, None, 5)
    assert only(parse(finish("stop")), Usage) == []


def test_the_result_text_is_the_last_text_of_the_session() -> None:
    records = parse(part("text", "text", text="First."), part("text", "text", text="Last."),
                    finish("stop"))  # fmt: skip
    assert single(records, SessionResult).text == "Last."


@pytest.mark.parametrize("reason", [None, "tool-calls"])
def test_a_step_that_ends_for_a_tool_call_or_for_no_reason_ends_nothing(reason: str | None) -> None:
    records = parse(finish(reason, cost=0.01))
    assert [type(r) for r in records] == [SessionStarted, Usage]
    assert [r.kind for r in only(parse(finish(reason)), Ignored)] == ["step_finish"]


def test_a_step_that_ends_for_another_reason_is_a_warning() -> None:
    notice = single(parse(finish("length")), Notice)
    assert (notice.kind, notice.level, notice.text) == (
        "step_finish",
        "warning",
        "The model stopped: length",
    )


def test_an_error_fails_the_session_with_its_message() -> None:
    error = {"name": "APIError", "data": {"message": "Rate limit exceeded", "statusCode": 429}}
    records = parse(part("text", "text", text="Working."), event("error", error=error))
    result = single(records, SessionResult)
    assert (result.status, result.subtype, result.error) == (
        ResultStatus.FAILED,
        "APIError",
        "Rate limit exceeded",
    )
    assert result.text is None


def test_an_error_without_a_message_names_itself() -> None:
    records = parse(event("error", error={"name": "ProviderAuthError", "data": {}}),
                    event("error", error="boom"))  # fmt: skip
    assert [r.error for r in only(records, SessionResult)] == ["ProviderAuthError", "boom"]


def test_done_ends_a_session_that_no_result_ended_yet_with_its_rejections() -> None:
    records = parse(finish(None, cost=0.01), event("done", reason="idle", rejected=["bash"]))
    result = single(records, SessionResult)
    assert (result.status, result.subtype) == (ResultStatus.SUCCEEDED, "idle")
    assert single(records, Usage).cost_usd == 0.01
    assert result.permission_denials == (PermissionDenial(tool_name="bash"),)


def test_done_after_a_result_adds_only_its_rejections() -> None:
    records = parse(
        finish("stop"),
        event("done", reason="idle", rejected=[]),
        event("done", reason="idle", rejected=["edit", "bash"]),
    )
    assert len(only(records, SessionResult)) == 1
    assert only(records, Ignored)[-1].kind == "done"
    notice = single(records, Notice)
    assert (notice.level, notice.text) == ("warning", "Permissions rejected: edit, bash")


def test_a_new_step_after_a_result_can_end_the_session_again() -> None:
    records = parse(
        finish("stop"),
        part("step_start", "step-start"),
        finish(None, cost=0.5),
        event("done", reason="idle", rejected=[]),
    )
    assert [r.subtype for r in only(records, SessionResult)] == ["stop", "idle"]


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_a_run_ends_with_its_result_never_with_a_turn_end(name: str) -> None:
    # opencode run --format json is one prompt's run, ended once the session is idle: its end is
    # the session's result (or none), not a turn's end waiting for the user
    run = parse(finish("stop"), event("done", reason="idle"))
    assert [r.subtype for r in only(run, SessionResult)] == ["stop"]
    assert only(corpus_records(name) + run, TurnEnded) == []


def test_parts_without_id_or_session_and_an_unknown_type_are_read() -> None:
    drifted = event("text", part={"type": "text", "text": "Hi", "time": {"end": 1}})
    records = parse(drifted, event("session.compacted", info={"id": "x"}))
    assert single(records, AssistantText).text == "Hi"
    notice = single(records, Notice)
    assert notice.kind == "session.compacted" and notice.text.startswith("session.compacted: {")


def test_a_parser_snapshot_mid_session_keeps_its_steps() -> None:
    parser = Parser("src")
    parser.parse(finish("tool-calls", cost=0.25, tokens={"input": 7}), 1)
    restored = snapshot.loads(snapshot.dumps(parser))
    records = restored.parse(finish("stop", at=T0 + 40, cost=0.5, tokens={"input": 3}), 2)
    assert records is not None
    (result,) = only(records, SessionResult)
    assert (result.num_turns, result.duration_ms) == (2, 40)


def test_a_second_result_counts_its_steps_and_time_from_the_first() -> None:
    records = parse(
        part("step_start", "step-start"),
        finish("stop", at=T0 + 100),
        part("step_start", "step-start"),
        finish(None, at=T0 + 150),
        event("done", at=T0 + 400, reason="idle"),
    )
    assert [(r.duration_ms, r.num_turns) for r in only(records, SessionResult)] == [
        (100, 1), (300, 1)]  # fmt: skip


# --- the corpus, file by file ----------------------------------------------------------------


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_read_records_gives_every_corpus_line_a_record_and_leaves_none_unparsed(name: str) -> None:
    gives_every_line_a_record(corpus_file(FAMILY_DIR, name))


def test_run_json_file_one_bash_call_a_stop_then_an_upstream_error() -> None:
    records = corpus_records(RUN_JSON)
    assert {r.session_id for r in records} == {"ses_1f2e3d4c5b6aAbCdEfGhIjKlMn"}
    call = single(records, ToolCall)
    assert (call.call_id, call.name, call.input["command"]) == (
        "01J3Z2K7S0XQ9Y8W7V6U5T4R3S",
        "bash",
        "rg --version",
    )
    assert single(records, ToolResult).is_error is False  # metadata.exitCode 0
    assert single(records, AssistantText).text == "Found ripgrep 13.0.0."
    stopped, failed = only(records, SessionResult)
    assert (stopped.status, stopped.text) == (ResultStatus.SUCCEEDED, "Found ripgrep 13.0.0.")
    assert (failed.status, failed.subtype, failed.error) == (
        ResultStatus.FAILED,
        "APIError",
        "Upstream timeout while calling provider",
    )
    # line 4, the one step: cost 0.0123, tokens in 534, out 128, reasoning 64, cache 0/0
    usage = single(records, Usage)
    assert (usage.cost_usd, usage.input_tokens, usage.output_tokens) == (0.0123, 534, 128)
    assert (usage.reasoning_tokens, usage.cache_read_tokens) == (64, 0)
    # the first line at ...000100, the stop at ...001250, the error at ...002000
    assert (stopped.duration_ms, failed.duration_ms) == (1150, 750)
    header, spent, (shown_stop, shown_error) = spending_of(corpus_file(FAMILY_DIR, RUN_JSON))
    # the step's cost and tokens are the first result's; the error after it spent nothing more
    assert (shown_stop.cost_usd, shown_stop.input_tokens, shown_stop.output_tokens) == (
        0.0123, 534, 128)  # fmt: skip
    assert (shown_error.cost_usd, shown_error.input_tokens, shown_error.output_tokens) == (
        None, None, None)  # fmt: skip
    assert spent is not None and (spent.cost_usd, spent.output_tokens) == (0.0123, 128)
    assert header == "❌ *Failed* · 1 tool call · 1.9s · $0.01 · 128 tokens out"


def test_stream_error_file_fails_with_the_rate_limit_and_no_cost() -> None:
    records = corpus_records(STREAM_ERROR)
    assert [type(r) for r in records] == [SessionStarted, Ignored, SessionResult]
    result = single(records, SessionResult)
    assert (result.session_id, result.status, result.error) == (
        "ses_error123",
        ResultStatus.FAILED,
        "Rate limit exceeded",
    )
    assert (result.cost_usd, result.input_tokens, result.duration_ms) == (None, None, 1000)


def test_stream_success_file_two_steps_one_bash_call_and_summed_usage() -> None:
    records = corpus_records(STREAM_SUCCESS)
    assert {r.session_id for r in records} == {"ses_494719016ffe85dkDMj0FPRbHK"}
    call = single(records, ToolCall)
    assert (call.call_id, call.input["command"]) == ("r9bQWsNLvOrJGIOz", "echo hello")
    result = single(records, ToolResult)
    assert (result.output, result.is_error) == ("hello\n", False)  # metadata.exit 0
    done = single(records, SessionResult)
    assert (done.status, done.subtype, done.num_turns, done.text) == (
        ResultStatus.SUCCEEDED,
        "stop",
        2,
        "```\nhello\n```",
    )
    assert done.cost_usd is None  # its steps carry the figures: lines 3 and 6
    assert done.duration_ms == 4935  # 1767036064273 - 1767036059338
    assert [u.cost_usd for u in only(records, Usage)] == [0, 0.001]
    header, spent, (shown,) = spending_of(corpus_file(FAMILY_DIR, STREAM_SUCCESS))
    for figures in (spent, shown):
        assert figures is not None and figures.cost_usd == pytest.approx(0.001)  # 0 + 0.001
        # 21772 + 671, 110 + 8
        assert (figures.input_tokens, figures.output_tokens) == (22443, 118)
        assert (figures.cache_read_tokens, figures.cache_write_tokens) == (21415, 0)
    assert header == "✅ *Succeeded* · 1 tool call · 4.9s · $0.0010 · 118 tokens out"


def test_no_reason_file_ends_with_no_result_and_an_unknown_outcome() -> None:
    records = corpus_records(NO_REASON)
    assert only(records, SessionResult) == []
    assert single(records, AssistantText).text == "All done."
    document = preview_document(build_preview([corpus_file(FAMILY_DIR, NO_REASON)]))
    assert [s["status"] for s in document["sessions"]] == ["unknown"]
    # no result, yet its one step's spending shows (line 3: cost 0.002, 12 in, 3 out)
    header, _, shown = spending_of(corpus_file(FAMILY_DIR, NO_REASON))
    assert shown == [] and header.endswith(" · $0.0020 · 3 tokens out")


@pytest.mark.parametrize(
    ("name", "status"),
    [(RUN_JSON, "failed"), (STREAM_ERROR, "failed"), (STREAM_SUCCESS, "succeeded")],
)
def test_each_stream_previews_as_one_session_of_its_outcome(name: str, status: str) -> None:
    document = preview_document(build_preview([corpus_file(FAMILY_DIR, name)]))
    assert [(s["agent"], s["status"]) for s in document["sessions"]] == [("OpenCode", status)]
