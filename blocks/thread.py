"""A session's whole thread as desired messages: the root first, then its replies in order."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from blocks.assistant_text import text_message
from blocks.delegation import delegation_message
from blocks.message import Message
from blocks.notice import notice_message, user_message
from blocks.result import result_message
from blocks.root import root_message
from blocks.todos import todos_message
from blocks.tools import tools_message
from bot.session import Session, SessionStatus
from bot.session.thread import (
    DelegationItem,
    NoticeItem,
    ResultItem,
    TextBatch,
    ThreadItem,
    TodoItem,
    ToolGroup,
    UserTurn,
)
from bot.session.tool_calls import OPEN_STATUSES


def item_message(item: ThreadItem, session: Session, plan: bool = False) -> Message:
    if isinstance(item, TextBatch):
        return text_message(item)
    if isinstance(item, ToolGroup):
        return tools_message(item, session)
    if isinstance(item, NoticeItem):
        return notice_message(item)
    if isinstance(item, UserTurn):
        return user_message(item)
    if isinstance(item, TodoItem):
        return todos_message(item.key, session, plan)
    if isinstance(item, DelegationItem):
        return delegation_message(item, session)
    if isinstance(item, ResultItem):
        return result_message(item)
    raise TypeError(f"no message for {type(item).__name__}")


def thread_messages(
    session: Session, now: datetime | None = None, plan: bool = False
) -> list[Message]:
    """The root message, then one message per thread item, in order; each marked final when
    it will not change again. ``plan``: the todo list as a plan of task cards."""
    ended = session.status is not SessionStatus.RUNNING
    last = session.items[-1] if session.items else None
    messages = [_final(root_message(session, now), ended)]
    for item in session.items:
        settled = ended or _settled(item, session, last)
        messages.append(_final(item_message(item, session, plan), settled))
    return messages


def changed_messages(
    session: Session, changed: list[int] | None, now: datetime | None = None, plan: bool = False
) -> Iterator[Message]:
    """The messages of the thread that may have changed: the root, then the messages of the
    ``changed`` items (their indices in order, as ``Session.take_changes`` gives them; ``None``:
    every item). What the others show is what they showed when last built. Built one at a
    time, as they are taken: a long thread is never held whole. ``plan``: as ``thread_messages``."""
    ended = session.status is not SessionStatus.RUNNING
    items = session.items
    last = items[-1] if items else None
    yield _final(root_message(session, now), ended)
    for index in range(len(items)) if changed is None else changed:
        item = items[index]
        settled = ended or _settled(item, session, last)
        yield _final(item_message(item, session, plan), settled)


def _final(message: Message, final: bool) -> Message:
    """``message``, just built and held by nobody else, marked final or not (in place: a
    copy would build every message twice)."""
    message.final = final
    return message


def _settled(item: ThreadItem, session: Session, last: ThreadItem | None) -> bool:
    """Will this item's message change again while the session runs?"""
    if isinstance(item, ToolGroup):
        return item is not last and not _any_open(item, session)
    if isinstance(item, DelegationItem):
        return session.calls[item.call_id].status not in OPEN_STATUSES
    if isinstance(item, TextBatch):
        return item is not last
    return not isinstance(item, TodoItem)


def _any_open(group: ToolGroup, session: Session) -> bool:
    """Is any call of the group still open? (One walk over its entries; the status is looked
    up in `OPEN_STATUSES` directly, as `ToolStatus.is_open` is interpreted code.)"""
    for entry in group.entries:
        if isinstance(entry, str) and session.calls[entry].status in OPEN_STATUSES:
            return True
    return False
