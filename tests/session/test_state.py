from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.caps import ANSWER_KEPT, PREVIEW_LIMIT, RESULT_PREVIEW
from bot.preview import build_preview
from bot.records import (
    AssistantText,
    Compaction,
    Delegation,
    Ignored,
    Notice,
    Origin,
    SessionStarted,
    SubagentLink,
    Thinking,
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import ResultStatus, SessionResult
from bot.session import Session, SessionBook, SessionSettings, SessionStatus, ToolStatus, Verbosity
from bot.session.calling import EARLY_RESULTS
from bot.session.state import HELD_RECORDS
from bot.session.thread import (
    TEXT_CAP,
    DelegationItem,
    NoticeItem,
    ResultItem,
    TextBatch,
    TodoItem,
    ToolGroup,
    UserTurn,
)
from tests.conftest import corpus_file

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
SID = "s1"


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def started() -> SessionStarted:
    return SessionStarted(Origin(SID, at(0), 1), agent="Claude Code", model="m", cwd="/w")


def call(
    call_id: str, name: str = "Bash", t: float = 1, parent_call: str | None = None, **kw: object
) -> ToolCall:
    origin = Origin(SID, at(t), 2, parent_call)
    return ToolCall(origin, call_id=call_id, name=name, input={"command": "ls"}, **kw)  # type: ignore[arg-type]


def result(call_id: str, t: float = 2, **kw: object) -> ToolResult:
    return ToolResult(Origin(SID, at(t), 3), call_id=call_id, output="done", **kw)  # type: ignore[arg-type]


def text(body: str, t: float = 1, parent_call: str | None = None, **kw: object) -> AssistantText:
    return AssistantText(Origin(SID, at(t), 4, parent_call), text=body, **kw)  # type: ignore[arg-type]


def session_of(*records: object, verbosity: Verbosity = Verbosity.NORMAL) -> Session:
    session = Session(SID, SessionSettings(verbosity=verbosity))
    for record in records:
        session.apply(record)  # type: ignore[arg-type]
    return session


def test_tool_call_runs_until_its_result_says_ok() -> None:
    session = session_of(started(), call("a"))
    assert session.calls["a"].status is ToolStatus.RUNNING
    session.apply(result("a", t=3.5))
    assert session.calls["a"].status is ToolStatus.OK
    assert session.calls["a"].duration_s == 2.5


def test_error_result_marks_the_call_failed() -> None:
    session = session_of(started(), call("a"), result("a", is_error=True))
    assert session.calls["a"].status is ToolStatus.ERROR


def test_parallel_results_match_their_calls_in_any_order() -> None:
    session = session_of(
        started(), call("a"), call("b"), result("b", is_error=True), result("a")
    )
    assert session.calls["a"].status is ToolStatus.OK
    assert session.calls["b"].status is ToolStatus.ERROR


def test_an_mcp_call_keeps_its_name_as_the_log_gives_it_and_is_summarised_by_its_arguments() -> (
    None
):
    session = session_of(started(), call("a", name="mcp__github__search_issues"))
    assert (session.calls["a"].name, session.calls["a"].summary) == (
        "mcp__github__search_issues", "ls"
    )


def test_a_result_naming_its_calls_mcp_server_names_the_call_by_server_and_tool() -> None:
    session = session_of(
        started(), call("a", name="create_prompt"), call("b", name="edit"),
        result("a", name="mcp__prompts__create_prompt"), result("b", name="mcp__notes__write"),
    )  # fmt: skip
    assert [session.calls[c].name for c in "ab"] == ["mcp__prompts__create_prompt", "edit"]


def test_result_without_a_call_is_counted_as_unmatched_and_said_by_its_first_line() -> None:
    session = session_of(started(), ToolResult(Origin(SID, at(2), 3), call_id="nobody",
                                               output="\n  first line  \nsecond"))  # fmt: skip
    assert session.unmatched_results == 1
    assert session.calls == {}
    (item,) = session.items
    assert isinstance(item, NoticeItem)
    assert (item.text, item.level) == ("Output of a tool call not in the log: first line", "info")


def test_an_unmatched_result_is_said_once_and_its_call_coming_later_still_takes_it() -> None:
    session = session_of(started(), result("a"), result("a"), result("b", is_error=True))
    assert [type(item) for item in session.items] == [NoticeItem, NoticeItem]
    assert session.unmatched_results == 2
    session.apply(call("a", t=3))
    assert session.calls["a"].status is ToolStatus.OK
    assert session.unmatched_results == 1


def test_an_unmatched_result_under_a_hidden_verbosity_is_not_said() -> None:
    session = session_of(started(), result("a"), verbosity=Verbosity.QUIET)
    assert session.items == [] and session.unmatched_results == 1


@pytest.mark.parametrize(
    ("folder", "name", "said", "unmatched"),
    [
        ("codex-rollout", "jnarowski__agentcmd__function-output-error.jsonl", 1, 1),  # line 1
        ("legion-backend", "synthetic__seed-000__twenty_questions.jsonl", 1, 1),
        ("openai-messages", "invariantlabs-ai__explorer__webarena.jsonl", 2, 2),
        # its one is a subagent's (line 5, isSidechain): said in its call's count, not the thread
        ("claude-transcript", "daaain__claude-code-log__sidechain_integrated.jsonl", 0, 1),
    ],
)
def test_corpus_results_whose_calls_are_not_in_the_log_are_said(
    folder: str, name: str, said: int, unmatched: int
) -> None:
    sessions = build_preview([corpus_file(folder, name)]).sessions()
    notices = [i for s in sessions for i in s.items if isinstance(i, NoticeItem)]
    shown = [n for n in notices if n.text.startswith("Output of a tool call not in the log: ")]
    assert (len(shown), sum(s.unmatched_results for s in sessions)) == (said, unmatched)


def test_session_result_interrupts_calls_still_running() -> None:
    session = session_of(
        started(), call("a"), SessionResult(Origin(SID, at(5), 9), status=ResultStatus.FAILED)
    )
    assert session.calls["a"].status is ToolStatus.INTERRUPTED
    assert session.status is SessionStatus.FAILED


def test_interrupted_result_marks_the_call_interrupted() -> None:
    session = session_of(started(), call("a"), result("a", is_error=True, interrupted=True))
    assert session.calls["a"].status is ToolStatus.INTERRUPTED


def test_user_interruption_notice_interrupts_running_calls() -> None:
    notice = Notice(Origin(SID, at(3), 5), kind="interrupted", text="stopped", level="warning")
    session = session_of(started(), call("a"), notice)
    assert session.calls["a"].status is ToolStatus.INTERRUPTED


def test_each_interruption_interrupts_the_calls_open_then_and_no_call_that_ended() -> None:
    first_end = SessionResult(Origin(SID, at(5), 9), status=ResultStatus.FAILED)
    stop = Notice(Origin(SID, at(9), 12), kind="interrupted", text="stopped", level="warning")
    session = session_of(started(), call("a"), first_end, call("b", t=6), call("c", t=6))
    session.apply(result("c", t=7))
    session.apply(stop)
    statuses = {call_id: call.status for call_id, call in session.calls.items()}
    assert statuses == {
        "a": ToolStatus.INTERRUPTED, "b": ToolStatus.INTERRUPTED, "c": ToolStatus.OK
    }


def test_call_is_orphaned_after_the_configured_inactivity() -> None:
    session = Session(SID, SessionSettings(orphan_after_s=30))
    session.apply(started(), now=at(0))
    session.apply(call("a"), now=at(1))
    assert not session.tick(at(30))
    assert session.tick(at(31.5))
    assert session.calls["a"].status is ToolStatus.ORPHANED


def test_only_calls_still_running_are_orphaned_and_said_once() -> None:
    session = Session(SID, SessionSettings(orphan_after_s=30))
    for record in (started(), call("a"), result("a"), call("b")):
        session.apply(record, now=at(1))
    assert session.tick(at(40))
    assert not session.tick(at(80))  # nothing changed since
    assert session.calls["a"].status is ToolStatus.OK
    assert session.calls["b"].status is ToolStatus.ORPHANED


def test_orphaned_call_still_takes_its_late_result() -> None:
    session = Session(SID, SessionSettings(orphan_after_s=1))
    session.apply(call("a"), now=at(1))
    session.tick(at(10))
    session.apply(result("a", t=11), now=at(11))
    assert session.calls["a"].status is ToolStatus.OK


def test_consecutive_assistant_text_is_batched_into_one_item() -> None:
    session = session_of(started(), text("one"), text("two"))
    assert [type(item) for item in session.items] == [TextBatch]
    batch = session.items[0]
    assert isinstance(batch, TextBatch)
    assert batch.text == "one\n\ntwo"


def test_a_tool_call_ends_the_text_batch() -> None:
    session = session_of(started(), text("one"), call("a"), text("two " * 100))
    kinds = [type(item) for item in session.items]
    assert kinds == [TextBatch, ToolGroup, TextBatch]


def test_a_short_remark_between_tool_calls_joins_their_group() -> None:
    session = session_of(started(), call("a"), text("Now the tests."), call("b"))
    group = session.items[0]
    assert isinstance(group, ToolGroup) and len(session.items) == 1
    assert group.call_ids == ["a", "b"]
    assert [getattr(e, "text", e) for e in group.entries] == ["a", "Now the tests.", "b"]


def test_consecutive_remarks_are_joined_while_short() -> None:
    session = session_of(call("a"), text("One."), text("Two."))
    group = session.items[0]
    assert isinstance(group, ToolGroup)
    assert [getattr(e, "text", e) for e in group.entries] == ["a", "One.\n\nTwo."]


def test_a_remark_with_code_is_its_own_text_batch() -> None:
    session = session_of(call("a"), text("```\nx\n```"))
    assert [type(item) for item in session.items] == [ToolGroup, TextBatch]


def test_result_repeating_the_last_text_batch_is_marked() -> None:
    done = SessionResult(Origin(SID, at(5), 9), text="All done.\n")
    session = session_of(started(), text("All done."), done)
    item = session.items[-1]
    assert isinstance(item, ResultItem) and item.repeats_text


def test_a_final_answer_said_as_a_remark_moves_from_its_tool_group_to_the_result() -> None:
    done = SessionResult(Origin(SID, at(5), 9), text="All done.")
    session = session_of(started(), call("a"), text("All done."), done)
    group, item = session.items
    assert isinstance(group, ToolGroup) and group.entries == ["a"]
    assert isinstance(item, ResultItem) and not item.repeats_text


def test_only_the_answer_leaves_a_remark_that_ends_with_it() -> None:
    done = SessionResult(Origin(SID, at(5), 9), text="All done.")
    session = session_of(started(), call("a"), text("Checking."), text("All done."), done)
    group = session.items[0]
    assert isinstance(group, ToolGroup)
    assert [getattr(e, "text", e) for e in group.entries] == ["a", "Checking."]


def test_a_streamed_final_answer_is_not_repeated_by_the_result() -> None:
    done = SessionResult(Origin(SID, at(5), 9), text="All tests\npass.")
    streamed = [text(piece, delta=True) for piece in ("Running them. All ", "tests pass.")]
    session = session_of(started(), *streamed, done)
    item = session.items[-1]
    assert isinstance(item, ResultItem) and item.repeats_text


def test_a_result_text_that_differs_from_the_last_text_is_shown() -> None:
    done = SessionResult(Origin(SID, at(5), 9), text="Fixed the parser.")
    session = session_of(started(), text("All done."), done)
    item = session.items[-1]
    assert isinstance(item, ResultItem) and not item.repeats_text


def test_hidden_records_do_not_break_a_text_batch() -> None:
    session = session_of(
        started(), text("one"), Ignored(Origin(SID, None, 5), kind="progress"), text("two")
    )
    assert len(session.items) == 1


def test_streamed_deltas_are_joined_without_separators() -> None:
    session = session_of(text("Hel", delta=True), text("lo", delta=True))
    batch = session.items[0]
    assert isinstance(batch, TextBatch) and batch.text == "Hello"


def test_text_batch_keeps_only_what_a_message_shows() -> None:
    session = session_of(text("x" * (TEXT_CAP + 5000)))
    batch = session.items[0]
    assert isinstance(batch, TextBatch)
    assert len(batch.text) == TEXT_CAP and batch.size == TEXT_CAP + 5000


def test_consecutive_tool_calls_share_a_group_up_to_its_size() -> None:
    calls = [call(f"c{i}") for i in range(13)]
    session = session_of(started(), *calls)
    groups = [item for item in session.items if isinstance(item, ToolGroup)]
    assert [len(group.call_ids) for group in groups] == [12, 1]


def test_a_successful_calls_output_is_kept_as_the_start_of_the_line_its_message_shows() -> None:
    big = "line\n" * 10_000
    session = session_of(call("a"), ToolResult(Origin(SID, at(2), 3), call_id="a", output=big))
    state = session.calls["a"]
    assert state.output == ("line " * 40)[: RESULT_PREVIEW + 2]
    assert state.output_size == len(big) and state.output_lines == 10_000


def test_a_failed_calls_output_keeps_more_for_its_error_block() -> None:
    big = "boom\n" * 10_000
    result = ToolResult(Origin(SID, at(2), 3), call_id="a", output=big, is_error=True)
    assert len(session_of(call("a"), result).calls["a"].output) == PREVIEW_LIMIT


def test_a_delegations_answer_keeps_what_its_message_shows() -> None:
    delegation = Delegation(Origin(SID, at(1), 2), call_id="d", member="m", task="t")
    answer = ToolResult(Origin(SID, at(2), 3), call_id="d", output="x" * 10_000)
    assert len(session_of(delegation, answer).calls["d"].output) == ANSWER_KEPT


def test_subagent_calls_attach_to_the_task_that_started_them() -> None:
    task = ToolCall(Origin(SID, at(1), 2), call_id="task", name="Task", input={"prompt": "look"})
    child = ToolCall(Origin(SID, at(2), 3, parent_call="task"), call_id="c1", name="Read", input={})
    session = session_of(started(), task, child)
    assert session.calls["c1"].parent == "task"
    assert session.calls["task"].children == ["c1"]
    group = session.items[0]
    assert isinstance(group, ToolGroup) and group.call_ids == ["task"]


def test_a_call_no_message_shows_keeps_no_preview_of_its_output() -> None:
    task = ToolCall(Origin(SID, at(1), 2), call_id="task", name="Task", input={"prompt": "look"})
    child = ToolCall(Origin(SID, at(2), 3, parent_call="task"), call_id="c1", name="Read", input={})
    session = session_of(started(), task, child, result("c1"), call("t", name="TodoWrite"))
    session.apply(result("t"))
    for hidden in ("c1", "t"):  # a subagent's call (counted under its task), a hidden one
        state = session.calls[hidden]
        assert state.status is ToolStatus.OK
        assert (state.output, state.output_size, state.output_lines) == ("", 0, 0)


def test_subagent_id_resolves_through_a_link() -> None:
    task = ToolCall(Origin(SID, at(1), 2), call_id="task", name="Task", input={})
    link = SubagentLink(Origin(SID, at(1), 3), agent_id="ag1", call_id="task")
    child = ToolCall(Origin(SID, at(2), 4, subagent="ag1"), call_id="c1", name="Read", input={})
    session = session_of(task, link, child)
    assert session.calls["c1"].parent == "task"


def test_subagent_text_is_not_a_thread_item() -> None:
    task = ToolCall(Origin(SID, at(1), 2), call_id="task", name="Task", input={})
    session = session_of(task, text("inner", parent_call="task"))
    assert [type(item) for item in session.items] == [ToolGroup]


def test_a_linked_subagents_prompt_is_not_a_user_turn_of_the_session() -> None:
    task = ToolCall(Origin(SID, at(1), 2), call_id="task", name="Task", input={})
    link = SubagentLink(Origin(SID, at(1), 3), agent_id="ag1", call_id="task")
    prompt = UserText(Origin(SID, at(2), 4, subagent="ag1"), text="look around")
    session = session_of(started(), task, link, prompt)
    assert [type(item) for item in session.items] == [ToolGroup]


def _child(record_type: type, line: int, **fields: object) -> object:
    return record_type(Origin(SID, at(line), line, subagent="ag1"), **fields)


def _awaited_child_records() -> list[object]:
    """A subagent that says it runs for a call not named yet, then works and ends."""
    return [
        _child(SubagentLink, 10, agent_id="ag1", call_id=""),
        _child(UserText, 11, text="look around"),
        _child(ToolCall, 12, call_id="c1", name="Read", input={"file_path": "a.py"}),
        _child(ToolResult, 13, call_id="c1", output="text"),
        _child(AssistantText, 14, text="found it"),
        _child(SessionResult, 15, status=ResultStatus.SUCCEEDED, text="found it"),
    ]


def _parent_records() -> list[object]:
    spawn = Delegation(Origin(SID, at(1), 2), call_id="spawn", member="explorer", task="look")
    link = SubagentLink(Origin(SID, at(2), 3), agent_id="ag1", call_id="spawn")
    done = SessionResult(Origin(SID, at(20), 4), status=ResultStatus.SUCCEEDED, text="all done")
    return [started(), spawn, link, done]


def test_a_subagent_read_before_its_parent_is_held_and_placed_under_its_call() -> None:
    session = session_of(*_awaited_child_records(), *_parent_records())
    session.close(expects_result=False)
    assert session.calls["c1"].parent == "spawn"
    assert session.calls["spawn"].children == ["c1"]
    assert [type(item) for item in session.items] == [DelegationItem, ResultItem]
    assert session.result is not None and session.result.text == "all done"


def test_a_subagent_read_after_its_parents_link_goes_under_its_call_at_once() -> None:
    session = session_of(*_parent_records()[:3], *_awaited_child_records()[:3])
    assert session.calls["c1"].parent == "spawn"  # applied at once: its announcement is moot
    assert [type(item) for item in session.items] == [DelegationItem]


def test_a_link_naming_the_call_is_never_held_even_when_the_subagent_says_it() -> None:
    announce, _, tool_call, *_ = _awaited_child_records()
    own_link = _child(SubagentLink, 11, agent_id="ag1", call_id="spawn")
    session = session_of(*_parent_records()[:2], announce, own_link, tool_call)
    assert session.calls["c1"].parent == "spawn"


def test_records_held_for_a_subagent_never_linked_go_to_the_session_at_the_end() -> None:
    session = session_of(started(), *_awaited_child_records())
    assert session.calls == {} and session.items == []
    session.close(expects_result=False)
    assert session.calls["c1"].parent is None
    assert session.status is SessionStatus.SUCCEEDED  # the subagent's result was all it had


def test_records_held_for_a_subagent_never_linked_go_to_the_session_once_its_log_is_quiet() -> (
    None
):
    session = session_of(started(), *_awaited_child_records()[:4])  # the subagent's own file
    quiet = session.settings.idle_after_s
    assert not session.tick(at(13) + timedelta(seconds=quiet - 1)) and session.items == []
    assert not session.tick(at(13) + timedelta(seconds=quiet), idle=False)  # still being read
    assert session.tick(at(13) + timedelta(seconds=quiet))
    assert session.calls["c1"].parent is None and session.calls["c1"].status is ToolStatus.OK
    assert session.status is SessionStatus.IDLE and session.items


def test_a_subagent_holding_too_many_records_has_them_placed_in_the_session() -> None:
    announce, *_ = _awaited_child_records()
    texts = [_child(AssistantText, 20, text=f"step {n}") for n in range(HELD_RECORDS + 1)]
    assert session_of(started(), announce, *texts[:-1]).items == []  # held
    session = session_of(started(), announce, *texts)  # one too many: placed, no end needed
    assert session.items and all(isinstance(item, TextBatch) for item in session.items)
    assert "step 0" in session.items[0].text  # type: ignore[union-attr]


def test_same_call_id_seen_twice_is_one_call() -> None:
    session = session_of(call("a"), call("a"))
    assert len(session.calls) == 1
    group = session.items[0]
    assert isinstance(group, ToolGroup) and group.call_ids == ["a"]


def test_delegation_is_pending_until_its_member_starts_working() -> None:
    delegation = Delegation(Origin(SID, at(1), 2), call_id="d1", member="researcher", task="find")
    session = session_of(delegation)
    assert session.calls["d1"].status is ToolStatus.PENDING
    assert isinstance(session.items[0], DelegationItem)
    session.apply(call("m1", parent_call="d1"))
    assert session.calls["d1"].status is ToolStatus.RUNNING
    session.apply(ToolResult(Origin(SID, at(3), 5), call_id="d1", output="answer"))
    assert session.calls["d1"].status is ToolStatus.OK


def test_latest_todo_list_is_kept_in_one_item() -> None:
    first = TodoUpdate(Origin(SID, at(1), 2), todos=(Todo("a", "pending"),))
    second = TodoUpdate(Origin(SID, at(2), 3), todos=(Todo("a", "completed"), Todo("b", "pending")))
    session = session_of(first, second)
    assert [type(item) for item in session.items] == [TodoItem]
    assert [todo.status for todo in session.todos] == ["completed", "pending"]


@pytest.mark.parametrize("name", ["TodoWrite", "todowrite"])
def test_todowrite_call_is_tracked_but_not_shown_as_a_tool(name: str) -> None:
    session = session_of(call("t", name=name))
    assert "t" in session.calls
    assert session.items == []


def test_thinking_shows_only_when_verbose() -> None:
    thought = Thinking(Origin(SID, at(1), 2), text="hmm")
    assert session_of(thought).items == []
    verbose = session_of(thought, verbosity=Verbosity.VERBOSE)
    assert isinstance(verbose.items[0], NoticeItem)


def test_quiet_shows_failed_calls_but_not_successful_ones() -> None:
    session = session_of(
        started(), call("a"), call("b"), result("a"), result("b", is_error=True),
        verbosity=Verbosity.QUIET,
    )  # fmt: skip
    groups = [item for item in session.items if isinstance(item, ToolGroup)]
    assert [group.call_ids for group in groups] == [["b"]]


def test_quiet_hides_text_and_user_turns() -> None:
    user = UserText(Origin(SID, at(0), 1), text="do it")
    session = session_of(user, text("sure"), verbosity=Verbosity.QUIET)
    assert session.items == []


def test_user_text_becomes_a_user_turn() -> None:
    session = session_of(UserText(Origin(SID, at(0), 1), text="  do it  "))
    turn = session.items[0]
    assert isinstance(turn, UserTurn) and turn.text == "do it"


def test_a_later_start_fills_in_what_the_first_lacked_and_names_the_agent() -> None:
    first = SessionStarted(Origin(SID, at(0), 1), agent="OpenAI-style agent", model="m")
    later = SessionStarted(Origin(SID, at(1), 2), agent="Kimi Code", cwd="/w")
    unnamed = SessionStarted(Origin(SID, at(2), 3))
    session = session_of(first, later, unnamed)
    assert (session.info.agent, session.info.model, session.info.cwd) == ("Kimi Code", "m", "/w")


def test_duplicate_session_start_is_hidden() -> None:
    session = session_of(started(), started())
    assert session.hidden == 1


def test_compaction_is_counted_and_noted() -> None:
    session = session_of(Compaction(Origin(SID, at(1), 2), trigger="auto", pre_tokens=170251))
    assert session.compactions == 1
    notice = session.items[0]
    assert isinstance(notice, NoticeItem) and "170,251 tokens" in notice.text


def test_each_result_is_an_item_with_a_stable_key() -> None:
    done = SessionResult(Origin(SID, at(5), 9))
    session = session_of(started(), done, started(), done)
    keys = [item.key for item in session.items if isinstance(item, ResultItem)]
    assert keys == ["result", "result:2"]


def test_new_run_after_a_result_is_running_again() -> None:
    session = session_of(started(), SessionResult(Origin(SID, at(5), 9)), started())
    assert session.status is SessionStatus.RUNNING


def test_close_without_result_is_unknown_when_the_format_never_reports_one() -> None:
    session = session_of(started())
    session.close(expects_result=False)
    assert session.status is SessionStatus.UNKNOWN


def test_close_without_result_stays_running_when_the_format_reports_ends() -> None:
    session = session_of(started())
    session.close(expects_result=True)
    assert session.status is SessionStatus.RUNNING


def test_book_routes_records_to_their_sessions() -> None:
    book = SessionBook()
    book.apply(SessionStarted(Origin("a", None, 1)))
    book.apply(SessionStarted(Origin("b", None, 2)))
    book.apply(ToolCall(Origin("a", None, 3), call_id="x", name="Read"))
    assert list(book.sessions) == ["a", "b"]
    assert list(book.sessions["a"].calls) == ["x"]
    assert book.records == 3


def test_keys_of_items_never_change_as_the_session_grows() -> None:
    session = session_of(started(), text("a"), call("x"))
    before = [item.key for item in session.items]
    session.apply(result("x"))
    session.apply(text("b"))
    assert [item.key for item in session.items][: len(before)] == before


def test_a_result_logged_before_its_call_ends_the_call_when_it_comes() -> None:
    session = session_of(started(), result("a", t=1), call("a", t=2))
    assert session.calls["a"].status is ToolStatus.OK
    assert session.unmatched_results == 0


def test_a_result_before_its_call_is_not_lost_when_the_session_ends() -> None:
    done = SessionResult(Origin(SID, at(5), 9))
    session = session_of(started(), result("a", t=1), call("a", t=2), done)
    assert session.calls["a"].status is ToolStatus.OK  # not "interrupted"


def test_results_whose_calls_never_come_are_kept_within_a_bound() -> None:
    session = session_of(started(), *[result(f"r{n}") for n in range(EARLY_RESULTS + 5)])
    assert session.unmatched_results == EARLY_RESULTS + 5
    assert len(session.early) == EARLY_RESULTS


def test_the_same_result_line_twice_is_one_result_message() -> None:
    done = SessionResult(Origin(SID, at(5), 9), text="All done.")
    again = SessionResult(Origin(SID, at(5), 10), text="All done.")
    session = session_of(started(), done, again)
    assert [type(item).__name__ for item in session.items].count("ResultItem") == 1


def test_a_second_run_with_another_outcome_is_a_second_result() -> None:
    first = SessionResult(Origin(SID, at(5), 9), text="First.")
    second = SessionResult(Origin(SID, at(9), 20), text="Second.", status=ResultStatus.FAILED)
    session = session_of(started(), first, second)
    assert [type(item).__name__ for item in session.items].count("ResultItem") == 2
    assert session.status is SessionStatus.FAILED


def test_the_same_whole_text_line_twice_is_said_once() -> None:
    line = text("Done: the build is green.", message_id="m1")
    session = session_of(started(), line, text("Done: the build is green.", message_id="m1"))
    (batch,) = [item for item in session.items if isinstance(item, TextBatch)]
    assert batch.text.count("green") == 1


def test_streamed_chunks_that_repeat_are_all_kept() -> None:
    chunks = [text("the ", delta=True, message_id="m1"), text("the ", delta=True, message_id="m1")]
    session = session_of(started(), *chunks)
    (batch,) = [item for item in session.items if isinstance(item, TextBatch)]
    assert batch.text == "the the "


def test_the_first_prompt_is_what_the_session_was_asked_even_when_quiet() -> None:
    first = UserText(Origin(SID, at(1), 2), text="  Fix the build.\n")
    later = UserText(Origin(SID, at(2), 3), text="Now the docs.")
    session = session_of(started(), first, later, verbosity=Verbosity.QUIET)
    assert session.info.prompt == "Fix the build." and not session.items


def test_calls_that_ended_last_leave_the_calls_that_may_still_be_open() -> None:
    session = session_of(started(), call("a"), call("b"), call("c"), result("c"))
    assert session.open_calls == ["a", "b"]
    session.apply(result("a"))  # ended, but begun before one still open: it stays listed
    assert session.open_calls == ["a", "b"]
    session.apply(result("b"))
    assert session.open_calls == [] and session.newest_open_call() is None
