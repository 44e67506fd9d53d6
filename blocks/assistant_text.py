"""A batch of consecutive assistant text, its Markdown rendered as Slack mrkdwn."""

from __future__ import annotations

from blocks.fit import fitted
from blocks.markdown import to_mrkdwn
from blocks.message import Message
from blocks.sections import context, mrkdwn_sections
from blocks.text import safe_line, truncate_escaped
from bot.session.thread import TextBatch

BODY_LIMIT = 9000


def text_message(batch: TextBatch) -> Message:
    body = truncate_escaped(to_mrkdwn(batch.text), BODY_LIMIT)
    blocks = mrkdwn_sections(body)
    if batch.size > len(batch.text):
        blocks.append(context(f"_… {batch.size - len(batch.text):,} more characters not shown_"))
    text = safe_line(batch.text, 280) or "(empty)"
    return Message(batch.key, text, fitted(blocks))
