"""What a person sees in the local Slack's channel, for scenario tests to compare."""

from __future__ import annotations

from typing import Any

from bot.localslack import LocalSlack

Channel = list[list[tuple[str, Any]]]


def seen(slack: LocalSlack) -> Channel:
    """Each thread as a person sees it: (text, blocks) of the root and then each reply."""
    ident = slack.channel_id()
    return [
        [(m["text"], m.get("blocks")) for m in slack.thread(ident, root["ts"])]
        for root in slack.channel_messages()
    ]
