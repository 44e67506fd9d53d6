"""Claude Code transcripts: detection, the mapping of each kind of line, subagents linked to the
Task call that started them, the seed-001 variant, and what every corpus file of the family holds
(the expected numbers were counted from the raw files with plain JSON, not with the parser)."""

from __future__ import annotations

from collections import Counter, OrderedDict
from itertools import count
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.formats import claude_transcript
from bot.formats.claude_transcript import Parser, detect
from bot.formats.common import remember
from bot.formats.reader import SourceReader
from bot.preview import build_preview
from bot.records import (
    AssistantText,
    Compaction,
    Ignored,
    Notice,
    Record,
    SessionStarted,
    SubagentLink,
    TodoUpdate,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import TurnEnded
from bot.session.thread import NoticeItem, ToolGroup, UserTurn
from bot.sources.files import read_bytes, split_lines
from tests.conftest import CORPUS, FIXTURES, corpus_file, read_records

DIR = "claude-transcript"
FAMILY = claude_transcript.FAMILY
R = TypeVar("R", bound=Record)


def records(path: Path) -> list[Record]:
    found, stats = read_records(path, family=FAMILY)
    assert stats.unparsed == 0
    return found


def corpus(name: str) -> list[Record]:
    return records(corpus_file(DIR, name))


def fixture(name: str) -> list[Record]:
    return records(FIXTURES / f"claude_transcript_{name}.jsonl")


def of(kind: type[R], found: list[Record]) -> list[R]:
    return [r for r in found if type(r) is kind]


def parsed(*lines: dict[str, Any]) -> list[Record]:
    parser, out = Parser("test"), []
    for number, obj in enumerate(lines, start=1):
        got = parser.parse(obj, number)
        assert got is not None
        out.extend(got)
    return out + parser.finish()


_UUIDS = count(1)


def line(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "sessionId": "s", "uuid": f"u{next(_UUIDS)}", **fields}


# -- every corpus file ------------------------------------------------------------------------


class Holds(NamedTuple):
    sessions: tuple[str, ...]
    calls: int
    failed: int
    todo_updates: int
    compactions: int
    subagent_calls: int  # tool calls carrying parent_call


HOLDS = {
    "DRMacIver__claude-reliability__coverage-test-fix_transcript.jsonl": Holds(
        ("c64cc478-3430-40fe-8e9c-4ee9986e9754",), 13, 1, 0, 0, 0
    ),
    "DRMacIver__claude-reliability__python-to-rust-port_transcript.jsonl": Holds(
        ("c7d3d95c-57f0-4359-8f4b-926a9bef5a3f",), 39, 0, 10, 0, 0
    ),
    "d-kimuson__claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl": Holds(
        ("5c0375b4-57a5-4f26-b12d-d022ee4e51b7",), 21, 3, 5, 0, 8
    ),
    "d-kimuson__claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl": Holds(
        ("fe5e1c67-53e7-4862-81ae-d0e013e3270b",), 167, 23, 19, 0, 156
    ),
    "daaain__claude-code-log__dag_compact_after_rewind.jsonl": Holds(("s1",), 0, 0, 0, 1, 0),
    "daaain__claude-code-log__sidechain_integrated.jsonl": Holds(
        ("88a8d761-7b9a-4bf1-a8ca-c1febe6bf358",), 2, 0, 0, 0, 1
    ),
    "daaain__claude-code-log__todowrite_examples.jsonl": Holds(
        ("todowrite_session",), 3, 0, 3, 0, 0
    ),
    "marot__spotter__agent-a881341.jsonl": Holds(
        ("258c7280-ae70-4798-800f-63464d01a85d",), 2, 0, 0, 0, 0
    ),
    "marot__spotter__agent-acompact-fffbd0.jsonl": Holds(
        ("258c7280-ae70-4798-800f-63464d01a85d",), 0, 0, 0, 1, 0
    ),
    "marot__spotter__agent-afc096d.jsonl": Holds(
        ("6c2214d7-b87e-4432-8e41-22ba294ea584",), 48, 2, 0, 0, 0
    ),
    "marot__spotter__short.jsonl": Holds(("55604662-cf2a-4331-851a-ec234028f8ca",), 2, 2, 0, 0, 0),
    "marot__spotter__subagent.jsonl": Holds(
        ("491e126e-1e71-469c-ade2-fcc8af567c74",), 16 + 9, 3, 0, 0, 9
    ),
    "marot__spotter__tool_heavy.jsonl": Holds(
        ("d6e0bada-1959-4eec-a9d2-0bfade768d8f",), 6, 0, 0, 0, 0
    ),
    "simonw__claude-code-transcripts__sample_session.jsonl": Holds(
        ("test-session-id",), 2, 0, 0, 0, 0
    ),
}


def test_every_corpus_file_of_the_family_is_listed_here() -> None:
    if not (CORPUS / DIR).is_dir():
        pytest.skip("the shared corpus is absent")
    assert {p.name for p in (CORPUS / DIR).glob("*.jsonl")} == set(HOLDS)


@pytest.mark.parametrize("name", sorted(HOLDS))
def test_corpus_file_is_detected_and_read_without_unparsed_lines(name: str) -> None:
    reader, stats_records = SourceReader(name), []
    for number, raw in split_lines(read_bytes(corpus_file(DIR, name))):
        stats_records.extend(reader.feed(raw, number))
    stats_records.extend(reader.finish())
    assert reader.family == FAMILY
    assert reader.stats.unparsed == 0 and stats_records


@pytest.mark.parametrize("name", sorted(HOLDS))
def test_corpus_file_holds_its_sessions_calls_failures_todos_and_compactions(name: str) -> None:
    found, holds = corpus(name), HOLDS[name]
    calls = of(ToolCall, found)
    assert tuple(dict.fromkeys(r.session_id for r in of(SessionStarted, found))) == holds.sessions
    assert {r.session_id for r in found} <= {*holds.sessions, ""}
    assert len(calls) == len({c.call_id for c in calls}) == holds.calls
    assert sum(r.is_error for r in of(ToolResult, found)) == holds.failed
    assert len(of(TodoUpdate, found)) == holds.todo_updates
    assert len(of(Compaction, found)) == holds.compactions
    assert sum(c.parent_call is not None for c in calls) == holds.subagent_calls


@pytest.mark.parametrize(
    ("name", "failed"),
    [
        ("DRMacIver__claude-reliability__coverage-test-fix_transcript.jsonl",
         {"toolu_01LZHfE3DNUh3HBws9z8uhN2"}),
        ("d-kimuson__claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
         {"toolu_018t5jce2ZNoGr2ADsHGQife", "toolu_019ctBEHhLKehUi4xPDkYwvc",
          "toolu_01KDiLyJT1VsszVhG4d3p6jV"}),
        ("marot__spotter__agent-afc096d.jsonl",
         {"toolu_018TiKA6jnPf9h6xvakcbqCR", "toolu_01SVBQTs2MZr5hJdeSs98kf8"}),
        ("marot__spotter__subagent.jsonl",
         {"toolu_01LdecmEM8HVNM6T4ht7x8Gi", "toolu_01QDUftK7MweJaWSx65d9Cmb",
          "toolu_0196nfvQm6Ung2nWD72F1YcU"}),
    ],
)  # fmt: skip
def test_failed_calls_are_the_ones_whose_result_says_is_error(name: str, failed: set[str]) -> None:
    assert {r.call_id for r in of(ToolResult, corpus(name)) if r.is_error} == failed


# -- subagents --------------------------------------------------------------------------------

PARALLEL = "d-kimuson__claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
RUST = "DRMacIver__claude-reliability__python-to-rust-port_transcript.jsonl"
DAG = "daaain__claude-code-log__dag_compact_after_rewind.jsonl"


def test_five_parallel_tasks_each_get_their_own_subagents_calls_and_lines() -> None:
    found = corpus(PARALLEL)
    calls = Counter(c.parent_call for c in of(ToolCall, found) if c.parent_call)
    owners = Counter({r.line: r.parent_call for r in found if r.parent_call}.values())
    assert calls == {
        "toolu_01LS6tcVd796SbQKmZqeVnWY": 8,
        "toolu_014i9ThHMNShCHocf9xMKasf": 33,
        "toolu_01EbxY94wRUAGyMLj5wh699C": 39,
        "toolu_017rjDpjVPeNFmAEXNTkoP55": 24,
        "toolu_01EPom7jESzNbU8coiKjzVGS": 52,
    }
    assert owners == {
        "toolu_01LS6tcVd796SbQKmZqeVnWY": 21,
        "toolu_014i9ThHMNShCHocf9xMKasf": 86,
        "toolu_01EbxY94wRUAGyMLj5wh699C": 98,
        "toolu_017rjDpjVPeNFmAEXNTkoP55": 65,
        "toolu_01EPom7jESzNbU8coiKjzVGS": 135,
    }  # 405 sidechain lines in all


@pytest.mark.parametrize(
    "name",
    [PARALLEL, "d-kimuson__claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
     "daaain__claude-code-log__sidechain_integrated.jsonl", "marot__spotter__subagent.jsonl"],
)  # fmt: skip
def test_every_parent_call_is_a_task_call_of_the_same_file(name: str) -> None:
    found = corpus(name)
    tasks = {c.call_id for c in of(ToolCall, found) if c.name == "Task"}
    assert {r.parent_call for r in found if r.parent_call} <= tasks


def test_old_layout_subagent_failures_and_todos_carry_their_task() -> None:
    found = corpus(PARALLEL)
    failures = [r for r in of(ToolResult, found) if r.is_error]
    assert len(failures) == 23 and all(r.parent_call for r in failures)  # all in subagents
    assert sum(t.parent_call is not None for t in of(TodoUpdate, found)) == 16


def test_a_task_that_failed_validation_gets_no_subagent_records() -> None:
    found = corpus("d-kimuson__claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")
    owners = Counter(r.parent_call for r in found if r.parent_call)
    assert owners == {"toolu_014YF9TXhDRR7BnpasNJ7gjC": 7, "toolu_01LKfUwrsnof18CpWZQcJH44": 15}


def test_interleaved_parallel_subagents_are_told_apart_by_their_prompts() -> None:
    found = fixture("parallel_tasks")
    owner = {c.call_id: c.parent_call for c in of(ToolCall, found)}
    assert owner == {
        "toolu_task_A": None, "toolu_task_B": None,
        "toolu_A1": "toolu_task_A", "toolu_B1": "toolu_task_B", "toolu_B2": "toolu_task_B",
    }  # fmt: skip
    results = {r.call_id: r.parent_call for r in of(ToolResult, found)}
    assert results["toolu_A1"] == "toolu_task_A" and results["toolu_B1"] == "toolu_task_B"
    said = {t.text: t.parent_call for t in of(AssistantText, found)}
    assert said["The types are written."] == "toolu_task_A"
    assert said["The component is written."] == "toolu_task_B"


def test_agent_progress_links_the_agent_to_its_task_once_and_shows_its_tool_calls() -> None:
    found = fixture("agent_progress")
    assert [(x.agent_id, x.call_id, x.line) for x in of(SubagentLink, found)] == [
        ("a7c41e2", "toolu_task_1", 4)
    ]
    sub = [c for c in of(ToolCall, found) if c.parent_call]
    assert [(c.call_id, c.parent_call, c.subagent) for c in sub] == [
        ("toolu_sub_1", "toolu_task_1", "a7c41e2"),
        ("toolu_sub_2", "toolu_task_1", "a7c41e2"),
    ]
    failed = [r for r in of(ToolResult, found) if r.is_error]
    assert [(r.call_id, r.parent_call) for r in failed] == [("toolu_sub_1", "toolu_task_1")]
    assert not [t for t in of(AssistantText, found) if t.parent_call]  # its text: own file


def test_real_agent_progress_links_afb92ff_to_the_task_and_attaches_its_nine_calls() -> None:
    found = corpus("marot__spotter__subagent.jsonl")
    task = "toolu_01Cz2Pnv7qNcnK1ZiocxWhQX"
    assert [(x.agent_id, x.call_id) for x in of(SubagentLink, found)] == [("afb92ff", task)]
    assert Counter(r.parent_call for r in found if r.parent_call) == {
        task: 18
    }  # 9 calls, 9 results
    assert sum(c.parent_call == task for c in of(ToolCall, found)) == 9
    assert {r.subagent for r in found if r.parent_call} == {"afb92ff"}


def test_task_result_agent_id_links_the_subagent() -> None:
    found = corpus(RUST)
    links = [(x.agent_id, x.call_id) for x in of(SubagentLink, found)]
    assert links == [("ab81802", "toolu_01PKfvC84zTHnFnxjuoazGo5")]


def test_out_of_order_sidechain_lines_attach_to_the_only_task_and_to_its_agent() -> None:
    found = corpus("daaain__claude-code-log__sidechain_integrated.jsonl")
    task = "toolu_01JA2mLseQCAW3MdwPE4qWEk"
    assert [(x.agent_id, x.call_id) for x in of(SubagentLink, found)] == [("e1c84ba5", task)]
    assert [(r.line, r.parent_call) for r in found if r.parent_call] == [
        (3, task), (4, task), (5, task)
    ]  # fmt: skip


def test_a_subagent_file_alone_names_its_agent_but_not_its_unknown_task() -> None:
    found = fixture("subagent_file")
    assert {(r.subagent, r.parent_call) for r in found} == {("a7c41e2", None)}
    assert [c.call_id for c in of(ToolCall, found)] == ["toolu_sub_1", "toolu_sub_2"]
    assert of(SessionStarted, found)[0].subagent == "a7c41e2"


@pytest.mark.parametrize(
    ("name", "agent"),
    [("marot__spotter__agent-afc096d.jsonl", "afc096d"),
     ("marot__spotter__agent-a881341.jsonl", "a881341")],
)  # fmt: skip
def test_real_subagent_files_carry_their_agent_on_every_record(name: str, agent: str) -> None:
    assert {(r.subagent, r.parent_call) for r in corpus(name)} == {(agent, None)}


def test_a_resumed_agent_follows_the_call_that_resumed_it() -> None:
    side = {"isSidechain": True, "agentId": "ag1"}
    found = parsed(
        line("progress", parentToolUseID="t1", data={"type": "agent_progress", "agentId": "ag1"}),
        line("progress", parentToolUseID="t2", data={"type": "agent_progress", "agentId": "ag1"}),
        line("user", message={"role": "user", "content": "go on"}, **side),
    )
    assert [x.call_id for x in of(SubagentLink, found)] == ["t1", "t2"]
    assert of(Notice, found)[0].parent_call == "t2"


def test_remembered_links_are_bounded_by_dropping_the_oldest() -> None:
    kept: OrderedDict[str, int] = OrderedDict()
    for n in range(10):
        remember(kept, f"k{n}", n, cap=3)
    remember(kept, "k8", 80, cap=3)  # known again: kept in its place, not made the newest
    remember(kept, "k10", 10, cap=3)
    assert list(kept.items()) == [("k8", 80), ("k9", 9), ("k10", 10)]


# -- the mapping of each kind of line -----------------------------------------------------------


def test_session_starts_once_with_cwd_version_and_the_summary_read_before_it_as_title() -> None:
    found = corpus(PARALLEL)
    start, model = of(SessionStarted, found)
    assert (start.agent, start.cwd, start.version, start.line) == (
        "Claude Code", "/path/to/Demo", "1.0.98", 2
    )  # fmt: skip
    assert (model.model, model.cwd, model.title) == ("claude-sonnet-4-20250514", None, None)
    assert start.title == "Empty Repo Setup: CLAUDE.md Foundation Created"
    assert [i.kind for i in of(Ignored, found)] == ["summary", "meta"]


def test_a_summary_after_the_session_started_is_hidden_and_gives_no_title() -> None:
    found = corpus("daaain__claude-code-log__todowrite_examples.jsonl")
    assert of(SessionStarted, found)[0].title is None
    assert [(i.kind, i.line) for i in of(Ignored, found)] == [("summary", 12)]


def test_todo_updates_follow_their_todowrite_call_old_style_keeping_priority() -> None:
    found = corpus("daaain__claude-code-log__todowrite_examples.jsonl")
    for update in of(TodoUpdate, found):
        call = found[found.index(update) - 1]
        assert isinstance(call, ToolCall) and call.call_id == update.call_id
    last = of(TodoUpdate, found)[-1].todos
    assert len(last) == 6 and Counter(t.status for t in last) == {
        "pending": 3, "completed": 2, "in_progress": 1
    }  # fmt: skip
    assert (last[-1].content, last[-1].priority) == (
        "Conduct security review and penetration testing", "high"
    )  # fmt: skip


def test_todo_updates_keep_active_form_and_show_progress() -> None:
    updates = of(TodoUpdate, corpus(RUST))
    first, last = updates[0].todos, updates[-1].todos
    assert (first[0].status, first[0].active_form) == (
        "in_progress", "Initializing Rust library project"
    )  # fmt: skip
    assert Counter(t.status for t in first) == {"pending": 9, "in_progress": 1}
    assert len(last) == 9 and {t.status for t in last} == {"completed"}


def test_compact_boundary_and_its_summary_make_one_compaction() -> None:
    found = corpus(DAG)
    (done,) = of(Compaction, found)
    assert (done.trigger, done.pre_tokens, done.line) == ("auto", 150000, 9)
    assert done.summary is not None
    assert done.summary.startswith("This session is being continued from a previous")
    assert "After compaction" in [u.text for u in of(UserText, found)]


def test_a_compact_boundary_without_summary_is_still_reported() -> None:
    boundary = line("system", subtype="compact_boundary",
                    compactMetadata={"trigger": "manual", "preTokens": 9000})  # fmt: skip
    prompt = line("user", message={"role": "user", "content": "next"})
    for found in (parsed(boundary), parsed(boundary, prompt)):
        (done,) = of(Compaction, found)
        assert (done.trigger, done.pre_tokens, done.summary) == ("manual", 9000, None)
    assert [type(r) for r in parsed(boundary, prompt)][1:] == [Compaction, UserText]


def test_a_rewind_is_noticed_and_both_branches_are_kept_in_file_order() -> None:
    found = corpus(DAG)
    assert [u.text for u in of(UserText, found)] == [
        "Start", "First attempt", "Second attempt", "Keep going", "After compaction"
    ]  # fmt: skip
    (rewind,) = [n for n in of(Notice, found) if n.kind == "rewind"]
    assert rewind.line == 5
    others = [n for name in HOLDS if name != DAG for n in of(Notice, corpus(name))]
    assert [n for n in others if n.kind == "rewind"] == []


def test_the_compaction_summariser_file_becomes_one_compaction() -> None:
    found = corpus("marot__spotter__agent-acompact-fffbd0.jsonl")
    (done,) = of(Compaction, found)
    assert done.summary is not None and done.summary.startswith("1. Primary Request and Intent")
    assert len(done.summary) <= 500 and done.subagent == "acompact-fffbd0"
    assert [i.kind for i in of(Ignored, found)] == ["meta", "meta", "compact_prompt"]
    assert not of(UserText, found) and not of(AssistantText, found)


def test_rejected_calls_fail_as_interrupted_and_the_interruption_is_noticed() -> None:
    found = corpus("marot__spotter__short.jsonl")
    assert [(r.is_error, r.interrupted) for r in of(ToolResult, found)] == [(True, True)] * 2
    notices = [(n.kind, n.text, n.level) for n in of(Notice, found)]
    assert notices == [
        ("interrupted", "[Request interrupted by user for tool use]", "warning"),
        ("command", "/model", "info"),
        ("command", "Kept model as Default (recommended)", "info"),  # ANSI colours removed
    ]


def test_slash_commands_read_as_typed_and_local_output_is_a_notice() -> None:
    found = corpus("marot__spotter__tool_heavy.jsonl")
    assert [u.text for u in of(UserText, found)][:2] == ["start phoenix in background", "/mcp"]
    assert Counter(n.kind for n in of(Notice, found)) == {"interrupted": 2, "command": 3}
    assert Counter(i.kind for i in of(Ignored, found)) == {
        "file-history-snapshot": 3, "hook_progress": 10, "queue-operation": 2, "meta": 1,
        "empty": 1,
    }  # fmt: skip
    typed = of(UserText, corpus(PARALLEL))[0].text
    assert typed == "/orchestrator create TODO app by Next.js"


def test_assistant_blocks_keep_their_order_and_message_id() -> None:
    found = corpus("simonw__claude-code-transcripts__sample_session.jsonl")
    third = [type(r) for r in found if r.line == 3]
    assert third == [AssistantText, ToolCall]
    assert of(SessionStarted, found)[0].title == "Test session for JSONL parsing"
    main = corpus("marot__spotter__short.jsonl")
    assert {t.message_id for t in of(AssistantText, main)} == {"msg_01MKH1ccEGrZGNPvu8pYiiQa"}


def test_a_hook_error_is_a_warning_and_a_clean_stop_hook_is_hidden() -> None:
    assert [(n.kind, n.text) for n in of(Notice, fixture("agent_progress"))] == [
        ("hook", "notify.sh: exit 1")
    ]
    found = corpus("marot__spotter__subagent.jsonl")
    assert Counter(i.kind for i in of(Ignored, found))["hook"] == 1


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (line("assistant", isApiErrorMessage=True, message={"model": "<synthetic>", "role":
              "assistant", "content": [{"type": "text", "text": "API Error: 529 Overloaded"}]}),
         (Notice, "api_error", "error")),
        (line("assistant", message={"model": "<synthetic>", "role": "assistant", "content":
              [{"type": "text", "text": "No response requested."}]}), (Ignored, "synthetic", "")),
        (line("system", subtype="informational", content="Plan mode on", level="info"),
         (Notice, "informational", "info")),
        (line("system", subtype="api_error", level="error", error={"message": "overloaded"}),
         (Notice, "api_error", "error")),
        (line("system", subtype="turn_duration", durationMs=5), (TurnEnded, None, "")),
        (line("custom-title", customTitle="x"), (Ignored, "custom-title", "")),
        (line("progress", data={"type": "bash_progress"}), (Ignored, "bash_progress", "")),
    ],
)  # fmt: skip
def test_other_lines_map_to_a_notice_or_a_hidden_record(
    obj: dict[str, Any], expected: tuple[type, str, str]
) -> None:
    (*_, last) = parsed(obj)
    assert (type(last), getattr(last, "kind", None), getattr(last, "level", "")) == expected


# -- the end of a turn --------------------------------------------------------------------------


def test_a_turn_duration_line_ends_the_turn_with_its_length() -> None:
    (*_, ended) = parsed(line("system", subtype="turn_duration", durationMs=16000))
    assert isinstance(ended, TurnEnded) and ended.duration_ms == 16000


def test_a_stop_hook_summary_ends_the_turn_after_saying_what_the_hook_said() -> None:
    found = fixture("agent_progress")
    kinds = [(type(r).__name__, getattr(r, "kind", None)) for r in found if r.line >= 13]
    assert kinds == [("Notice", "hook"), ("TurnEnded", None), ("TurnEnded", None)]


def test_an_assistant_message_that_ends_its_turn_is_followed_by_a_turn_end() -> None:
    answer = {"id": "m", "stop_reason": "end_turn", "content": [{"type": "text", "text": "Done."}]}
    found = parsed(line("assistant", message=answer))
    assert [type(r) for r in found] == [SessionStarted, AssistantText, TurnEnded]
    going_on = {**answer, "stop_reason": "tool_use"}
    assert TurnEnded not in [type(r) for r in parsed(line("assistant", message=going_on))]


def test_a_subagents_turn_end_is_not_the_sessions() -> None:
    answer = {"id": "m", "stop_reason": "end_turn", "content": [{"type": "text", "text": "Done."}]}
    sidechain = {"isSidechain": True, "agentId": "a1"}
    found = parsed(
        line("assistant", message=answer, **sidechain),
        line("system", subtype="turn_duration", durationMs=5, **sidechain),
        line("system", subtype="stop_hook_summary", hookErrors=[], **sidechain),
    )
    assert not of(TurnEnded, found)


@pytest.mark.parametrize(
    ("name", "ends"),
    [
        ("daaain__claude-code-log__dag_compact_after_rewind.jsonl", 5),  # end_turn messages
        ("marot__spotter__subagent.jsonl", 1),  # its stop_hook_summary
        ("d-kimuson__claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl", 0),  # a
        # subagent's end_turn only
        ("DRMacIver__claude-reliability__coverage-test-fix_transcript.jsonl", 0),
    ],
)
def test_each_turn_end_a_corpus_file_writes_is_one_turn_end(name: str, ends: int) -> None:
    assert len(of(TurnEnded, corpus(name))) == ends


@pytest.mark.parametrize(
    ("result", "output"),
    [
        ({"stdout": "", "interrupted": True}, "x"),
        (None, "[Request interrupted by user for tool use]"),
    ],
)
def test_a_tool_result_says_interrupted_when_the_user_stopped_it(result: Any, output: str) -> None:
    block = {"type": "tool_result", "tool_use_id": "t", "content": output}
    (_, done) = parsed(line("user", toolUseResult=result, message={"content": [block]}))
    assert isinstance(done, ToolResult) and done.interrupted and not done.is_error


def test_a_task_that_failed_to_start_does_not_wait_for_a_subagent() -> None:
    def task(call: str, prompt: str) -> dict[str, Any]:
        block = {"type": "tool_use", "id": call, "name": "Task", "input": {"prompt": prompt}}
        return line("assistant", message={"content": [block]})

    failed = {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "bad"}
    found = parsed(
        task("t1", ""),
        line("user", message={"content": [failed]}),
        task("t2", "Review the code"),
        line("user", parentUuid=None, isSidechain=True, message={"content": "Review the code."}),
    )
    assert of(Notice, found)[-1].parent_call == "t2"  # the only Task still waiting


# -- the seed-001 variant ------------------------------------------------------------------------


def test_seed001_tool_uses_are_calls_named_by_uuid_and_answered_by_parent() -> None:
    found = fixture("seed001")
    answers = [(r.call_id, r.output, r.is_error) for r in of(ToolResult, found)]
    assert [(c.call_id, c.name) for c in of(ToolCall, found)] == [
        ("msg-004", "Write"), ("msg-007", "Read"), ("msg-008", "Read"), ("msg-011", "Bash"),
        ("msg-013", "Task"), ("msg-015", "Grep"),
    ]  # fmt: skip
    assert answers == [
        ("msg-004", "File created successfully at: /path/to/script.py", False),
        ("msg-008", "contents of b", False),
        ("msg-007", "contents of a", False),  # its parent is a result: the oldest waiting call
        ("msg-011", "Error: Operation not permitted", True),  # an error answering a tool_use
        ("msg-015", "script.py:3: TODO", False),
        ("msg-013", "One TODO is left in script.py.", False),
    ]
    assert of(ToolCall, found)[0].input["file_path"] == "/path/to/script.py"


def test_seed001_sidechain_records_belong_to_the_task_and_text_subtypes_map() -> None:
    found = fixture("seed001")
    assert sorted({r.line for r in found if r.parent_call == "msg-013"}) == [14, 15, 16, 17]
    kinds = [(type(r).__name__, getattr(r, "kind", "")) for r in found if r.line >= 19]
    assert kinds == [
        ("UserText", ""), ("Ignored", "conversation_compacting"), ("Compaction", ""),
        ("Ignored", "meta"), ("Notice", "command"), ("Notice", "system"),
    ]  # fmt: skip
    assert of(Notice, found)[0].level == "error"
    assert [type(r).__name__ for r in found if r.line in (2, 3)] == ["Thinking", "AssistantText"]


# -- detection ------------------------------------------------------------------------------------

FOREIGN = [
    {"type": "system", "subtype": "init", "session_id": "abc", "uuid": "1", "tools": []},
    {"type": "assistant", "session_id": "abc", "uuid": "2", "parent_tool_use_id": None,
     "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}},
    {"type": "result", "subtype": "success", "session_id": "abc", "is_error": False},
    {"event": "RunStarted", "run_id": "r1", "session_id": "s1", "created_at": 1700000000},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function"}]},
    {"type": "system", "content": "Claude Code Launched", "session_id": "x",
     "metadata": {"subtype": "client_launched", "session_id": "x"}},
    [{"role": "user", "content": "hi"}],
    {"type": ["summary"]},
    "text",
    # a Gemini CLI session journal's header, and a whole session document
    {"sessionId": "s", "projectHash": "h", "startTime": "2026-05-17T22:11:44Z", "kind": "main"},
    {"sessionId": "s", "projectHash": "h", "messages": [{"id": "m", "type": "user"}]},
]  # fmt: skip


@pytest.mark.parametrize("obj", FOREIGN)
def test_other_families_are_not_claimed_nor_parsed(obj: Any) -> None:
    assert not detect(obj)
    assert Parser("x").parse(obj, 1) is None


@pytest.mark.parametrize(
    "obj",
    [{"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
     {"type": "queue-operation", "operation": "dequeue", "sessionId": "s"},
     {"type": "summary", "summary": "t", "leafUuid": "l"},
     {"type": "user", "parentUuid": None, "message": "hi"},
     {"type": "compact_system", "message": "conversation_compacting"}],
)  # fmt: skip
def test_transcript_lines_are_claimed(obj: dict[str, Any]) -> None:
    assert detect(obj)


# -- robustness -------------------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
_word = st.sampled_from(
    ["text", "thinking", "tool_use", "tool_result", "agent_progress", "compact_boundary",
     "local_command", "stop_hook_summary", "Task", "TodoWrite", "<synthetic>", "s", "u1",
     "[Request interrupted by user]", "<command-name>/x</command-name>", "API Error"]
)  # fmt: skip
_any = _word | _json


def _maybe(*keys: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=dict.fromkeys(keys, _any))


_block = _maybe("id", "name", "input", "text", "thinking", "tool_use_id", "content", "is_error")
_kinds = _word | st.lists(st.none(), max_size=1) | _json
_blocks = st.lists(st.builds(lambda b, t: {**b, "type": t}, _block, _kinds), max_size=3)
_message = st.fixed_dictionaries({"content": _blocks | _any}, optional={"id": _any, "model": _any})
_inner = st.fixed_dictionaries({"type": _any, "message": _message}, optional={"timestamp": _any})
_data = st.fixed_dictionaries(
    {"type": _word | _json, "message": _inner}, optional={"agentId": _any}
)
_LINE_KEYS = ("uuid", "subtype", "agentId", "toolUseResult", "isMeta", "isCompactSummary",
              "compactMetadata", "toolName", "toolArguments", "parentToolUseID", "hookErrors",
              "timestamp", "summary", "isError", "content", "isApiErrorMessage")  # fmt: skip
_lines = st.fixed_dictionaries(
    {
        "sessionId": _word,
        "type": st.sampled_from(["user", "assistant", "system", "progress", "summary"]) | _json,
        "message": _message | _any,
    },
    optional={
        "data": _data, "parentUuid": _word | st.none(), "isSidechain": st.booleans(),
        **dict.fromkeys(_LINE_KEYS, _any),
    },
)  # fmt: skip


@settings(max_examples=120, deadline=None)
@given(st.lists(_lines, max_size=6))
def test_malformed_transcript_lines_never_raise(lines: list[dict[str, Any]]) -> None:
    assert all(isinstance(r, Record) for r in parsed(*lines))


def test_unhashable_types_in_a_line_or_a_block_are_tolerated() -> None:
    blocks = [{"type": ["tool_use"]}, {"type": {"x": 1}, "text": "t"}]
    found = parsed(
        {"sessionId": "s", "uuid": "a", "type": ["user"]},
        line("assistant", message={"content": blocks}),
        line("progress", data={"type": ["agent_progress"]}),
    )
    assert [type(r) for r in found] == [SessionStarted, Ignored, Ignored, Ignored]


# -- who said it, and the session's model -------------------------------------------------------


def test_a_subagents_prompt_is_its_parent_agents_words_not_the_users() -> None:
    found = fixture("subagent_file")
    assert not of(UserText, found)
    (prompt,) = [n for n in of(Notice, found) if n.kind == "subagent_prompt"]
    assert (prompt.line, prompt.text) == (1, "Find where the config is loaded and report the file.")


@pytest.mark.parametrize(
    "name", ["marot__spotter__agent-afc096d.jsonl", "marot__spotter__agent-a881341.jsonl"]
)
def test_no_line_of_a_real_subagent_file_is_a_persons_words(name: str) -> None:
    assert not of(UserText, corpus(name))


def test_a_subagent_file_read_first_says_once_that_its_call_is_not_known_yet() -> None:
    found = fixture("subagent_file")
    links = [(r.line, r.agent_id, r.call_id) for r in of(SubagentLink, found)]
    assert links == [(1, "a7c41e2", "")]


def test_a_compaction_run_waits_for_no_call() -> None:
    assert not of(SubagentLink, corpus("marot__spotter__agent-acompact-fffbd0.jsonl"))


def test_a_subagent_file_read_before_its_parents_ends_under_the_task_not_in_the_thread(
    tmp_path: Path,
) -> None:
    """Claude Code 2.1 writes no agent_progress: the Task's result names the agent at its end."""
    main = tmp_path / "main.jsonl"
    kept = [raw for raw in read_bytes(FIXTURES / "claude_transcript_agent_progress.jsonl")
            .splitlines() if b'"type":"progress"' not in raw]  # fmt: skip
    main.write_bytes(b"\n".join(kept) + b"\n")
    preview = build_preview([FIXTURES / "claude_transcript_subagent_file.jsonl", main])
    (session,) = preview.sessions()
    task = session.calls["toolu_task_1"]
    assert task.children == ["toolu_sub_1", "toolu_sub_2"]
    assert [item.text for item in session.items if isinstance(item, UserTurn)] == [
        "Where is the config loaded?"
    ]
    assert [item.kind for item in session.items if isinstance(item, NoticeItem)] == ["hook"]
    assert [call for group in session.items if isinstance(group, ToolGroup)
            for call in group.call_ids] == ["toolu_task_1"]  # fmt: skip


def test_the_sessions_model_is_its_first_assistant_messages_not_its_subagents() -> None:
    found = fixture("agent_progress")
    assert [(s.line, s.model) for s in of(SessionStarted, found)] == [
        (2, None), (3, "claude-opus-4-6")
    ]  # fmt: skip
    assert [s.model for s in of(SessionStarted, fixture("subagent_file"))] == [None]


def test_a_new_model_is_said_again_and_the_same_one_once() -> None:
    def said(model: str) -> dict[str, Any]:
        text = {"type": "text", "text": "x"}
        return line("assistant", message={"model": model, "content": [text]})

    found = parsed(said("claude-opus-4-6"), said("claude-opus-4-6"), said("claude-haiku-4-5"))
    assert [s.model for s in of(SessionStarted, found)] == [
        None, "claude-opus-4-6", "claude-haiku-4-5"
    ]  # fmt: skip
