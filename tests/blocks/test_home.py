"""The App Home's view: the newest sessions first, within Slack's limits for a Home view, the
rest counted; each session's title, status, what it does now and a link to its thread."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson

from blocks.home import home_view
from blocks.status import surface_of
from bot.caps import HOME_SESSIONS
from bot.localslack.limits_views import view_errors
from bot.records import Origin, UserText
from bot.session import Session


def test_the_home_shows_the_newest_sessions_within_slacks_limits_and_counts_the_rest() -> None:
    sessions = []
    for n in range(HOME_SESSIONS + 12):
        session = Session(f"s{n}")
        session.apply(UserText(Origin(f"s{n}", None, 1), text=f"task {n} |<b>"),
                      now=_at(n))  # fmt: skip
        sessions.append(session)
    link = {"s3": "https://example.slack.com/archives/C1/p1"}
    view = home_view([surface_of(s) for s in sessions], link, more=3)
    assert view_errors(view, ("home",)) is None
    text = orjson.dumps(view).decode()
    assert f"task {HOME_SESSIONS + 11} " in text and "task 0 " not in text  # newest first
    assert "15 older sessions" in text


def test_a_linked_title_cannot_break_out_of_its_link() -> None:
    session = Session("s1")
    session.apply(UserText(Origin("s1", None, 1), text="a|b <https://evil.example|x>"), now=_at(1))
    (headline,) = [b for b in home_view([surface_of(session)], {"s1": "https://x.slack.com/archives/C/p1"})["blocks"]
                   if b["type"] == "section"]  # fmt: skip
    text = headline["text"]["text"]
    assert text.count("<") == 1 and text.count("|") == 1
    assert text.startswith("⏳ *<https://x.slack.com/archives/C/p1|")


def test_an_empty_home_says_sessions_appear_as_they_are_read() -> None:
    view = home_view([], {})
    assert view_errors(view, ("home",)) is None
    assert "No session yet" in orjson.dumps(view).decode()


def _at(n: int) -> datetime:
    return datetime(2026, 11, 24, 10, 0, tzinfo=UTC) + timedelta(minutes=n)
