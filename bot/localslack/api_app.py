"""The Web API methods an interactive app uses: views.open / push / update / publish,
chat.postEphemeral and apps.connections.open, with Slack's argument rules and refusals.

- views.open / views.push need the `trigger_id` of an interaction (or `interactivity_pointer`):
  good once (`exchanged_trigger_id`) and for 3 seconds (`expired_trigger_id`); views.push needs a
  modal open, and a stack holds 3 views (`push_limit_reached`).
- views.update takes `view_id` or `external_id` (`not_found`), and `hash` (`hash_conflict`).
- views.publish sets one person's App Home (`user_id`).
- A view is checked like a message (limits_views): `invalid_arguments` with the details in
  `response_metadata.messages`, or `view_too_large`.
- chat.postEphemeral answers `{"ok": true, "message_ts"}`; the person must be in the channel
  (`user_not_in_channel`); the message is never in the channel's history.
- apps.connections.open takes the app-level token (`xapp-`) and answers a WebSocket URL.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bot.localslack import limits
from bot.localslack.api_arguments import blocks_arg, missing_arg, refuse_invalid_blocks, text_arg
from bot.localslack.ephemeral import Ephemerals
from bot.localslack.interactions import Interactions
from bot.localslack.limits_views import view_errors
from bot.localslack.model import BLOCKS_FALLBACK_TEXT, JSON, PEOPLE, SlackError
from bot.localslack.socket_mode import SocketMode
from bot.localslack.views import Views
from bot.localslack.workspace import Workspace

APP_TOKEN_METHODS = frozenset({"apps.connections.open"})


class AppApi:
    """The interactive methods, as `name -> handler` to add to `Api.methods`."""

    def __init__(
        self,
        workspace: Workspace,
        views: Views,
        ephemerals: Ephemerals,
        interactions: Interactions,
        socket_mode: SocketMode,
        base_url: Callable[[], str],
    ) -> None:
        self.workspace, self.views, self.ephemerals = workspace, views, ephemerals
        self.interactions, self.socket_mode = interactions, socket_mode
        self._base_url = base_url
        self.methods: dict[str, Callable[[dict[str, Any]], JSON]] = {
            "views.open": self.views_open,
            "views.push": self.views_push,
            "views.update": self.views_update,
            "views.publish": self.views_publish,
            "chat.postEphemeral": self.chat_post_ephemeral,
            "apps.connections.open": self.apps_connections_open,
        }

    def views_open(self, params: dict[str, Any]) -> JSON:
        view = _view(params, ("modal",))
        trigger = self.interactions.take_trigger(_trigger_id(params))
        return {"ok": True, "view": self.views.open(trigger.user, view)}

    def views_push(self, params: dict[str, Any]) -> JSON:
        view = _view(params, ("modal",))
        trigger = self.interactions.take_trigger(_trigger_id(params))
        return {"ok": True, "view": self.views.push(trigger.user, view)}

    def views_update(self, params: dict[str, Any]) -> JSON:
        view = _view(params, ("modal", "home"))
        view_id, external_id = text_arg(params, "view_id"), text_arg(params, "external_id")
        if not view_id and not external_id:
            raise missing_arg("view_id")
        updated = self.views.update(
            view, view_id=view_id, external_id=external_id, view_hash=text_arg(params, "hash")
        )
        return {"ok": True, "view": updated}

    def views_publish(self, params: dict[str, Any]) -> JSON:
        user = text_arg(params, "user_id")
        if not user:
            raise missing_arg("user_id")
        view = _view(params, ("home",))
        if user not in PEOPLE:
            raise SlackError("user_not_found")
        return {"ok": True, "view": self.views.publish(user, view, text_arg(params, "hash"))}

    def chat_post_ephemeral(self, params: dict[str, Any]) -> JSON:
        channel = self.workspace.channel_id(text_arg(params, "channel") or "", by_name=True)
        user = text_arg(params, "user")
        if not user:
            raise missing_arg("user")
        text, blocks = text_arg(params, "text"), blocks_arg(params)
        if not blocks and not (text or "").strip():
            raise SlackError("no_text")
        refuse_invalid_blocks(blocks)
        if user not in PEOPLE:
            raise SlackError("user_not_in_channel")
        kept, _ = limits.truncate_text(text or "")
        channel, ts = self.workspace.new_ts(channel)
        thread_ts = text_arg(params, "thread_ts") or None
        self.ephemerals.post(
            channel,
            ts,
            user=user,
            text=kept or BLOCKS_FALLBACK_TEXT,
            blocks=blocks,
            thread_ts=thread_ts,
        )
        return {"ok": True, "message_ts": ts}

    def apps_connections_open(self, params: dict[str, Any]) -> JSON:
        return {"ok": True, "url": self.socket_mode.new_url(self._base_url())}


def _trigger_id(params: dict[str, Any]) -> str:
    trigger_id = text_arg(params, "trigger_id") or text_arg(params, "interactivity_pointer")
    if not trigger_id:
        raise missing_arg("trigger_id")
    return trigger_id


def _view(params: dict[str, Any], kinds: tuple[str, ...]) -> JSON:
    """The `view` argument (a JSON body's object, or a form's JSON string), checked."""
    value = params.get("view")
    if value is None:
        raise missing_arg("view")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as err:
            raise _invalid(["must be an object [json-pointer:/view]"]) from err
    refused = view_errors(value, kinds)
    if refused is not None:
        code, details = refused
        raise _invalid(details) if code == "invalid_arguments" else SlackError(code)
    assert isinstance(value, dict)  # view_errors refuses anything else
    return value


def _invalid(details: list[str]) -> SlackError:
    return SlackError(
        "invalid_arguments", response_metadata={"messages": [f"[ERROR] {d}" for d in details]}
    )
