"""The Slack app manifest in deploy/ gives the app what slacktail's calls need."""

from __future__ import annotations

import re
from pathlib import Path

import orjson

MANIFEST = Path(__file__).resolve().parents[1] / "deploy" / "slack-app-manifest.json"

# What each Web API method slacktail calls needs (Slack's method reference pages).
NEEDED = {
    "chat.postMessage": {"chat:write"},
    "chat.update": {"chat:write"},
    "reactions.add": {"reactions:write"},
    "reactions.remove": {"reactions:write"},
    "conversations.list": {"channels:read", "groups:read"},
    "conversations.info": {"channels:read", "groups:read"},
    "conversations.history": {"channels:history", "groups:history"},
    "conversations.replies": {"channels:history", "groups:history"},
}


def test_the_manifest_is_a_slack_app_manifest() -> None:
    manifest = orjson.loads(MANIFEST.read_bytes())
    assert manifest["display_information"]["name"] == "slacktail"
    assert manifest["features"]["bot_user"]["display_name"]
    assert not manifest["settings"]["socket_mode_enabled"]


def test_the_manifest_asks_for_every_scope_slacktails_calls_need() -> None:
    scopes = set(orjson.loads(MANIFEST.read_bytes())["oauth_config"]["scopes"]["bot"])
    missing = {method: needed - scopes for method, needed in NEEDED.items() if needed - scopes}
    assert missing == {}


def test_every_method_slacktail_calls_has_its_scopes_listed_here() -> None:
    source = (MANIFEST.parents[1] / "bot" / "delivery" / "slack_api.py").read_text()
    called = set(re.findall(r'"((?:chat|reactions|conversations|auth)\.[A-Za-z]+)"', source))
    assert called - {"auth.test"} == set(NEEDED)  # auth.test needs no scope
