"""The agent's todo checklist, one message updated in place as the list changes: lines of
text, or (``plan``: the plan-blocks setting) a ``plan`` block of ``task_card``s."""

from __future__ import annotations

from typing import Final

from blocks.message import Block, Message
from blocks.sections import MessageBlocks, context
from blocks.text import escape_mrkdwn, one_line, safe_line
from bot.caps import TASK_TITLE_LIMIT, TODO_SHOWN, TODOS_SHOWN
from bot.records import Todo
from bot.session import Session

_MARK: Final = {"completed": "✅", "in_progress": "🔄", "pending": "⬜", "cancelled": "🚫"}
# A todo's status -> its task card's (a card is pending, in_progress, complete or error).
_TASK_STATUS: Final = {
    "completed": "complete", "in_progress": "in_progress", "cancelled": "complete",
}  # fmt: skip


def todo_line(todo: Todo) -> str:
    mark = _MARK.get(todo.status, "▫️")
    content = safe_line(todo.content, TODO_SHOWN)
    if todo.status == "completed":
        return f"{mark} ~{content}~"
    if todo.status == "in_progress":
        doing = safe_line(todo.active_form or todo.content, TODO_SHOWN)
        return f"{mark} *{doing}*"
    priority = f" _({escape_mrkdwn(todo.priority)})_" if todo.priority else ""
    return f"{mark} {content}{priority}"


def task_card(index: int, todo: Todo) -> Block:
    """One todo as a task card: what is being done while it is in progress; a cancelled one
    is complete, its title saying it was cancelled (a card has no such status)."""
    title = todo.active_form if todo.status == "in_progress" and todo.active_form else todo.content
    if todo.status == "cancelled":
        title = "(cancelled) " + title
    return {"type": "task_card", "task_id": f"todo-{index}",
            "title": one_line(title, TASK_TITLE_LIMIT) or "…",
            "status": _TASK_STATUS.get(todo.status, "pending")}  # fmt: skip


def todos_message(key: str, session: Session, plan: bool = False) -> Message:
    todos = session.todos
    done = sum(1 for todo in todos if todo.status == "completed")
    if plan:
        return _plan_message(key, todos, done)
    lines = [todo_line(todo) for todo in todos[:TODOS_SHOWN]]
    if len(todos) > TODOS_SHOWN:
        lines.append(f"_… {len(todos) - TODOS_SHOWN} more_")
    progress = f"{done}/{len(todos)} done"
    blocks = MessageBlocks()
    blocks.context(f"📝 *Todo list* · {progress}")
    blocks.mrkdwn_sections("\n".join(lines) or "_(empty list)_")
    return Message(key, f"Todo list: {progress}", blocks.fitted())


def _plan_message(key: str, todos: tuple[Todo, ...], done: int) -> Message:
    progress = f"{done}/{len(todos)} done"
    shown = todos[:TODOS_SHOWN]
    tasks = [task_card(index, todo) for index, todo in enumerate(shown)]
    blocks: list[Block] = []
    if tasks:
        blocks.append({"type": "plan", "title": f"Todo list · {progress}", "tasks": tasks})
    else:
        blocks.append(context("📝 *Todo list* · _(empty list)_"))
    if len(todos) > TODOS_SHOWN:
        blocks.append(context(f"_… {len(todos) - TODOS_SHOWN} more_"))
    return Message(key, f"Todo list: {progress}", tuple(blocks))
