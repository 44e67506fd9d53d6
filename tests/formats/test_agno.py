"""The agno format: Agno agent/team events streamed one per line, and stored runs (seed 003).

Expected values were counted from the corpus files with a separate script, then written down.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.formats import agno, agno_events
from bot.formats.reader import SourceReader
from bot.records import (
    AssistantText,
    Delegation,
    Ignored,
    Notice,
    Record,
    SessionStarted,
    SubagentLink,
    Thinking,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import ResultStatus, SessionResult
from bot.sources.files import split_lines
from tests.conftest import FIXTURES, corpus_file, read_records
from tests.formats.helpers import ANY_JSON as _ANY_JSON
from tests.formats.helpers import only as of_type

AGNO = "agno-events"
STREAM = "generated__agno-3.1.10__team_delegation_stream.jsonl"
STORED = "generated__agno-3.1.10__team_run_stored.json"
ERROR_STREAM = "generated__agno-3.1.10__agent_run_error_stream.jsonl"
SEED_RUNS = "synthetic__seed-003__cirkelline_session_runs.json"
AGNO_FILES = [STREAM, STORED, ERROR_STREAM, SEED_RUNS]

DEV_TEAM_ANSWER = (
    "I'll split this between the researcher and the coder.Summary: chat.update is Tier 3 "
    "(~50 req/min). Tests failed: 1 error in test_follow.py — naïve timestamp parsing (UTC vs "
    "local, ±1h). 🚧 Next step: fix the parser."
)
RESEARCHER_ANSWER = "chat.update is a Tier 3 method: roughly 50+ requests per minute per workspace."
CODER_ANSWER = (
    "Running the test suite now.The test run crashed: AssertionError in "
    "test_follow.py::test_timestamp (expected 1761073198.27, got 1761069598.27)."
)
PYTEST_FAILURE = "pytest exited with code 1: 1 failed, 12 passed (test_follow.py::test_timestamp)"
DEV_TEAM_DELEGATIONS = [
    ("call_lead_1", "researcher", "Find the current Slack rate limit for chat.update (Tier 3?)"),
    ("call_lead_2", "coder", "Run the unit tests for the log follower"),
]


def values_of(path: Path) -> list[Any]:
    """The file's JSON values as ``read_records`` sees them (a whole document is one value)."""
    return [orjson.loads(raw) for _, raw in split_lines(path.read_bytes()) if raw.strip()]


def parse_values(values: list[Any]) -> list[Record]:
    parser = agno.Parser("agno-test")
    out: list[Record] = []
    for number, value in enumerate(values, start=1):
        records = parser.parse(value, number)
        assert records is not None, value
        out.extend(records)
    return out + parser.finish()


def parse_file(path: Path) -> list[Record]:
    return parse_values(values_of(path))


def joined_text(records: list[Record], parent_call: str | None) -> str:
    texts = of_type(records, AssistantText)
    return "".join(t.text for t in texts if t.delta and t.parent_call == parent_call)


def calls(records: list[Record]) -> list[tuple[str, str, str | None]]:
    """(record type, call id, parent call) of every call, delegation and result, in order."""
    kinds = (ToolCall, ToolResult, Delegation)
    return [
        (type(r).__name__, getattr(r, "call_id", ""), r.parent_call)
        for r in records
        if isinstance(r, kinds)
    ]


@pytest.fixture(scope="module")
def stream() -> list[Record]:
    return parse_file(corpus_file(AGNO, STREAM))


@pytest.fixture(scope="module")
def stored() -> list[Record]:
    return parse_file(corpus_file(AGNO, STORED))


@pytest.fixture(scope="module")
def seed_runs() -> list[Record]:
    return parse_file(corpus_file(AGNO, SEED_RUNS))


@pytest.fixture(scope="module")
def nested() -> list[Record]:
    return parse_file(FIXTURES / "agno_nested_team_stream.jsonl")


@pytest.fixture(scope="module")
def broadcast() -> list[Record]:
    return parse_file(FIXTURES / "agno_broadcast_stream.jsonl")


# --- detection -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [STREAM, ERROR_STREAM])
def test_detect_claims_every_streamed_event(name: str) -> None:
    events = values_of(corpus_file(AGNO, name))
    assert len(events) == {STREAM: 101, ERROR_STREAM: 3}[name]
    assert all(agno.detect(event) for event in events)


@pytest.mark.parametrize("name", [STORED, SEED_RUNS])
def test_detect_claims_a_stored_document_as_one_value(name: str) -> None:
    documents = values_of(corpus_file(AGNO, name))
    assert len(documents) == 1
    assert agno.detect(documents[0])


def test_detect_claims_the_seed_003_api_example() -> None:
    assert agno.detect(values_of(FIXTURES / "agno_seed003_api_example.json")[0])


@pytest.mark.parametrize(
    "sample",
    [
        {"type": "system", "subtype": "init", "session_id": "s", "model": "claude"},
        {"type": "assistant", "uuid": "u", "sessionId": "s", "message": {"content": []}},
        {"role": "assistant", "content": "hi", "tool_calls": []},
        {"type": "system", "content": "x", "timestamp": "2025-10-21T18:58:59Z", "session_id": "s"},
        {"event": "message", "session_id": "s"},  # an event name Agno does not have
        {"event": "RunStarted"},  # no run or session id
        {"run_id": "r", "events": "not a list"},
        [{"role": "user", "content": "hi"}],
        [],
        "RunStarted",
    ],
)
def test_detect_rejects_lookalikes(sample: object) -> None:
    assert not agno.detect(sample)


@pytest.mark.parametrize("name", AGNO_FILES)
def test_reader_detects_agno_by_itself(name: str) -> None:
    reader = SourceReader(name)
    for number, raw in split_lines(corpus_file(AGNO, name).read_bytes()):
        reader.feed(raw, number)
    assert reader.family == "agno"


@pytest.mark.parametrize("name", AGNO_FILES)
def test_read_records_leaves_nothing_unparsed(name: str) -> None:
    records, stats = read_records(corpus_file(AGNO, name))
    assert stats.unparsed == 0
    assert records


def test_parser_says_not_mine_for_values_of_another_format() -> None:
    parser = agno.Parser("x")
    assert parser.parse({"type": "assistant", "message": {}}, 1) is None
    assert parser.parse({"role": "user", "content": "hi"}, 2) is None
    assert parser.parse([1, 2], 3) is None
    assert parser.parse("text", 4) is None


# --- the streamed team run with delegations (corpus) ---------------------------------------------


def test_stream_is_one_session_started_by_the_team(stream: list[Record]) -> None:
    starts = of_type(stream, SessionStarted)
    assert [(s.session_id, s.agent, s.model) for s in starts] == [
        ("sess-demo-1", "Agno team Dev Team", "gpt-4o-mini")
    ]
    assert {r.session_id for r in stream} == {"sess-demo-1"}
    assert starts[0].timestamp == datetime(2026, 11, 21, 5, 25, 57, tzinfo=UTC)


def test_stream_delegations_are_delegations_not_tool_calls(stream: list[Record]) -> None:
    delegations = of_type(stream, Delegation)
    assert [(d.call_id, d.member, d.task) for d in delegations] == DEV_TEAM_DELEGATIONS
    assert all(d.parent_call is None for d in delegations)
    assert [c.name for c in of_type(stream, ToolCall)] == ["lookup_docs", "run_tests"]


def test_stream_member_tool_calls_hang_under_their_delegation(stream: list[Record]) -> None:
    tool_calls = of_type(stream, ToolCall)
    assert [(c.call_id, c.parent_call, c.subagent) for c in tool_calls] == [
        ("call_res_1", "call_lead_1", "researcher"),
        ("call_cod_1", "call_lead_2", "coder"),
    ]
    assert tool_calls[1].input == {"path": "tests/test_follow.py", "verbose": True}


def test_stream_every_record_of_a_member_run_names_its_delegation(stream: list[Record]) -> None:
    by_member = Counter((r.subagent, r.parent_call) for r in stream if r.subagent)
    # 24 researcher and 28 coder events; each one's RunStarted becomes a link in the team's place
    assert by_member == {("researcher", "call_lead_1"): 23, ("coder", "call_lead_2"): 27}


def test_stream_links_each_member_to_its_delegation_once(stream: list[Record]) -> None:
    links = of_type(stream, SubagentLink)
    assert [(link.agent_id, link.call_id, link.parent_call) for link in links] == [
        ("researcher", "call_lead_1", None),
        ("coder", "call_lead_2", None),
    ]


def test_stream_only_the_failed_test_run_is_an_error(stream: list[Record]) -> None:
    results = of_type(stream, ToolResult)
    assert [(r.call_id, r.is_error) for r in results] == [
        ("call_res_1", False),
        ("call_lead_1", False),
        ("call_cod_1", True),
        ("call_lead_2", False),
    ]
    assert results[2].output == PYTEST_FAILURE
    assert results[2].parent_call == "call_lead_2"


def test_stream_tool_call_error_repeating_a_failed_completion_is_hidden(
    stream: list[Record],
) -> None:
    repeated = [r for r in of_type(stream, Ignored) if r.kind == "tool_error_repeated"]
    assert [(r.line, r.parent_call) for r in repeated] == [(52, "call_lead_2")]


def test_stream_delegation_results_are_the_members_answers(stream: list[Record]) -> None:
    results = {r.call_id: r.output for r in of_type(stream, ToolResult)}
    assert results["call_lead_1"] == RESEARCHER_ANSWER
    assert results["call_lead_2"] == CODER_ANSWER


def test_stream_team_deltas_join_into_the_completed_answer(stream: list[Record]) -> None:
    team_deltas = [t for t in of_type(stream, AssistantText) if t.parent_call is None]
    assert len(team_deltas) == 36
    assert all(
        t.delta and t.message_id == "1eb44699-e83b-4ab4-afe2-7d299fa19316" for t in team_deltas
    )
    assert joined_text(stream, None) == DEV_TEAM_ANSWER


def test_stream_member_deltas_join_into_each_members_answer(stream: list[Record]) -> None:
    assert joined_text(stream, "call_lead_1") == RESEARCHER_ANSWER
    assert joined_text(stream, "call_lead_2") == CODER_ANSWER


def test_stream_hides_empty_deltas_model_requests_and_member_completions(
    stream: list[Record],
) -> None:
    assert Counter(r.kind for r in of_type(stream, Ignored)) == {
        "model_request": 12,
        "empty_delta": 6,
        "content_completed": 3,
        "member_run_completed": 2,
        "tool_error_repeated": 1,
    }


def test_stream_ends_in_success_with_the_answer_and_its_tokens(stream: list[Record]) -> None:
    (result,) = of_type(stream, SessionResult)
    assert result is stream[-1]
    assert result.status is ResultStatus.SUCCEEDED
    assert result.text == DEV_TEAM_ANSWER
    assert (result.input_tokens, result.output_tokens) == (642, 84)
    assert result.models == ("gpt-4o-mini",)
    assert result.duration_ms == 208


def test_stream_gives_one_record_per_event(stream: list[Record]) -> None:
    assert len(stream) == 101
    assert [r.line for r in stream] == list(range(1, 102))


# --- the same run, stored (corpus) ---------------------------------------------------------------


def test_stored_run_says_the_same_calls_as_its_stream(
    stored: list[Record], stream: list[Record]
) -> None:
    assert calls(stored) == calls(stream)


def test_stored_run_reads_events_not_tools_or_messages(stored: list[Record]) -> None:
    assert len(of_type(stored, ToolCall)) == 2
    assert len(of_type(stored, ToolResult)) == 4
    assert len(of_type(stored, Delegation)) == 2


def test_stored_run_ignores_the_later_childs_id_on_an_earlier_delegation(
    stored: list[Record],
) -> None:
    # agno 3.1.10 stored call_lead_1's completion with the coder's run id as child_run_id
    coder = [r for r in stored if r.subagent == "coder"]
    assert coder
    assert {r.parent_call for r in coder} == {"call_lead_2"}


def test_stored_run_starts_with_the_users_input(stored: list[Record]) -> None:
    assert [type(r) for r in stored[:2]] == [SessionStarted, UserText]
    assert [u.text for u in of_type(stored, UserText)] == [
        "Check Slack rate limits and run the follower tests."
    ]


def test_stored_run_says_each_runs_content_once_as_whole_text(stored: list[Record]) -> None:
    texts = of_type(stored, AssistantText)
    assert [(t.text, t.parent_call, t.delta) for t in texts] == [
        (RESEARCHER_ANSWER, "call_lead_1", False),
        (CODER_ANSWER, "call_lead_2", False),
        (DEV_TEAM_ANSWER, None, False),
    ]


def test_stored_run_fails_only_the_test_run_and_succeeds(stored: list[Record]) -> None:
    assert [r.call_id for r in of_type(stored, ToolResult) if r.is_error] == ["call_cod_1"]
    (result,) = of_type(stored, SessionResult)
    assert (result.status, result.text, result.input_tokens) == (
        ResultStatus.SUCCEEDED,
        DEV_TEAM_ANSWER,
        642,
    )


def test_a_member_run_stored_inline_and_whole_is_said_once(stream: list[Record]) -> None:
    (team_run,) = values_of(corpus_file(AGNO, STORED))
    researcher = "b23d5154-b1b0-4fe1-a541-2d60eadb1a48"
    member_run = {
        "run_id": researcher,
        "parent_run_id": team_run["run_id"],
        "agent_id": "researcher",
        "session_id": "sess-demo-1",
        "events": [e for e in team_run["events"] if e.get("run_id") == researcher],
    }
    records = parse_values([[team_run, member_run]])
    assert calls(records) == calls(stream)


# --- a single agent whose model cannot be reached (corpus) ---------------------------------------


def test_error_run_fails_with_its_error_type() -> None:
    records = parse_file(corpus_file(AGNO, ERROR_STREAM))
    assert [type(r) for r in records] == [SessionStarted, Ignored, SessionResult]
    start, _, result = records
    assert isinstance(start, SessionStarted) and isinstance(result, SessionResult)
    assert (start.session_id, start.agent, start.model) == (
        "sess-err-1",
        "Agno agent Solo",
        "gpt-4o-mini",
    )
    assert result.status is ResultStatus.FAILED
    assert (result.subtype, result.error) == ("model_provider_error", "Connection error.")


# --- the Cirkelline session's stored runs (seed 003, corpus) -------------------------------------


def test_seed_runs_are_one_session_with_one_user_message(seed_runs: list[Record]) -> None:
    assert [(s.session_id, s.agent) for s in of_type(seed_runs, SessionStarted)] == [
        ("sess-ck-1", "Agno team Cirkelline")
    ]
    assert [u.text for u in of_type(seed_runs, UserText)] == ["research about AI news"]
    assert {r.session_id for r in seed_runs} == {"sess-ck-1"}


def test_seed_runs_nested_team_delegations_hang_under_the_top_delegation(
    seed_runs: list[Record],
) -> None:
    delegations = of_type(seed_runs, Delegation)
    assert [(d.call_id, d.member, d.parent_call, d.subagent) for d in delegations] == [
        ("call_t1", "research-team", None, None),
        ("call_r1", "web-researcher", "call_t1", "research-team"),
        ("call_r2", "research-analyst", "call_t1", "research-team"),
    ]
    assert delegations[0].task == "Research this week's AI news"


def test_seed_runs_member_results_come_before_the_top_delegations_result(
    seed_runs: list[Record],
) -> None:
    results = of_type(seed_runs, ToolResult)
    assert [(r.call_id, r.parent_call) for r in results] == [
        ("call_r1", "call_t1"),
        ("call_r2", "call_t1"),
        ("call_t1", None),
    ]
    assert results[2].output == "Based on our research: three releases and one guideline."
    assert not any(r.is_error for r in results)


def test_seed_runs_without_child_run_ids_still_place_the_member_run(
    seed_runs: list[Record],
) -> None:
    (runs,) = values_of(corpus_file(AGNO, SEED_RUNS))
    for run in runs:
        for stored_event in run["events"]:
            stored_event.get("tool", {}).pop("child_run_id", None)
    records = parse_values([runs])
    assert len(of_type(records, SessionStarted)) == 1
    # the member run now comes just before its parent's end, still under its delegation
    assert [d.parent_call for d in of_type(records, Delegation)] == [None, "call_t1", "call_t1"]


def test_seed_runs_hide_the_think_tool(seed_runs: list[Record]) -> None:
    assert of_type(seed_runs, ToolCall) == []
    hidden = [r for r in of_type(seed_runs, Ignored) if r.kind == "internal_tool"]
    assert len(hidden) == 2
    assert "call_think" not in {r.call_id for r in of_type(seed_runs, ToolResult)}


def test_seed_runs_say_the_sub_teams_synthesis_under_its_delegation(
    seed_runs: list[Record],
) -> None:
    texts = of_type(seed_runs, AssistantText)
    assert [(t.text, t.parent_call, t.subagent) for t in texts] == [
        ("Based on our research: three releases and one guideline.", "call_t1", "research-team"),
        (
            "Here's what I found about AI news this week: three major model releases and a "
            "new EU guideline.",
            None,
            None,
        ),
    ]


def test_seed_runs_use_event_times_in_unix_seconds_and_run_times_in_iso(
    seed_runs: list[Record],
) -> None:
    assert of_type(seed_runs, SessionStarted)[0].timestamp == datetime(
        2025, 10, 28, 15, 11, 9, tzinfo=UTC
    )
    assert of_type(seed_runs, Delegation)[0].timestamp == datetime(
        2025, 10, 28, 15, 11, 15, tzinfo=UTC
    )


def test_seed_runs_end_in_success_with_the_runs_content(seed_runs: list[Record]) -> None:
    (result,) = of_type(seed_runs, SessionResult)
    assert result.status is ResultStatus.SUCCEEDED
    assert result.text is not None and result.text.startswith("Here's what I found")
    assert result.timestamp == datetime(2025, 10, 28, 15, 12, 32, tzinfo=UTC)


# --- the seed 003 API example (fixture): no session id, no tool call ids -------------------------


def test_api_example_matches_a_delegation_without_call_id_to_its_result() -> None:
    records = parse_file(FIXTURES / "agno_seed003_api_example.json")
    (delegation,) = of_type(records, Delegation)
    (result,) = of_type(records, ToolResult)
    assert delegation.call_id and result.call_id == delegation.call_id
    assert (delegation.member, delegation.task) == ("research-team", "Research about...")
    assert result.output == "Here's what I found..."


def test_api_example_without_session_id_is_the_session_of_its_run_id() -> None:
    records = parse_file(FIXTURES / "agno_seed003_api_example.json")
    assert {r.session_id for r in records} == {"69c0486f-cd29-4843-b703-52c391604ecf"}
    assert [type(r) for r in records] == [
        SessionStarted,
        UserText,
        Delegation,
        ToolResult,
        AssistantText,
        SessionResult,
    ]
    assert of_type(records, SessionResult)[0].text == "Final response text..."


# --- nested teams, streamed (fixture) ------------------------------------------------------------


def test_nested_stream_places_each_level_under_its_own_delegation(nested: list[Record]) -> None:
    assert calls(nested) == [
        ("Delegation", "call_c1", None),
        ("Delegation", "call_r1", "call_c1"),
        ("ToolCall", "call_w1", "call_r1"),
        ("ToolResult", "call_w1", "call_r1"),
        ("ToolResult", "call_r1", "call_c1"),
        ("ToolResult", "call_c1", None),
    ]
    links = [(link.agent_id, link.call_id) for link in of_type(nested, SubagentLink)]
    assert links == [("research-team", "call_c1"), ("web-researcher", "call_r1")]


def test_nested_stream_member_texts_keep_their_level(nested: list[Record]) -> None:
    assert joined_text(nested, "call_r1") == "Found three releases."
    assert joined_text(nested, "call_c1") == "Releases: A, B, C."
    assert joined_text(nested, None) == "Here is this week's news: A, B and C. 🚀"


def test_nested_stream_joins_reasoning_deltas_into_one_thinking(nested: list[Record]) -> None:
    thinking = of_type(nested, Thinking)
    assert [(t.text, t.line) for t in thinking] == [
        ("Let me plan the research.", 2),
        ("Summarise: three releases to report.", 19),
    ]
    # the held reasoning is said before the next event of its run (the hidden think call)
    assert nested.index(thinking[0]) < nested.index(of_type(nested, Ignored)[0])


def test_nested_stream_hides_the_think_call_and_its_result(nested: list[Record]) -> None:
    hidden = [r.line for r in of_type(nested, Ignored) if r.kind == "internal_tool"]
    assert hidden == [4, 5]
    assert "think" not in {c.name for c in of_type(nested, ToolCall)}


def test_nested_stream_result_counts_the_top_teams_metrics(nested: list[Record]) -> None:
    (result,) = of_type(nested, SessionResult)
    assert (result.input_tokens, result.output_tokens, result.duration_ms) == (120, 30, 1500)
    assert result.models == ("gpt-4o",)


# --- delegation to all members, a member error, a cancelled team (fixture) -----------------------


def test_broadcast_puts_every_member_run_under_the_one_delegation(
    broadcast: list[Record],
) -> None:
    (delegation,) = of_type(broadcast, Delegation)
    assert (delegation.member, delegation.task) == ("all members", "Review the new design")
    links = [(link.agent_id, link.call_id) for link in of_type(broadcast, SubagentLink)]
    assert links == [("engineer", "call_all"), ("designer", "call_all")]
    assert joined_text(broadcast, "call_all") == "Looks feasible."


def test_broadcast_member_error_is_an_error_notice_under_the_delegation(
    broadcast: list[Record],
) -> None:
    (notice,) = of_type(broadcast, Notice)
    assert (notice.kind, notice.level, notice.text) == (
        "member_error",
        "error",
        "Rate limit reached",
    )
    assert (notice.parent_call, notice.subagent) == ("call_all", "designer")
    assert len(of_type(broadcast, SessionResult)) == 1  # a member's error does not end the session


def test_broadcast_cancelled_team_fails_as_cancelled(broadcast: list[Record]) -> None:
    (result,) = of_type(broadcast, SessionResult)
    assert result.status is ResultStatus.FAILED
    assert (result.subtype, result.error) == ("cancelled", "Stopped by the user")


# --- single behaviours ---------------------------------------------------------------------------


def event(name: str, run_id: str = "r1", **fields: Any) -> dict[str, Any]:
    return {"event": name, "run_id": run_id, "session_id": "s1", "created_at": 1761664269, **fields}


def test_reasoning_held_at_the_end_of_input_is_said_by_finish() -> None:
    parser = agno.Parser("x")
    parser.parse(event("RunStarted", agent_name="Solo"), 1)
    assert parser.parse(event("RunContent", content="", reasoning_content="Hmm, "), 2) == []
    assert parser.parse(event("RunContent", content="", reasoning_content="maybe."), 3) == []
    (thinking,) = parser.finish()
    assert isinstance(thinking, Thinking)
    assert (thinking.text, thinking.line) == ("Hmm, maybe.", 2)


def test_a_run_whose_parent_is_unknown_starts_a_session() -> None:
    records = parse_values([event("RunStarted", agent_name="Helper", parent_run_id="gone")])
    assert [type(r) for r in records] == [SessionStarted]


def test_a_member_run_without_a_delegation_keeps_its_parents_place() -> None:
    records = parse_values(
        [
            event("TeamRunStarted", "t", team_name="Team"),
            event("RunStarted", "m", agent_id="helper", parent_run_id="t"),
            event("RunContent", "m", content="hello"),
        ]
    )
    text = of_type(records, AssistantText)[0]
    assert (text.parent_call, text.subagent) == (None, "helper")
    assert of_type(records, SubagentLink) == []


def test_a_delegation_names_a_member_by_its_url_safe_name() -> None:
    records = parse_values(
        [
            event("TeamRunStarted", "t", team_name="Team"),
            event(
                "TeamToolCallStarted",
                "t",
                tool={
                    "tool_call_id": "c1",
                    "tool_name": "transfer_task_to_member",
                    "tool_args": {"member_id": "web-researcher", "task_description": "Go"},
                },
            ),
            event("RunStarted", "m", agent_name="Web Researcher", parent_run_id="t"),
            event("RunContent", "m", content="done"),
        ]
    )
    assert of_type(records, AssistantText)[0].parent_call == "c1"
    assert of_type(records, Delegation)[0].task == "Go"


def test_tool_arguments_given_as_json_text_are_parsed_and_bad_json_is_kept_raw() -> None:
    records = parse_values(
        [
            event("RunStarted"),
            event(
                "ToolCallStarted",
                tool={"tool_call_id": "a", "tool_name": "f", "tool_args": '{"x": 1}'},
            ),
            event(
                "ToolCallStarted",
                tool={"tool_call_id": "b", "tool_name": "g", "tool_args": "{oops"},
            ),
        ]
    )
    good, bad = of_type(records, ToolCall)
    assert (good.input, good.raw_input) == ({"x": 1}, None)
    assert (bad.input, bad.raw_input) == ({}, "{oops")


def test_tool_call_error_without_a_failed_completion_is_the_failed_result() -> None:
    records = parse_values(
        [
            event("RunStarted"),
            event("ToolCallStarted", tool={"tool_call_id": "a", "tool_name": "f"}),
            event("ToolCallError", error="boom", tool={"tool_call_id": "a", "tool_name": "f"}),
        ]
    )
    (result,) = of_type(records, ToolResult)
    assert (result.call_id, result.output, result.is_error) == ("a", "boom", True)


def test_a_paused_run_is_a_warning_naming_the_tools_it_waits_for() -> None:
    records = parse_values(
        [event("RunStarted"), event("RunPaused", tools=[{"tool_name": "deploy"}])]
    )
    (notice,) = of_type(records, Notice)
    assert (notice.kind, notice.level, notice.text) == (
        "run_paused",
        "warning",
        "paused, waiting for deploy",
    )


def test_an_unknown_agno_event_is_hidden_not_unparsed() -> None:
    (record,) = parse_values([event("WorkflowStarted")])
    assert isinstance(record, Ignored) and record.kind == "other_event"


def test_finished_runs_leave_no_state_behind() -> None:
    parser = agno.Parser("x")
    for value in values_of(corpus_file(AGNO, STREAM)):
        parser.parse(value, 1)
    assert parser.book.runs == {}


def test_runs_that_never_end_do_not_grow_the_state_without_bound() -> None:
    parser = agno.Parser("x")
    for number in range(5000):
        parser.parse(event("RunStarted", f"run-{number}"), number)
    assert len(parser.book.runs) <= 4096


_EVENT_NAMES = sorted(agno_events.EVENTS)
_FIELDS = [
    "parent_run_id",
    "session_id",
    "content",
    "reasoning_content",
    "tool",
    "created_at",
    "metrics",
    "team_name",
    "agent_id",
    "error",
    "tools",
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {"event": st.sampled_from(_EVENT_NAMES), "run_id": st.sampled_from(["a", "b", ""])},
            optional={key: _ANY_JSON for key in _FIELDS},
        ),
        max_size=12,
    )
)
def test_any_event_shapes_give_records_never_an_exception(events: list[dict[str, Any]]) -> None:
    records = parse_values(events)
    assert all(isinstance(r, Record) for r in records)


_STORED_EVENT = st.fixed_dictionaries(
    {"event": st.sampled_from(_EVENT_NAMES)},
    optional={"run_id": st.sampled_from(["a", "b", "c"]), "tool": _ANY_JSON, "content": _ANY_JSON},
)
_STORED_RUN = st.fixed_dictionaries(
    {"run_id": st.sampled_from(["a", "b", "c"]), "events": st.lists(_STORED_EVENT, max_size=6)},
    optional={
        key: _ANY_JSON for key in ("parent_run_id", "status", "content", "run_input", "input")
    },
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_STORED_RUN, min_size=1, max_size=4))
def test_any_stored_runs_give_records_never_an_exception(runs: list[dict[str, Any]]) -> None:
    records = parse_values([runs])
    assert all(isinstance(r, Record) for r in records)
