"""What a test does as a person using the app, and reads of what that person sees: the part of
`LocalSlack` for interactive apps (its transport, clicks, modals, the App Home, ephemeral
messages, statuses).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.localslack import people
from bot.localslack.agents import Agents
from bot.localslack.api import Api
from bot.localslack.app_link import AppLink
from bot.localslack.ephemeral import Ephemerals
from bot.localslack.interactions import Interactions, Outcome
from bot.localslack.model import HUMAN_USER_ID, JSON, SlackError
from bot.localslack.page import EventBus
from bot.localslack.socket_mode import SocketMode
from bot.localslack.views import Views
from bot.localslack.workspace import Workspace


class AppSurface:
    """Mixed into `LocalSlack`, which makes these parts."""

    api: Api
    events: EventBus
    workspace: Workspace
    views: Views
    _ephemerals: Ephemerals
    socket_mode: SocketMode
    link: AppLink
    interactions: Interactions
    agents: Agents

    def configure_app(
        self,
        *,
        app_token: str | None = None,
        request_url: str | None = None,
        signing_secret: str | None = None,
        ack_timeout: float | None = None,
    ) -> None:
        """How the app is reached: Socket Mode with `app_token` (`xapp-`), or signed POSTs to
        `request_url`. Values not given stay; an empty string removes one. ValueError if bad."""
        self.link.configure(
            app_token=app_token, request_url=request_url,
            signing_secret=signing_secret, ack_timeout=ack_timeout,
        )  # fmt: skip
        self.api.app_token = self.link.settings.app_token

    def click(
        self,
        channel: str,
        ts: str,
        action_id: str,
        *,
        user: str = HUMAN_USER_ID,
        block_index: int | None = None,
    ) -> Outcome:
        """`user` clicks the control `action_id` of a message (or of an ephemeral message they
        see); returns once the app acknowledged it (or did not, in time). SlackError
        `action_not_found` if the message has no such control."""
        return self.interactions.click_message(user, channel, ts, action_id, block_index)

    def click_view(
        self,
        action_id: str,
        *,
        user: str = HUMAN_USER_ID,
        view_id: str | None = None,
        block_index: int | None = None,
    ) -> Outcome:
        """`user` clicks a control in a view: `view_id`, else their open modal, else their Home."""
        if view_id is None:
            shown = self.modal(user) or self.home(user)
            if shown is None:
                raise SlackError("not_found")
            view_id = str(shown["id"])
        return self.interactions.click_view(user, view_id, action_id, block_index)

    def submit_view(self, user: str = HUMAN_USER_ID, values: JSON | None = None) -> Outcome:
        """`user` submits their open modal with `values` ({block_id: {action_id: text}})."""
        shown = self.modal(user)
        if shown is None:
            raise SlackError("not_found")
        return self.interactions.submit(user, str(shown["id"]), values or {})

    def close_view(self, user: str = HUMAN_USER_ID) -> Outcome:
        """`user` closes their open modal (its Close button)."""
        shown = self.modal(user)
        if shown is None:
            raise SlackError("not_found")
        return self.interactions.close_view(user, str(shown["id"]))

    def open_home(self, user: str = HUMAN_USER_ID) -> Outcome:
        """`user` opens the app's Home tab (the app gets `app_home_opened`)."""
        return self.interactions.open_home(user)

    def modal(self, user: str = HUMAN_USER_ID) -> JSON | None:
        """The modal `user` sees (the top of their stack), or None."""
        stack = self.views.stack(user)
        return stack[-1] if stack else None

    def modals(self, user: str = HUMAN_USER_ID) -> list[JSON]:
        return self.views.stack(user)

    def home(self, user: str = HUMAN_USER_ID) -> JSON | None:
        """The App Home published for `user`, or None."""
        return self.views.home(user)

    def ephemerals(self, user: str = HUMAN_USER_ID, channel: str | None = None) -> list[JSON]:
        """The ephemeral messages `user` sees (in `channel`, or everywhere), oldest first."""
        channel_id = None if channel is None else self.workspace.channel_id(channel, by_name=True)
        return self._ephemerals.seen_by(user, channel_id)

    def warnings(self, user: str = HUMAN_USER_ID) -> list[JSON]:
        """What `user` was told failed (an unacknowledged click, …), oldest first."""
        return self.interactions.warnings(user)

    def status(self, channel: str, thread_ts: str) -> str | None:
        """The status shown under a thread (assistant.threads.setStatus), while it lasts."""
        status = self.workspace.status(channel, thread_ts)
        return None if status is None else str(status["status"])

    def agent_session(self, channel: str, thread_ts: str) -> JSON | None:
        """A thread's agent session (agents.sessions.setStatus): status, title, initiator."""
        return self.agents.session(self.workspace.channel_id(channel, by_name=True), thread_ts)

    def stop_agent_session(
        self, channel: str, thread_ts: str, *, user: str = HUMAN_USER_ID
    ) -> Outcome:
        """`user` clicks Slack's own Stop under a processing session's thread: the app gets
        `agent_session_stopped`, and its streams there stop. SlackError `not_processing`."""
        return people.stop_session(self.interactions, self.agents, user, channel, thread_ts)

    def disconnect_sockets(self, reason: str = "refresh_requested") -> int:
        """Ask the app's Socket Mode connections to reconnect, as Slack does; how many."""
        return self.socket_mode.disconnect(reason)

    def wait_for(self, condition: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Wait until `condition()` holds, re-checking at every change (the app's follow-ups
        arrive after its acknowledgement); whether it did within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            seq = self.events.seq
            if condition():
                return True
            left = deadline - time.monotonic()
            if left <= 0 or self.events.wait(seq, min(left, 0.25)) is None:
                return condition()
