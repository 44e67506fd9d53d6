"""What a person does with an app's controls, delivered to the app as Slack delivers it: a click
on a button (in a message, an ephemeral message, a modal or the App Home), a modal submitted or
closed, the App Home opened; and what Slack lets the app do back: a `trigger_id` (for
views.open/push, good once and for 3 seconds) and a `response_url` (5 uses in 30 minutes).

A click the app does not acknowledge within 3 seconds (or answers with another status than 200)
is shown to that person as failed, as Slack shows it ("This app responded with Status Code 500",
"This app took too long to respond").
"""

from __future__ import annotations

import itertools
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.localslack import payloads
from bot.localslack.app_link import AppLink
from bot.localslack.ephemeral import Ephemerals
from bot.localslack.limits_views import view_errors
from bot.localslack.model import JSON, PEOPLE, SlackError, format_ts
from bot.localslack.socket_mode import Answer
from bot.localslack.views import Views
from bot.localslack.workspace import Workspace

TRIGGER_TTL_S = 3.0
RESPONSE_URL_USES = 5
RESPONSE_URL_TTL_S = 30 * 60.0
WARNINGS_KEEP = 20
SENT_KEEP = 200
_TRIGGER_RE = re.compile(r"^\d+\.\d+\.[0-9a-f]+$")
Listener = Callable[[JSON], None]


@dataclass
class Outcome:
    """One thing a person did, as it reached the app."""

    acked: bool  # the app acknowledged it in time
    payload: JSON | None = None  # what was sent (None if nothing could be)
    response: JSON | None = None  # the app's response payload, if any
    error: str | None = None  # why it failed, as the person is told
    input_errors: dict[str, str] = field(default_factory=dict)  # a submission's refused inputs


@dataclass
class Trigger:
    user: str
    issued: float
    view_id: str | None
    used: bool = False


@dataclass
class ResponseTarget:
    """Where a `response_url` answers: the message clicked, for the person who clicked."""

    channel: str
    ts: str
    user: str
    ephemeral: bool
    issued: float
    uses: int = 0


class Interactions:
    """Clicks, submissions and their follow-ups; thread-safe."""

    def __init__(
        self,
        workspace: Workspace,
        views: Views,
        ephemerals: Ephemerals,
        link: AppLink,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.workspace, self.views, self.ephemerals, self.link = workspace, views, ephemerals, link
        self._clock, self._wall_clock = clock, wall_clock
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []
        self._numbers = itertools.count(1)
        self.base_url = "http://127.0.0.1/"
        self.reset()

    def reset(self) -> None:
        with self._lock:
            self._triggers: dict[str, Trigger] = {}
            self._responses: dict[str, ResponseTarget] = {}
            self._warnings: dict[str, deque[JSON]] = {}
            self.sent: deque[JSON] = deque(maxlen=SENT_KEEP)  # every payload sent, for tests

    def subscribe(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.append(listener)

    # -- triggers -------------------------------------------------------------------------

    def _trigger(self, user: str, view_id: str | None = None) -> str:
        trigger_id = f"{next(self._numbers)}.{int(self._wall_clock())}.{secrets.token_hex(16)}"
        with self._lock:
            now = self._clock()
            for key in [k for k, t in self._triggers.items() if now - t.issued > 60]:
                del self._triggers[key]
            self._triggers[trigger_id] = Trigger(user, now, view_id)
        return trigger_id

    def take_trigger(self, trigger_id: str) -> Trigger:
        """The trigger behind a views.open/push call, used up now; Slack's refusals."""
        with self._lock:
            trigger = self._triggers.get(trigger_id)
            if not _TRIGGER_RE.match(trigger_id) or trigger is None:
                raise SlackError("invalid_trigger_id")
            if trigger.used:
                raise SlackError("exchanged_trigger_id")
            if self._clock() - trigger.issued > TRIGGER_TTL_S:
                raise SlackError("expired_trigger_id")
            trigger.used = True
            return trigger

    # -- clicks ---------------------------------------------------------------------------

    def click_message(
        self, user: str, channel: str, ts: str, action_id: str, block_index: int | None = None
    ) -> Outcome:
        """`user` clicks a control of a message (or of an ephemeral message shown to them)."""
        _person(user)
        channel_id = self.workspace.channel_id(channel, by_name=True)
        ephemeral = self.ephemerals.get(user, channel_id, ts)
        message = ephemeral or self.workspace.message(channel_id, ts)
        block_id, element = _control(message.get("blocks") or [], action_id, block_index)
        container: JSON = {
            "type": "message",
            "message_ts": ts,
            "channel_id": channel_id,
            "is_ephemeral": ephemeral is not None,
        }
        if message.get("thread_ts") and message["thread_ts"] != ts:
            container["thread_ts"] = message["thread_ts"]
        info = self.workspace.channel_info(channel_id)
        payload = payloads.block_actions(
            user=user,
            trigger_id=self._trigger(user),
            actions=[payloads.action(element, block_id, self._action_ts())],
            container=container,
            channel={"id": channel_id, "name": info["name"]},
            message=None if ephemeral else message,
            response_url=self._response_url(channel_id, ts, user, ephemeral is not None),
        )
        where = {"channel": channel_id, "ts": ts, "action_id": action_id}
        return self._deliver(user, payload, where, accepts_response=False)

    def click_view(
        self, user: str, view_id: str, action_id: str, block_index: int | None = None
    ) -> Outcome:
        """`user` clicks a control in one of their modals or in their App Home."""
        _person(user)
        if self.views.owner(view_id) != user:
            raise SlackError("not_found")
        view = self.views.get(view_id)
        block_id, element = _control(view.get("blocks") or [], action_id, block_index)
        payload = payloads.block_actions(
            user=user,
            trigger_id=self._trigger(user, view_id),
            actions=[payloads.action(element, block_id, self._action_ts())],
            container={"type": "view", "view_id": view_id},
            view=view,
            state=view["state"],
        )
        where = {"view_id": view_id, "action_id": action_id}
        return self._deliver(user, payload, where, accepts_response=False)

    # -- modals ---------------------------------------------------------------------------

    def submit(self, user: str, view_id: str, entered: JSON) -> Outcome:
        """`user` presses the modal's Submit with `entered` ({block_id: {action_id: value}})."""
        stack = self.views.stack(user)
        if not stack or stack[-1]["id"] != view_id:
            raise SlackError("not_found")
        values, missing = payloads.input_state(stack[-1]["blocks"], entered)
        view = self.views.set_state(view_id, values)
        if missing:  # Slack's client refuses to send it: the fields say what is missing
            self.views.set_errors(view_id, missing)
            return Outcome(False, input_errors=missing, error="A required field is empty")
        payload = payloads.view_submission(
            user=user, trigger_id=self._trigger(user, view_id), view=view
        )
        outcome = self._deliver(user, payload, {"view_id": view_id}, accepts_response=True)
        if outcome.acked:
            outcome.input_errors = self._after_submission(user, view_id, outcome.response or {})
        return outcome

    def _after_submission(self, user: str, view_id: str, response: JSON) -> dict[str, str]:
        """Do what the app answered: `response_action` errors, update, push or clear; nothing
        (an empty ack) closes the submitted view."""
        action = response.get("response_action")
        view = response.get("view")
        if action == "errors":
            errors = response.get("errors")
            shown = {str(k): str(v) for k, v in (errors or {}).items()}
            self.views.set_errors(view_id, shown)
            return shown
        if action in ("update", "push"):
            refused = view_errors(view, ("modal",))
            if refused is not None or not isinstance(view, dict):
                self._warn(user, {"view_id": view_id}, "The app answered with an invalid view")
            elif action == "update":
                self.views.update(view, view_id=view_id, external_id=None, view_hash=None)
            else:
                self.views.push(user, view)
        else:
            self.views.close(user, view_id, everything=action == "clear")
        return {}

    def close_view(self, user: str, view_id: str) -> Outcome:
        """`user` closes a modal (its Close button); `view_closed` goes to the app only if the
        view asked for it (`notify_on_close`)."""
        view = self.views.get(view_id)
        if self.views.owner(view_id) != user:
            raise SlackError("not_found")
        cleared = bool(view["clear_on_close"])
        self.views.close(user, view_id, everything=cleared)
        if not view["notify_on_close"]:
            return Outcome(True)
        payload = payloads.view_closed(user=user, view=view, is_cleared=cleared)
        return self._deliver(user, payload, {"view_id": view_id}, accepts_response=False)

    def open_home(self, user: str) -> Outcome:
        """`user` opens the app's Home tab: the `app_home_opened` event."""
        _person(user)
        return self.send_event(
            payloads.app_home_opened(
                user=user, event_ts=self._action_ts(), view=self.views.home(user)
            )
        )

    def send_event(self, event: JSON) -> Outcome:
        """Deliver one event (Events API) to the app, in its `event_callback` envelope."""
        envelope = payloads.event_callback(
            event, event_id=f"Ev0LOCAL{next(self._numbers):06d}", event_time=int(self._wall_clock())
        )
        answer = self.link.event(envelope)
        with self._lock:
            self.sent.append(envelope)
        return Outcome(answer.acked, envelope, answer.payload, answer.error)

    # -- delivery -------------------------------------------------------------------------

    def _deliver(self, user: str, payload: JSON, where: JSON, *, accepts_response: bool) -> Outcome:
        with self._lock:
            self.sent.append(payload)
        answer: Answer = self.link.interactive(payload, accepts_response=accepts_response)
        if not answer.acked:
            self._warn(user, where, answer.error or "This app did not respond")
        return Outcome(answer.acked, payload, answer.payload, answer.error)

    def _warn(self, user: str, where: JSON, text: str) -> None:
        warning = {**where, "text": text, "at": self._wall_clock()}
        with self._lock:
            self._warnings.setdefault(user, deque(maxlen=WARNINGS_KEEP)).append(warning)
        self._emit({"kind": "interaction_failed", "user": user, **where})

    def warnings(self, user: str) -> list[JSON]:
        """The failed clicks and submissions `user` was told about, oldest first."""
        with self._lock:
            return [dict(w) for w in self._warnings.get(user, [])]

    def _action_ts(self) -> str:
        return format_ts(int(self._wall_clock() * 1_000_000))

    # -- response_url ---------------------------------------------------------------------

    def _response_url(self, channel: str, ts: str, user: str, ephemeral: bool) -> str:
        key = f"{next(self._numbers)}/{secrets.token_urlsafe(18)}"
        with self._lock:
            self._responses[key] = ResponseTarget(channel, ts, user, ephemeral, self._clock())
        return f"{self.base_url}actions/{payloads.TEAM_DOMAIN}/{key}"

    def response_target(self, key: str) -> ResponseTarget:
        """The target of a `response_url` (one use counted); `expired_url` or `used_url`."""
        with self._lock:
            target = self._responses.get(key)
            if target is None or self._clock() - target.issued > RESPONSE_URL_TTL_S:
                raise SlackError("expired_url")
            if target.uses >= RESPONSE_URL_USES:
                raise SlackError("used_url")
            target.uses += 1
            return target

    def _emit(self, event: JSON) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(event)


def _person(user: str) -> None:
    if user not in PEOPLE:
        raise SlackError("user_not_found")


def _control(blocks: list[Any], action_id: str, block_index: int | None) -> tuple[str, JSON]:
    """(block_id, element) of the control with `action_id` (in the block at `block_index`, if
    given): in an actions block, a section's accessory or an input's element."""
    for index, block in enumerate(blocks):
        if (block_index is not None and index != block_index) or not isinstance(block, dict):
            continue
        elements = list(block.get("elements") or []) if block.get("type") == "actions" else []
        elements += [block[key] for key in ("accessory", "element") if key in block]
        for element in elements:
            if isinstance(element, dict) and element.get("action_id") == action_id:
                return payloads.block_id_of(block, index), element
    raise SlackError("action_not_found")
