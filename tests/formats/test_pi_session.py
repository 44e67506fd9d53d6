"""pi session files: detection, how each entry maps to records (a version 3 fixture of our own,
after pi's ``docs/session.md``), and what the corpus's version 1 file holds (numbers counted
from the raw file, then written down)."""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

import orjson
import pytest

from bot import snapshot
from bot.formats import detect_family, pi_session
from bot.formats.pi_session import Parser, detect
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
from bot.result_records import SessionResult, TurnEnded
from bot.session import Session, SessionStatus
from tests.conftest import FIXTURES, corpus_file, read_records
from tests.formats.helpers import only, parsed_by, single, value_lines

FAMILY_DIR = "pi"
LARGE = "badlogic__pi-mono__large-session.jsonl"
LARGE_ID = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617"
V3 = FIXTURES / "pi_session_v3.jsonl"
V3_ID = "0b9c6a2e-5f1d-4c8e-9a3b-7d2e1f0a4c5b"
AT = "2026-02-03T10:00:00.000Z"


def entry(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": "e1", "parentId": None, "timestamp": AT, **fields}


def message(**fields: Any) -> dict[str, Any]:
    return entry("message", message=fields)


def parse(*values: Any, source: str = "s.jsonl") -> list[Record]:
    return parsed_by(Parser(source), values)


@pytest.fixture(scope="module")
def large() -> list[Record]:
    records, stats = read_records(corpus_file(FAMILY_DIR, LARGE))
    assert stats.unparsed == 0
    return records


@pytest.fixture(scope="module")
def v3() -> list[Record]:
    records, stats = read_records(V3)
    assert stats.unparsed == 0
    return records


# --- detection -------------------------------------------------------------------------------


def test_detect_claims_every_entry_of_the_corpus_file_and_not_its_header() -> None:
    data = corpus_file(FAMILY_DIR, LARGE).read_bytes()
    header, *entries = [orjson.loads(raw) for raw in data.splitlines() if raw.strip()]
    assert header["type"] == "session" and not detect(header)
    assert len(entries) == 1018 and all(detect(value) for value in entries)
    assert detect_family(header) is None
    assert detect_family(entries[0]) is pi_session.FORMAT


def test_detect_claims_every_entry_type_of_a_version_3_file() -> None:
    values = [orjson.loads(raw) for raw in V3.read_bytes().splitlines() if raw.strip()]
    assert [detect(value) for value in values] == [False] + [True] * (len(values) - 1)


@pytest.mark.parametrize(
    "value",
    [
        {"type": "message_end", "message": {"role": "user", "content": "hi"}},
        {"type": "message", "timestamp": AT, "role": "user", "content": "hi"},
        {"type": "message", "timestamp": 1767401000000, "message": {"role": "user"}},
        {"type": "message", "timestamp": AT, "message": {"role": "human", "content": "hi"}},
        {"type": "message", "timestamp": AT, "sessionId": "s", "message": {"role": "user"}},
        {"type": "model_change", "timestamp": AT, "model": "x"},
        {"type": "compaction", "timestamp": AT, "summary": "s"},
        {"type": "session_info", "timestamp": AT, "name": "x"},
        {"type": "user", "timestamp": AT, "message": {"role": "user", "content": "hi"}},
    ],
    ids=[
        "pi-event",
        "role-at-top",
        "epoch-timestamp",
        "not-a-pi-role",
        "transcript-session-key",
        "model-change-without-model-id",
        "compaction-without-tokens",
        "session-info-outside-a-tree",
        "claude-transcript",
    ],
)
def test_detect_refuses_events_other_families_and_incomplete_entries(value: object) -> None:
    assert not detect(value)


@pytest.mark.parametrize(
    "value",
    [[1], "x", {"timestamp": AT}, entry("message", message="hi"), {"type": "session", "id": ""}],
)
def test_values_that_are_not_entries_are_not_this_format(value: object) -> None:
    assert Parser("src").parse(value, 1) is None


# --- entries ---------------------------------------------------------------------------------


def test_without_a_header_the_session_is_the_source() -> None:
    records = parse(message(role="user", content="hi", timestamp=1), source="tail.jsonl")
    assert single(records, UserText).session_id == "tail.jsonl"
    assert only(records, SessionStarted) == []


def test_a_version_3_header_starts_the_session_in_its_folder(v3: list[Record]) -> None:
    first = v3[0]
    assert isinstance(first, SessionStarted)
    assert (first.session_id, first.agent, first.cwd, first.model) == (V3_ID, "pi", "/home/dev/app",
                                                                       None)  # fmt: skip
    assert {r.session_id for r in v3} == {V3_ID}


def test_a_model_change_is_said_and_becomes_the_sessions_model(v3: list[Record]) -> None:
    line_2 = [r for r in v3 if r.line == 2]
    assert [type(r) for r in line_2] == [SessionStarted, Notice]
    started, notice = line_2
    assert isinstance(started, SessionStarted) and started.model == "claude-sonnet-4-5"
    assert isinstance(notice, Notice)
    assert (notice.kind, notice.text) == ("model", "Model: claude-sonnet-4-5 (anthropic)")
    models = [s.model for s in only(v3, SessionStarted) if s.model]
    assert models == ["claude-sonnet-4-5", "gpt-5.1-codex"]  # then a message of another model


def test_the_session_name_is_its_title(v3: list[Record]) -> None:
    assert [s.title for s in only(v3, SessionStarted) if s.title] == ["Fix the flaky test"]


def test_messages_are_user_text_thinking_text_calls_and_results(v3: list[Record]) -> None:
    assert [u.text for u in only(v3, UserText)] == ["Why does test_sync fail now and then?"]
    assert [t.text for t in only(v3, Thinking)] == ["Look at the test first."]
    assert [a.text for a in only(v3, AssistantText)] == [
        "Let me run it.",
        "The sync waits on a 1 s timeout; raise it to 5 s.",
    ]
    run = next(r for r in only(v3, ToolResult) if r.call_id == "toolu_run")
    assert (run.is_error, run.name) == (True, "bash")
    assert run.output.endswith("Command exited with code 1")


def test_a_command_the_user_ran_is_a_call_named_for_the_user_and_its_result(
    v3: list[Record],
) -> None:
    calls = [c for c in only(v3, ToolCall) if c.name == "bash (user)"]
    assert [c.input["command"] for c in calls] == ["git log -1 --oneline", "sleep 100"]
    results = {r.call_id: r for r in only(v3, ToolResult)}
    done, cancelled = (results[c.call_id] for c in calls)
    assert done.output == "3f2a1b9 Retry the sync\n"
    assert (done.is_error, done.interrupted) == (False, False)
    assert (cancelled.is_error, cancelled.interrupted) == (True, True)
    assert calls[0].call_id == f"{V3_ID}/bash-1770112810000"  # its own time


def test_a_message_that_failed_is_a_notice_and_its_calls_never_ran(v3: list[Record]) -> None:
    line_14 = [r for r in v3 if r.line == 14]
    assert [type(r) for r in line_14] == [SessionStarted, ToolCall, ToolResult, Notice, TurnEnded]
    _, call, result, notice, _ = line_14
    assert isinstance(result, ToolResult) and isinstance(notice, Notice)
    assert (result.call_id, result.interrupted, result.output) == (
        "toolu_edit",
        True,
        "Not run: terminated",
    )
    assert isinstance(call, ToolCall) and result.name == call.name == "edit"
    assert (notice.kind, notice.level, notice.text) == ("api_error", "error", "terminated")
    aborted = [n for n in only(v3, Notice) if n.kind == "interrupted"]
    assert [(n.line, n.level, n.text) for n in aborted] == [(18, "warning", "Request was aborted")]


def test_compaction_branch_and_extension_entries(v3: list[Record]) -> None:
    compaction = single(v3, Compaction)
    assert (compaction.pre_tokens, compaction.trigger) == (50211, None)
    assert compaction.summary is not None and compaction.summary.startswith("## Goal")
    notices = {n.kind: n.text for n in only(v3, Notice)}
    assert notices["branch"] == "Back from a branch: Tried a longer timeout; the request failed."
    assert notices["reminder"] == "Remember to run the linter."  # a custom message shown
    hidden = [r.kind for r in only(v3, Ignored)]
    assert hidden == ["thinking_level_change", "custom", "context", "label"]


def test_a_compaction_made_by_an_extension_says_so_and_an_unknown_entry_is_a_notice() -> None:
    records = parse(
        entry("compaction", summary="s", tokensBefore=10, fromHook=True),
        entry("bookmark", note="x"),
    )
    assert single(records, Compaction).trigger == "extension"
    assert (single(records, Notice).kind, single(records, Notice).text) == ("bookmark", "Bookmark")


def test_a_session_file_has_no_result_and_after_an_abort_waits_for_the_user(
    v3: list[Record],
) -> None:
    assert only(v3, SessionResult) == []
    assert pi_session.FORMAT.reports_result is False
    document = preview_document(build_preview([V3]))
    # no result, and its last turn was aborted by the user: it waits for the user (not unknown)
    assert [(s["agent"], s["status"]) for s in document["sessions"]] == [("pi", "waiting")]


def assistant(stop: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return message(role="assistant", content=list(blocks), stopReason=stop)


TEXT: Final = {"type": "text", "text": "Done."}
CALL: Final = {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": "ls"}}


@pytest.mark.parametrize(
    ("answer", "ends"),
    [
        (assistant("stop", TEXT), True),
        (assistant("length", TEXT), True),  # cut short, with no call to run: the loop stops
        (assistant("error"), True),
        (assistant("error", CALL), True),  # its call never runs: the loop stops
        (assistant("toolUse", TEXT, CALL), False),  # the loop goes on to run the call
        (assistant("stop", CALL), False),  # a call, whatever the stop reason: it runs
        (assistant("aborted", TEXT), False),  # said by its "interrupted" notice instead
    ],
    ids=["stop", "length", "error", "error-with-call", "tool-use", "stop-with-call", "aborted"],
)
def test_an_answer_with_no_call_to_run_ends_the_turn(answer: dict[str, Any], ends: bool) -> None:
    records = parse(answer)
    assert (len(only(records, TurnEnded)) == 1) is ends
    assert all(type(r) is not TurnEnded for r in records[:-1])  # after the message's records


def test_a_turn_end_makes_the_session_wait_and_the_users_next_words_run_it_again() -> None:
    session, statuses = Session("s.jsonl"), []
    for value in (message(role="user", content="Why?"), assistant("stop", TEXT),
                  message(role="user", content="And then?"), assistant("toolUse", CALL),
                  assistant("aborted")):  # fmt: skip
        for record in parse(value):
            session.apply(record)
        statuses.append(session.status)
    assert statuses == [SessionStatus.RUNNING, SessionStatus.WAITING, SessionStatus.RUNNING,
                        SessionStatus.RUNNING, SessionStatus.WAITING]  # fmt: skip


def test_a_parser_snapshot_mid_file_keeps_its_session_and_model() -> None:
    parser = Parser("src")
    parser.parse({"type": "session", "id": "s9", "timestamp": AT, "modelId": "m1"}, 1)
    restored = snapshot.loads(snapshot.dumps(parser))
    records = restored.parse(message(role="assistant", content=[], model="m1"), 2)
    assert records is not None and [r.session_id for r in records] == ["s9"]
    assert only(records, SessionStarted) == []  # the model is not new


# --- the corpus file -------------------------------------------------------------------------


def test_read_records_gives_every_corpus_line_a_record_and_leaves_none_unparsed(
    large: list[Record],
) -> None:
    path = corpus_file(FAMILY_DIR, LARGE)
    wanted = value_lines(path)
    assert {r.line for r in large} == wanted
    assert {r.session_id for r in large} == {LARGE_ID}


def test_large_file_version_1_header_names_the_model(large: list[Record]) -> None:
    started = only(large, SessionStarted)
    assert (started[0].line, started[0].cwd) == (1, "/Users/badlogic/workspaces/pi-mono")
    # the header's model, the first answer's (an aborted gpt-5.1-codex request), then the switch
    assert [(s.line, s.model) for s in started] == [
        (1, "claude-sonnet-4-5"),
        (3, "gpt-5.1-codex"),
        (4, "claude-sonnet-4-5"),
    ]


def test_large_file_messages_calls_and_failures(large: list[Record]) -> None:
    # 914 messages: user 88, assistant 453 (244 text blocks, 1 thinking, 391 toolCall blocks;
    # stopReason toolUse 366, stop 65, aborted 21, error 1), toolResult 373 (19 isError)
    assert len(only(large, UserText)) == 88
    assert (len(only(large, AssistantText)), len(only(large, Thinking))) == (244, 1)
    calls = only(large, ToolCall)
    assert len(calls) == len({c.call_id for c in calls}) == 391
    results = only(large, ToolResult)
    assert len(results) == 391  # 373 answered + 18 calls of failed messages (never run)
    assert sum(r.is_error for r in results) == 19
    never_run = Counter(r.line for r in results if r.interrupted)
    assert never_run == {33: 16, 234: 1, 843: 1}  # the "terminated" error, two aborts
    notices = Counter((n.kind, n.level) for n in only(large, Notice))
    assert notices == {("interrupted", "warning"): 21, ("api_error", "error"): 1,
                       ("model", "info"): 1}  # fmt: skip
    assert Counter(r.kind for r in only(large, Ignored)) == {"thinking_level_change": 103}
    assert only(large, Compaction) == only(large, SessionResult) == []


def test_large_file_turns_end_on_answers_with_no_call_and_on_the_error(
    large: list[Record],
) -> None:
    # assistant messages with no toolCall block: stop 65, aborted 19; with calls: toolUse 366,
    # aborted 2, error 1. A turn ends at each stop and at the error; each abort is an
    # "interrupted" notice (the user stopped the agent: its turn ends too)
    ends = only(large, TurnEnded)
    assert len(ends) == 65 + 1
    assert [e.line for e in ends][:4] == [17, 25, 33, 69]  # 33: the error ("terminated")
    assert ends[-1].line == max(r.line for r in large)  # the file's last line: a stop


def test_large_file_previews_as_one_session_waiting_for_the_user() -> None:
    document = preview_document(build_preview([corpus_file(FAMILY_DIR, LARGE)]))
    (session,) = document["sessions"]
    # its last line is an answer that stopped with no call: its turn ended
    assert (session["agent"], session["status"]) == ("pi", "waiting")
    statuses = Counter(tool["status"] for tool in session["tools"])
    assert statuses == {"ok": 354, "error": 19, "interrupted": 18}
