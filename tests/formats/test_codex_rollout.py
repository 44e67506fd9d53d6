"""Codex rollout files: detection, what every corpus file of the family holds (the numbers were
counted from the raw files with plain JSON, not with the parser), each line shape of each CLI
era, and a sub-agent's own file nested under the call that spawned it, read in either order."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import orjson
import pytest

from blocks.root import status_line
from bot.formats import codex_rollout, detect_family
from bot.formats.codex_rollout import Parser, detect
from bot.formats.reader import SourceReader
from bot.preview import build_preview
from bot.records import (
    AssistantText,
    Compaction,
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
    UserText,
)
from bot.result_records import ResultStatus, SessionResult, TurnEnded
from bot.session import Session, SessionStatus
from bot.session.thread import ResultItem, ToolGroup, UserTurn
from bot.session.tool_calls import shown_name
from bot.sources.files import read_bytes, split_lines
from tests.conftest import CORPUS, FIXTURES, corpus_file, read_records
from tests.formats.helpers import spending_of

MCP_MUTATIONS = "shane-kercheval__switchboard__mcp-content-mutations.session.jsonl"
DIR = "codex-rollout"
FAMILY = codex_rollout.FAMILY
LEGACY = "Karrq__vibe-kanban__codex.rs.legacy-extract.jsonl"  # the codex-exec-json family's
ROLLOUT_040 = "jnarowski__agentcmd__rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl"  # noqa: E501
PARENT, CHILD = FIXTURES / "codex_rollout_parent.jsonl", FIXTURES / "codex_rollout_child.jsonl"
PARENT_ID = "019a1c2e-7b10-7d21-9e4f-3a5b6c7d8e01"
CHILD_ID = "019a1c2e-9c40-7e52-8f60-4b6c7d8e9f02"
R = TypeVar("R", bound=Record)


def records(path: Path) -> list[Record]:
    found, stats = read_records(path, family=FAMILY)
    assert stats.unparsed == 0
    return found


def corpus(name: str) -> list[Record]:
    return records(corpus_file(DIR, name))


def of(kind: type[R], found: list[Record]) -> list[R]:
    return [r for r in found if type(r) is kind]


def parsed(*payloads: tuple[str, dict[str, Any]], source: str = "test") -> list[Record]:
    """Records of rollout lines given as (type, payload), one second apart."""
    parser, out = Parser(source), []
    for number, (kind, payload) in enumerate(payloads, start=1):
        line = {"timestamp": f"2026-05-12T10:00:{number:02d}Z", "type": kind, "payload": payload}
        got = parser.parse(line, number)
        assert got is not None
        out.extend(got)
    return out + parser.finish()


def event(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return ("event_msg", {"type": kind, **fields})


def item(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return ("response_item", {"type": kind, **fields})


def message(role: str, text: str) -> tuple[str, dict[str, Any]]:
    part = "output_text" if role == "assistant" else "input_text"
    return item("message", role=role, content=[{"type": part, "text": text}])


def call(name: str, call_id: str = "c1", **arguments: Any) -> tuple[str, dict[str, Any]]:
    return item("function_call", name=name, arguments=orjson.dumps(arguments).decode(),
                call_id=call_id)  # fmt: skip


def output(value: object, call_id: str = "c1") -> tuple[str, dict[str, Any]]:
    return item("function_call_output", call_id=call_id, output=value)


def meta(**fields: Any) -> tuple[str, dict[str, Any]]:
    return ("session_meta", {"id": "thread-1", "cwd": "/w", "originator": "codex_exec",
                             "cli_version": "0.130.0", "source": "exec", **fields})  # fmt: skip


def result_of(*payloads: tuple[str, dict[str, Any]]) -> ToolResult:
    (found,) = of(ToolResult, parsed(*payloads))
    return found


# -- detection --------------------------------------------------------------------------------


def rollout_files() -> list[Path]:
    folder = CORPUS / DIR
    if not folder.is_dir():
        pytest.skip("the shared corpus is absent")
    return sorted(p for p in folder.glob("*.jsonl") if p.name != LEGACY)


def values(path: Path) -> list[Any]:
    return [orjson.loads(raw) for _, raw in split_lines(read_bytes(path)) if raw.strip()]


def test_detect_claims_every_line_of_every_rollout_and_the_family_is_detected() -> None:
    for path in rollout_files():
        found = values(path)
        assert found and all(detect(value) for value in found), path.name
        assert detect_family(found[0]) is codex_rollout.FORMAT


def test_detect_claims_no_line_of_the_legacy_exec_json_extract() -> None:
    assert not any(detect(value) for value in values(corpus_file(DIR, LEGACY)))


@pytest.mark.parametrize(
    "value",
    [
        {"type": "thread.started", "thread_id": "t"},
        {"id": "1", "msg": {"type": "task_started"}},
        {"type": "session_meta"},
        {"type": "session_meta", "payload": "text"},
        {"type": "turn.completed", "payload": {}},
        {"type": "user", "sessionId": "s", "message": {"content": "hi"}},
        [{"type": "event_msg", "payload": {}}],
    ],
    ids=["exec-json", "legacy", "no-payload", "payload-text", "other-type", "transcript", "list"],
)
def test_detect_rejects_values_of_other_shapes(value: object) -> None:
    assert not detect(value)
    if not (isinstance(value, dict) and isinstance(value.get("payload"), dict)):
        assert Parser("x").parse(value, 1) is None  # not a rollout line at all


def test_a_rollout_line_of_an_unknown_type_is_a_notice_and_unknown_items_and_events_too() -> None:
    found = parsed(("world_state", {}), ("goal_snapshot", {"goal": "x"}),
                   item("configuration_update", id="u1"), event("thread_goal_updated"))
    assert [type(r) for r in found] == [SessionStarted, Ignored, Notice, Notice, Notice]
    assert [r.kind for r in of(Notice, found)] == [
        "goal_snapshot", "configuration_update", "thread_goal_updated"
    ]


# -- every corpus file ------------------------------------------------------------------------


class Holds(NamedTuple):
    session: str  # "" for the source's name
    calls: int  # ToolCall records (spawn_agent is a Delegation)
    delegations: int
    failed: int
    todos: int  # TodoUpdate records
    results: tuple[tuple[ResultStatus, str], ...]  # a ``codex exec`` run's
    # what the session spent, the sum of its token_counts: in (not cached), cached, out, thought
    tokens: tuple[int | None, ...] | None
    texts: tuple[int, int, int]  # UserText, AssistantText, Thinking
    turns: int  # TurnEnded records: the turns of an interactive thread that ended
    status: str  # how the file's session ends (preview)


# The two files whose session_meta says "exec" (originator codex_exec, source exec) are runs:
# their task_complete is the result. The others are threads (codex_vscode; a session_meta with
# no source; fragments with no session_meta): each task_complete ends a turn, the session waits.
HOLDS = {
    "codemie-ai__codemie-code__turn-spawn-skill.jsonl": Holds(
        "spawn-test-uuid", 2, 1, 0, 0, (), (5000 - 1000, 1000, 200, None), (1, 0, 0), 1,
        "waiting",  # one token_count (line 9), no reasoning figure
    ),
    "jnarowski__agentcmd__event-turn-aborted.jsonl": Holds(
        "", 0, 0, 0, 0, (), None, (0, 0, 0), 0, "waiting",  # the user interrupted the turn
    ),
    "jnarowski__agentcmd__function-output-error.jsonl": Holds(
        "", 0, 0, 0, 0, (), None, (0, 0, 0), 0, "unknown",
    ),
    "jnarowski__agentcmd__function-update_plan.jsonl": Holds(
        "", 1, 0, 0, 1, (), None, (0, 0, 0), 0, "unknown",
    ),
    ROLLOUT_040: Holds(  # no task_* events: its final assistant message ends its turn
        "0199812e-64f0-7f73-91fc-095dda01c36e", 57, 0, 12, 0, (),
        # 57 running totals (lines 7-342), then one started again (line 353: the user's second
        # prompt, another process): the last of the 57 plus that one
        (1355071 + 37208 - (1307776 + 2432), 1307776 + 2432, 8337 + 335, 4096 + 128),
        (2, 1, 57), 1, "waiting",
    ),
    "shane-kercheval__switchboard__apply-patch.session.jsonl": Holds(
        "00000000-0000-7000-8000-000000000030", 2, 0, 0, 0,
        ((ResultStatus.SUCCEEDED, "task_complete"),), (30234 - 17152, 17152, 254, 0), (1, 1, 0),
        0, "succeeded",
    ),
    "shane-kercheval__switchboard__exec-wrapper-ambiguous.session.jsonl": Holds(
        "", 3, 0, 1, 0, (), None, (1, 1, 0), 1, "waiting",
    ),
    "shane-kercheval__switchboard__exec-wrapper.session.jsonl": Holds(
        "", 1, 0, 1, 0, (), None, (1, 1, 0), 1, "waiting",
    ),
    "shane-kercheval__switchboard__mcp-content-mutations.session.jsonl": Holds(
        "", 2, 0, 1, 0, (), None, (1, 0, 0), 1, "waiting",
    ),
    "shane-kercheval__switchboard__rate-limits.session.jsonl": Holds(
        "00000000-0000-7000-8000-000000000001", 0, 0, 0, 0,
        ((ResultStatus.SUCCEEDED, "task_complete"),), (15568 - 7552, 7552, 5, 0), (0, 0, 0),
        0, "succeeded",
    ),
}  # fmt: skip


def test_every_rollout_of_the_corpus_is_listed_here() -> None:
    assert {p.name for p in rollout_files()} == set(HOLDS)


@pytest.mark.parametrize("name", sorted(HOLDS))
def test_corpus_file_is_detected_and_read_without_unparsed_lines(name: str) -> None:
    reader, found = SourceReader(name), []
    for number, raw in split_lines(read_bytes(corpus_file(DIR, name))):
        found.extend(reader.feed(raw, number))
    found.extend(reader.finish())
    assert reader.family == FAMILY
    assert reader.stats.unparsed == 0 and found


@pytest.mark.parametrize("name", sorted(HOLDS))
def test_corpus_file_holds_its_session_calls_failures_todos_results_and_tokens(name: str) -> None:
    path, holds = corpus_file(DIR, name), HOLDS[name]
    found = records(path)
    assert {r.session_id for r in found} == {holds.session or str(path)}
    calls = of(ToolCall, found)
    assert len(calls) == len({c.call_id for c in calls}) == holds.calls
    assert len(of(Delegation, found)) == holds.delegations
    assert sum(r.is_error for r in of(ToolResult, found)) == holds.failed
    assert len(of(TodoUpdate, found)) == holds.todos
    results = of(SessionResult, found)
    assert tuple((r.status, r.subtype) for r in results) == holds.results
    # the token_counts carry the figures (Usage), the results none of their own
    assert all(r.input_tokens is r.output_tokens is None for r in results)
    _, spent, shown = spending_of(path)
    if holds.tokens is None:
        assert spent is None
    else:
        assert spent is not None
        for figures in (spent, *shown):  # an exec run's result shows its run's
            assert (figures.input_tokens, figures.cache_read_tokens, figures.output_tokens,
                    figures.reasoning_tokens) == holds.tokens  # fmt: skip
    texts = (len(of(UserText, found)), len(of(AssistantText, found)), len(of(Thinking, found)))
    assert texts == holds.texts
    assert len(of(TurnEnded, found)) == holds.turns


@pytest.mark.parametrize("name", sorted(HOLDS))
def test_corpus_file_previews_as_one_session_ending_as_its_log_says(name: str) -> None:
    (session,) = build_preview([corpus_file(DIR, name)]).sessions()
    assert session.status.value == HOLDS[name].status


def test_the_040_rollout_s_header_says_the_tokens_out_of_both_its_processes() -> None:
    header, _, shown = spending_of(corpus_file(DIR, ROLLOUT_040))
    assert shown == []  # a thread: no result, yet what it spent shows
    assert header == ("💬 *Waiting for the user* · 57 tool calls (12 failed) · 10m 15s"
                      " · 8.7k tokens out")  # 8,337 + 335


def test_mcp_calls_are_shown_by_server_and_tool_the_server_of_a_bare_name_from_its_end() -> None:
    (session,) = build_preview([corpus_file(DIR, MCP_MUTATIONS)]).sessions()
    assert [(shown_name(c.name), c.summary) for c in session.calls.values()] == [
        ("notes_alias › edit_content", "note-example"),  # namespace "mcp__notes_alias__"
        ("prompts_alias › create_prompt", "Prompt body"),  # its mcp_tool_call_end's server
    ]


def test_the_040_rollout_fails_its_twelve_sandbox_refusals_and_waits_after_its_answer() -> None:
    found = corpus(ROLLOUT_040)
    failed = [r for r in of(ToolResult, found) if r.is_error]
    assert len(failed) == 12 and all(r.output.startswith("failed in sandbox") for r in failed)
    assert {c.name for c in of(ToolCall, found)} == {"shell"}
    assert of(ToolCall, found)[0].input["command"] == "ls"  # ["zsh", "-lc", "ls"]
    (ended,) = of(TurnEnded, found)  # its one answer: the agent_message event at line 352
    assert ended.line == 352 and of(SessionResult, found) == []
    (session,) = build_preview([corpus_file(DIR, ROLLOUT_040)]).sessions()
    assert session.status is SessionStatus.WAITING
    assert session.info.agent == "Codex (VS Code)" and session.info.version == "0.40.0"
    assert session.info.model == "gpt-5-codex"


def test_the_040_rollout_shows_the_request_not_the_ide_context() -> None:
    first, second = of(UserText, corpus(ROLLOUT_040))
    assert first.text.startswith("Quality score") and "Open tabs" not in first.text
    assert second.text == "Can you present the plan now?"


def test_the_exec_wrapper_fails_on_its_inner_exit_code_7_and_names_its_commands() -> None:
    found = corpus("shane-kercheval__switchboard__exec-wrapper-ambiguous.session.jsonl")
    assert [(c.call_id, c.input.get("command")) for c in of(ToolCall, found)] == [
        ("call_exec_multi", "pwd; false"),
        ("call_exec_mixed", "apply_patch; pwd"),
        ("call_exec_dynamic", None),  # its options are in a variable: the script is shown
    ]
    assert [r.is_error for r in of(ToolResult, found)] == [True, False, False]
    assert [r.output for r in of(ToolResult, found)] == [
        "[1] exit code 7\nfirst\n[2] exit code 0\nsecond", "ok", "ok"]


def test_the_exec_wrappers_failed_inner_call_shows_its_exit_code_and_output_not_json() -> None:
    found = corpus("shane-kercheval__switchboard__exec-wrapper.session.jsonl")
    ((ended),) = of(ToolResult, found)
    assert (ended.output, ended.is_error) == ("Exit code 7\nfailure-marker", True)


def test_a_patch_end_matching_no_call_is_ignored() -> None:
    found = corpus("shane-kercheval__switchboard__exec-wrapper.session.jsonl")
    (ignored,) = [r for r in found if r.line == 5]  # its call_id is exec-patch-1
    assert ignored == Ignored(ignored.origin, kind="patch_apply_end")
    assert {r.call_id for r in of(ToolResult, found)} == {"call_exec_1"}


def test_mcp_results_arriving_out_of_order_are_paired_by_call_id() -> None:
    found = corpus("shane-kercheval__switchboard__mcp-content-mutations.session.jsonl")
    assert [c.name for c in of(ToolCall, found)] == ["mcp__notes_alias__edit_content",
                                                    "create_prompt"]  # fmt: skip
    assert [(r.call_id, r.output, r.is_error) for r in of(ToolResult, found)] == [
        ("item_create", "creation rejected", True),
        ("item_edit", "edit ok", False),
    ]


def test_spawn_and_wait_calls_end_through_their_collab_events() -> None:
    found = corpus("codemie-ai__codemie-code__turn-spawn-skill.jsonl")
    (spawn,) = of(Delegation, found)
    assert (spawn.call_id, spawn.member, spawn.task) == ("call_spawn1", "explorer", "review code")
    assert [(x.agent_id, x.call_id) for x in of(SubagentLink, found)] == [
        ("child-thread-uuid", "call_spawn1")
    ]
    ends = {r.call_id: r for r in of(ToolResult, found)}
    assert set(ends) == {"call_skill1", "call_spawn1", "call_wait1"}
    assert ends["call_wait1"].output == "explorer child-thread-uuid"


def test_update_plan_is_a_todo_list() -> None:
    (update,) = of(TodoUpdate, corpus("jnarowski__agentcmd__function-update_plan.jsonl"))
    assert [todo.status for todo in update.todos] == ["pending"] * 3
    assert update.todos[0].content.startswith("Add backend support")
    assert update.call_id == "call_K7ZAjXren3Rd4NpZqJHpOCTO"


# -- the session ------------------------------------------------------------------------------


def test_session_meta_starts_the_session_and_turn_context_names_its_model() -> None:
    found = parsed(meta(), ("turn_context", {"model": "gpt-5.4", "cwd": "/w"}),
                   ("turn_context", {"model": "gpt-5.4", "cwd": "/w"}),
                   ("turn_context", {"model": "gpt-5.5", "cwd": "/w"}))  # fmt: skip
    starts = of(SessionStarted, found)
    assert [(s.session_id, s.agent, s.cwd, s.version, s.model) for s in starts] == [
        ("thread-1", "Codex exec", "/w", "0.130.0", None),
        ("thread-1", "Codex exec", "/w", "0.130.0", "gpt-5.4"),
        ("thread-1", "Codex exec", "/w", "0.130.0", "gpt-5.5"),
    ]
    assert of(Ignored, found)[0].kind == "turn_context"  # the same model again


@pytest.mark.parametrize(
    ("originator", "agent"),
    [("codex_exec", "Codex exec"), ("codex_vscode", "Codex (VS Code)"),
     ("Codex Desktop", "Codex Desktop"), ("my_tool", "Codex (my_tool)"), ("", "Codex")],
)  # fmt: skip
def test_the_agent_is_named_by_the_originator(originator: str, agent: str) -> None:
    (start,) = of(SessionStarted, parsed(meta(originator=originator)))
    assert start.agent == agent


def test_without_session_meta_the_session_is_the_uuid_of_the_file_name_else_its_name() -> None:
    name = "/h/.codex/sessions/2026/05/12/rollout-2026-05-12T10-00-00-019a1c2e-7b10-7d21-9e4f-3a5b6c7d8e01.jsonl"  # noqa: E501
    found = parsed(event("task_started"), source=name)
    assert {r.session_id for r in found} == {PARENT_ID}
    assert {r.session_id for r in parsed(event("task_started"), source="run.jsonl")} == {
        "run.jsonl"
    }


def test_a_second_session_meta_does_not_rename_the_session() -> None:
    found = parsed(meta(), meta(id="forked-from"), event("task_started"))
    assert {r.session_id for r in found} == {"thread-1"}
    assert of(Ignored, found)[0].kind == "session_meta"


def test_an_exec_runs_task_complete_is_its_result_and_a_new_run_starts_the_session_again() -> None:
    found = parsed(
        meta(), event("task_started"),
        event("task_complete", last_agent_message="done", duration_ms=1500),
        event("task_started"), event("turn_aborted", reason="interrupted"),
    )  # fmt: skip
    assert [type(r).__name__ for r in found] == [
        "SessionStarted", "Ignored", "SessionResult", "SessionStarted", "SessionResult"
    ]
    done, aborted = of(SessionResult, found)
    assert (done.status, done.text, done.duration_ms) == (ResultStatus.SUCCEEDED, "done", 1500)
    assert (aborted.status, aborted.subtype) == (ResultStatus.FAILED, "aborted")
    assert aborted.error == "The turn was aborted (interrupted)."


@pytest.mark.parametrize(
    ("fields", "run"),
    [
        ({"source": "exec", "originator": "codex_exec"}, True),
        ({"source": None, "originator": "codex_exec"}, True),  # builds that wrote no source
        ({"source": "cli", "originator": "codex_cli_rs"}, False),
        ({"source": "vscode", "originator": "codex_vscode"}, False),
        ({"source": "mcp", "originator": "codex_exec"}, False),  # the source decides
        ({"source": None, "originator": None}, False),
    ],
    ids=["exec", "exec-originator", "cli", "vscode", "mcp", "neither"],
)
def test_a_rollout_is_one_exec_run_only_where_its_session_meta_says_so(
    fields: dict[str, Any], run: bool
) -> None:
    found = parsed(meta(**fields), event("task_started"), event("task_complete"))
    assert (len(of(SessionResult, found)), len(of(TurnEnded, found))) == ((1, 0) if run else (0, 1))


def thread(**fields: Any) -> tuple[str, dict[str, Any]]:
    return meta(source="cli", originator="codex_cli_rs", **fields)


def usage(fresh: int, cached: int, out: int) -> tuple[str, dict[str, Any]]:
    total = {"input_tokens": fresh + cached, "cached_input_tokens": cached, "output_tokens": out}
    return event("token_count", info={"total_token_usage": total})


def test_a_threads_task_complete_ends_the_turn_saying_its_time_and_tokens() -> None:
    found = parsed(
        thread(), event("task_started"), message("user", "fix it"), usage(1000, 200, 50),
        event("agent_message", message="Fixed."),
        event("task_complete", last_agent_message="Fixed.", duration_ms=12_500),
        event("task_started"), message("user", "and the docs"), usage(2500, 700, 80),
        event("task_complete", last_agent_message="Done too.", duration_ms=65_000),
    )  # fmt: skip
    assert of(SessionResult, found) == []
    assert [e.duration_ms for e in of(TurnEnded, found)] == [12_500, 65_000]
    turns = [n.text for n in of(Notice, found) if n.kind == "turn"]
    assert turns == [  # each turn's own tokens: the second counts from the first's end
        "Completed · 12.5s · 1,000 in / 50 out / 200 cached tokens",
        "Completed · 1m 05s · 1,500 in / 30 out / 500 cached tokens",
    ]
    # the first answer was said by its message; the second only by its turn's end
    assert [t.text for t in of(AssistantText, found)] == ["Fixed.", "Done too."]
    assert type(found[-1]) is TurnEnded and type(found[-2]) is Notice


def test_a_thread_waits_after_a_turn_and_runs_again_with_the_users_next_words() -> None:
    parser, session, statuses = Parser("test"), Session("thread-1"), []
    for number, (kind, payload) in enumerate(
        (thread(), event("task_started"), message("user", "fix it"),
         event("task_complete", last_agent_message="Fixed."), event("task_started"),
         message("user", "again"), event("turn_aborted", reason="interrupted")), start=1
    ):  # fmt: skip
        for record in parser.parse({"type": kind, "payload": payload}, number) or []:
            session.apply(record)
        statuses.append(session.status.value)
    assert statuses == ["running", "running", "running", "waiting", "waiting", "running",
                        "waiting"]  # fmt: skip


def test_a_threads_aborted_turn_is_the_users_interruption_not_a_failure() -> None:
    found = parsed(thread(), event("task_started"), call("shell", command=["ls"]),
                   event("turn_aborted", reason="interrupted"))  # fmt: skip
    (notice,) = of(Notice, found)
    assert (notice.kind, notice.level, notice.text) == (
        "interrupted", "warning", "The turn was aborted (interrupted)."
    )
    assert of(SessionResult, found) == []
    session = Session("thread-1")
    for record in found:
        session.apply(record)
    session.close(expects_result=False)
    assert session.status is SessionStatus.WAITING
    assert [c.status.value for c in session.calls.values()] == ["interrupted"]


def test_before_turn_events_an_answer_that_is_not_commentary_ends_the_turn() -> None:
    found = parsed(
        meta(source=None, originator="codex_vscode"), message("user", "plan it"),
        message("assistant", "Looking first."),  # ends the turn: a call after it moves on
        call("shell", command=["ls"]), output("ok"),
        item("message", role="assistant", phase="commentary",
             content=[{"type": "output_text", "text": "Reading more."}]),
        message("assistant", "Here is the plan."),
    )  # fmt: skip
    assert [e.line for e in of(TurnEnded, found)] == [3, 7]


def test_once_a_turn_event_is_read_an_answer_does_not_end_the_turn_by_itself() -> None:
    found = parsed(thread(), event("task_started"), message("assistant", "Looking first."),
                   event("agent_message", message="Still looking."))  # fmt: skip
    assert of(TurnEnded, found) == []


def test_a_sub_agents_turns_are_not_the_sessions() -> None:
    child = meta(source={"subagent": {"thread_spawn": {"parent_thread_id": "thread-0"}}})
    found = parsed(child, event("task_started"), message("assistant", "Counted."),
                   event("task_complete", last_agent_message="Counted."),
                   event("turn_aborted", reason="interrupted"))  # fmt: skip
    assert of(TurnEnded, found) == of(SessionResult, found) == []
    (notice,) = of(Notice, found)
    assert (notice.kind, notice.text) == ("aborted", "The sub-agent's turn was aborted "
                                                     "(interrupted).")  # fmt: skip
    assert {r.subagent for r in found} == {"thread-1"}


def counted(info: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return event("token_count", info=info)


def figures(usage: Usage) -> tuple[int | None, ...]:
    return (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens,
            usage.reasoning_tokens)  # fmt: skip


def test_each_token_count_spent_its_running_total_s_growth_and_a_repeat_spent_nothing() -> None:
    first = {"input_tokens": 100, "cached_input_tokens": 40, "output_tokens": 10}
    then = {"input_tokens": 300, "cached_input_tokens": 90, "output_tokens": 30,
            "reasoning_output_tokens": 8}  # fmt: skip
    found = parsed(
        meta(), counted(None), counted({"total_token_usage": first, "last_token_usage": first}),
        counted({"total_token_usage": first, "last_token_usage": first}),  # the same again
        counted({"total_token_usage": then, "last_token_usage": first}),
    )  # fmt: skip
    assert [figures(u) for u in of(Usage, found)] == [(60, 40, 10, None), (150, 50, 20, 8)]
    assert [r.kind for r in of(Ignored, found)] == ["token_count", "token_count"]


def test_a_total_below_the_one_before_is_another_process_s_taken_as_said() -> None:
    big = {"input_tokens": 9000, "cached_input_tokens": 0, "output_tokens": 900}
    small = {"input_tokens": 500, "cached_input_tokens": 0, "output_tokens": 7}
    found = parsed(meta(), counted({"total_token_usage": big}),
                   counted({"total_token_usage": small}))  # fmt: skip
    assert [figures(u) for u in of(Usage, found)] == [(9000, 0, 900, None), (500, 0, 7, None)]


def test_a_count_with_no_total_spent_its_request_s_own_usage() -> None:
    last = {"input_tokens": 100, "cached_input_tokens": 0, "output_tokens": 10}
    found = parsed(meta(), counted({"last_token_usage": last}), counted({"last_token_usage": {
        **last, "output_tokens": 11}}))  # fmt: skip
    assert [figures(u) for u in of(Usage, found)] == [(100, 0, 10, None), (100, 0, 11, None)]


def test_a_run_s_result_shows_its_own_run_s_tokens_and_the_root_their_sum() -> None:
    one = {"input_tokens": 1000, "cached_input_tokens": 0, "output_tokens": 50}
    two = {"input_tokens": 1600, "cached_input_tokens": 0, "output_tokens": 80}
    found = parsed(
        meta(), counted({"total_token_usage": one}), event("task_complete", duration_ms=2000),
        event("task_started"), counted({"total_token_usage": two}),
        event("task_complete", duration_ms=3000),
    )  # fmt: skip
    assert [(r.output_tokens, r.duration_ms) for r in of(SessionResult, found)] == [
        (None, 2000), (None, 3000)]  # fmt: skip
    session = Session("run")
    for record in found:
        session.apply(record)
    shown = [i.result.output_tokens for i in session.items if isinstance(i, ResultItem)]
    assert shown == [50, 30]
    assert session.spent is not None
    assert (session.spent.output_tokens, session.spent.duration_ms) == (80, 5000)
    assert status_line(session).endswith(" · 5.0s · 80 tokens out")


def test_compacted_is_a_compaction_with_its_summary() -> None:
    (compaction,) = of(Compaction, parsed(("compacted", {"message": "We fixed the parser."})))
    assert compaction.summary == "We fixed the parser."


def test_error_events_are_notices_at_their_level_and_quiet_events_are_ignored() -> None:
    found = parsed(event("error", message="stream failed"), event("warning", message="slow"),
                   event("stream_error", message="Reconnecting... 1/5"),
                   event("item_completed"))  # fmt: skip
    assert [(n.kind, n.text, n.level) for n in of(Notice, found)] == [
        ("error", "stream failed", "error"), ("warning", "slow", "warning"),
        ("reconnecting", "Reconnecting... 1/5", "info"),
    ]  # fmt: skip
    assert found[-1] == Ignored(found[-1].origin, kind="item_completed")


def test_an_error_event_whose_message_is_a_json_envelope_says_its_inner_message() -> None:
    envelope = '{"type":"error","status":429,"error":{"message":"Rate limit reached"}}'
    found = parsed(event("error", message=envelope))
    assert [n.text for n in of(Notice, found)] == ["Rate limit reached (HTTP 429)"]


# -- texts ------------------------------------------------------------------------------------


def test_a_text_said_by_an_item_and_an_event_is_read_once_in_either_order() -> None:
    found = parsed(message("user", "fix it"), event("user_message", message="fix it"),
                   event("agent_message", message="Fixed."), message("assistant", "Fixed."),
                   event("agent_reasoning", text="**Looking**"),
                   item("reasoning", summary=[{"type": "summary_text", "text": "**Looking**"},
                                              {"type": "summary_text", "text": "**Testing**"}]))
    assert [(type(r).__name__, getattr(r, "text", None)) for r in found
            if type(r) in (UserText, AssistantText, Thinking)] == [
        ("UserText", "fix it"), ("AssistantText", "Fixed."), ("Thinking", "**Looking**"),
        ("Thinking", "**Testing**"),
    ]  # fmt: skip


def test_a_prompt_with_an_image_is_read_once_too() -> None:
    found = parsed(item("message", role="user", content=[
                       {"type": "input_image", "image_url": "data:image/png;base64,iVBO"},
                       {"type": "input_text", "text": "what is this?"}]),
                   event("user_message", message="what is this?", images=["data:image/png"]))
    (prompt,) = of(UserText, found)
    assert prompt.text == "[image]\nwhat is this?"


def test_the_same_side_saying_a_text_again_is_a_new_text() -> None:
    found = parsed(event("agent_message", message="done"), message("assistant", "done"),
                   event("agent_message", message="done"), message("assistant", "done"))
    assert len(of(AssistantText, found)) == 2


def test_codex_context_messages_and_developer_messages_are_not_the_users() -> None:
    found = parsed(
        message("user", "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
        message("user", "# AGENTS.md instructions for /w\n\nBe brief."),
        message("user", "<user_instructions>Be brief.</user_instructions>"),
        message("user", "<subagent_notification>{}</subagent_notification>"),
        message("developer", "<permissions instructions>never</permissions instructions>"),
        item("reasoning", summary=[], encrypted_content="gAAAA"),
    )
    assert of(UserText, found) == [] and of(Thinking, found) == []
    assert [r.kind for r in of(Ignored, found)] == ["context"] * 4 + [
        "developer message", "reasoning"
    ]


# -- tool calls -------------------------------------------------------------------------------


def test_a_shell_argv_is_shown_as_the_command_line_it_runs() -> None:
    found = parsed(call("shell", command=["bash", "-lc", "ls -la"], workdir="."),
                   call("shell", "c2", command=["git", "log", "-n", "2 weeks"]),
                   item("local_shell_call", call_id="c3", status="completed",
                        action={"type": "exec", "command": ["pwd"]}))  # fmt: skip
    assert [(c.name, c.input["command"]) for c in of(ToolCall, found)] == [
        ("shell", "ls -la"), ("shell", "git log -n '2 weeks'"), ("shell", "pwd")
    ]
    assert of(ToolCall, found)[0].input["argv"] == ["bash", "-lc", "ls -la"]


def test_arguments_that_are_not_json_are_kept_raw() -> None:
    found = parsed(item("function_call", name="exec_command", arguments='{"cmd": ', call_id="c1"))
    (bad,) = of(ToolCall, found)
    assert (bad.input, bad.raw_input) == ({}, '{"cmd": ')


def test_apply_patch_is_shown_by_the_files_it_touches() -> None:
    patch = "*** Begin Patch\n*** Update File: a.py\n-x\n+y\n*** Add File: b.py\n+z\n*** End Patch"
    found = parsed(item("custom_tool_call", name="apply_patch", input=patch, call_id="p1"),
                   call("apply_patch", "p2", input=patch))  # fmt: skip
    assert [(c.input["path"], c.input["files"]) for c in of(ToolCall, found)] == [
        ("a.py (+1 more)", ["a.py", "b.py"])
    ] * 2


def test_update_plan_is_a_call_and_a_todo_list() -> None:
    found = parsed(call("update_plan", plan=[{"step": "Read", "status": "completed"},
                                             {"step": "Write", "status": "in_progress"}]))
    (update,) = of(TodoUpdate, found)
    assert update.todos == (Todo("Read", "completed"), Todo("Write", "in_progress"))
    assert of(ToolCall, found)[0].name == "update_plan"


def test_spawn_agent_is_a_delegation_whose_output_names_the_agent() -> None:
    found = parsed(call("spawn_agent", "s1", agent_type="worker", message="write tests"),
                   output('{"agent_id":"child-1","nickname":"Ada"}', "s1"),
                   event("collab_agent_spawn_end", call_id="s1", new_thread_id="child-1"))
    (spawn,) = of(Delegation, found)
    assert (spawn.member, spawn.task) == ("worker", "write tests")
    assert [(x.agent_id, x.call_id) for x in of(SubagentLink, found)] == [("child-1", "s1")] * 2
    assert len(of(ToolResult, found)) == 1 and found[-1].kind == "duplicate result"  # type: ignore[attr-defined]


def test_a_spawn_that_started_no_agent_fails() -> None:
    spawned = result_of(call("spawn_agent", "s1", message="go"),
                        event("collab_agent_spawn_end", call_id="s1", new_thread_id=None,
                              new_agent_role="worker", status="not_found"))  # fmt: skip
    assert spawned.is_error and spawned.output == "The worker could not be started (not_found)."
    refused = result_of(call("spawn_agent", "s1", message="go"),
                        output("Agent depth limit reached. Solve the task yourself.", "s1"))
    assert refused.is_error


def test_waiting_ends_with_what_each_agent_reported() -> None:
    waited = result_of(call("wait_agent", "w1", targets=["a1", "a2"]),
                       event("collab_waiting_end", call_id="w1", statuses={
                           "a1": {"completed": "3 TODOs"}, "a2": {"errored": "crashed"}}))
    assert waited.output == "a1: completed: 3 TODOs\na2: errored: crashed"
    assert waited.is_error


def test_an_mcp_call_ends_with_its_ok_or_err_result() -> None:
    ok = {"Ok": {"content": [{"type": "text", "text": "12 rows"}], "isError": False}}
    tool_error = {"Ok": {"content": [{"type": "text", "text": "no table"}], "isError": True}}
    found = parsed(
        item("function_call", name="query", namespace="mcp__db__", arguments="{}", call_id="m1"),
        item("function_call", name="query", namespace="mcp__db__", arguments="{}", call_id="m2"),
        event("mcp_tool_call_end", call_id="m2", result=tool_error,
              invocation={"server": "db", "tool": "query"}),
        event("mcp_tool_call_end", call_id="m1", result=ok,
              invocation={"server": "db", "tool": "query"}),
    )  # fmt: skip
    assert [c.name for c in of(ToolCall, found)] == ["mcp__db__query"] * 2
    assert [(r.call_id, r.output, r.is_error) for r in of(ToolResult, found)] == [
        ("m2", "no table", True), ("m1", "12 rows", False)
    ]  # fmt: skip


def test_an_mcp_end_of_a_call_never_seen_makes_the_call_first() -> None:
    found = parsed(event("mcp_tool_call_end", call_id="m9", result={"Err": "timeout"},
                         invocation={"server": "db", "tool": "query", "arguments": {"q": 1}}))
    assert [type(r) for r in found] == [SessionStarted, ToolCall, ToolResult]
    assert (found[1].name, found[1].input) == ("mcp__db__query", {"q": 1})  # type: ignore[attr-defined]


def test_a_web_search_is_a_call_and_its_end_at_once() -> None:
    found = parsed(item("web_search_call", status="completed",
                        action={"type": "search", "query": "codex rollout"}))  # fmt: skip
    (search,) = of(ToolCall, found)
    assert (search.name, search.input["query"]) == ("web_search", "codex rollout")
    assert of(ToolResult, found)[0].call_id == search.call_id


def test_searches_and_images_the_service_ran_are_calls_ended_at_once() -> None:
    found = parsed(
        item("image_generation_call", id="ig1", status="completed", revised_prompt="a cat"),
        item("tool_search_call", status="completed", execution="server",
             arguments={"query": "calendar"}),
        item("tool_search_call", call_id="ts1", execution="client", arguments={"query": "mail"}),
        item("tool_search_output", call_id="ts1", execution="client",
             tools=[{"name": "send_mail"}, {"name": "read_mail"}]),
    )  # fmt: skip
    assert [(c.call_id, c.name, c.input) for c in of(ToolCall, found)] == [
        ("ig1", "image_generation", {"prompt": "a cat"}),
        ("tool_search:2", "tool_search", {"query": "calendar"}),
        ("ts1", "tool_search", {"query": "mail"}),
    ]
    assert [(r.call_id, r.output) for r in of(ToolResult, found)] == [
        ("ig1", "completed"), ("tool_search:2", "completed"), ("ts1", "send_mail, read_mail")
    ]  # fmt: skip


def test_a_message_between_agents_is_a_notice() -> None:
    found = parsed(item("agent_message", author="worker", recipient="root",
                        content=[{"type": "input_text", "text": "3 TODOs"}]))  # fmt: skip
    (notice,) = of(Notice, found)
    assert (notice.kind, notice.text) == ("agent message", "worker → root: 3 TODOs")


# -- tool outputs -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown", "failed"),
    [
        ('{"output":"ok\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}', "ok\n", False),
        ('{"output":"boom","metadata":{"exit_code":2,"duration_seconds":0.1}}', "boom", True),
        ("Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 2\nOutput:\nboom",
         "boom", True),
        ("Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.", "Success.", False),
        ("Process exited with code 0\nOutput:\nExit code: 1\n", "Exit code: 1\n", False),
        ("failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, "
         "exit code: 1, stdout: , stderr: denied", None, True),
        ([{"type": "input_text", "text": "Script completed\nWall time 0.1 seconds\nOutput:\n"},
          {"type": "input_text", "text": '{"exit_code":7,"output":"x"}'}],
         "Exit code 7\nx", True),
        ([{"type": "input_text", "text": "Script completed\nWall time 0.1 seconds\nOutput:\n"},
          {"type": "input_text", "text": '{"exit_code":0,"output":"ok"}'}], "ok", False),
        ([{"type": "input_text", "text": "Script completed\nOutput:\n"},
          {"type": "input_text",
           "text": '{"exit_code":0,"output":"a"}\n{"exit_code":2,"output":"b"}'}],
         "[1] exit code 0\na\n[2] exit code 2\nb", True),
        ({"content": "patch rejected", "success": False}, "patch rejected", True),
        ({"error": "capacity exhausted"}, "capacity exhausted", True),
        ("plain words", "plain words", False),
    ],
    ids=["json-0", "json-2", "process-2", "exit-0", "status-in-output", "sandbox", "exec-list",
         "exec-list-0", "exec-list-several", "object", "error-object", "plain"],
)  # fmt: skip
def test_an_output_fails_by_the_exit_code_its_era_writes(
    value: object, shown: str | None, failed: bool
) -> None:
    ended = result_of(call("exec_command", cmd="x"), output(value))
    assert ended.output == (value if shown is None else shown)
    assert ended.is_error is failed


def test_an_aborted_call_is_interrupted_not_failed() -> None:
    ended = result_of(call("exec_command", cmd="sleep 100"), output("aborted"))
    assert ended.interrupted and not ended.is_error


def test_a_patch_that_failed_to_apply_fails_its_call() -> None:
    ended = result_of(item("custom_tool_call", name="apply_patch", input="*** Begin Patch",
                           call_id="p1"),
                      event("patch_apply_end", call_id="p1", success=False, stderr="no file"),
                      item("custom_tool_call_output", call_id="p1", output="no file"))  # fmt: skip
    assert ended.is_error


# -- a sub-agent's own file -------------------------------------------------------------------


def test_a_child_file_is_read_into_its_parents_session_as_its_subagent() -> None:
    found = records(CHILD)
    assert {(r.session_id, r.subagent, r.parent_call) for r in found} == {
        (PARENT_ID, CHILD_ID, None)
    }
    assert found[0] == SubagentLink(found[0].origin, agent_id=CHILD_ID, call_id="")
    assert of(SessionStarted, found) == []  # it starts no session of its own


@pytest.mark.parametrize("order", ["parent first", "child first"])
def test_a_child_file_nests_under_its_spawn_call_whichever_is_read_first(order: str) -> None:
    paths = [PARENT, CHILD] if order == "parent first" else [CHILD, PARENT]
    (session,) = build_preview(paths).sessions()
    assert session.session_id == PARENT_ID
    children = ["call_child_rg", "call_child_rg_tests"]
    assert session.calls["call_spawn_1"].children == children
    assert [session.calls[c].status.value for c in children] == ["ok", "error"]
    assert [type(item).__name__ for item in session.items] == [  # the child's texts: none
        "UserTurn", "DelegationItem", "ToolGroup", "ResultItem"
    ]
    assert session.result is not None and session.result.text == (
        "The project has 3 TODO comments, all under src/."
    )
    assert session.info.model == "gpt-5.4"  # the child's own model does not replace it
    group = session.items[2]
    assert isinstance(group, ToolGroup) and group.call_ids == ["call_wait_1"]


def test_a_child_file_read_alone_shows_its_records_in_its_parents_session() -> None:
    (session,) = build_preview([CHILD]).sessions()
    assert session.session_id == PARENT_ID
    assert [call.parent for call in session.calls.values()] == [None, None]
    assert isinstance(session.items[0], UserTurn)
