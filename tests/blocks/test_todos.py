"""The todo list as a plan of task cards (the plan-blocks setting), checked by the local
Slack's own limits; by default it stays a checklist of text lines."""

from __future__ import annotations

from datetime import UTC, datetime

from blocks.thread import thread_messages
from blocks.todos import todos_message
from bot.caps import TASK_TITLE_LIMIT, TODOS_SHOWN
from bot.localslack.limits import message_errors
from bot.records import Origin, Todo, TodoUpdate
from bot.session import Session

T = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)


def session_with(*todos: Todo) -> Session:
    session = Session("s1")
    session.apply(TodoUpdate(Origin("s1", T, 1), todos=todos))
    return session


def test_each_todo_becomes_a_task_card_with_slacks_status() -> None:
    session = session_with(Todo("Read the code", "completed"),
                           Todo("Fix the bug", "in_progress", active_form="Fixing the bug"),
                           Todo("Write tests", "pending"), Todo("Ship", "cancelled"),
                           Todo("Odd", "blocked"))  # fmt: skip
    message = todos_message("todos", session, plan=True)
    (plan,) = message.blocks
    assert plan["type"] == "plan" and plan["title"] == "Todo list · 1/5 done"
    cards = [(t["title"], t["status"]) for t in plan["tasks"]]
    assert cards == [("Read the code", "complete"), ("Fixing the bug", "in_progress"),
                     ("Write tests", "pending"), ("(cancelled) Ship", "complete"),
                     ("Odd", "pending")]  # fmt: skip
    assert len({t["task_id"] for t in plan["tasks"]}) == 5
    assert message.text == "Todo list: 1/5 done"
    assert message_errors(list(message.blocks)) is None


def test_a_long_list_of_long_todos_fits_and_says_how_many_more() -> None:
    todos = [Todo("x" * 5000 + f" {i}\nsecond line", "pending") for i in range(TODOS_SHOWN + 7)]
    message = todos_message("todos", session_with(*todos), plan=True)
    plan, more = message.blocks
    assert len(plan["tasks"]) == TODOS_SHOWN
    assert all(len(t["title"]) <= TASK_TITLE_LIMIT and "\n" not in t["title"]
               for t in plan["tasks"])  # fmt: skip
    assert "7 more" in more["elements"][0]["text"]
    assert message_errors(list(message.blocks)) is None


def test_an_empty_list_is_said_without_an_empty_plan() -> None:
    message = todos_message("todos", session_with(), plan=True)
    assert [b["type"] for b in message.blocks] == ["context"]
    assert message_errors(list(message.blocks)) is None


def test_the_thread_shows_a_checklist_unless_plan_blocks_are_asked_for() -> None:
    session = session_with(Todo("a", "completed"), Todo("b", "pending"))
    default = {m.key: m for m in thread_messages(session)}
    planned = {m.key: m for m in thread_messages(session, None, plan=True)}
    todo_key = next(key for key in default if key.startswith("todo"))
    assert "plan" not in [b["type"] for b in default[todo_key].blocks]
    assert [b["type"] for b in planned[todo_key].blocks] == ["plan"]
    assert [m.payload() for k, m in default.items() if k != todo_key] == [
        m.payload() for k, m in planned.items() if k != todo_key
    ]


def test_the_local_slack_takes_a_plan_message_as_posted() -> None:
    from bot.delivery import SlackApi
    from bot.localslack import LocalSlack

    session = session_with(Todo("a", "completed"), Todo("b", "in_progress", active_form="Doing b"))
    payload = todos_message("todos", session, plan=True).payload()
    with LocalSlack(token="xoxb-plan") as slack:
        api = SlackApi("xoxb-plan", slack.base_url)
        ts = api.post(slack.channel_id(), payload, thread_ts=None, key={"session": "s1"})
        (posted,) = slack.channel_messages()
        assert posted["ts"] == ts and posted["blocks"][0]["type"] == "plan"
        assert [t["status"] for t in posted["blocks"][0]["tasks"]] == ["complete", "in_progress"]
