"""A notice (compaction, hook, command, API error, interruption), a user turn, or a thought."""

from __future__ import annotations

from typing import Final

from blocks.markdown import to_mrkdwn
from blocks.message import Message
from blocks.sections import MessageBlocks
from blocks.text import safe_line, truncate_escaped
from bot.caps import FALLBACK_LINE, NOTICE_LABEL_SHOWN, NOTICE_SHOWN, USER_TEXT_SHOWN
from bot.session.thread import NoticeItem, UserTurn

_LEVEL_EMOJI: Final = {"info": "ℹ️", "warning": "⚠️", "error": "🛑"}
_KIND_EMOJI: Final = {
    "compaction": "🗜️", "thinking": "💭", "interrupted": "✋", "subagent_prompt": "📨",
    "task_notification": "🔔", "hook_feedback": "🪝",
}  # fmt: skip


def notice_message(item: NoticeItem) -> Message:
    emoji = _KIND_EMOJI.get(item.kind) or _LEVEL_EMOJI.get(item.level, "ℹ️")
    body = safe_line(item.text, NOTICE_SHOWN) if item.kind != "thinking" else ""
    if item.kind == "thinking":
        body = "_" + safe_line(item.text, NOTICE_SHOWN) + "_"
    label = item.kind.replace("_", " ")
    blocks = MessageBlocks()
    blocks.context(f"{emoji} *{safe_line(label, NOTICE_LABEL_SHOWN)}*", body)
    text = safe_line(f"{label}: {item.text}", FALLBACK_LINE)
    return Message(item.key, text, blocks.fitted())


def user_message(item: UserTurn) -> Message:
    body = truncate_escaped(to_mrkdwn(item.text), USER_TEXT_SHOWN)
    blocks = MessageBlocks()
    blocks.context("👤 *User*")
    blocks.mrkdwn_sections(body)
    if item.size > len(item.text):
        blocks.context(f"_… {item.size - len(item.text):,} more characters not shown_")
    text = safe_line(f"User: {item.text}", FALLBACK_LINE)
    return Message(item.key, text, blocks.fitted())
