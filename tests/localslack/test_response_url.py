"""response_url: what an app POSTs there (bolt's `respond()` uses slack_sdk's WebhookClient) is
done as Slack does it, five times in thirty minutes."""

from __future__ import annotations

from slack_sdk import WebClient
from slack_sdk.webhook import WebhookClient

from bot.localslack import LocalSlack
from tests.conftest import FakeClock

from .apps import SocketApp, button, post_with_buttons

ALEX = "U0LOCALALX"


def clicked(
    slack: LocalSlack, client: WebClient, app: SocketApp, user: str = ALEX
) -> tuple[str, WebhookClient]:
    """(ts of a message with a button, a webhook client on the response_url of a click on it)."""
    ts = post_with_buttons(client, button("stop"))
    slack.click("agents", ts, "stop", user=user)
    return ts, WebhookClient(app.payloads[-1]["response_url"])


def test_an_answer_is_ephemeral_by_default(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    _, respond = clicked(slack, client, app)
    answer = respond.send(text="You may not stop this session.")
    assert answer.status_code == 200
    [shown] = slack.ephemerals(ALEX)
    assert shown["text"] == "You may not stop this session."
    assert slack.ephemerals() == [] and len(slack.channel_messages()) == 1


def test_in_channel_posts_for_everyone(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    ts, respond = clicked(slack, client, app)
    assert respond.send(text="Stopped by alex", response_type="in_channel").status_code == 200
    assert [m["text"] for m in slack.channel_messages()] == ["controls", "Stopped by alex"]
    respond.send_dict({"text": "in the thread", "response_type": "in_channel", "thread_ts": ts})
    assert slack.thread("agents", ts)[-1]["text"] == "in the thread"


def test_replace_and_delete_the_original(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    ts, respond = clicked(slack, client, app)
    assert respond.send(text="Stopping…", replace_original=True).status_code == 200
    [message] = slack.channel_messages()
    assert message["ts"] == ts and message["text"] == "Stopping…" and "blocks" not in message
    assert respond.send(delete_original=True).status_code == 200
    assert slack.channel_messages() == []


def test_an_ephemeral_original_is_replaced_for_its_person(
    slack: LocalSlack, client: WebClient, app: SocketApp, channel: str
) -> None:
    blocks = [{"type": "actions", "elements": [button("undo")]}]
    ts = client.chat_postEphemeral(channel=channel, user=ALEX, text="x", blocks=blocks)[
        "message_ts"
    ]
    slack.click("agents", ts, "undo", user=ALEX)
    WebhookClient(app.payloads[-1]["response_url"]).send(text="Undone", replace_original=True)
    [shown] = slack.ephemerals(ALEX)
    assert (shown["ts"], shown["text"], "blocks" in shown) == (ts, "Undone", False)


def test_a_response_url_answers_five_times_in_thirty_minutes(
    slack: LocalSlack, client: WebClient, app: SocketApp, clock: FakeClock
) -> None:
    _, respond = clicked(slack, client, app)
    for n in range(5):
        assert respond.send(text=f"answer {n}").status_code == 200
    used = respond.send(text="one too many")
    assert used.status_code == 404 and "used_url" in used.body
    _, later = clicked(slack, client, app)
    clock.advance(30 * 60 + 1)
    expired = later.send(text="too late")
    assert expired.status_code == 404 and "expired_url" in expired.body


def test_a_bad_answer_is_refused(slack: LocalSlack, client: WebClient, app: SocketApp) -> None:
    _, respond = clicked(slack, client, app)
    too_long = [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}]
    refused = respond.send(text="x", blocks=too_long)
    assert refused.status_code == 400 and "invalid_blocks" in refused.body
    assert respond.send(text=" ").status_code == 400
    assert slack.ephemerals(ALEX) == []
