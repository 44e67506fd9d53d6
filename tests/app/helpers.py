"""A Bolt app of slacktail's controls against the local Slack, by either transport."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from slack_sdk import WebClient

from bot.app.access import Access
from bot.app.serving import HttpTransport, SocketModeTransport, bolt_app
from bot.app.slack_app import FINISHED, RUNNING, ControlsApp
from bot.controls import Click, Control, Outcome
from bot.localslack import LocalSlack
from bot.logs import EventLog

BOT_TOKEN = "xoxb-test-app-token-1234"
APP_TOKEN = "xapp-1-A0LOCALAPP-1-test-app-token"
SECRET = "local-signing-secret-for-tests"


@dataclass
class Followed:
    """The sessions a process follows: session -> RUNNING | FINISHED; thread ts -> session."""

    states: dict[str, str] = field(default_factory=dict)
    threads: dict[str, str] = field(default_factory=dict)

    def state_of(self, session: str) -> str | None:
        return self.states.get(session)

    def session_of_thread(self, thread_ts: str) -> str | None:
        return self.threads.get(thread_ts)


@dataclass
class Recorder:
    """A control that keeps the clicks it carries out."""

    clicks: list[Click] = field(default_factory=list)

    def __call__(self, click: Click) -> Outcome:
        self.clicks.append(click)
        return Outcome(True)


@contextmanager
def controls_app(
    slack: LocalSlack, transport: str, controls: dict[str, Control], followed: Followed,
    access: Access, log: EventLog | None = None,
) -> Iterator[ControlsApp]:  # fmt: skip
    """The app connected to ``slack`` by ``transport`` ("socket_mode" or "http")."""
    client = WebClient(token=BOT_TOKEN, base_url=slack.base_url, retry_handlers=[], timeout=10)
    secret = SECRET if transport == "http" else None
    app = ControlsApp(bolt_app(client, secret), access, controls, followed, log or EventLog(None))
    if transport == "http":
        http = HttpTransport(app.bolt, 0, "127.0.0.1")
        slack.configure_app(request_url=http.url, signing_secret=SECRET, app_token="")
        running: HttpTransport | SocketModeTransport = http
    else:
        slack.configure_app(app_token=APP_TOKEN, request_url="")
        running = SocketModeTransport(app.bolt, APP_TOKEN)
    opened = slack.socket_mode.opened
    running.start()
    if transport != "http":
        assert slack.wait_for(lambda: slack.socket_mode.opened > opened, 10)
    try:
        yield app
    finally:
        running.close()
        if app.owners is not None:
            app.owners.close()


__all__ = ["FINISHED", "RUNNING"]
