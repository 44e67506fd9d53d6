"""The App Home: the sessions slacktail follows, newest first, each with its status, agent,
title (or first prompt), last activity and a link to its thread; the rest counted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from blocks.figures import SESSION_EMOJI, SESSION_WORD, plural, slack_date
from blocks.message import Block
from blocks.sections import context, header, section
from blocks.status import doing_now
from blocks.text import escape_mrkdwn, safe_line
from bot.session import Session

HOME_SESSIONS: Final = 45  # two blocks each: with the header and the count, under Slack's 100
TITLE_LIMIT: Final = 120
DOING_LIMIT: Final = 150


def home_view(sessions: Sequence[Session], links: Mapping[str, str], *,
              more: int = 0) -> dict[str, Any]:  # fmt: skip
    """The Home tab's view: ``sessions`` newest first (at most ``HOME_SESSIONS`` of them),
    ``links`` the thread of each session posted (by session id), ``more`` sessions followed
    besides ``sessions``."""
    newest = sorted(sessions, key=_last_activity, reverse=True)
    shown = newest[:HOME_SESSIONS]
    hidden = len(newest) - len(shown) + more
    running = 0
    for session in newest:
        if doing_now(session):
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


def _last_activity(session: Session) -> float:
    """A sort key: the time of the session's newest record (0: none yet)."""
    last = session.last_at or session.last_seen
    return 0.0 if last is None else last.timestamp()


def _headline(session: Session, link: str | None) -> str:
    info = session.info
    title = info.title or info.prompt or session.session_id
    shown = safe_line(title, TITLE_LIMIT) or escape_mrkdwn(session.session_id)
    named = f"<{link}|{shown.replace('|', '¦')}>" if link else shown
    word = SESSION_WORD[session.status]
    return f"{SESSION_EMOJI[session.status]} *{named}*\n{word}"


def _details(session: Session) -> str:
    info = session.info
    parts = [safe_line(info.agent, 60)] if info.agent else []
    doing = doing_now(session)
    if doing:
        parts.append(safe_line(doing, DOING_LIMIT))
    calls = len(session.calls)
    parts.append(plural(calls, "tool call"))
    last = session.last_at or session.last_seen
    if last is not None:
        parts.append(f"last activity {slack_date(last)}")
    return " · ".join(parts)
