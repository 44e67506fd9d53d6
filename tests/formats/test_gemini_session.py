"""Gemini CLI session files (the 2025 JSON document and the 2026 JSON Lines journal):
detection, how each line maps to records, rewrites that add only what is new, two sessions in
one file, and what every corpus file of the family holds (numbers counted from the raw files
with a separate script, then written down)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import snapshot
from bot.formats import detect_family, gemini_session
from bot.formats.gemini_session import Parser, detect
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
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import SessionResult, TurnEnded
from bot.session import Session
from bot.sources.files import split_lines
from tests.conftest import corpus_file
from tests.formats.helpers import ANY_JSON as _ANY_JSON
from tests.formats.helpers import gives_every_line_a_record, only, records_of, single

FAMILY_DIR = "gemini"
DOCUMENTS = (
    "jnarowski__agentcmd__session-2025-10-27T19-55-981c87cb.json",
    "jnarowski__agentcmd__session-2025-10-29T10-36-453aa339.json",
    "jnarowski__agentcmd__session-2025-10-29T10-36-9c9a14e1.json",
    "jnarowski__agentcmd__session-2025-10-29T10-39-a63242d9.json",
)
LONE_MESSAGE = "jnarowski__agentcmd__tool-result-error.json"
JOURNALS = (
    "shane-kercheval__switchboard__happy-path.session.jsonl",
    "shane-kercheval__switchboard__interleaved-collision.session.jsonl",
    "shane-kercheval__switchboard__tool-use.session.jsonl",
)


def parse(*values: dict[str, Any], source: str = "src") -> list[Record]:
    parser = Parser(source)
    out: list[Record] = []
    for number, value in enumerate(values, start=1):
        records = parser.parse(value, number)
        assert records, value
        out.extend(records)
    return out


def corpus_records(name: str) -> list[Record]:
    return records_of(corpus_file(FAMILY_DIR, name))


def header(session: str = "s1", **fields: Any) -> dict[str, Any]:
    return {
        "sessionId": session,
        "projectHash": "abc",
        "startTime": "2026-05-17T22:13:44.759Z",
        "lastUpdated": "2026-05-17T22:13:44.759Z",
        "kind": "main",
        **fields,
    }


def user(text: str, mid: str = "u1") -> dict[str, Any]:
    return {
        "id": mid,
        "timestamp": "2026-05-17T22:13:45.277Z",
        "type": "user",
        "content": [{"text": text}],
    }


def gemini(mid: str = "g1", content: str = "", **fields: Any) -> dict[str, Any]:
    return {
        "id": mid,
        "timestamp": "2026-05-17T22:13:46.845Z",
        "type": "gemini",
        "content": content,
        "thoughts": [],
        "model": "gemini-3-flash-preview",
        **fields,
    }


def tool_call(
    cid: str, name: str = "read_file", status: str = "success", output: str = "text", **fields: Any
) -> dict[str, Any]:
    result = [{"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}]
    return {
        "id": cid,
        "name": name,
        "args": {"file_path": "M"},
        "result": result,
        "status": status,
        "timestamp": "2026-05-17T22:13:46.881Z",
        **fields,
    }


# --- detection -------------------------------------------------------------------------------


def test_detect_claims_every_value_of_every_session_corpus_file() -> None:
    for name in (*DOCUMENTS, LONE_MESSAGE, *JOURNALS):
        data = corpus_file(FAMILY_DIR, name).read_bytes()
        values = [orjson.loads(raw) for _, raw in split_lines(data) if raw.strip()]
        assert values and all(detect(value) for value in values), name
        assert detect_family(values[0]) is gemini_session.FORMAT


@pytest.mark.parametrize(
    "value",
    [
        {"sessionId": "s", "uuid": "u", "type": "user", "message": {"content": "hi"}},
        {"id": "u1", "timestamp": "2026-01-01T00:00:00Z", "type": "user", "content": "hi"},
        {"$set": {"lastUpdated": "2026-01-01"}, "type": "x"},
        {"type": "message", "role": "user", "content": "hi", "timestamp": "2026-01-01"},
        {"id": "g1", "type": "gemini", "content": "no time"},
        ["sessionId", "projectHash"],
    ],
    ids=[
        "claude-transcript",
        "backend-like-row",
        "set-and-more",
        "gemini-stream",
        "no-time",
        "a-list",
    ],
)
def test_detect_refuses_values_of_other_shapes(value: object) -> None:
    assert not detect(value)


def test_a_line_that_is_none_of_its_shapes_is_not_mine() -> None:
    parser = Parser("src")
    assert parser.parse({"what": 1}, 1) is None
    assert parser.parse("text", 2) is None


# --- the journal, line by line ---------------------------------------------------------------


def test_the_header_starts_the_session_and_the_first_answer_says_its_model() -> None:
    records = parse(header(), user("Read M"), gemini(content="ack"))
    first, text, second, answer, ended = records
    assert isinstance(ended, TurnEnded)  # the answer ends the turn
    assert isinstance(first, SessionStarted)
    assert (first.session_id, first.agent, first.model) == ("s1", "Gemini CLI", None)
    assert first.timestamp == datetime(2026, 5, 17, 22, 13, 44, 759000, tzinfo=UTC)
    assert isinstance(text, UserText) and text.text == "Read M"
    assert isinstance(second, SessionStarted) and second.model == "gemini-3-flash-preview"
    assert isinstance(answer, AssistantText)
    assert (answer.text, answer.delta, answer.message_id) == ("ack", False, "g1")


def test_an_answer_gives_its_thoughts_its_text_then_each_call_and_its_result() -> None:
    thoughts = [
        {"subject": "Reading", "description": "I will read M.", "timestamp": "t"},
        {"subject": "", "description": "Then answer."},
    ]
    message = gemini(
        content="Reading it.",
        thoughts=thoughts,
        toolCalls=[tool_call("c1"), tool_call("c2", name="glob")],
    )
    records = parse(header(), message)[2:]
    assert [type(r).__name__ for r in records] == [
        "Thinking",
        "Thinking",
        "AssistantText",
        "ToolCall",
        "ToolResult",
        "ToolCall",
        "ToolResult",
    ]
    assert [r.text for r in only(records, Thinking)] == ["Reading: I will read M.", "Then answer."]
    assert [(r.call_id, r.name, r.output) for r in only(records, ToolResult)] == [
        ("c1", "read_file", "text"),
        ("c2", "glob", "text"),
    ]


def test_a_message_written_again_adds_only_what_is_new() -> None:
    first = gemini(
        content="I will",
        thoughts=[{"subject": "A", "description": "a"}],
        toolCalls=[tool_call("c1", status="executing")],
    )
    again = gemini(
        content="I will read it.",
        thoughts=[{"subject": "A", "description": "a"}, {"description": "b"}],
        toolCalls=[tool_call("c1"), tool_call("c2")],
    )
    records = parse(header(), first, again, again)
    rewrite = [r for r in records if r.line == 3]
    assert [type(r).__name__ for r in rewrite] == [
        "Thinking",
        "AssistantText",
        "ToolResult",
        "ToolCall",
        "ToolResult",
    ]
    text = only(rewrite, AssistantText)[0]
    assert (text.text, text.delta) == (" read it.", True)
    assert [r.call_id for r in only(records, ToolCall)] == ["c1", "c2"]
    assert [r.call_id for r in only(records, ToolResult)] == ["c1", "c2"]
    (unchanged,) = [r for r in records if r.line == 4]
    assert isinstance(unchanged, Ignored)


def test_a_text_rewritten_otherwise_is_said_once() -> None:
    records = parse(header(), gemini(content="Old answer"), gemini(content="Masked answer"))
    assert [r.text for r in only(records, AssistantText)] == ["Old answer"]


def test_a_failed_or_cancelled_call_and_a_failing_shell_command_are_errors() -> None:
    shell = "Output: nope\nError: (none)\nExit Code: 1\nSignal: 0"
    calls = [
        tool_call("c1", status="error"),
        tool_call("c2", status="cancelled"),
        tool_call("c3", name="run_shell_command", output=shell),
        tool_call("c4", name="run_shell_command", output="Output: ok\nExit Code: 0"),
    ]
    records = parse(header(), gemini(toolCalls=calls))
    assert [(r.call_id, r.is_error, r.interrupted) for r in only(records, ToolResult)] == [
        ("c1", True, False),
        ("c2", True, True),
        ("c3", True, False),
        ("c4", False, False),
    ]


def test_a_subagent_call_is_a_delegation_linked_to_its_agent() -> None:
    invoke = tool_call("d1", name="invoke_agent", agentId="agent-7")
    invoke["args"] = {"agent_name": "codebase_investigator", "prompt": "Map the code"}
    records = parse(header(), gemini(toolCalls=[invoke]))
    delegation = single(records, Delegation)
    assert (delegation.call_id, delegation.member, delegation.task) == (
        "d1",
        "codebase_investigator",
        "Map the code",
    )
    link = single(records, SubagentLink)
    assert (link.agent_id, link.call_id) == ("agent-7", "d1")
    assert single(records, ToolResult).call_id == "d1"


def test_a_call_without_an_id_is_named_after_its_message_and_place() -> None:
    nameless = tool_call("x")
    del nameless["id"]
    records = parse(header(), gemini(mid="g9", toolCalls=[nameless]))
    assert single(records, ToolCall).call_id == "g9:0"


def test_set_lines_are_ignored_but_a_summary_titles_the_session() -> None:
    records = parse(
        header(),
        {"$set": {"lastUpdated": "2026-05-17T22:13:45.277Z"}},
        {"$set": {"summary": "Reading MARKER.txt"}},
    )
    ignored, titled = records[1:]
    assert isinstance(ignored, Ignored) and ignored.kind == "$set"
    assert ignored.timestamp == datetime(2026, 5, 17, 22, 13, 45, 277000, tzinfo=UTC)
    assert isinstance(titled, SessionStarted) and titled.title == "Reading MARKER.txt"


def test_a_set_of_messages_is_read_as_messages_written_again() -> None:
    checkpoint = {
        "$set": {
            "messages": [user("Read M"), gemini(content="ack"), gemini(mid="g2", content="more")]
        }
    }
    records = parse(header(), user("Read M"), gemini(content="ack"), checkpoint)
    assert [r.text for r in only(records, UserText)] == ["Read M"]
    assert [(r.text, r.line) for r in only(records, AssistantText)] == [("ack", 3), ("more", 4)]


def test_a_rewind_is_a_notice() -> None:
    (notice,) = parse(header(), {"$rewindTo": "u1"})[1:]
    assert isinstance(notice, Notice) and notice.kind == "rewind"


def test_info_warning_and_error_messages_are_notices_at_their_level() -> None:
    lines = [
        {
            "id": kind,
            "timestamp": "2026-05-17T22:13:45Z",
            "type": kind,
            "content": [{"text": f"an {kind}"}],
        }
        for kind in ("info", "warning", "error", "compression")
    ]
    records = parse(header(), *lines, *lines)
    assert [(n.kind, n.text, n.level) for n in only(records, Notice)] == [
        ("info", "an info", "info"),
        ("warning", "an warning", "warning"),
        ("error", "an error", "error"),
        ("compression", "an compression", "info"),
    ]


def test_a_second_header_of_the_same_session_adds_nothing() -> None:
    records = parse(header(), user("hi"), header())
    assert len(only(records, SessionStarted)) == 1
    assert isinstance(records[-1], Ignored)


def test_two_sessions_in_one_file_are_said_not_silently_merged() -> None:
    records = parse(header("s1"), header("s2"), user("blue"), user("red", mid="u2"), header("s2"))
    notice = single(records, Notice)
    assert (notice.kind, notice.level, notice.session_id) == ("shared_file", "warning", "s1")
    assert "s2" in notice.text
    assert {r.session_id for r in records} == {"s1"}
    assert len(only(records, SessionStarted)) == 1


def test_messages_before_any_header_start_a_session_named_after_the_source() -> None:
    records = parse(gemini(content="ack"), header("s1"), user("next", mid="u2"), source="f.jsonl")
    started = only(records, SessionStarted)
    assert [(s.session_id, s.model) for s in started] == [
        ("f.jsonl", "gemini-3-flash-preview"),
        ("s1", None),
    ]
    assert single(records, UserText).session_id == "s1"


def test_the_parser_is_saved_in_a_checkpoint_and_goes_on_where_it_was() -> None:
    parser = Parser("src")
    parser.parse(header(), 1)
    parser.parse(gemini(toolCalls=[tool_call("c1", status="executing")]), 2)
    restored: Parser = snapshot.loads(snapshot.dumps(parser))
    records = restored.parse(gemini(toolCalls=[tool_call("c1")]), 3) or []
    assert [type(r).__name__ for r in records] == ["ToolResult"]
    assert records[0].session_id == "s1"


_CALL = st.fixed_dictionaries(
    {},
    optional={
        key: _ANY_JSON | st.sampled_from(["c1", "success", "error", "run_shell_command"])
        for key in ("id", "name", "args", "result", "status", "resultDisplay", "agentId")
    },
)
_MESSAGE = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["m1", "m2"]),
        "type": st.sampled_from(["user", "gemini", "info", "other"]),
    },
    optional={
        "timestamp": _ANY_JSON,
        "content": _ANY_JSON,
        "displayContent": _ANY_JSON,
        "thoughts": _ANY_JSON | st.lists(_ANY_JSON, max_size=3),
        "model": _ANY_JSON,
        "toolCalls": _ANY_JSON | st.lists(_CALL, max_size=3),
    },
)
_LINE = st.one_of(
    _MESSAGE,
    st.builds(lambda m: {"$set": {"messages": m}}, st.lists(_MESSAGE, max_size=3)),
    st.builds(lambda v: {"$set": v}, _ANY_JSON),
    st.builds(
        lambda s, m: header(s, messages=m),
        st.sampled_from(["s1", "s2"]),
        _ANY_JSON | st.lists(_MESSAGE, max_size=3),
    ),
)


@settings(max_examples=80, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=10))
def test_any_line_shapes_give_records_never_an_exception(lines: list[dict[str, Any]]) -> None:
    records = parse(*lines)
    assert all(isinstance(r, Record) for r in records)


# --- the corpus, file by file ----------------------------------------------------------------


@pytest.mark.parametrize("name", JOURNALS)
def test_every_line_of_every_journal_gives_a_record_of_its_line(name: str) -> None:
    gives_every_line_a_record(corpus_file(FAMILY_DIR, name))


# Per file, counted from the raw file: the gemini messages with text and no tool call, plus those
# whose calls were all cancelled; and how the file's session ends.
TURN_ENDS = {
    DOCUMENTS[0]: (2 + 1, "waiting"),  # "You can now run…", "I've updated…"; the cancelled shell
    DOCUMENTS[1]: (1, "waiting"),  # "Done."
    DOCUMENTS[2]: (1, "waiting"),  # "The file … contains …"
    DOCUMENTS[3]: (0, "unknown"),  # its one answer is a failed write_file call
    LONE_MESSAGE: (0, "unknown"),  # an answer with a call
    JOURNALS[0]: (1, "waiting"),  # "ack"
    JOURNALS[1]: (2, "waiting"),  # "blue", "red"
    JOURNALS[2]: (1, "waiting"),  # the probe's marker, after the message written twice
}


@pytest.mark.parametrize("name", (*DOCUMENTS, LONE_MESSAGE, *JOURNALS))
def test_no_session_file_reports_a_result_and_each_ends_as_its_last_turn_did(name: str) -> None:
    records = corpus_records(name)
    assert only(records, SessionResult) == []
    ends, status = TURN_ENDS[name]
    assert len(only(records, TurnEnded)) == ends
    document = preview_document(build_preview([corpus_file(FAMILY_DIR, name)]))
    assert [s["status"] for s in document["sessions"]] == [status]


def test_an_answer_with_text_and_no_call_ends_the_turn_once() -> None:
    records = parse(header(), user("hi"), gemini(content="Hello."), gemini(content="Hello."))
    assert [e.line for e in only(records, TurnEnded)] == [3]  # written again: said once


@pytest.mark.parametrize(
    "message",
    [
        gemini(content=""),  # the message of a response of calls, written before they run
        gemini(content="  "),
        gemini(content="Reading it.", toolCalls=[tool_call("c1")]),
        gemini(content="Reading.", toolCalls=[tool_call("c1", status="cancelled"),
                                              tool_call("c2")]),  # one call ran: it goes on
        gemini(content=[{"text": "Binary content received.", "thought": True}]),  # synthetic
    ],
    ids=["empty", "blank", "with-call", "one-cancelled", "parts"],
)  # fmt: skip
def test_a_message_that_asks_for_calls_or_says_nothing_does_not_end_the_turn(
    message: dict[str, Any],
) -> None:
    assert only(parse(header(), user("hi"), message), TurnEnded) == []


def test_calls_all_cancelled_end_the_turn_the_topic_tool_aside() -> None:
    topic = tool_call("t1", name="update_topic")
    cancelled = [tool_call("c1", status="cancelled"), tool_call("c2", status="cancelled")]
    records = parse(header(), gemini(content="Running it.", toolCalls=[topic, *cancelled]))
    (ended,) = only(records, TurnEnded)
    assert records[-1] is ended  # after the calls' records


def test_an_answer_that_gets_its_calls_written_later_runs_again_once_they_come() -> None:
    asked = gemini(content="I will run the tests.")
    ran = gemini(content="I will run the tests.", toolCalls=[tool_call("c1")])
    session = Session("s1")
    statuses = []
    parser = Parser("src")
    for number, value in enumerate((header(), user("test it"), asked, ran), start=1):
        for record in parser.parse(value, number) or []:
            session.apply(record)
        statuses.append(session.status.value)
    # the file says nothing of the call until it ended: meanwhile the session waits
    assert statuses == ["running", "running", "waiting", "running"]


def test_the_long_document_has_thirteen_calls_of_which_four_failed() -> None:
    records = corpus_records(DOCUMENTS[0])
    assert {r.session_id for r in records} == {"981c87cb-90ef-4c7f-948d-23173ff43e4e"}
    assert single(records, SessionStarted).model == "gemini-2.5-pro"
    assert len(only(records, UserText)) == 3
    assert len(only(records, AssistantText)) == 14  # 15 answers, one with no text
    assert len(only(records, Thinking)) == 31
    calls, results = only(records, ToolCall), only(records, ToolResult)
    assert Counter(c.name for c in calls) == {
        "run_shell_command": 5,
        "list_directory": 3,
        "write_file": 2,
        "read_file": 2,
        "google_web_search": 1,
    }
    assert [r.call_id for r in results] == [c.call_id for c in calls]
    failed = [(r.name, r.interrupted) for r in results if r.is_error]
    assert failed == [
        ("run_shell_command", True),  # cancelled
        ("list_directory", False),  # status error: "Path must be absolute: ."
        ("run_shell_command", False),  # success, Exit Code: 127
        ("run_shell_command", False),  # success, Exit Code: 1
    ]
    assert "Exit Code: 127" in [r.output for r in results if r.is_error][2]


def test_the_edit_document_reads_replaces_and_reads_again() -> None:
    records = corpus_records(DOCUMENTS[1])
    assert {r.session_id for r in records} == {"453aa339-7d2b-4709-a41a-b0b73beaff85"}
    assert [c.name for c in only(records, ToolCall)] == ["read_file", "replace", "read_file"]
    assert [r.output for r in only(records, ToolResult)] == [
        "Hello from Gemini CLI",
        "Successfully modified file: /private/tmp/gemini-test/created.txt (1 replacements).",
        "Goodbye from Gemini CLI",
    ]
    assert not any(r.is_error for r in only(records, ToolResult))
    assert len(only(records, Thinking)) == 6
    assert [r.text for r in only(records, AssistantText)] == ["Done."]


def test_the_read_document_has_one_call_and_its_answer() -> None:
    records = corpus_records(DOCUMENTS[2])
    assert {r.session_id for r in records} == {"9c9a14e1-2b8f-443b-8cec-61516ff39741"}
    result = single(records, ToolResult)
    assert (result.name, result.output, result.is_error) == (
        "read_file",
        "test content from gemini research\n",
        False,
    )
    assert single(records, AssistantText).text.endswith("test content from gemini research")


def test_the_write_document_ends_on_a_tool_missing_from_the_registry() -> None:
    records = corpus_records(DOCUMENTS[3])
    assert {r.session_id for r in records} == {"a63242d9-4431-4eee-926d-beb795e7989d"}
    result = single(records, ToolResult)
    assert result.is_error and result.output.startswith('Tool "write_file" not found in registry')
    assert only(records, AssistantText) == []


def test_a_lone_message_is_read_as_a_journal_line_of_a_session_named_after_its_file() -> None:
    path = corpus_file(FAMILY_DIR, LONE_MESSAGE)
    records = corpus_records(LONE_MESSAGE)
    assert {r.session_id for r in records} == {str(path)}
    assert single(records, SessionStarted).model == "gemini-2.5-pro"
    assert len(only(records, Thinking)) == 1
    result = single(records, ToolResult)
    assert (result.name, result.output, result.is_error) == (
        "list_directory",
        "Path must be absolute: .",
        True,
    )


def test_happy_path_journal_answers_ack() -> None:
    records = corpus_records(JOURNALS[0])
    assert {r.session_id for r in records} == {"00000000-0000-4000-8000-000000000001"}
    assert [r.text for r in only(records, UserText)] == [
        "Reply with the single word 'ack' and nothing else."
    ]
    assert [r.text for r in only(records, AssistantText)] == ["ack"]
    assert [r.model for r in only(records, SessionStarted)] == [None, "gemini-3-flash-preview"]
    assert [r.kind for r in only(records, Ignored)] == ["$set", "$set"]


def test_interleaved_collision_is_one_session_with_a_warning_about_the_other() -> None:
    records = corpus_records(JOURNALS[1])
    assert {r.session_id for r in records} == {"00000000-0000-4000-8000-000000000009"}
    notice = single(records, Notice)
    assert (notice.kind, notice.level, notice.line) == ("shared_file", "warning", 2)
    assert "00000000-0000-4000-8000-00000000000A" in notice.text
    assert [r.text for r in only(records, UserText)] == [
        "Reply with only the word blue",
        "Reply with only the word red",
    ]
    assert [r.text for r in only(records, AssistantText)] == ["blue", "red"]
    assert (
        len(preview_document(build_preview([corpus_file(FAMILY_DIR, JOURNALS[1])]))["sessions"])
        == 1
    )


def test_tool_use_journal_reads_the_message_written_twice_once() -> None:
    records = corpus_records(JOURNALS[2])
    assert {r.session_id for r in records} == {"00000000-0000-4000-8000-000000000002"}
    calls, results = only(records, ToolCall), only(records, ToolResult)
    assert [(c.name, c.line) for c in calls] == [("update_topic", 6), ("read_file", 6)]
    assert [(r.name, r.is_error) for r in results] == [
        ("update_topic", False),
        ("read_file", False),
    ]
    assert results[1].output == "SWITCHBOARD_GEMINI_PROBE_TOOL_5F8A21\n"
    assert [r.text for r in only(records, AssistantText)] == [
        "SWITCHBOARD_GEMINI_PROBE_TOOL_5F8A21"
    ]
