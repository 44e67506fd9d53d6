"""What is said in a session, as its thread shows it: the agent's text (joined into text
batches, or a short remark in a tool group), its thinking, the person's turns, notices and
compactions; and its todo list. Each item added or changed is marked as changed
(``Session.add_item``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.caps import NARRATION_LIMIT, NOTICE_CAP, PROMPT_CAP, USER_TEXT_CAP
from bot.records import AssistantText, Compaction, Notice, Thinking, TodoUpdate, UserText
from bot.session.thread import (
    NoticeItem,
    TextBatch,
    TodoItem,
    ToolGroup,
    UserTurn,
)

if TYPE_CHECKING:
    from bot.session.state import Session



def assistant_text(session: Session, record: AssistantText, shown: bool) -> None:
    if not shown or session.parent_of(record) in session.calls:
        return
    if not record.delta and record.message_id is not None:
        said = (record.message_id, record.text)
        if said == session.said:  # the same line again (a shipper that sends twice)
            return
        session.said = said
    items = session.items
    last = items[-1] if items else None
    if isinstance(last, TextBatch) and not last.is_full:
        last.add(record.text, record.delta)
        session.last_said = last
        session.item_changed(len(items) - 1)
        return
    text = record.text.strip()
    remark = isinstance(last, ToolGroup) and not record.delta and "```" not in text
    if remark and last.add_remark(text, NARRATION_LIMIT):  # type: ignore[union-attr]
        session.last_said = last  # type: ignore[assignment]
        session.item_changed(len(items) - 1)
        return
    batch = TextBatch(session.new_key("text"))
    batch.add(record.text.lstrip("\n") if record.delta else record.text, record.delta)
    session.add_item(batch)
    session.last_said = batch


def thinking(session: Session, record: Thinking, shown: bool) -> None:
    if shown and session.parent_of(record) not in session.calls:
        text = record.text.strip()[:NOTICE_CAP]
        session.add_item(NoticeItem(session.new_key("thinking"), "thinking", text))


def user_text(session: Session, record: UserText, shown: bool) -> None:
    if session.parent_of(record) in session.calls:
        return
    text = record.text.strip()
    info = session.info
    if info.prompt is None and text and record.parent_call is None and not record.subagent:
        info.prompt = text[:PROMPT_CAP]
    if shown:
        session.add_item(UserTurn(session.new_key("user"), text[:USER_TEXT_CAP], len(text)))


def compaction(session: Session, record: Compaction, shown: bool) -> None:
    session.compactions += 1
    if not shown or session.parent_of(record) in session.calls:
        return
    details = ", ".join(
        part
        for part in (
            record.trigger,
            f"{record.pre_tokens:,} tokens before" if record.pre_tokens else None,
        )
        if part
    )
    text = "Context compacted" + (f" ({details})" if details else "")
    session.add_item(NoticeItem(session.new_key("notice"), "compaction", text))


def notice(session: Session, record: Notice, shown: bool) -> None:
    if shown and session.parent_of(record) not in session.calls:
        text = record.text.strip()[:NOTICE_CAP]
        session.add_item(NoticeItem(session.new_key("notice"), record.kind, text, record.level))


def todo_update(session: Session, record: TodoUpdate, shown: bool) -> None:
    if session.parent_of(record) in session.calls:
        return  # a subagent's own todo list is not the session's
    session.todos = record.todos
    if session.todo_at >= 0:
        session.item_changed(session.todo_at)
    elif shown:
        session.add_item(TodoItem())
        session.todo_at = len(session.items) - 1


def said_already(session: Session, answer: str) -> bool:
    """Whether a text message already shows the final ``answer`` (its result message then
    leaves it out). An answer said as a remark in a tool group is taken out of the group:
    the result message shows it, where a reader looks for the answer."""
    said, answer = session.last_said, answer.strip()
    if isinstance(said, TextBatch):
        return " ".join(said.text.split()).endswith(" ".join(answer.split()))
    if isinstance(said, ToolGroup) and said.take_remark(answer):
        items = session.items
        for index in range(len(items) - 1, -1, -1):
            if items[index] is said:
                session.item_changed(index)
                break
    return False
