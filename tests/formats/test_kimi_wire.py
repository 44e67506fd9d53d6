"""Kimi Code session files (``wire.jsonl``): detection, how each record maps to records, turns and
their tokens, and what the corpus file holds (numbers counted from the raw file, not from the
parser)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from blocks.root import status_line
from bot.formats import FORMATS, detect_family, kimi_wire
from bot.formats.common import to_utc
from bot.formats.kimi_wire import Parser, detect, session_of
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
    Usage,
    UserText,
)
from bot.result_records import SessionResult, TurnEnded
from bot.session import Session, SessionStatus
from bot.session.thread import ResultItem
from tests.conftest import FIXTURES, corpus_file
from tests.formats.helpers import only, parsed_by, records_of, single, spending_of
from tests.formats.helpers import raw_values as raw_records

FAMILY_DIR = "kimi"
SAMPLE = "codemie-ai__codemie-code__sample-wire.jsonl"
TURNS = "kimi_wire_turns.jsonl"
T = 1781368649000


def wire(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields, "time": T}


def loop(kind: str, **fields: Any) -> dict[str, Any]:
    return wire("context.append_loop_event", event={"type": kind, "stepUuid": "s1", **fields})


def prompt(text: str, by: str = "user") -> dict[str, Any]:
    return wire("turn.prompt", input=[{"type": "text", "text": text}], origin={"kind": by})


def parse(*values: dict[str, Any], source: str = "wire.jsonl") -> list[Record]:
    return parsed_by(Parser(source), values)


# --- detection -----------------------------------------------------------------------------


def test_the_format_is_registered_and_reports_no_result() -> None:
    assert kimi_wire.FORMAT in FORMATS
    assert (kimi_wire.FORMAT.name, kimi_wire.FORMAT.agent) == ("kimi-wire", "Kimi Code")
    assert kimi_wire.FORMAT.reports_result is False


def test_detect_claims_every_record_of_the_corpus_file_and_the_fixture() -> None:
    for path in (corpus_file(FAMILY_DIR, SAMPLE), FIXTURES / TURNS):
        for value in raw_records(path):
            assert detect(value)
            assert detect_family(value) is kimi_wire.FORMAT


@pytest.mark.parametrize(
    "value",
    [
        {"type": "thread.started", "thread_id": "t1"},
        {"type": "turn.completed", "usage": {"input_tokens": 1}},
        {"type": "turn.ended", "time": {"start": T}},
        {"type": "step_start", "timestamp": T, "part": {"time": {"start": T}}},
        {"type": "metadata", "created_at": T},
        {"type": "usage.record", "time": True},
        {"type": ["turn.prompt"], "time": T},
    ],
    ids=[
        "codex thread",
        "codex turn",
        "opencode time",
        "opencode step",
        "no protocol",
        "bool time",
        "list type",
    ],
)
def test_detect_refuses_lookalikes(value: object) -> None:
    assert not detect(value)


def test_a_value_with_no_time_is_not_mine() -> None:
    parser = Parser("wire.jsonl")
    assert parser.parse({"type": "turn.prompt"}, 1) is None
    assert parser.parse({"time": T}, 2) is None
    assert parser.parse("metadata", 3) is None


# --- the session ---------------------------------------------------------------------------


def test_the_session_is_the_session_directory_of_the_main_agents_file() -> None:
    folder = "/home/me/.kimi-code/sessions/wd_app_1a2b3c/session-42"
    assert session_of(f"{folder}/agents/main/wire.jsonl") == "session-42"


def test_a_sub_agents_file_is_a_session_of_its_own() -> None:
    folder = "/home/me/.kimi-code/sessions/wd_app_1a2b3c/session-42"
    assert session_of(f"{folder}/agents/agent-0/wire.jsonl") == "session-42/agent-0"
    records = parse(
        wire("metadata", protocol_version="1.5"), source=f"{folder}/agents/agent-0/wire.jsonl"
    )
    assert single(records, SessionStarted).session_id == "session-42/agent-0"


def test_elsewhere_the_session_is_the_files_name() -> None:
    assert session_of("/tmp/sample-wire.jsonl") == "sample-wire"


def test_settings_complete_the_session_hidden_and_without_them_usage_names_the_model() -> None:
    records = parse(
        {"type": "metadata", "protocol_version": "1.4", "created_at": T, "app_version": "0.14.2"},
        wire("config.update", profileName="agent"),
        wire("config.update", environmentDisclosure={"cwd": "/work"}),
        wire("usage.record", model="kimi-k2", usage={}),
        wire("usage.record", model="kimi-k2", usage={}),
    )
    first, cwd, model = only(records, SessionStarted)
    assert (first.agent, first.version, first.model) == ("Kimi Code", "0.14.2", None)
    assert (cwd.cwd, model.model) == ("/work", "kimi-k2")
    assert [r.kind for r in only(records, Ignored)] == ["config.update", "usage.record"]


def test_the_metadata_lines_created_at_is_no_time_of_the_session() -> None:
    records = parse({"type": "metadata", "protocol_version": "1.5", "created_at": T - 60_000},
                    prompt("go"))  # fmt: skip
    assert [r.timestamp for r in records] == [None, to_utc(T)]
    session = Session("wire")
    for record in records:
        session.apply(record)
    assert session.first_at == to_utc(T)


# --- turns ---------------------------------------------------------------------------------


def test_a_prompts_copy_in_the_context_is_hidden_and_another_user_message_is_said() -> None:
    def message(role: str, text: str, by: str | None = None) -> dict[str, Any]:
        said: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": text}]}
        if by is not None:
            said["origin"] = {"kind": by}
        return wire("context.append_message", message=said)

    records = parse(
        prompt("hi"),
        message("user", "hi", "user"),
        message("user", "reminder", "injection"),
        message("user", "typed"),
        message("assistant", "hello"),
        message("tool", "out"),
    )
    assert [u.text for u in only(records, UserText)] == ["hi", "typed"]
    assert single(records, AssistantText).text == "hello"
    assert len(only(records, Ignored)) == 3


def test_a_prompt_kimi_made_itself_is_a_notice() -> None:
    notice = single(parse(prompt("nightly check", by="cron_job")), Notice)
    assert (notice.kind, notice.text) == ("prompt", "cron_job: nightly check")


def test_content_parts_are_text_and_thinking_and_empty_ones_are_hidden() -> None:
    records = parse(
        loop("content.part", part={"type": "think", "think": "plan"}),
        loop("content.part", part={"type": "text", "text": "answer"}),
        loop("content.part", part={"type": "text", "text": " "}),
        loop("content.part", part={"type": "image_url"}),
    )
    assert single(records, Thinking).text == "plan"
    assert single(records, AssistantText).text == "answer"
    assert [r.kind for r in only(records, Ignored)] == [
        "content.part text",
        "content.part image_url",
    ]


def test_a_tool_call_and_its_failed_result_of_content_parts() -> None:
    records = parse(
        loop("tool.call", uuid="c1", toolCallId="call_1", name="Bash", args={"command": "ls"}),
        loop(
            "tool.result",
            parentUuid="c1",
            toolCallId="call_1",
            result={
                "output": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                "isError": True,
            },
        ),
    )
    call, result = single(records, ToolCall), single(records, ToolResult)
    assert (call.call_id, call.name, call.input) == ("call_1", "Bash", {"command": "ls"})
    assert (result.call_id, result.output, result.is_error) == ("call_1", "a\nb", True)


def test_tool_arguments_given_as_text_are_parsed_or_kept_raw() -> None:
    good, bad = only(
        parse(
            loop("tool.call", toolCallId="1", name="A", args='{"x": 1}'),
            loop("tool.call", toolCallId="2", name="B", args="{oops"),
        ),
        ToolCall,
    )
    assert (good.input, good.raw_input) == ({"x": 1}, None)
    assert (bad.input, bad.raw_input) == ({}, "{oops")


def turn_notices(records: list[Record]) -> list[tuple[str, str]]:
    return [(n.level, n.text) for n in only(records, Notice) if n.kind == "turn"]


def test_a_turn_that_ends_says_how_with_its_tokens_then_the_session_waits() -> None:
    usage = {"inputOther": 10, "output": 5, "inputCacheRead": 100, "inputCacheCreation": 1}
    records = parse(
        prompt("one"),
        wire("usage.record", model="kimi-k2", usage=usage),
        wire("usage.record", model="kimi-k2-turbo", usage=usage),
        wire("turn.ended", turnId=0, reason="completed", durationMs=1200),
        prompt("two"),
        wire("turn.ended", turnId=1, reason="cancelled"),
    )
    assert only(records, SessionResult) == []  # a turn is not the session's end
    assert [(e.line, e.duration_ms) for e in only(records, TurnEnded)] == [(4, 1200), (6, None)]
    assert turn_notices(records) == [
        ("info", "Completed · 1.2s · 20 in / 10 out / 200 cached tokens"),  # both models' records
        ("warning", "Cancelled"),  # no usage in that turn: no tokens said
    ]
    # the first record starts the session, the first usage names its model; the second prompt
    # needs no new start: the user's words make the waiting session run again
    assert [s.line for s in only(records, SessionStarted)] == [1, 2]


def test_each_usage_record_is_what_its_request_spent_whatever_its_scope() -> None:
    usage = {"inputOther": 10, "output": 5, "inputCacheRead": 100, "inputCacheCreation": 1}
    records = parse(
        wire("usage.record", model="kimi-k2", usage=usage, usageScope="turn"),
        wire("usage.record", model="kimi-k2", usage={"output": 7}, usageScope="session"),
    )
    one, two = only(records, Usage)
    assert (one.input_tokens, one.output_tokens, one.cache_read_tokens) == (10, 5, 100)
    assert (one.cache_write_tokens, one.cost_usd, one.reasoning_tokens) == (1, None, None)
    assert (two.input_tokens, two.output_tokens) == (None, 7)


def test_usage_shows_in_the_header_of_a_session_with_no_result_and_adds_up() -> None:
    usage = {"inputOther": 10, "output": 5, "inputCacheRead": 100, "inputCacheCreation": 1}
    session = Session("wire")
    for record in parse(prompt("one"), wire("usage.record", model="k", usage=usage)):
        session.apply(record)
    assert status_line(session).endswith(" · 5 tokens out")  # running: no result yet
    items = len(session.items)
    (more,) = only(parse(wire("usage.record", model="k", usage=usage)), Usage)
    session.apply(more)
    assert (len(session.items), session.status) == (items, SessionStatus.RUNNING)  # no message
    spent = session.spent
    assert spent is not None and (spent.input_tokens, spent.output_tokens) == (20, 10)
    assert (spent.cache_read_tokens, spent.cache_write_tokens) == (200, 2)
    assert not any(isinstance(item, ResultItem) for item in session.items)


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"reason": "failed", "error": {"code": "provider.rate_limited",
                                        "message": "Too many requests", "retryable": True}},
         ("error", "Failed: provider.rate_limited: Too many requests")),
        ({"reason": "blocked"}, ("warning", "Blocked")),
        ({"reason": "paused"}, ("warning", "Ended (paused)")),  # a reason newer than this module
        ({}, ("warning", "Ended (no reason given)")),
    ],
    ids=["failed", "blocked", "unknown-reason", "no-reason"],
)  # fmt: skip
def test_a_turn_that_did_not_complete_says_why_at_its_level(
    fields: dict[str, Any], said: tuple[str, str]
) -> None:
    records = parse(wire("turn.ended", **fields))
    assert turn_notices(records) == [said]
    assert type(records[-1]) is TurnEnded


def test_a_session_waits_after_each_turn_and_runs_again_with_the_users_words() -> None:
    parser, session, statuses = Parser("wire.jsonl"), Session("wire"), []
    for number, value in enumerate(
        (prompt("one"), loop("content.part", part={"type": "text", "text": "Done."}),
         wire("turn.ended", reason="completed"), prompt("cron", by="cron_job"),
         loop("content.part", part={"type": "text", "text": "Ran."}),
         wire("turn.ended", reason="failed")), start=1
    ):  # fmt: skip
        for record in parser.parse(value, number) or []:
            session.apply(record)
        statuses.append(session.status.value)
    # a prompt Kimi made itself is a notice: the agent's own words make the session run again
    assert statuses == ["running", "running", "waiting", "waiting", "running", "waiting"]


def test_cancel_compaction_clear_and_unknown_records() -> None:
    records = parse(
        wire("turn.cancel", reason="user_cancelled"),
        wire("turn.cancel", target="queued"),
        wire("context.apply_compaction", summary="compacted", tokensBefore=100),
        wire("context.clear"),
        wire("tools.set_active_tools", names=["Read"]),
        wire("brand.new"),
        loop("brand.event"),
    )
    kinds = [(n.kind, n.level) for n in only(records, Notice)]
    assert kinds == [
        ("interrupted", "warning"),
        ("clear", "info"),
        ("kimi", "info"),
        ("kimi", "info"),
    ]
    compaction = single(records, Compaction)
    assert (compaction.summary, compaction.pre_tokens) == ("compacted", 100)
    assert [r.kind for r in only(records, Ignored)] == ["turn.cancel", "tools.set_active_tools"]


# --- the corpus file -----------------------------------------------------------------------


def test_sample_every_line_gives_a_record_and_none_is_unparsed() -> None:
    path = corpus_file(FAMILY_DIR, SAMPLE)
    records = records_of(path)
    assert {r.line for r in records} == set(range(1, len(raw_records(path)) + 1))
    assert {r.session_id for r in records} == {"codemie-ai__codemie-code__sample-wire"}


def test_sample_one_prompt_three_calls_paired_by_id_and_no_end() -> None:
    path = corpus_file(FAMILY_DIR, SAMPLE)
    raw = raw_records(path)
    events = [v["event"] for v in raw if v["type"] == "context.append_loop_event"]
    calls = [(e["toolCallId"], e["name"]) for e in events if e["type"] == "tool.call"]
    failed = [
        e["toolCallId"] for e in events if e["type"] == "tool.result" and e["result"]["isError"]
    ]
    records = records_of(path)
    started = only(records, SessionStarted)
    assert [(s.version, s.model) for s in started] == [
        ("0.14.2", None),
        (None, "kimi-code/kimi-for-coding"),
    ]
    assert single(records, UserText).text == "Please read src/index.ts and then update it."
    assert [(c.call_id, c.name) for c in only(records, ToolCall)] == calls
    assert len(calls) == 3
    results = only(records, ToolResult)
    assert [r.call_id for r in results] == [call_id for call_id, _ in calls]
    assert [r.call_id for r in results if r.is_error] == failed == []
    assert only(records, SessionResult) == only(records, TurnEnded) == []  # no turn.ended


def test_sample_session_runs_from_its_first_record_not_its_journals_creation() -> None:
    path = corpus_file(FAMILY_DIR, SAMPLE)
    raw = raw_records(path)
    times = [v["time"] for v in raw if "time" in v]
    assert raw[0]["created_at"] == times[0] - 5_014_055  # the journal made 83 minutes earlier
    (session,) = build_preview([path]).sessions()
    assert session.first_at == to_utc(times[0])  # line 2's time
    assert session.last_at == to_utc(max(times))
    assert session.last_at - session.first_at == timedelta(milliseconds=10)


def test_sample_tokens_add_up_into_the_turns_notice() -> None:
    path = corpus_file(FAMILY_DIR, SAMPLE)
    raw = raw_records(path)
    usages = [v["usage"] for v in raw if v["type"] == "usage.record"]
    assert sum(u["inputOther"] for u in usages) == 14341
    assert sum(u["output"] for u in usages) == 570
    assert sum(u["inputCacheRead"] for u in usages) == 14336
    parser = Parser(str(path))
    for number, value in enumerate(raw, start=1):
        parser.parse(value, number)
    ended = parser.parse(wire("turn.ended", turnId=0, reason="completed"), len(raw) + 1) or []
    said = "Completed · 14,341 in / 570 out / 14,336 cached tokens"
    assert turn_notices(ended) == [("info", said)]
    # the one usage.record (line 18) shows in the header, with no result
    header, spent, shown = spending_of(path)
    assert spent is not None and shown == []
    assert (spent.input_tokens, spent.output_tokens, spent.cache_read_tokens) == (
        14341, 570, 14336)  # fmt: skip
    assert (spent.cache_write_tokens, spent.cost_usd) == (0, None)
    assert header.endswith(" · 3 tool calls · under 0.1s · 570 tokens out")


def test_sample_previews_with_an_unknown_outcome_and_three_calls_ok() -> None:
    (session,) = preview_document(build_preview([corpus_file(FAMILY_DIR, SAMPLE)]))["sessions"]
    assert (session["agent"], session["status"]) == ("Kimi Code", "unknown")
    assert [tool["status"] for tool in session["tools"]] == ["ok", "ok", "ok"]


# --- a fixture of our own: two turns, text, thinking, a failed call --------------------------


def test_fixture_two_turns_end_completed_then_failed_and_the_session_waits() -> None:
    records = records_of(FIXTURES / TURNS)
    assert [u.text for u in only(records, UserText)] == ["Run the tests.", "Fix it."]
    assert single(records, Thinking).text == "The tests run with pytest."
    assert [t.text for t in only(records, AssistantText)] == [
        "Running the tests.",
        "One test fails: test_parse.",
    ]
    assert [(r.call_id, r.is_error) for r in only(records, ToolResult)] == [("call_bash_1", True)]
    # turn 0: usage 900+50 in, 40+12 out, 100+1000 cached, 2992 ms; turn 1: 70 in, 0 out
    assert turn_notices(records) == [
        ("info", "Completed · 3.0s · 950 in / 52 out / 1,100 cached tokens"),
        ("error", "Failed: provider.rate_limited: Too many requests · 1.0s · 70 in / 0 out tokens"),
    ]
    assert [e.line for e in only(records, TurnEnded)] == [17, 22]
    assert only(records, SessionResult) == []
    (session,) = preview_document(build_preview([FIXTURES / TURNS]))["sessions"]
    assert session["status"] == "waiting"  # its last turn failed: the user may write again
    # lines 12, 16, 21: 900+50+70 in, 40+12+0 out, 100+1000+0 cached, 0+24+0 written
    header, spent, _ = spending_of(FIXTURES / TURNS)
    assert spent is not None
    assert (spent.input_tokens, spent.output_tokens, spent.cache_read_tokens) == (1020, 52, 1100)
    assert spent.cache_write_tokens == 24
    assert header.endswith(" · 52 tokens out")
