"""The App Home: the sessions slacktail follows, newest first, each with its status, agent,
title (or first prompt), last activity and a link to its thread; the rest counted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from blocks.figures import SESSION_EMOJI, SESSION_WORD, plural, slack_date
from blocks.message import Block
from blocks.sections import context, header, section
from blocks.status import SessionSurface
from blocks.text import escape_mrkdwn, safe_line
from bot.caps import AGENT_SHOWN, HOME_DOING_SHOWN, HOME_SESSIONS, HOME_TITLE_SHOWN


def home_view(sessions: Sequence[SessionSurface], links: Mapping[str, str], *,
              more: int = 0) -> dict[str, Any]:  # fmt: skip
    """The Home tab's view: ``sessions`` newest first (at most ``HOME_SESSIONS`` of them),
    ``links`` the thread of each session posted (by session id), ``more`` sessions followed
    besides ``sessions``."""
    newest = sorted(sessions, key=lambda shown: shown.activity, reverse=True)
    shown = newest[:HOME_SESSIONS]
    hidden = len(newest) - len(shown) + more
    running = 0
    for session in newest:
        if session.doing:
            running += 1
    total = len(newest) + more
    blocks: list[Block] = [header("Sessions slacktail follows")]
    blocks.append(context(f"{plural(total, 'session')} · {running} running now"
                          if total else "_No session yet: they appear here as their logs "
                          "are read._"))  # fmt: skip
    for session in shown:
        blocks.append(section(_headline(session, links.get(session.session_id))))
        blocks.append(context(_details(session)))
    if hidden:
        blocks.append(context(f"_… and {plural(hidden, 'older session')}_"))
    return {"type": "home", "blocks": blocks}


def _headline(session: SessionSurface, link: str | None) -> str:
    title = session.title or session.session_id
    shown = safe_line(title, HOME_TITLE_SHOWN) or escape_mrkdwn(session.session_id)
    named = f"<{link}|{shown.replace('|', '¦')}>" if link else shown
    word = SESSION_WORD[session.status]
    return f"{SESSION_EMOJI[session.status]} *{named}*\n{word}"


def _details(session: SessionSurface) -> str:
    parts = [safe_line(session.agent, AGENT_SHOWN)] if session.agent else []
    if session.doing:
        parts.append(safe_line(session.doing, HOME_DOING_SHOWN))
    parts.append(plural(session.calls, "tool call"))
    if session.last is not None:
        parts.append(f"last activity {slack_date(session.last)}")
    return " · ".join(parts)
