"""The message kinds: what each shows of the session, within Slack's limits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson

from blocks.limits import check_message
from blocks.message import Message
from blocks.root import place, tool_counts
from blocks.thread import thread_messages
from blocks.tools import call_line, result_note, subagent_note
from bot.records import (
    AssistantText,
    Delegation,
    Notice,
    Origin,
    SessionStarted,
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import AgentExited, PermissionDenial, ResultStatus, SessionResult
from bot.session import Session, ToolCallState, ToolStatus

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def thread(*records: object, now: datetime | None = None) -> dict[str, Message]:
    session = Session("s1")
    for record in records:
        session.apply(record)  # type: ignore[arg-type]
    messages = thread_messages(session, now)
    for message in messages:
        assert check_message(message.payload()) == [], message.key
    return {message.key: message for message in messages}


def shown(message: Message) -> str:
    return orjson.dumps(message.payload()).decode()


def start() -> SessionStarted:
    return SessionStarted(
        Origin("s1", at(0), 1),
        agent="Claude Code",
        model="claude-opus",
        cwd="/home/me/project",
    )


def test_root_names_the_agent_model_directory_and_session() -> None:
    root = thread(start())["root"]
    text = shown(root)
    assert root.blocks[0]["type"] == "header"
    assert "Claude Code: in project" in text
    for fact in ("claude-opus", "/home/me/project", "`s1`", "<!date^1767268800^"):
        assert fact in text


def test_root_status_line_counts_tools_and_elapsed_time_while_running() -> None:
    records = [
        start(),
        ToolCall(Origin("s1", at(1), 2), call_id="a", name="Bash", input={"command": "ls"}),
        ToolCall(Origin("s1", at(2), 3), call_id="b", name="Read", input={"file_path": "/x"}),
        ToolResult(Origin("s1", at(3), 4), call_id="b", output="oops", is_error=True),
    ]
    root = thread(*records, now=at(75))["root"]
    status = root.blocks[-1]["elements"][0]["text"]
    assert status == "⏳ *Running* · 2 tool calls (1 running, 1 failed) · 1m"


def test_root_status_line_shows_the_result_cost_and_todos() -> None:
    todos = TodoUpdate(Origin("s1", at(1), 2), todos=(Todo("a", "completed"), Todo("b", "pending")))
    done = SessionResult(
        Origin("s1", at(9), 3), duration_ms=9000, cost_usd=0.4231, output_tokens=1500
    )
    status = thread(start(), todos, done)["root"].blocks[-1]["elements"][0]["text"]
    assert status == "✅ *Succeeded* · no tools yet · 9.0s · $0.42 · 1.5k tokens out · todos 1/2"


def prompt(text: str, line: int = 2, **origin: str) -> UserText:
    return UserText(Origin("s1", at(line), line, **origin), text=text)


def test_root_says_what_the_session_was_asked_in_its_first_prompts_first_two_lines() -> None:
    asked = "Fix the flaky <checkout> test.\n\nRun it 20 times.\nThen commit."
    root = thread(start(), prompt(asked), prompt("And update the docs.", 3))["root"]
    quoted = "> Fix the flaky &lt;checkout&gt; test.\n> Run it 20 times. …"
    assert root.blocks[1] == {"type": "section", "text": {"type": "mrkdwn", "text": quoted}}


def test_a_long_prompt_line_is_cut_in_the_root() -> None:
    root = thread(start(), prompt("word " * 200))["root"]
    quoted = root.blocks[1]["text"]["text"]
    assert quoted.startswith("> word word") and quoted.endswith("…") and len(quoted) < 160


def test_a_subagents_prompt_is_not_what_the_session_was_asked() -> None:
    records = [start(), prompt("List the tests.", parent_call="t"), prompt("Lint.", subagent="a1")]
    root = thread(*records)["root"]
    assert [block["type"] for block in root.blocks] == ["header", "section", "context"]
    assert "Lint" not in shown(root) and "List the tests" not in shown(root)


def test_tool_line_shows_status_name_summary_and_duration() -> None:
    call = ToolCall(Origin("s1", at(1), 2), call_id="a", name="Bash", input={"command": "npm test"})
    result = ToolResult(Origin("s1", at(3.5), 3), call_id="a", output="12 passed\nok")
    tools = thread(call, result)["tools:1"]
    assert tools.blocks[0]["text"]["text"] == "✅ *Bash* `npm test` · 2.5s"
    assert tools.blocks[1]["elements"][0]["text"] == "→ 12 passed ok _(2 lines)_"


def test_failed_tool_shows_its_error_in_a_code_block() -> None:
    call = ToolCall(Origin("s1", at(1), 2), call_id="a", name="Bash", input={"command": "make"})
    result = ToolResult(
        Origin("s1", at(2), 3), call_id="a", output="make: *** No rule", is_error=True
    )
    text = thread(call, result)["tools:1"].blocks[0]["text"]["text"]
    assert text.startswith("❌ *Bash* `make`")
    assert "```\nmake: *** No rule\n```" in text


def test_task_shows_its_subagents_progress() -> None:
    task = ToolCall(
        Origin("s1", at(1), 2), call_id="t", name="Task", input={"description": "Explore"}
    )
    inner = ToolCall(
        Origin("s1", at(2), 3, parent_call="t"),
        call_id="r",
        name="Read",
        input={"file_path": "/a.py"},
    )  # fmt: skip
    failed = ToolResult(
        Origin("s1", at(3), 4, parent_call="t"), call_id="r", output="no", is_error=True
    )
    note = thread(task, inner, failed)["tools:1"].blocks[1]["elements"][0]["text"]
    assert note == "↳ 1 tool call, 1 failed · latest: Read /a.py"


def test_remarks_between_tools_are_shown_in_order_in_the_group() -> None:
    records = [
        ToolCall(Origin("s1", at(1), 2), call_id="a", name="Glob", input={"pattern": "*.py"}),
        AssistantText(Origin("s1", at(2), 3), text="Found **two** files."),
        ToolCall(Origin("s1", at(3), 4), call_id="b", name="Read", input={"file_path": "/a.py"}),
    ]
    blocks = thread(*records)["tools:1"].blocks
    texts = [b["text"]["text"] for b in blocks if b["type"] == "section"]
    assert texts == ["⏳ *Glob* `*.py`", "Found *two* files.", "⏳ *Read* `/a.py`"]


def test_assistant_markdown_becomes_mrkdwn_and_mentions_stay_text() -> None:
    text = AssistantText(Origin("s1", at(1), 2), text="# Plan\n**Do** it <!channel>")
    message = thread(text)["text:1"]
    assert message.blocks[0]["text"]["text"] == "*Plan*\n*Do* it &lt;!channel&gt;"
    assert message.text == "# Plan **Do** it &lt;!channel&gt;"


def test_todo_list_marks_each_state() -> None:
    todos = (
        Todo("Write tests", "completed"),
        Todo("Fix bug", "in_progress", active_form="Fixing bug"),
        Todo("Ship", "pending"),
    )
    message = thread(TodoUpdate(Origin("s1", at(1), 2), todos=todos))["todos"]
    assert message.blocks[0]["elements"][0]["text"] == "📝 *Todo list* · 1/3 done"
    assert message.blocks[1]["text"]["text"] == "✅ ~Write tests~\n🔄 *Fixing bug*\n⬜ Ship"


def test_delegation_shows_member_task_and_answer() -> None:
    records = [
        SessionStarted(Origin("s1", at(0), 1), agent="Agno team Dev Team"),
        Delegation(Origin("s1", at(1), 2), call_id="d", member="researcher", task="Find limits"),
        ToolResult(Origin("s1", at(4), 3), call_id="d", output="Tier **3**"),
    ]
    message = thread(*records)["delegation:1"]
    head = message.blocks[0]["text"]["text"]
    assert head == "✅ 🤝 *Agno team Dev Team* → *researcher* · 3.0s\n>Find limits"
    assert message.blocks[-1]["text"]["text"] == "Tier *3*"


def test_error_notice_is_marked_as_an_error() -> None:
    notice = Notice(Origin("s1", at(1), 2), kind="api_error", text="overloaded", level="error")
    message = thread(notice)["notice:1"]
    assert message.blocks[0]["elements"][0]["text"] == "🛑 *api error*"


def test_user_turn_shows_the_prompt() -> None:
    message = thread(UserText(Origin("s1", at(0), 1), text="Fix the <b>bug</b>"))["user:1"]
    assert message.blocks[1]["text"]["text"] == "Fix the &lt;b&gt;bug&lt;/b&gt;"


def test_result_shows_figures_denials_and_errors() -> None:
    result = SessionResult(
        Origin("s1", at(9), 2),
        status=ResultStatus.FAILED,
        subtype="error_max_turns",
        duration_ms=65_000,
        duration_api_ms=40_000,
        num_turns=12,
        cost_usd=1.5,
        input_tokens=12_000,
        output_tokens=800,
        permission_denials=(PermissionDenial("Bash", "t1", "rm -rf /tmp/x"),),
        errors=("max turns reached",),
    )  # fmt: skip
    message = thread(result)["result"]
    text = shown(message)
    assert message.blocks[0]["text"]["text"] == "❌ *Session failed* · `error_max_turns`"
    for fact in ("1m 05s", "40s", "*Turns*\\n12", "$1.50", "12k in / 800 out", "rm -rf /tmp/x"):
        assert fact in text
    assert "max turns reached" in text


def test_an_agent_that_exited_with_code_3_says_so_in_the_root_and_the_result() -> None:
    call = ToolCall(Origin("s1", at(1), 2), call_id="a", name="Bash", input={"command": "ls"})
    messages = thread(start(), call, AgentExited(Origin("s1", None, 3), code=3))
    status = messages["root"].blocks[-1]["elements"][0]["text"]
    assert status == "❌ *Failed* · exited with code 3 · 1 tool call (1 interrupted) · 1.0s"
    result = messages["result"]
    assert result.blocks[0]["text"]["text"] == "❌ *Session failed* · exited with code 3"
    assert result.text == "Session failed. exited with code 3"


def test_an_agent_stopped_with_ctrl_c_says_so_in_the_root_and_the_result() -> None:
    messages = thread(start(), AgentExited(Origin("s1", None, 2), signal="SIGINT"))
    status = messages["root"].blocks[-1]["elements"][0]["text"]
    assert status == "⏹️ *Stopped* · Ctrl-C · no tools yet"
    assert messages["result"].blocks[0]["text"]["text"] == "⏹️ *Session stopped* · Ctrl-C"


def test_an_exit_after_the_agents_own_result_is_noted_in_the_root_only_when_not_0() -> None:
    done = SessionResult(Origin("s1", at(9), 2), duration_ms=9000)
    for code, note in ((0, ""), (3, " · exited with code 3")):
        messages = thread(start(), done, AgentExited(Origin("s1", None, 3), code=code))
        status = messages["root"].blocks[-1]["elements"][0]["text"]
        assert status == f"✅ *Succeeded*{note} · no tools yet · 9.0s"
        assert messages["result"].blocks[0]["text"]["text"] == "✅ *Session succeeded*"


def test_a_huge_text_stays_within_limits_and_says_what_was_cut() -> None:
    big = AssistantText(Origin("s1", at(1), 2), text="word " * 10_000)
    message = thread(big)["text:1"]
    assert "more characters not shown" in shown(message)


def test_messages_that_will_not_change_are_marked_final() -> None:
    records = [
        start(),
        ToolCall(Origin("s1", at(1), 2), call_id="a", name="Bash", input={"command": "ls"}),
        ToolResult(Origin("s1", at(2), 3), call_id="a", output="x"),
        AssistantText(Origin("s1", at(3), 4), text="A long explanation. " * 20),
        ToolCall(Origin("s1", at(4), 5), call_id="b", name="Bash", input={"command": "make"}),
    ]
    finals = {key: m.final for key, m in thread(*records).items()}
    assert finals == {"root": False, "tools:1": True, "text:2": True, "tools:3": False}
    ended = thread(*records, SessionResult(Origin("s1", at(9), 6)))
    assert all(message.final for message in ended.values())


def call_of(
    status: ToolStatus, took: float | None = None, summary: str = "npm test"
) -> ToolCallState:
    ended = T0 + timedelta(seconds=took) if took is not None else None
    started = T0 if took is not None else None
    return ToolCallState("id", "Bash", summary, status, started_at=started, ended_at=ended)


def test_a_call_line_shows_its_status_name_summary_and_duration() -> None:
    assert call_line(call_of(ToolStatus.OK, 2.3)) == "✅ *Bash* `npm test` · 2.3s"
    assert call_line(call_of(ToolStatus.RUNNING, summary="")) == "⏳ *Bash*"


def test_an_interrupted_or_orphaned_call_line_says_so() -> None:
    assert call_line(call_of(ToolStatus.INTERRUPTED)) == "⏹️ *Bash* `npm test` · _interrupted_"
    orphaned = call_of(ToolStatus.ORPHANED, 61)
    assert call_line(orphaned) == "⌛ *Bash* `npm test` · 1m 01s · _orphaned_"


def session_of(statuses: list[ToolStatus], children: list[int]) -> Session:
    """A session whose first call has the calls at ``children`` (indexes, some missing)."""
    session = Session("s")
    for index, status in enumerate(statuses):
        session.calls[f"c{index}"] = ToolCallState(f"c{index}", f"T{index}", "x y", status)
        session.tally[status] += 1
    if statuses:
        for child in children:
            session.calls["c0"].add_child(f"c{child}")
    return session


def test_tool_counts_name_each_status_not_ok_in_order() -> None:
    kinds = [ToolStatus.ORPHANED, ToolStatus.OK, ToolStatus.ERROR, ToolStatus.RUNNING] * 2
    assert tool_counts(session_of(kinds, [])) == (
        "8 tool calls (2 running, 2 failed, 2 orphaned)"
    )
    kinds = [ToolStatus.INTERRUPTED, ToolStatus.PENDING, ToolStatus.OK]
    assert tool_counts(session_of(kinds, [])) == "3 tool calls (1 pending, 1 interrupted)"
    assert tool_counts(session_of([ToolStatus.OK], [])) == "1 tool call"
    assert tool_counts(Session("s")) == "no tools yet"


def test_a_subagent_note_counts_its_known_calls_open_and_failed_and_names_the_latest() -> None:
    kinds = [ToolStatus.OK, ToolStatus.ERROR, ToolStatus.RUNNING, ToolStatus.ORPHANED]
    session = session_of(kinds, [1, 2, 3, 9])
    assert subagent_note(session.calls["c0"], session) == (
        "↳ 3 tool calls, 2 running, 1 failed · latest: T3 x y"
    )
    unknown = session_of([ToolStatus.OK], [9])
    assert subagent_note(unknown.calls["c0"], unknown) == ""
    assert subagent_note(session.calls["c1"], session) == ""


def test_a_place_is_the_working_directorys_last_part() -> None:
    assert [place(cwd) for cwd in ("/home/me/proj/", "C:\\work\\app", "/", "", None)] == [
        "in proj", "in app", None, None, None
    ]


def test_a_result_note_shows_an_ok_calls_first_line_and_how_many_lines() -> None:
    call = call_of(ToolStatus.OK)
    call.output, call.output_size, call.output_lines = "a <b>\nc", 7, 2
    assert result_note(call) == "→ a &lt;b&gt; c _(2 lines)_"
    call.output_lines = 1
    assert result_note(call) == "→ a &lt;b&gt; c"
    call.output_size = 0
    assert result_note(call) == ""
    failed = call_of(ToolStatus.ERROR)
    failed.output, failed.output_size, failed.output_lines = "x", 1, 1
    assert result_note(failed) == ""


def test_an_edit_below_the_working_directory_reads_relative_and_without_its_echo() -> None:
    path = "/home/me/project/src/app.py"
    edit = ToolCall(Origin("s1", at(1), 2), call_id="e", name="Edit", input={"file_path": path})
    said = f"The file {path} has been updated."
    done = ToolResult(Origin("s1", at(2), 3), call_id="e", output=said)
    tools = thread(start(), edit, done)["tools:1"]
    assert [block["type"] for block in tools.blocks] == ["section"]
    assert tools.blocks[0]["text"]["text"] == "✅ *Edit* `src/app.py` · 1.0s"


def test_a_read_result_runs_its_lines_together_without_their_numbers() -> None:
    path = "/home/me/project/mix.exs"
    read = ToolCall(Origin("s1", at(1), 2), call_id="r", name="Read", input={"file_path": path})
    lines = "     1→defmodule Spotter do\n     2→  use Mix.Project\n     3→end"
    done = ToolResult(Origin("s1", at(2), 3), call_id="r", output=lines)
    note = thread(start(), read, done)["tools:1"].blocks[1]["elements"][0]["text"]
    assert note == "→ defmodule Spotter do use Mix.Project end _(3 lines)_"
