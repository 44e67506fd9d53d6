"""What a record changed: the thread items whose messages are built again (``take_changes``),
and that building only those gives the channel that building everything gives."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from blocks.thread import changed_messages, thread_messages
from bot.records import (
    AssistantText,
    Delegation,
    Notice,
    Origin,
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
from bot.result_records import AgentExited, ResultStatus, SessionResult, TurnEnded
from bot.session import Session, SessionSettings, Verbosity
from bot.session.significance import Significance

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
SID = "s1"


def origin(t: float, parent_call: str | None = None, subagent: str | None = None) -> Origin:
    return Origin(SID, T0 + timedelta(seconds=t), 1, parent_call, subagent)


def call(call_id: str, t: float = 1, parent_call: str | None = None) -> ToolCall:
    return ToolCall(origin(t, parent_call), call_id=call_id, name="Bash", input={"command": "ls"})


def ok(call_id: str, t: float = 2) -> ToolResult:
    return ToolResult(origin(t), call_id=call_id, output=f"out {call_id}")


def session_of(records: list[Record]) -> Session:
    session = Session(SID, SessionSettings(tools_per_group=4))
    session.apply(SessionStarted(origin(0), agent="Claude Code", model="m", cwd="/w"))
    for record in records:
        session.apply(record)
    return session


def keys_of(session: Session, changed: list[int] | None) -> list[str]:
    return [message.key for message in changed_messages(session, changed)]


def test_a_new_session_builds_every_message() -> None:
    session = session_of([call("a"), ok("a")])
    assert session.take_changes() is None


def test_nothing_changed_builds_only_the_root() -> None:
    session = session_of([call("a")])
    session.take_changes()
    assert keys_of(session, session.take_changes()) == ["root"]


def test_a_step_s_usage_rebuilds_only_the_root_and_shows_there() -> None:
    session = session_of([call("a"), ok("a")])
    session.take_changes()
    significance = session.apply(Usage(origin(3), cost_usd=0.25, output_tokens=40))
    assert significance is Significance.HIDDEN  # never a message of its own
    (root,) = list(changed_messages(session, session.take_changes()))
    assert root.key == "root" and "$0.25 · 40 tokens out" in str(root.blocks)


def test_a_result_rebuilds_only_its_calls_message_and_the_root() -> None:
    session = session_of([call(f"c{n}") for n in range(12)])  # three groups of four
    session.take_changes()
    session.apply(ok("c1"))
    changed = session.take_changes()
    assert changed == [0]
    assert keys_of(session, changed) == ["root", session.items[0].key]


def test_a_new_item_rebuilds_the_item_before_it_too() -> None:
    session = session_of([AssistantText(origin(1), text="Let me look around the code first.")])
    session.take_changes()
    session.apply(UserText(origin(2), text="go on"))
    assert session.take_changes() == [0, 1]


def test_a_subagents_call_rebuilds_its_parents_message() -> None:
    session = session_of([call("task"), AssistantText(origin(2), text="x" * 400)])
    session.take_changes()
    session.apply(call("child", t=3, parent_call="task"))
    assert session.take_changes() == [0]


def test_a_todo_update_rebuilds_the_todo_lists_message() -> None:
    todos = TodoUpdate(origin(1), todos=(Todo(content="a", status="pending"),))
    session = session_of([todos, call("a", t=2)])
    session.take_changes()
    session.apply(TodoUpdate(origin(3), todos=(Todo(content="a", status="completed"),)))
    assert session.take_changes() == [0]


def test_a_session_that_stops_running_rebuilds_the_messages_final_only_then() -> None:
    first = [call(f"c{n}") for n in range(4)] + [ok(f"c{n}") for n in range(4)]
    second = [call(f"d{n}") for n in range(4)] + [ok(f"d{n}") for n in range(3)]
    session = session_of([*first, *second, UserText(origin(3), text="and?")])
    session.take_changes()
    session.apply(TurnEnded(origin(4)))  # the group with a call still open, and the last item
    assert session.take_changes() == [1, 2]


def test_a_restored_session_builds_every_message() -> None:
    session = session_of([call("a")])
    session.take_changes()
    session.change_all()
    assert session.take_changes() is None


# --- building only what changed gives the channel that building everything gives ----------

TEXTS = ("Now let me run the tests.", "x" * 350, "```\ncode\n```", "Done: all good.")
CALL_IDS = tuple(f"c{n}" for n in range(8))
STEPS = st.lists(
    st.tuples(st.integers(0, 15), st.integers(0, 7), st.integers(0, 3)), max_size=60
)


def record_of(kind: int, a: int, b: int, t: float) -> Record | str:
    """One random step: a record, or "tick" (time passes: idle sessions, orphaned calls)."""
    call_id, parent = CALL_IDS[a], CALL_IDS[b] if b < 2 and b != a else None
    records: list[Record | str] = [
        call(call_id, t, parent),
        ok(call_id, t),
        ToolResult(origin(t), call_id=call_id, output="boom", is_error=True),
        ToolResult(origin(t), call_id=call_id, output="", interrupted=True),
        AssistantText(origin(t), text=TEXTS[b], delta=a % 2 == 0, message_id=f"m{a}"),
        UserText(origin(t), text=f"please do {a}"),
        Thinking(origin(t), text="hmm"),
        Notice(origin(t), kind="interrupted" if a == 0 else "hook", text="n"),
        TodoUpdate(origin(t), todos=(Todo(content=f"task {a}", status="in_progress"),)),
        Delegation(origin(t), call_id=call_id, member=f"m{b}", task="look"),
        SessionResult(origin(t), status=ResultStatus.SUCCEEDED, text=TEXTS[b]),
        TurnEnded(origin(t)),
        AgentExited(origin(t), code=a % 2),
        SessionStarted(origin(t), agent=f"agent {b}"),
        SubagentLink(origin(t, subagent=f"sub{b}"), agent_id=f"sub{b}", call_id=call_id),
        "tick",
    ]
    return records[kind]


def channel_of(session: Session) -> dict[str, tuple[Any, bool]]:
    return {m.key: (m.payload(), m.final) for m in thread_messages(session)}


@settings(max_examples=150, deadline=None)
@given(steps=STEPS, renders=st.lists(st.booleans(), min_size=60, max_size=60))
def test_building_only_the_changed_messages_gives_the_whole_thread(
    steps: list[tuple[int, int, int]], renders: list[bool]
) -> None:
    session = Session(SID, SessionSettings(tools_per_group=4, orphan_after_s=5, idle_after_s=5))
    channel: dict[str, tuple[Any, bool]] = {}
    for step, ((kind, a, b), render) in enumerate(zip(steps, renders, strict=False)):
        t = float(step)
        record = record_of(kind, a, b, t)
        if isinstance(record, str):
            session.tick(T0 + timedelta(seconds=t + 10))
        else:
            session.apply(record, T0 + timedelta(seconds=t))
        if render:
            for message in changed_messages(session, session.take_changes()):
                channel[message.key] = (message.payload(), message.final)
            assert channel == channel_of(session)
    walked = {status: 0 for status in session.tally}
    for state in session.calls.values():
        walked[state.status] += 1
    assert session.tally == walked  # the calls counted by status as they change


@settings(max_examples=50, deadline=None)
@given(steps=STEPS)
def test_building_only_the_changed_messages_holds_when_quiet(
    steps: list[tuple[int, int, int]],
) -> None:
    session = Session(SID, SessionSettings(verbosity=Verbosity.QUIET, tools_per_group=4))
    channel: dict[str, tuple[Any, bool]] = {}
    for step, (kind, a, b) in enumerate(steps):
        record = record_of(kind, a, b, float(step))
        if not isinstance(record, str):
            session.apply(record, T0 + timedelta(seconds=step))
        for message in changed_messages(session, session.take_changes()):
            channel[message.key] = (message.payload(), message.final)
        assert channel == channel_of(session)
    session.close(expects_result=False)
    for message in changed_messages(session, session.take_changes()):
        channel[message.key] = (message.payload(), message.final)
    assert channel == channel_of(session)


def test_a_session_that_stops_running_rebuilds_its_todo_lists_message() -> None:
    todos = TodoUpdate(origin(1), todos=(Todo(content="a", status="pending"),))
    session = session_of([todos, UserText(origin(2), text="go"), UserText(origin(3), text="on")])
    session.take_changes()
    session.apply(TurnEnded(origin(4)))
    assert session.take_changes() == [0, 2]
