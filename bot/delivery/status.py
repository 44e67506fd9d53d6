"""The lines under the threads: what each running session is doing now, shown with
``assistant.threads.setStatus``; and, where the app is declared an agent, each thread's agent
session (``agents.sessions.setStatus``: Slack's own Stop button while it is processing).

The follower tells these surfaces of every session it renders (``saw``) and lets them send once
a loop turn (``step``); ``finish`` sends what is left (cleared lines, closed sessions).

Slack clears a status after two minutes without a post, and at the app's next post in the
thread: a still-true status is sent again ``STATUS_REFRESH_S`` after it was set, and soon after
a post into its thread (``Delivery.posted``). A thread's status changes at most every
``STATUS_GAP_S`` (Slack: about 60 a minute per thread), and all threads share a budget (the
unit of Slack's limit is not documented). A refusal (a scope missing, the method not allowed
for this app) turns the surface off for the run, with one ``surface_off`` event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Final, Protocol

from blocks.status import agent_state, doing_now
from blocks.text import one_line
from bot import events
from bot.config import Settings
from bot.delivery.deliverer import Delivery
from bot.delivery.pacing import Bucket
from bot.errors import (
    RateLimited,
    SlackCallFailed,
    SlackSetupError,
    SlackUnavailable,
    ThreadGone,
)
from bot.logs import EventLog
from bot.session import Session

STATUS_GAP_S: Final = 2.0
STATUS_REFRESH_S: Final = 90.0  # Slack clears a status after 120 s without a post
STATUS_LAPSE_S: Final = 120.0
STATUS_PER_MINUTE: Final = 48.0
SESSIONS_PER_MINUTE: Final = 48.0  # agents.sessions.setStatus: Tier 3
TITLE_LIMIT: Final = 200
FINISH_S: Final = 5.0  # the final clears get at most this long
AWAY_PAUSE_S: Final = 10.0  # a call that found Slack away: the surface waits this long


class Surface(Protocol):
    """What the follower tells a surface and when it lets it send."""

    def saw(self, session: Session) -> None: ...

    def step(self) -> None: ...

    def finish(self) -> None: ...


@dataclass(slots=True)
class Shown:
    thread_ts: str
    text: str
    at: float  # when it was sent (clock seconds)
    posts: int  # the session's posts then: a later post cleared it


class PacedSurface:
    """A surface paced by a budget of its own, which Slack may refuse: then it is off for the
    run, said once."""

    surface = ""

    def __init__(self, delivery: Delivery, log: EventLog | None, per_minute: float,
                 scale: float) -> None:  # fmt: skip
        self.delivery, self.api, self.channel = delivery, delivery.api, delivery.channel
        self.log = log or delivery.log
        self.bucket = Bucket(per_minute / 60 * scale, burst=3)
        self.scale = scale
        self.on = True

    def _thread_of(self, session_id: str) -> str | None:
        return self.delivery.thread_ts or self.delivery.ledger.thread_of(session_id)

    def _sent(self, call: Callable[[], None]) -> bool:
        """Make one call within the budget; whether it went (False: try again later)."""
        now = self.delivery.clock()
        if not self.on or self.delivery.outage_since is not None or self.bucket.wait(now) > 0:
            return False  # off, Slack away (delivery waits for it), or the budget is spent
        self.bucket.take(now)
        try:
            call()
        except RateLimited as error:
            self.bucket.pause(self.delivery.clock(), error.retry_after)
            return False
        except SlackUnavailable:  # what the thread shows goes first: this waits a while
            self.bucket.pause(self.delivery.clock(), AWAY_PAUSE_S)
            return False
        except ThreadGone:
            return True  # the thread is gone: nothing to show under it
        except (SlackSetupError, SlackCallFailed) as error:
            self.on = False
            self.log.event(events.SurfaceOff(self.surface, str(error)))
            return False
        return True

    def _finishing(self, pending: Callable[[], bool]) -> None:
        """Send what is pending, for at most ``FINISH_S`` seconds."""
        clock, sleep = self.delivery.clock, self.delivery.sleep
        started = clock()
        while self.on and pending() and clock() - started < FINISH_S:
            self.step()
            if pending():
                sleep(max(0.01, min(self.bucket.wait(clock()), STATUS_GAP_S / self.scale)))

    def step(self) -> None:
        raise NotImplementedError


class ThreadStatus(PacedSurface):
    """The line under each running session's thread."""

    surface = "status"

    def __init__(self, delivery: Delivery, *, log: EventLog | None = None,
                 scale: float = 1.0) -> None:  # fmt: skip
        super().__init__(delivery, log, STATUS_PER_MINUTE, scale)
        self.wanted: dict[str, str] = {}  # session -> its line ("": cleared)
        self.shown: dict[str, Shown] = {}

    def saw(self, session: Session) -> None:
        text = doing_now(session)
        if text or session.session_id in self.wanted or session.session_id in self.shown:
            self.wanted[session.session_id] = text

    def step(self) -> None:
        now = self.delivery.clock()
        for session_id, text in list(self.wanted.items()):
            if not self.on:
                return
            thread_ts = self._thread_of(session_id)
            if thread_ts is None:
                continue  # its root is not posted yet
            shown = self.shown.get(session_id)
            showing = self._showing(session_id, thread_ts, shown, now)
            if not text and not showing:
                self.wanted.pop(session_id, None)
                self.shown.pop(session_id, None)
                continue
            fresh = shown is None or now - shown.at < STATUS_REFRESH_S / self.scale
            if text == showing and fresh:
                continue
            if shown is not None and now - shown.at < STATUS_GAP_S / self.scale:
                continue
            posts = self.delivery.posted.get(session_id, 0)
            if self._sent(partial(self.api.set_status, self.channel, thread_ts, text)):
                self.shown[session_id] = Shown(thread_ts, text, self.delivery.clock(), posts)

    def _showing(self, session_id: str, thread_ts: str, shown: Shown | None, now: float) -> str:
        """What Slack shows under the thread now, as far as we know."""
        if shown is None or shown.thread_ts != thread_ts:
            return ""  # never shown, or under a thread started again since
        if self.delivery.posted.get(session_id, 0) != shown.posts:
            return ""  # a post into the thread cleared it
        return shown.text if now - shown.at < STATUS_LAPSE_S / self.scale else ""

    def finish(self) -> None:
        """Clear every line still shown (the sessions ended, or slacktail stops)."""
        for session_id in self.shown:
            self.wanted[session_id] = ""
        self._finishing(lambda: bool(self.wanted))


class AgentSessions(PacedSurface):
    """Each thread's agent session: processing while its session runs, active while it waits
    for the person, closed once it ended."""

    surface = "agent_sessions"

    def __init__(self, delivery: Delivery, *, log: EventLog | None = None,
                 scale: float = 1.0) -> None:  # fmt: skip
        super().__init__(delivery, log, SESSIONS_PER_MINUTE, scale)
        self.wanted: dict[str, tuple[str, str | None]] = {}  # session -> (state, title)
        self.shown: dict[str, str] = {}  # session -> the state Slack has

    def saw(self, session: Session) -> None:
        state = agent_state(session)
        session_id = session.session_id
        if self.shown.get(session_id) == state or (state == "closed" and session_id not in
                                                    self.shown):  # fmt: skip
            self.wanted.pop(session_id, None)
            return
        info = session.info
        title = info.title or info.prompt or info.agent or None
        # Slack takes a title of 1 to 200 characters (a blank one is refused: none is sent)
        self.wanted[session_id] = (state, one_line(title, TITLE_LIMIT) or None if title else None)

    def step(self) -> None:
        for session_id, (state, title) in list(self.wanted.items()):
            if not self.on:
                return
            thread_ts = self._thread_of(session_id)
            if thread_ts is None:
                continue
            new = session_id not in self.shown
            call = partial(self.api.set_agent_session, self.channel, thread_ts, state,
                           title if new else None)  # fmt: skip
            if self._sent(call):
                self.shown[session_id] = state
                if self.wanted.get(session_id, (None,))[0] == state:
                    del self.wanted[session_id]
                if state == "closed":
                    self.shown.pop(session_id, None)
            else:
                return  # the budget is spent (or Slack is away): the rest waits

    def finish(self) -> None:
        self._finishing(lambda: bool(self.wanted))


def surfaces_for(settings: Settings, delivery: Delivery, log: EventLog) -> tuple[Surface, ...]:
    """The lines under the threads and the agent sessions, as the settings turn them on."""
    scale = settings.rate_scale
    surfaces: list[Surface] = []
    if settings.thread_status:
        surfaces.append(ThreadStatus(delivery, log=log, scale=scale))
    if settings.agent_sessions:
        surfaces.append(AgentSessions(delivery, log=log, scale=scale))
    return tuple(surfaces)
