"""The payloads Slack sends an app, shaped as Slack shapes them.

Sources: docs.slack.dev, "block_actions payload", "view_submission payload", "view_closed
payload", "app_home_opened event", "Events API"; and bolt-python's own test payloads
(tests/scenario_tests/test_block_actions*.py, test_view_submission.py, test_view_closed.py).
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from bot.localslack.model import (
    APP_ID,
    BOT_USER_ID,
    JSON,
    PEOPLE,
    TEAM_ID,
    VERIFICATION_TOKEN,
)

TEAM_DOMAIN = "local-slack"


def person(user: str) -> JSON:
    """The `user` object of an interaction payload."""
    name = PEOPLE.get(user, user)
    return {"id": user, "username": name, "name": name, "team_id": TEAM_ID}


def team() -> JSON:
    return {"id": TEAM_ID, "domain": TEAM_DOMAIN}


def block_id_of(block: JSON, index: int) -> str:
    """A block's block_id; one Slack would have made up for a block sent without it (stable for
    the same block at the same place, so a test can predict it)."""
    given = block.get("block_id")
    if isinstance(given, str):
        return given
    text = json.dumps(block, sort_keys=True, ensure_ascii=False)
    return hashlib.sha1(f"{index}:{text}".encode()).hexdigest()[:5]


def action(element: JSON, block_id: str, action_ts: str) -> JSON:
    """One entry of `actions`: what was clicked (a button: its text and value)."""
    entry: JSON = {
        "action_id": element.get("action_id") or "",
        "block_id": block_id,
        "type": element.get("type"),
        "action_ts": action_ts,
    }
    if isinstance(element.get("text"), dict):
        entry["text"] = {"emoji": True, **element["text"]}
    for key in ("value",):
        if key in element:
            entry[key] = element[key]
    return entry


def block_actions(
    *,
    user: str,
    trigger_id: str,
    actions: list[JSON],
    container: JSON,
    channel: JSON | None = None,
    message: JSON | None = None,
    view: JSON | None = None,
    response_url: str | None = None,
    state: JSON | None = None,
) -> JSON:
    """A `block_actions` payload: from a message (channel, message, response_url) or a view."""
    payload: JSON = {
        "type": "block_actions",
        "user": person(user),
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "container": container,
        "trigger_id": trigger_id,
        "team": team(),
        "enterprise": None,
        "is_enterprise_install": False,
    }
    if channel is not None:
        payload["channel"] = channel
    if message is not None:
        payload["message"] = copy.deepcopy(message)
    if view is not None:
        payload["view"] = copy.deepcopy(view)
    payload["state"] = copy.deepcopy(state) if state is not None else {"values": {}}
    if response_url is not None:
        payload["response_url"] = response_url
    payload["actions"] = actions
    return payload


def view_submission(*, user: str, trigger_id: str, view: JSON) -> JSON:
    return {
        "type": "view_submission",
        "team": team(),
        "user": person(user),
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "trigger_id": trigger_id,
        "view": copy.deepcopy(view),
        "response_urls": [],
        "enterprise": None,
        "is_enterprise_install": False,
    }


def view_closed(*, user: str, view: JSON, is_cleared: bool) -> JSON:
    return {
        "type": "view_closed",
        "team": team(),
        "user": person(user),
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "view": copy.deepcopy(view),
        "is_cleared": is_cleared,
        "enterprise": None,
        "is_enterprise_install": False,
    }


def dm_channel(user: str) -> str:
    """The id of the app's direct-message channel with `user` (where its Home tab lives)."""
    return "D" + user[1:]


def app_home_opened(*, user: str, event_ts: str, view: JSON | None) -> JSON:
    event: JSON = {
        "type": "app_home_opened",
        "user": user,
        "channel": dm_channel(user),
        "tab": "home",
        "event_ts": event_ts,
    }
    if view is not None:
        event["view"] = copy.deepcopy(view)
    return event


def event_callback(event: JSON, *, event_id: str, event_time: int) -> JSON:
    """The Events API envelope around one event (also the Socket Mode `events_api` payload)."""
    return {
        "token": VERIFICATION_TOKEN,
        "team_id": TEAM_ID,
        "context_team_id": TEAM_ID,
        "api_app_id": APP_ID,
        "event": event,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": event_time,
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": TEAM_ID,
                "user_id": BOT_USER_ID,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": "4-local",
    }


def input_state(blocks: list[Any], entered: JSON) -> tuple[JSON, dict[str, str]]:
    """A view's `state.values` from what the person entered, by block_id then action_id
    (`{"type": "plain_text_input", "value": ...}`), and the required inputs left empty."""
    values: JSON = {}
    missing: dict[str, str] = {}
    for index, block in enumerate(blocks):
        if not isinstance(block, dict) or block.get("type") != "input":
            continue
        element = block.get("element")
        if not isinstance(element, dict):
            continue
        block_id = block_id_of(block, index)
        action_id = str(element.get("action_id") or block_id_of(element, 0))
        given = entered.get(block_id, {}).get(action_id) if isinstance(entered, dict) else None
        value = given.get("value") if isinstance(given, dict) else given
        if not isinstance(value, str) or value == "":
            value = None
        if value is None and not block.get("optional", False):
            missing[block_id] = "Please complete this required field."
        values[block_id] = {action_id: {"type": element.get("type"), "value": value}}
    return values, missing
