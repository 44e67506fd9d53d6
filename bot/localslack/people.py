"""The page's person: what the person chosen in "who am I" sees that others do not (their
ephemeral messages, open modals, App Home, failed clicks), and what they do on the page
(`POST /_page/click | submit | close | home`, JSON bodies naming the person).
"""

from __future__ import annotations

from typing import Any

from bot.localslack.agents import Agents
from bot.localslack.interactions import Interactions, Outcome
from bot.localslack.model import HUMAN_USER_ID, JSON, PEOPLE, SlackError
from bot.localslack.payloads import block_id_of

ACTIONS = ("click", "submit", "close", "home")


def seen_by(interactions: Interactions, user: str) -> JSON:
    """Everything personal the page shows `user` (added to `GET /_state?user=...`)."""
    if user not in PEOPLE:
        user = HUMAN_USER_ID
    views = interactions.views
    settings = interactions.link.settings
    return {
        "user": user,
        "people": [{"id": key, "name": name} for key, name in PEOPLE.items()],
        "ephemerals": interactions.ephemerals.seen_by(user),
        "modals": [_shown(view, views.errors(view["id"])) for view in views.stack(user)],
        "home": views.home(user),
        "warnings": interactions.warnings(user),
        "app": {
            "transport": settings.transport,
            "connections": interactions.link.socket_mode.connections,
        },
    }


def _shown(view: JSON, errors: dict[str, str]) -> JSON:
    """A modal as the page draws it: with the app's errors and each block's block_id (made up
    by Slack for a block sent without one), so that errors find their input."""
    ids = [block_id_of(b, i) if isinstance(b, dict) else "" for i, b in enumerate(view["blocks"])]
    return {**view, "errors": errors, "block_ids": ids}


def act(interactions: Interactions, name: str, body: Any) -> tuple[int, JSON]:
    """Do what the page asks for `body["user"]`; (HTTP status, JSON answer)."""
    if name not in ACTIONS:
        return 404, {"ok": False, "error": "not_found"}
    if not isinstance(body, dict) or body.get("user") not in PEOPLE:
        return 400, {"ok": False, "error": "user_not_found"}
    user = str(body["user"])
    try:
        outcome = _act(interactions, name, user, body)
    except SlackError as err:
        return 400, {"ok": False, "error": err.code}
    except (KeyError, TypeError, ValueError) as err:
        return 400, {"ok": False, "error": f"invalid_request: {err}"}
    return 200, {
        "ok": True,
        "acked": outcome.acked,
        "error": outcome.error,
        "input_errors": outcome.input_errors,
    }


def stop(interactions: Interactions, agents: Agents, body: Any) -> tuple[int, JSON]:
    """The person clicks Slack's own Stop under a processing agent session's thread."""
    if not isinstance(body, dict) or body.get("user") not in PEOPLE:
        return 400, {"ok": False, "error": "user_not_found"}
    try:
        outcome = stop_session(interactions, agents, str(body["user"]),
                               str(body["channel"]), str(body["thread_ts"]))  # fmt: skip
    except SlackError as err:
        return 400, {"ok": False, "error": err.code}
    except KeyError as err:
        return 400, {"ok": False, "error": f"invalid_request: {err}"}
    return 200, {"ok": True, "acked": outcome.acked, "error": outcome.error}


def stop_session(
    interactions: Interactions, agents: Agents, user: str, channel: str, thread_ts: str
) -> Outcome:
    """`agent_session_stopped` to the app: `user` stopped the session of this thread."""
    channel_id = interactions.workspace.channel_id(channel, by_name=True)
    event = agents.stop_clicked(channel_id, thread_ts)
    now = interactions.workspace.new_ts(channel_id)[1]
    return interactions.send_event({**event, "user": user, "event_ts": now})


def _act(interactions: Interactions, name: str, user: str, body: JSON) -> Outcome:
    if name == "home":
        return interactions.open_home(user)
    if name == "click":
        index = body.get("block_index")
        block_index = index if isinstance(index, int) and not isinstance(index, bool) else None
        action_id = str(body["action_id"])
        if body.get("view_id"):
            return interactions.click_view(user, str(body["view_id"]), action_id, block_index)
        return interactions.click_message(
            user, str(body["channel"]), str(body["ts"]), action_id, block_index
        )
    view_id = str(body["view_id"])
    if name == "submit":
        by_index = body.get("values_by_index") or {}
        if not isinstance(by_index, dict):
            raise ValueError("values_by_index must be an object")
        blocks = interactions.views.get(view_id)["blocks"]
        return interactions.submit(user, view_id, _entered(blocks, by_index))
    return interactions.close_view(user, view_id)


def _entered(blocks: list[Any], by_index: dict[str, Any]) -> JSON:
    """What the page's inputs hold, by block index, as {block_id: {action_id: text}}."""
    entered: JSON = {}
    for key, text in by_index.items():
        index = int(key)
        if not 0 <= index < len(blocks) or not isinstance(blocks[index], dict):
            raise ValueError(f"no block {index}")
        element = blocks[index].get("element") or {}
        action_id = str(element.get("action_id") or block_id_of(element, 0))
        entered[block_id_of(blocks[index], index)] = {action_id: str(text)}
    return entered
