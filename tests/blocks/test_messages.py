"""The message kinds: what each shows of the session, within Slack's limits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson

from blocks.limits import check_message
from blocks.message import Message
from blocks.thread import thread_messages
from bot.records import (
    AssistantText,
    Delegation,
    Notice,
    PermissionDenial,
    ResultStatus,
    SessionResult,
    SessionStarted,
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.session import Session

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
        "s1", at(0), 1, agent="Claude Code", model="claude-opus", cwd="/home/me/project"
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
        ToolCall("s1", at(1), 2, call_id="a", name="Bash", input={"command": "ls"}),
        ToolCall("s1", at(2), 3, call_id="b", name="Read", input={"file_path": "/x"}),
        ToolResult("s1", at(3), 4, call_id="b", output="oops", is_error=True),
    ]
    root = thread(*records, now=at(75))["root"]
    status = root.blocks[-1]["elements"][0]["text"]
    assert status == "⏳ *Running* · 2 tool calls (1 running, 1 failed) · 1m"


def test_root_status_line_shows_the_result_cost_and_todos() -> None:
    todos = TodoUpdate("s1", at(1), 2, todos=(Todo("a", "completed"), Todo("b", "pending")))
    done = SessionResult("s1", at(9), 3, duration_ms=9000, cost_usd=0.4231, output_tokens=1500)
    status = thread(start(), todos, done)["root"].blocks[-1]["elements"][0]["text"]
    assert status == "✅ *Succeeded* · no tools yet · 9.0s · $0.42 · 1.5k tokens out · todos 1/2"


def test_tool_line_shows_status_name_summary_and_duration() -> None:
    call = ToolCall("s1", at(1), 2, call_id="a", name="Bash", input={"command": "npm test"})
    result = ToolResult("s1", at(3.5), 3, call_id="a", output="12 passed\nok")
    tools = thread(call, result)["tools:1"]
    assert tools.blocks[0]["text"]["text"] == "✅ *Bash* `npm test` · 2.5s"
    assert tools.blocks[1]["elements"][0]["text"] == "→ 12 passed ok _(2 lines)_"


def test_failed_tool_shows_its_error_in_a_code_block() -> None:
    call = ToolCall("s1", at(1), 2, call_id="a", name="Bash", input={"command": "make"})
    result = ToolResult("s1", at(2), 3, call_id="a", output="make: *** No rule", is_error=True)
    text = thread(call, result)["tools:1"].blocks[0]["text"]["text"]
    assert text.startswith("❌ *Bash* `make`")
    assert "```\nmake: *** No rule\n```" in text


def test_task_shows_its_subagents_progress() -> None:
    task = ToolCall("s1", at(1), 2, call_id="t", name="Task", input={"description": "Explore"})
    inner = ToolCall("s1", at(2), 3, call_id="r", name="Read", input={"file_path": "/a.py"},
                     parent_call="t")  # fmt: skip
    failed = ToolResult("s1", at(3), 4, call_id="r", output="no", is_error=True, parent_call="t")
    note = thread(task, inner, failed)["tools:1"].blocks[1]["elements"][0]["text"]
    assert note == "↳ 1 tool call, 1 failed · latest: Read /a.py"


def test_remarks_between_tools_are_shown_in_order_in_the_group() -> None:
    records = [
        ToolCall("s1", at(1), 2, call_id="a", name="Glob", input={"pattern": "*.py"}),
        AssistantText("s1", at(2), 3, text="Found **two** files."),
        ToolCall("s1", at(3), 4, call_id="b", name="Read", input={"file_path": "/a.py"}),
    ]
    blocks = thread(*records)["tools:1"].blocks
    texts = [b["text"]["text"] for b in blocks if b["type"] == "section"]
    assert texts == ["⏳ *Glob* `*.py`", "Found *two* files.", "⏳ *Read* `/a.py`"]


def test_assistant_markdown_becomes_mrkdwn_and_mentions_stay_text() -> None:
    text = AssistantText("s1", at(1), 2, text="# Plan\n**Do** it <!channel>")
    message = thread(text)["text:1"]
    assert message.blocks[0]["text"]["text"] == "*Plan*\n*Do* it &lt;!channel&gt;"
    assert message.text == "# Plan **Do** it &lt;!channel&gt;"


def test_todo_list_marks_each_state() -> None:
    todos = (
        Todo("Write tests", "completed"),
        Todo("Fix bug", "in_progress", active_form="Fixing bug"),
        Todo("Ship", "pending"),
    )
    message = thread(TodoUpdate("s1", at(1), 2, todos=todos))["todos"]
    assert message.blocks[0]["elements"][0]["text"] == "📝 *Todo list* · 1/3 done"
    assert message.blocks[1]["text"]["text"] == "✅ ~Write tests~\n🔄 *Fixing bug*\n⬜ Ship"


def test_delegation_shows_member_task_and_answer() -> None:
    records = [
        SessionStarted("s1", at(0), 1, agent="Agno team Dev Team"),
        Delegation("s1", at(1), 2, call_id="d", member="researcher", task="Find limits"),
        ToolResult("s1", at(4), 3, call_id="d", output="Tier **3**"),
    ]
    message = thread(*records)["delegation:1"]
    head = message.blocks[0]["text"]["text"]
    assert head == "✅ 🤝 *Agno team Dev Team* → *researcher* · 3.0s\n>Find limits"
    assert message.blocks[-1]["text"]["text"] == "Tier *3*"


def test_error_notice_is_marked_as_an_error() -> None:
    notice = Notice("s1", at(1), 2, kind="api_error", text="overloaded", level="error")
    message = thread(notice)["notice:1"]
    assert message.blocks[0]["elements"][0]["text"] == "🛑 *api error*"


def test_user_turn_shows_the_prompt() -> None:
    message = thread(UserText("s1", at(0), 1, text="Fix the <b>bug</b>"))["user:1"]
    assert message.blocks[1]["text"]["text"] == "Fix the &lt;b&gt;bug&lt;/b&gt;"


def test_result_shows_figures_denials_and_errors() -> None:
    result = SessionResult(
        "s1", at(9), 2,
        status=ResultStatus.FAILED, subtype="error_max_turns", duration_ms=65_000,
        duration_api_ms=40_000, num_turns=12, cost_usd=1.5, input_tokens=12_000,
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


def test_a_huge_text_stays_within_limits_and_says_what_was_cut() -> None:
    big = AssistantText("s1", at(1), 2, text="word " * 10_000)
    message = thread(big)["text:1"]
    assert "more characters not shown" in shown(message)


def test_messages_that_will_not_change_are_marked_final() -> None:
    records = [
        start(),
        ToolCall("s1", at(1), 2, call_id="a", name="Bash", input={"command": "ls"}),
        ToolResult("s1", at(2), 3, call_id="a", output="x"),
        AssistantText("s1", at(3), 4, text="A long explanation. " * 20),
        ToolCall("s1", at(4), 5, call_id="b", name="Bash", input={"command": "make"}),
    ]
    finals = {key: m.final for key, m in thread(*records).items()}
    assert finals == {"root": False, "tools:1": True, "text:2": True, "tools:3": False}
    ended = thread(*records, SessionResult("s1", at(9), 6))
    assert all(message.final for message in ended.values())
