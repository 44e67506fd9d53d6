"""The App Home of each person who opened it: the sessions this process follows
(``blocks.home``), published with ``views.publish``.

The app tells ``opened(user)`` when a person opens the Home tab (``bot.app.home``, in the app's
thread): they get the view as it last stood at once, and from then on every refresh. The
follower tells ``saw(session)`` of each session it renders and lets ``step()`` publish (in its
own thread): a changed Home is built again at most every ``HOME_EVERY_S``, and sent to each
viewer within views.publish's budget (Tier 4: 100+ a minute).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any, Final

from blocks.home import home_view
from blocks.status import SessionSurface
from bot.caps import HOME_SESSIONS
from bot.config import Settings
from bot.delivery.deliverer import Delivery
from bot.delivery.slack_api import SlackApi
from bot.delivery.status import PacedSurface
from bot.logs import EventLog

HOME_EVERY_S: Final = 5.0
PUBLISH_PER_MINUTE: Final = 90.0
KEPT: Final = 4 * HOME_SESSIONS  # sessions kept for the Home; past it, the oldest are counted

Link = Callable[[str, str], str]  # (channel, thread ts) -> the thread's address


def archive_link(team_url: str) -> Link:
    """Slack's permalink form, from the workspace's address (auth.test's ``url``)."""
    base = team_url if team_url.endswith("/") else team_url + "/"
    return lambda channel, ts: f"{base}archives/{channel}/p{ts.replace('.', '')}"


def page_link(page_url: str) -> Link:
    """The local Slack's page, scrolled to the message."""
    return lambda channel, ts: f"{page_url.split('#')[0]}#msg-{ts}"


def link_for(api: SlackApi, page_url: str | None = None) -> Link:
    """How the Home links a thread: on the local Slack's page (``page_url``), else Slack's
    permalink form from the workspace's address (known once ``api.check_auth`` ran)."""
    if page_url is not None:
        return page_link(page_url)
    return archive_link(api.team_url or "https://slack.com/")


class HomePublisher(PacedSurface):
    """The App Home of everyone who opened it, kept current."""

    surface = "app_home"

    def __init__(self, delivery: Delivery, link: Link, *, log: EventLog | None = None,
                 scale: float = 1.0) -> None:  # fmt: skip
        super().__init__(delivery, log, PUBLISH_PER_MINUTE, scale)
        self.link = link
        self.sessions: dict[str, SessionSurface] = {}
        self.dropped = 0  # sessions no longer kept here (counted as "older")
        self.changed = False
        self.built_at = float("-inf")
        self.view: dict[str, Any] | None = None  # the view as it last stood
        self._lock = threading.Lock()
        self.viewers: list[str] = []  # who opened the Home, in that order
        self.due: list[str] = []  # viewers whose Home is older than ``view``

    def opened(self, user: str) -> None:
        """``user`` opened the Home (called from the app's thread): the view as it stands now,
        then every refresh."""
        with self._lock:
            if user not in self.viewers:
                self.viewers.append(user)
            view = self.view
            if view is None and user not in self.due:
                self.due.append(user)
        if view is not None and self.on:
            self._publish(user, view)

    def saw(self, session: SessionSurface) -> None:
        if session.session_id not in self.sessions and len(self.sessions) >= KEPT:
            oldest = min(self.sessions.values(), key=lambda shown: shown.activity)
            del self.sessions[oldest.session_id]
            self.dropped += 1
        self.sessions[session.session_id] = session
        self.changed = True

    def step(self) -> None:
        now = self.delivery.clock()
        first = self.view is None and bool(self.due)  # someone waits for a first view
        if first or (self.changed and now - self.built_at >= HOME_EVERY_S / self.scale):
            self.built_at, self.changed = now, False
            view = home_view(list(self.sessions.values()), self._links(), more=self.dropped)
            with self._lock:
                self.view = view
                self.due = list(self.viewers)
        while self.on:
            with self._lock:
                if not self.due or self.view is None:
                    return
                user, view = self.due[0], self.view
            if not self._sent(partial(self.api.publish_home, user, view)):
                return
            with self._lock:
                if self.due and self.due[0] == user:
                    self.due.pop(0)

    def finish(self) -> None:
        self.built_at = float("-inf")  # the final state goes at once
        self._finishing(lambda: self.changed or bool(self.due))

    def _publish(self, user: str, view: dict[str, Any]) -> None:
        self._sent(partial(self.api.publish_home, user, view))

    def _links(self) -> dict[str, str]:
        links: dict[str, str] = {}
        for session_id in self.sessions:
            thread_ts = self._thread_of(session_id)
            if thread_ts is not None:
                links[session_id] = self.link(self.channel, thread_ts)
        return links


def home_for(settings: Settings, delivery: Delivery, log: EventLog,
             page_url: str | None = None) -> HomePublisher | None:  # fmt: skip
    """The App Home publisher, unless the settings turn it off. The app registers it
    (``bot.app.home.register_home``) and the follower is given it among its surfaces."""
    if not settings.app_home:
        return None
    link = link_for(delivery.api, page_url)
    return HomePublisher(delivery, link, log=log, scale=settings.rate_scale)

