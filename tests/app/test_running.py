"""The follower's sessions as the app sees them, and when the app runs at all."""

from __future__ import annotations

import io
import socket
from dataclasses import dataclass

import orjson
import pytest
from slack_sdk import WebClient

from bot.app.running import FollowedSessions, app_beside, receiving
from bot.app.serving import HttpTransport, bolt_app
from bot.app.slack_app import FINISHED, RUNNING
from bot.config import load_settings
from bot.logs import EventLog
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
    threads = {"a": {"root": Sent("1.1"), "text:1": Sent("1.2")}, "b": {"root": Sent("2.1")}}
    sessions = FollowedSessions({}, threads)
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


def test_the_http_address_is_loopback_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "s")
    monkeypatch.delenv("SLACK_APP_TOKEN", raising=False)
    monkeypatch.delenv("SLACKTAIL_HTTP_HOST", raising=False)
    how = receiving(load_settings({"http_port": 3000}))
    assert how is not None and how.http_host == "127.0.0.1"
    monkeypatch.setenv("SLACKTAIL_HTTP_HOST", "0.0.0.0")
    how = receiving(load_settings({"http_port": 3000}))
    assert how is not None and how.http_host == "0.0.0.0"
    how = receiving(load_settings({"http_port": 3000, "http_host": "::1"}))
    assert how is not None and how.http_host == "::1"


def test_the_http_server_listens_on_the_address_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "s")
    monkeypatch.delenv("SLACK_APP_TOKEN", raising=False)
    settings = load_settings({"http_port": 0, "http_host": "127.0.0.1"})
    stream = io.StringIO()
    client = WebClient(token="xoxb-unused", base_url="http://127.0.0.1:9/api/")
    with app_beside(settings, receiving(settings), client, FollowedSessions({}, {}), {},
                    EventLog(stream)) as app:  # fmt: skip
        assert app is not None
        (event,) = [orjson.loads(line) for line in stream.getvalue().splitlines()]
        url = event["url"]
        assert event["event"] == "app_connected" and url.startswith("http://127.0.0.1:")
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # it listens there


def test_the_http_server_binds_loopback_by_default() -> None:
    bolt = bolt_app(WebClient(token="xoxb-unused"), "s")
    transport = HttpTransport(bolt, 0)
    try:
        assert transport.server.server_address[0] == "127.0.0.1"
    finally:
        transport.close()
