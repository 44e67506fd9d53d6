"""chat.postEphemeral: a message one person sees, never in the channel's history."""

from __future__ import annotations

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.localslack import LocalSlack

ALEX = "U0LOCALALX"


def error_of(client: WebClient, **args: object) -> str:
    with pytest.raises(SlackApiError) as caught:
        client.chat_postEphemeral(**args)  # type: ignore[arg-type]
    return str(caught.value.response["error"])


def test_an_ephemeral_message_is_seen_by_its_person_only(
    slack: LocalSlack, client: WebClient, channel: str
) -> None:
    answer = client.chat_postEphemeral(channel=channel, user=ALEX, text="Not allowed: ask alex")
    assert set(answer.data) == {"ok", "message_ts"}  # type: ignore[arg-type]
    [seen] = slack.ephemerals(ALEX)
    assert seen["ts"] == answer["message_ts"] and seen["text"] == "Not allowed: ask alex"
    assert seen["is_ephemeral"] is True and seen["channel"] == channel
    assert slack.ephemerals() == [] and slack.ephemerals(ALEX, "agents") == [seen]
    assert client.conversations_history(channel=channel)["messages"] == []


def test_an_ephemeral_reply_stays_out_of_the_thread(
    slack: LocalSlack, client: WebClient, channel: str
) -> None:
    root = client.chat_postMessage(channel=channel, text="session")["ts"]
    client.chat_postEphemeral(channel=channel, user=ALEX, text="only you", thread_ts=root)
    assert slack.ephemerals(ALEX)[0]["thread_ts"] == root
    assert [m["text"] for m in slack.thread("agents", root)] == ["session"]


def test_chat_post_ephemeral_refusals(client: WebClient, channel: str) -> None:
    assert error_of(client, channel=channel, user="U0NOBODY", text="x") == "user_not_in_channel"
    assert error_of(client, channel="C0NOPE", user=ALEX, text="x") == "channel_not_found"
    with pytest.warns(UserWarning, match="text"):  # slack_sdk warns too
        assert error_of(client, channel=channel, user=ALEX, text=" ") == "no_text"
    too_long = [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}]
    assert error_of(client, channel=channel, user=ALEX, text="x", blocks=too_long) == (
        "invalid_blocks"
    )


def test_ephemerals_are_forgotten_on_reset(
    slack: LocalSlack, client: WebClient, channel: str
) -> None:
    client.chat_postEphemeral(channel=channel, user=ALEX, text="x")
    slack.reset()
    assert slack.ephemerals(ALEX) == []
