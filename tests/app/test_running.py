"""The follower's sessions as the app sees them, and when the app runs at all."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bot.app.running import FollowedSessions, receiving
from bot.app.slack_app import FINISHED, RUNNING
from bot.config import load_settings
from bot.session import SessionStatus


@dataclass
class Shown:
    status: SessionStatus


@dataclass
class Sent:
    ts: str


def test_a_session_is_running_finished_or_not_followed_here() -> None:
    sessions = FollowedSessions({"a": Shown(SessionStatus.IDLE), "b": Shown(SessionStatus.STOPPED)},
                                {})  # fmt: skip
    assert [sessions.state_of(s) for s in ("a", "b", "c")] == [RUNNING, FINISHED, None]


def test_a_session_retired_to_the_store_is_finished_not_unfollowed() -> None:
    sessions = FollowedSessions({}, {}, retired=lambda session: session == "old")
    assert [sessions.state_of(s) for s in ("old", "other")] == [FINISHED, None]


def test_a_thread_is_found_by_its_roots_ts() -> None:
    sent = {("a", "root"): Sent("1.1"), ("a", "text:1"): Sent("1.2"), ("b", "root"): Sent("2.1")}
    sessions = FollowedSessions({}, sent)
    assert [sessions.session_of_thread(ts) for ts in ("2.1", "1.2")] == ["b", None]


def test_without_an_app_token_or_a_signing_secret_and_port_there_is_no_app(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET"):
        monkeypatch.delenv(name, raising=False)
    assert receiving(load_settings({"http_port": 3000})) is None
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "s")
    how = receiving(load_settings({"http_port": 3000}))
    assert how is not None
    assert (how.http_port, how.signing_secret, how.app_token) == (3000, "s", None)
