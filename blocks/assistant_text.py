"""A batch of consecutive assistant text, its Markdown rendered as Slack mrkdwn."""

from __future__ import annotations

from blocks.markdown import to_mrkdwn
from blocks.message import Message
from blocks.sections import MessageBlocks
from blocks.text import safe_line, truncate_escaped
from bot.caps import TEXT_FALLBACK_LINE, TEXT_SHOWN
from bot.session.thread import TextBatch


def text_message(batch: TextBatch) -> Message:
    kept = batch.text  # read once: it is a property
    body = truncate_escaped(to_mrkdwn(kept), TEXT_SHOWN)
    blocks = MessageBlocks()
    blocks.mrkdwn_sections(body)
    if batch.size > len(kept):
        blocks.context(f"_… {batch.size - len(kept):,} more characters not shown_")
    text = safe_line(kept, TEXT_FALLBACK_LINE) or "(empty)"
    return Message(batch.key, text, blocks.fitted())
