"""pi ``--mode json`` events: detection, how each event maps to records, and what every corpus
file of the family holds (numbers counted from the raw files, then written down)."""

from __future__ import annotations

from typing import Any

import pytest

from bot import snapshot
from bot.formats import openai_messages, pi_events
from bot.formats.pi_events import Parser, detect
from bot.preview import build_preview, preview_document
from bot.records import (
    AssistantText,
    Compaction,
    Ignored,
    Notice,
    Record,
    SessionStarted,
    Thinking,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import ResultStatus, SessionResult
from tests.conftest import corpus_file
from tests.formats.helpers import (
    claims_every_value,
    gives_every_line_a_record,
    only,
    parsed_by,
    records_of,
    single,
)

FAMILY_DIR = "pi"
PRINT_MODE = "banteg__takopi__pi_print_mode_events.jsonl"
STREAM_ERROR = "banteg__takopi__pi_stream_error.jsonl"
STREAM_SUCCESS = "banteg__takopi__pi_stream_success.jsonl"
CORPUS_FILES = (PRINT_MODE, STREAM_ERROR, STREAM_SUCCESS)
HEADER = {"type": "session", "version": 3, "id": "sess-1", "timestamp": "2026-02-03T10:00:00Z",
          "cwd": "/home/dev/app"}  # fmt: skip


def corpus_records(name: str) -> list[Record]:
    return records_of(corpus_file(FAMILY_DIR, name))


def usage(total: float = 0.001, tokens_in: int = 10, tokens_out: int = 5) -> dict[str, Any]:
    return {"input": tokens_in, "output": tokens_out, "cacheRead": 2, "cacheWrite": 1,
            "totalTokens": tokens_in + tokens_out + 3, "cost": {"total": total}}  # fmt: skip


def assistant(*content: dict[str, Any], stop: str = "stop", **fields: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(content), "provider": "openai",
            "model": "gpt-5.1-codex", "usage": usage(), "stopReason": stop,
            "timestamp": 1767401001200, **fields}  # fmt: skip


def text(body: str) -> dict[str, Any]:
    return {"type": "text", "text": body}


def tool_call(call_id: str = "t1", name: str = "bash", **arguments: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def end(message: dict[str, Any]) -> dict[str, Any]:
    return {"type": "message_end", "message": message}


def agent_end(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"type": "agent_end", "messages": list(messages)}


START: dict[str, Any] = {"type": "agent_start"}


def parse(*values: Any, source: str = "run.jsonl") -> list[Record]:
    """The records of ``values``, as one source; every value must be understood."""
    return parsed_by(Parser(source), values)


# --- detection -------------------------------------------------------------------------------


def test_detect_claims_every_line_of_every_corpus_file() -> None:
    for name in CORPUS_FILES:
        claims_every_value(pi_events.FORMAT, corpus_file(FAMILY_DIR, name))


@pytest.mark.parametrize(
    "value",
    [
        HEADER,
        {"type": "message", "timestamp": "2026-02-03T10:00:00Z",
         "message": {"role": "user", "content": "hi"}},
        {"type": "message", "timestamp": "2026-02-03T10:00:00Z", "role": "user", "content": "hi"},
        {"type": "message_end", "message": {"role": "human", "content": "hi"}},
        {"type": "message_end", "session_id": "s", "message": {"role": "user", "content": "hi"}},
        {"type": "tool_execution_end", "result": {}},
        {"type": "agent_end"},
        {"type": "turn.started"},
        {"type": "text", "sessionID": "s", "part": {"type": "text"}},
    ],
    ids=[
        "session-header",
        "session-file-entry",
        "role-at-top",
        "not-a-pi-role",
        "names-a-session",
        "tool-end-without-call-id",
        "agent-end-without-messages",
        "codex-turn",
        "opencode",
    ],
)  # fmt: skip
def test_detect_refuses_the_header_other_families_and_incomplete_events(value: object) -> None:
    assert not detect(value)


def test_openai_messages_no_longer_claims_agent_end_but_still_claims_a_trace() -> None:
    messages = [{"role": "user", "content": "hi"}]
    assert not openai_messages.detect({"type": "agent_end", "messages": messages})
    assert openai_messages.detect({"messages": messages})


@pytest.mark.parametrize(
    "value", [[1], "text", {"type": 1}, {"message": {}}, {"type": "message_end", "message": 3}]
)
def test_values_that_are_not_events_are_not_this_format(value: object) -> None:
    assert Parser("src").parse(value, 1) is None


# --- sessions and runs -----------------------------------------------------------------------


def test_without_a_header_the_session_is_the_source_and_starts_at_agent_start() -> None:
    records = parse(START, {"type": "turn_start"}, source="pi.jsonl")
    started = single(records, SessionStarted)
    assert (started.session_id, started.agent, started.model, started.cwd) == (
        "pi.jsonl",
        "pi",
        None,
        None,
    )
    assert [r.kind for r in only(records, Ignored)] == ["turn_start"]


def test_a_header_names_the_session_and_its_folder() -> None:
    records = parse(HEADER, START, end({"role": "user", "content": "hi", "timestamp": 1}))
    started = single(records, SessionStarted)
    assert (started.session_id, started.cwd, started.line) == ("sess-1", "/home/dev/app", 1)
    assert {r.session_id for r in records} == {"sess-1"}
    assert [r.kind for r in only(records, Ignored)] == ["agent_start"]


def test_a_run_after_a_run_ended_starts_the_session_again() -> None:
    records = parse(START, agent_end(), START, START)
    assert [type(r) for r in records] == [SessionStarted, SessionResult, SessionStarted, Ignored]


def test_a_model_not_seen_before_is_announced_before_the_message() -> None:
    records = parse(START, end(assistant(text("a"))), end(assistant(text("b"))),
                    end(assistant(text("c"), model="claude-sonnet-4-5")))  # fmt: skip
    started = only(records, SessionStarted)
    assert [(s.model, s.line) for s in started] == [
        (None, 1),
        ("gpt-5.1-codex", 2),
        ("claude-sonnet-4-5", 4),
    ]
    assert records.index(started[1]) + 1 == records.index(only(records, AssistantText)[0])


# --- messages --------------------------------------------------------------------------------


def test_text_is_shown_once_from_message_end_not_from_its_deltas() -> None:
    partial = assistant(text("Hel"))
    update = {"type": "message_update", "message": partial,
              "assistantMessageEvent": {"type": "text_delta", "delta": "Hel"}}  # fmt: skip
    records = parse(
        {"type": "message_start", "message": partial}, update, end(assistant(text("Hello.")))
    )
    assert [r.text for r in only(records, AssistantText)] == ["Hello."]
    assert [r.kind for r in only(records, Ignored)] == ["message_start", "message_update"]


def test_an_assistant_message_is_its_thinking_text_and_calls_in_order() -> None:
    message = assistant({"type": "thinking", "thinking": "Read it."}, text("Reading."),
                        tool_call("t1", "read", path="README.md"), stop="toolUse")  # fmt: skip
    records = parse(end(message))
    assert [type(r) for r in records] == [SessionStarted, Thinking, AssistantText, ToolCall]
    call = single(records, ToolCall)
    assert (call.call_id, call.name, call.input) == ("t1", "read", {"path": "README.md"})


def test_a_user_message_is_user_text_with_its_images_named() -> None:
    image = {"type": "image", "data": "iVBOR", "mimeType": "image/png"}
    records = parse(end({"role": "user", "content": [text("Look"), image], "timestamp": 1}))
    assert single(records, UserText).text == "Look\n[image]"


def test_a_call_announced_by_its_message_is_not_started_twice() -> None:
    records = parse(
        end(assistant(tool_call("t1", command="ls"), stop="toolUse")),
        {"type": "tool_execution_start", "toolCallId": "t1", "toolName": "bash",
         "args": {"command": "ls"}},
        {"type": "tool_execution_start", "toolCallId": "t2", "toolName": "write",
         "args": {"path": "a.md", "content": "x"}},
    )  # fmt: skip
    assert [(c.call_id, c.line) for c in only(records, ToolCall)] == [("t1", 1), ("t2", 3)]
    assert only(records, ToolCall)[1].input == {"path": "a.md", "content": "x"}
    assert [r.kind for r in only(records, Ignored)] == ["tool_execution_start"]


def test_a_tool_result_comes_from_its_execution_end_and_its_message_is_not_a_second() -> None:
    content = [text("no such file")]
    records = parse(
        {"type": "tool_execution_update", "toolCallId": "t1", "partialResult": {}},
        {"type": "tool_execution_end", "toolCallId": "t1", "toolName": "read",
         "result": {"content": content, "details": {}}, "isError": True},
        end({"role": "toolResult", "toolCallId": "t1", "toolName": "read", "content": content,
             "isError": True, "timestamp": 2}),
        end({"role": "toolResult", "toolCallId": "t9", "toolName": "bash", "content": [text("ok")],
             "isError": False, "timestamp": 3}),
    )  # fmt: skip
    results = only(records, ToolResult)
    assert [(r.call_id, r.output, r.is_error, r.name, r.line) for r in results] == [
        ("t1", "no such file", True, "read", 2),
        ("t9", "ok", False, "bash", 4),
    ]
    assert [r.kind for r in only(records, Ignored)] == ["tool_execution_update", "toolResult"]


def test_the_calls_of_a_failed_message_are_never_run() -> None:
    message = assistant(tool_call("t1"), tool_call("t2"), stop="error", errorMessage="terminated")
    records = parse(end(message))
    assert [type(r) for r in records][-4:] == [ToolCall, ToolCall, ToolResult, ToolResult]
    results = only(records, ToolResult)
    assert [(r.call_id, r.interrupted, r.output) for r in results] == [
        ("t1", True, "Not run: terminated"),
        ("t2", True, "Not run: terminated"),
    ]


def test_a_command_the_user_ran_is_a_call_and_its_result() -> None:
    bash = {"role": "bashExecution", "command": "make", "output": "error", "exitCode": 2,
            "cancelled": False, "truncated": False, "timestamp": 5}  # fmt: skip
    records = parse(end(bash))
    call, result = single(records, ToolCall), single(records, ToolResult)
    assert (call.name, call.input) == ("bash (user)", {"command": "make"})
    assert call.call_id == result.call_id == "run.jsonl/bash-5"  # its time: the message has one
    assert (result.output, result.is_error, result.interrupted) == ("error", True, False)


# --- results ---------------------------------------------------------------------------------


def test_a_run_ends_with_its_last_answer_and_the_usage_of_its_messages() -> None:
    first = assistant(tool_call(), stop="toolUse", usage=usage(0.25, 100, 10))
    last = assistant(text("Done."), usage=usage(0.5, 200, 20))
    records = parse(
        START,
        {"type": "message_start", "message": first},
        end(first),
        {"type": "turn_end", "message": first, "toolResults": []},
        end(last),
        agent_end(first, last),
    )
    result = single(records, SessionResult)
    assert (result.status, result.subtype, result.text) == (ResultStatus.SUCCEEDED, "stop", "Done.")
    assert (result.cost_usd, result.input_tokens, result.output_tokens) == (0.75, 300, 30)
    assert (result.cache_read_tokens, result.cache_write_tokens) == (4, 2)
    assert (result.models, result.error) == (("gpt-5.1-codex",), None)


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"stop": "error", "errorMessage": "Rate limit exceeded"}, "Rate limit exceeded"),
        ({"stop": "aborted"}, "Request aborted"),
        ({"stop": "error"}, "Request failed"),
    ],
    ids=["error", "aborted", "error-without-message"],
)
def test_a_run_whose_last_message_failed_fails(fields: dict[str, Any], error: str) -> None:
    records = parse(START, end(assistant(**fields)), agent_end())
    result = single(records, SessionResult)
    assert (result.status, result.error) == (ResultStatus.FAILED, error)


def test_without_its_message_end_the_run_is_judged_by_the_messages_of_agent_end() -> None:
    records = parse(START, agent_end(assistant(stop="error", errorMessage="Upstream error")))
    assert single(records, SessionResult).error == "Upstream error"


def test_a_failed_run_that_pi_retries_is_superseded_by_the_retry() -> None:
    failed = assistant(stop="error", errorMessage="Rate limit exceeded")
    records = parse(
        START, end(failed), agent_end(failed),
        {"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 2000,
         "errorMessage": "Rate limit exceeded"},
        START, end(assistant(text("OK"))), agent_end(),
        {"type": "auto_retry_end", "success": True, "attempt": 1},
    )  # fmt: skip
    assert [r.status for r in only(records, SessionResult)] == [
        ResultStatus.FAILED,
        ResultStatus.SUCCEEDED,
    ]
    notice = single(records, Notice)
    assert (notice.kind, notice.level, notice.text) == (
        "retry",
        "warning",
        "Retrying (attempt 1 of 3, in 2 s) after: Rate limit exceeded",
    )
    assert only(records, Ignored)[-1].kind == "auto_retry_end"


def test_retries_that_gave_up_are_an_error_notice() -> None:
    records = parse({"type": "auto_retry_end", "success": False, "attempt": 3,
                     "finalError": "overloaded"})  # fmt: skip
    notice = single(records, Notice)
    assert (notice.level, notice.text) == ("error", "Gave up retrying: overloaded")


def test_an_automatic_compaction_is_a_compaction_and_its_failures_are_warnings() -> None:
    records = parse(
        {"type": "auto_compaction_start", "reason": "threshold"},
        {"type": "auto_compaction_end", "result": {"summary": "## Goal", "tokensBefore": 118432},
         "aborted": False, "willRetry": False},
        {"type": "auto_compaction_end", "result": None, "aborted": True, "willRetry": False},
        {"type": "auto_compaction_end", "aborted": False, "errorMessage": "too small"},
        {"type": "auto_compaction_end", "aborted": False, "willRetry": False},
    )  # fmt: skip
    compaction = single(records, Compaction)
    assert (compaction.trigger, compaction.pre_tokens, compaction.summary) == (
        "auto",
        118432,
        "## Goal",
    )
    assert [(n.kind, n.level, n.text) for n in only(records, Notice)] == [
        ("status", "info", "Compacting the conversation (threshold)"),
        ("compaction", "warning", "Compaction aborted"),
        ("compaction", "warning", "Compaction failed: too small"),
    ]
    assert [r.kind for r in only(records, Ignored)] == ["auto_compaction_end"]


def test_an_event_newer_than_this_module_is_a_notice() -> None:
    notice = single(parse({"type": "bash_execution_update", "chunk": "x"}), Notice)
    assert (notice.kind, notice.text) == ("bash_execution_update", "Bash execution update")


def test_a_parser_snapshot_mid_run_keeps_its_sums_and_its_calls() -> None:
    parser = Parser("src")
    parser.parse(end(assistant(tool_call("t1"), stop="toolUse", usage=usage(0.25))), 1)
    restored = snapshot.loads(snapshot.dumps(parser))
    again = restored.parse({"type": "tool_execution_start", "toolCallId": "t1", "args": {}}, 2)
    assert again is not None and type(again[0]) is Ignored
    records = restored.parse(agent_end(), 3)
    assert records is not None and only(records, SessionResult)[0].cost_usd == 0.25


# --- the corpus, file by file ----------------------------------------------------------------


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_read_records_gives_every_corpus_line_a_record_and_leaves_none_unparsed(name: str) -> None:
    gives_every_line_a_record(corpus_file(FAMILY_DIR, name))


def test_print_mode_file_three_runs_a_compaction_and_a_retried_failure() -> None:
    path = corpus_file(FAMILY_DIR, PRINT_MODE)
    records = corpus_records(PRINT_MODE)
    assert {r.session_id for r in records} == {str(path)}  # no header: the source names it
    models = [s.model for s in only(records, SessionStarted)]  # a run starts with the last model
    assert models == [None, "gpt-5.1-codex", "gpt-5.1-codex", "gpt-5.1-codex"]
    assert [u.text for u in only(records, UserText)] == [
        "Summarize README and list the main CLI commands.\n[image]",
        "List the latest release notes for the CLI.",
    ]
    assert single(records, Thinking).text == "Need to read README for the CLI commands."
    assert len(only(records, AssistantText)) == 3  # three message_end with text, not 8 deltas
    call = single(records, ToolCall)
    assert (call.call_id, call.name) == ("toolu_01HXYZREAD", "read")
    assert call.input == {"path": "README.md"}
    assert single(records, ToolResult).is_error is False
    assert single(records, Compaction).pre_tokens == 118432
    assert [n.kind for n in only(records, Notice)] == ["status", "retry"]  # compacting, retrying
    results = only(records, SessionResult)
    assert [(r.status, r.error) for r in results] == [
        (ResultStatus.SUCCEEDED, None),
        (ResultStatus.FAILED, "Rate limit exceeded"),
        (ResultStatus.SUCCEEDED, None),
    ]
    # each run's own usage: its assistant message_end lines (0.001604 + 0.000936, 1240+680 in,
    # 182+128 out; then 0.00032, 320 in; then 0.000602, 410 in, 96 out): the session sums them
    assert [(r.input_tokens, r.output_tokens) for r in results] == [(1920, 310), (320, 0),
                                                                    (410, 96)]  # fmt: skip
    assert [r.cost_usd for r in results] == pytest.approx([0.00254, 0.00032, 0.000602])
    last = results[-1]
    assert last.models == ("gpt-5.1-codex",)
    assert last.text is not None and last.text.startswith("Retry succeeded.")


def test_stream_error_file_fails_with_the_upstream_error() -> None:
    records = corpus_records(STREAM_ERROR)
    assert single(records, AssistantText).text == "Request failed."
    result = single(records, SessionResult)
    assert (result.status, result.subtype, result.error) == (
        ResultStatus.FAILED,
        "error",
        "Upstream error",
    )
    assert (result.cost_usd, result.input_tokens, result.output_tokens) == (0.0, 5, 1)


def test_stream_success_file_two_tools_and_a_summary() -> None:
    records = corpus_records(STREAM_SUCCESS)
    calls = only(records, ToolCall)
    assert [(c.call_id, c.name) for c in calls] == [("tool_1", "bash"), ("tool_2", "write")]
    assert [(r.output, r.is_error) for r in only(records, ToolResult)] == [
        ("ok", False),
        ("done", False),
    ]
    result = single(records, SessionResult)
    assert (result.status, result.text) == (ResultStatus.SUCCEEDED, "Done. Added notes.md.")
    assert (result.cost_usd, result.input_tokens, result.output_tokens) == (0.0, 22, 10)


@pytest.mark.parametrize(
    ("name", "status"),
    [(PRINT_MODE, "succeeded"), (STREAM_ERROR, "failed"), (STREAM_SUCCESS, "succeeded")],
)
def test_each_stream_previews_as_one_session_of_its_last_outcome(name: str, status: str) -> None:
    document = preview_document(build_preview([corpus_file(FAMILY_DIR, name)]))
    assert [(s["agent"], s["status"]) for s in document["sessions"]] == [("pi", status)]
