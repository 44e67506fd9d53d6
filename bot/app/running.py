"""The app beside the follower of ``follow`` and ``run``: started when slacktail can receive
clicks (``SLACK_APP_TOKEN``, or ``SLACK_SIGNING_SECRET`` with ``--http-port``; always on the
embedded local Slack, with a made-up app token), stopped with the follower. A failure to start
is one line on stderr and an ``app_failed`` event: posting goes on, the controls do not work."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot import events
from bot.app.access import Access, Members
from bot.app.home import register_home
from bot.app.owners import sockets_dir
from bot.app.serving import HttpTransport, SocketModeTransport, bolt_app
from bot.app.slack_app import FINISHED, RUNNING, ControlsApp
from bot.config import Settings
from bot.controls import (
    APPROVE,
    DENY,
    FULL_OUTPUT,
    FULL_OUTPUT_NEXT,
    FULL_OUTPUT_PREVIOUS,
    STOP,
    Control,
)
from bot.delivery.home import HomePublisher
from bot.logs import EventLog
from bot.session import SessionStatus

_ENDED = (SessionStatus.SUCCEEDED, SessionStatus.FAILED, SessionStatus.STOPPED)


@dataclass(frozen=True)
class Receiving:
    """How the app receives clicks: an app token (Socket Mode), else an HTTP port with the
    signing secret; ``allowed``: people allowed besides the settings' (the local user)."""

    app_token: str | None = None
    http_port: int | None = None
    http_host: str = "127.0.0.1"
    signing_secret: str | None = None
    allowed: tuple[str, ...] = ()


def receiving(settings: Settings) -> Receiving | None:
    """How slacktail receives clicks in a real workspace; None: it does not (no controls)."""
    secret = settings.slack_signing_secret
    if not settings.receives_clicks:
        return None
    if settings.slack_app_token is not None:
        return Receiving(app_token=settings.slack_app_token.get_secret_value())
    if secret is not None and settings.http_port is not None:
        return Receiving(http_port=settings.http_port, http_host=settings.http_host,
                         signing_secret=secret.get_secret_value())  # fmt: skip
    return None


def controls_for(
    stop: Control | None = None, *, approvals: Control | None = None,
    full_output: Control | None = None,
) -> dict[str, Control]:  # fmt: skip
    """The controls this slacktail carries out, by action id (an id missing here is answered
    "not available"). Stop only for ``run``, which has an agent to stop."""
    controls: dict[str, Control] = {}
    if stop is not None:
        controls[STOP] = stop
    if approvals is not None:
        controls[APPROVE] = controls[DENY] = approvals
    if full_output is not None:  # the button, and the page turns in its modal
        for action in (FULL_OUTPUT, FULL_OUTPUT_PREVIOUS, FULL_OUTPUT_NEXT):
            controls[action] = full_output
    return controls


Threads = Mapping[str, Mapping[str, object]]  # the ledger's threads: session -> key -> sent


class FollowedSessions:
    """The follower's sessions as the app asks about them (from the app's threads: reads of
    dicts the follower's thread changes, each a single look-up or a copy)."""

    def __init__(self, sessions: Mapping[str, object], threads: Threads,
                 retired: Callable[[str], bool] | None = None) -> None:  # fmt: skip
        self.sessions, self.threads = sessions, threads
        self.retired = retired  # whether a session not in memory was retired to the store

    def state_of(self, session: str) -> str | None:
        found = self.sessions.get(session)
        if found is None:  # a retired session ended; Full output still reads it from the store
            return FINISHED if self.retired is not None and self.retired(session) else None
        return FINISHED if getattr(found, "status", None) in _ENDED else RUNNING

    def session_of_thread(self, thread_ts: str) -> str | None:
        for session, thread in list(self.threads.items()):
            if getattr(thread.get("root"), "ts", None) == thread_ts:
                return str(session)
        return None


@contextmanager
def app_beside(
    settings: Settings, how: Receiving | None, client: WebClient, sessions: FollowedSessions,
    controls: dict[str, Control], log: EventLog, *, state_dir: Path | None = None,
    homes: Sequence[HomePublisher] = (),
) -> Iterator[ControlsApp | None]:  # fmt: skip
    """The app, receiving clicks (and people opening its Home, for ``homes``) while the block
    runs (None when it cannot)."""
    if how is None:
        yield None
        return
    access = Access((*settings.allow_users, *how.allowed), members=_members(client)
                    if settings.allow_channel_members else None)  # fmt: skip
    app = ControlsApp(bolt_app(client, how.signing_secret), access, controls, sessions, log)
    for home in homes:
        register_home(app.bolt, home)
    transport: SocketModeTransport | HttpTransport | None = None
    try:
        if state_dir is not None:  # first: a click handed over finds this process listening
            app.share(sockets_dir(state_dir))
        if how.app_token is not None:
            transport = SocketModeTransport(app.bolt, how.app_token)
        else:
            transport = HttpTransport(app.bolt, how.http_port or 0, how.http_host)
        transport.start()
    except (OSError, SlackClientError) as error:
        if app.owners is not None:
            app.owners.close()
        _failed(log, error)
        yield None
        return
    log.event(events.AppConnected(transport.transport, transport.url))
    if not access.anyone_allowed:
        print("slacktail: nobody may use the controls yet: allow people with --allow-user "
              "USER_ID or --allow-channel-members", file=sys.stderr)  # fmt: skip
    try:
        yield app
    finally:
        transport.close()
        if app.owners is not None:
            app.owners.close()


def _members(client: WebClient) -> Members:
    def members(channel: str) -> list[str]:
        found: list[str] = []
        for page in client.conversations_members(channel=channel, limit=1000):
            found.extend(str(user) for user in page.get("members") or [])
        return found

    return members


def _failed(log: EventLog, error: BaseException) -> None:
    what = error.response.get("error") if isinstance(error, SlackApiError) else None
    said = f"{type(error).__name__}: {what or error}"[:300]
    print(f"slacktail: the app cannot receive clicks ({said}); posting goes on without the "
          "controls", file=sys.stderr)  # fmt: skip
    log.event(events.AppFailed(said))
