"""The agent's todo checklist, one message updated in place as the list changes."""

from __future__ import annotations

from typing import Final

from blocks.message import Message
from blocks.sections import MessageBlocks
from blocks.text import escape_mrkdwn, safe_line
from bot.caps import TODOS_SHOWN
from bot.records import Todo
from bot.session import Session

_MARK: Final = {"completed": "✅", "in_progress": "🔄", "pending": "⬜", "cancelled": "🚫"}


def todo_line(todo: Todo) -> str:
    mark = _MARK.get(todo.status, "▫️")
    content = safe_line(todo.content, 300)
    if todo.status == "completed":
        return f"{mark} ~{content}~"
    if todo.status == "in_progress":
        doing = safe_line(todo.active_form or todo.content, 300)
        return f"{mark} *{doing}*"
    priority = f" _({escape_mrkdwn(todo.priority)})_" if todo.priority else ""
    return f"{mark} {content}{priority}"


def todos_message(key: str, session: Session) -> Message:
    todos = session.todos
    done = sum(1 for todo in todos if todo.status == "completed")
    lines = [todo_line(todo) for todo in todos[:TODOS_SHOWN]]
    if len(todos) > TODOS_SHOWN:
        lines.append(f"_… {len(todos) - TODOS_SHOWN} more_")
    progress = f"{done}/{len(todos)} done"
    blocks = MessageBlocks()
    blocks.context(f"📝 *Todo list* · {progress}")
    blocks.mrkdwn_sections("\n".join(lines) or "_(empty list)_")
    return Message(key, f"Todo list: {progress}", blocks.fitted())
