"""The Bolt app: a click on one of slacktail's controls is acknowledged at once, then checked
(who may act: ``bot.app.access``), taken to the process that follows its session
(``bot.app.owners``) and carried out by its control; the person is answered (ephemeral) and
what was done is said in the session's thread ("⏹ Stop asked by @ana at 10:31") and in the
structured log. Slack's own Stop of an agent session (``agent_session_stopped``) is taken as a
click on Stop."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, Protocol

from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot import events
from bot.app.access import Access
from bot.app.owners import Owners
from bot.controls import ACTIONS, STOP, Click, Control, Outcome, read_value
from bot.logs import EventLog

log = logging.getLogger(__name__)

# What the app asks of Slack (the manifest's scopes and events are checked against these).
METHODS_USED: Final = (
    "chat.postEphemeral", "chat.postMessage", "conversations.members", "views.open", "views.update",
)  # fmt: skip
EVENTS_USED: Final = ("agent_session_stopped", "app_home_opened")

THREAD: Final = "thread:"  # a click's session named by its thread (Slack's Stop)
RUNNING: Final = "running"
FINISHED: Final = "finished"
NOT_ALLOWED: Final = "You are not allowed to use slacktail's controls here."
ENDED: Final = "This session has ended: there is nothing to do."
ONLY_WHILE_RUNNING: Final = (STOP,)  # the others act on an ended session too (Full output)
NOT_AVAILABLE: Final = "This control is not available in this slacktail."
NOT_FOLLOWED: Final = "This session is no longer followed by any slacktail."
DONE_WORDS: Final = {STOP: "⏹ Stop asked"}  # Approve / Deny show theirs on their own message


class Sessions(Protocol):
    """The sessions this process follows, as the app asks about them."""

    def state_of(self, session: str) -> str | None:
        """``RUNNING``, ``FINISHED``, or None when this process does not follow it."""

    def session_of_thread(self, thread_ts: str) -> str | None:
        """The session whose thread starts at ``thread_ts``, if this process follows it."""


class ControlsApp:
    """slacktail's controls on a Bolt ``App``: ``controls`` maps an action id to its control
    (an action id with none is answered "not available")."""

    def __init__(
        self,
        bolt: App,
        access: Access,
        controls: Mapping[str, Control],
        sessions: Sessions,
        log: EventLog,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.bolt, self.access, self.controls = bolt, access, dict(controls)
        self.sessions, self.log, self.clock = sessions, log, clock
        self.owners: Owners | None = None  # the other processes sharing the app, if any
        bolt.action(re.compile("^(" + "|".join(ACTIONS) + ")$"))(self._on_action)
        bolt.event("agent_session_stopped")(self._on_agent_session_stopped)

    def share(self, folder: Path, name: str | None = None) -> Owners:
        """Take clicks handed over by the other processes listening in ``folder``, and hand
        them those of their sessions."""
        self.owners = Owners(folder, self.carry_out, name=name)
        self.owners.start()
        return self.owners

    # --- Slack's requests -----------------------------------------------------------------

    def _on_action(self, ack: Ack, body: dict[str, Any], action: dict[str, Any],
                   client: WebClient) -> None:  # fmt: skip
        ack()
        action_id = str(action.get("action_id", ""))
        user = str((body.get("user") or {}).get("id", ""))
        channel = str((body.get("channel") or {}).get("id", ""))
        container = body.get("container") or {}
        message_ts = str(container.get("message_ts") or (body.get("message") or {}).get("ts", ""))
        thread_ts = str(container.get("thread_ts") or message_ts)
        value = read_value(str(action.get("value", "")))
        if value is None:
            self._refuse(client, action_id, user, channel, "not a slacktail control's value")
            return
        view_id = (body.get("view") or {}).get("id")  # a click in a modal: no channel of its own
        channel = channel or value[1].get("channel", "")
        click = Click(action_id, value[0], value[1], user, channel, message_ts,
                      body.get("trigger_id"), view_id)  # fmt: skip
        self._answer(client, click, thread_ts)

    def _on_agent_session_stopped(self, event: dict[str, Any], client: WebClient) -> None:
        thread_ts = str(event.get("thread_ts", ""))
        channel = str(event.get("channel", ""))
        user = str(event.get("user", ""))
        click = Click(STOP, THREAD + thread_ts, {}, user, channel, thread_ts)
        self._answer(client, click, thread_ts)

    # --- carrying a click out -------------------------------------------------------------

    def _answer(self, client: WebClient, click: Click, thread_ts: str) -> None:
        if not self._allowed(click.user, click.channel):
            self._refuse(client, click.action_id, click.user, click.channel, "not allowed",
                         NOT_ALLOWED)  # fmt: skip
            return
        outcome = self.carry_out(click)
        if outcome is None and self.owners is not None:
            outcome = self.owners.hand_over(click)
        if outcome is None:
            outcome = Outcome(False, NOT_FOLLOWED)
        self.log.event(events.ClickAnswered(click.action_id, click.session, click.user,
                                            outcome.done, outcome.said))  # fmt: skip
        if outcome.said:
            _ephemeral(client, click.channel, click.user, outcome.said)
        words = DONE_WORDS.get(click.action_id)
        if outcome.done and words is not None and thread_ts:
            self._say_in_thread(client, click, thread_ts, words)

    def carry_out(self, click: Click) -> Outcome | None:
        """The outcome of ``click`` here; None when this process does not follow its session."""
        session = click.session
        if session.startswith(THREAD):
            found = self.sessions.session_of_thread(session[len(THREAD) :])
            if found is None:
                return None
            session = found
        state = self.sessions.state_of(session)
        if state is None:
            return None
        if state == FINISHED and click.action_id in ONLY_WHILE_RUNNING:
            return Outcome(False, ENDED)
        control = self.controls.get(click.action_id)
        if control is None:
            return Outcome(False, NOT_AVAILABLE)
        try:
            return control(_for_session(click, session))
        except Exception as error:  # a control's failure is told, never a crash of the app
            log.debug("the control %s failed", click.action_id, exc_info=True)
            return Outcome(False, f"That failed: {type(error).__name__}: {error}"[:300])

    def _allowed(self, user: str, channel: str) -> bool:
        try:
            return self.access.allows(user, channel)
        except SlackApiError as error:  # the members could not be read: nobody is let in
            log.debug("conversations.members failed: %s", error)
            return False

    def _refuse(self, client: WebClient, action: str, user: str, channel: str, why: str,
                said: str = "That is not one of slacktail's controls.") -> None:  # fmt: skip
        self.log.event(events.ClickRefused(action, user, why))
        _ephemeral(client, channel, user, said)

    def _say_in_thread(self, client: WebClient, click: Click, thread_ts: str, words: str) -> None:
        """``⏹ Stop asked by @ana at 10:31`` in the session's thread (each reader's own time)."""
        moment = int(self.clock())
        clock = time.strftime("%H:%M UTC", time.gmtime(moment))
        text = f"{words} by <@{click.user}> at <!date^{moment}^{{time}}|{clock}>"
        try:
            client.chat_postMessage(channel=click.channel, thread_ts=thread_ts, text=text,
                                    blocks=[{"type": "context", "elements": [
                                        {"type": "mrkdwn", "text": text}]}])  # fmt: skip
        except SlackApiError as error:
            log.debug("the outcome could not be said in the thread: %s", error)


def _for_session(click: Click, session: str) -> Click:
    if session == click.session:
        return click
    return Click(click.action_id, session, click.fields, click.user, click.channel,
                 click.message_ts, click.trigger_id, click.view_id)  # fmt: skip


def _ephemeral(client: WebClient, channel: str, user: str, text: str) -> None:
    if not channel or not user:
        return
    try:
        client.chat_postEphemeral(channel=channel, user=user, text=text)
    except SlackApiError as error:
        log.debug("an ephemeral answer could not be sent: %s", error)
