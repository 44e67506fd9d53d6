"""What a person does, as the app receives it: block_actions from a message, a thread reply, an
ephemeral message, a modal; view_submission and the app's response_action; view_closed;
app_home_opened. Shapes checked against Slack's docs and bolt-python's own test payloads."""

from __future__ import annotations

import re
from typing import Any

import pytest
from slack_sdk import WebClient
from slack_sdk.socket_mode.request import SocketModeRequest

from bot.localslack import LocalSlack
from bot.localslack.model import APP_ID, VERIFICATION_TOKEN, SlackError

from .apps import SocketApp, button, post_with_buttons

ALEX = "U0LOCALALX"
# The keys of bolt-python's block_actions test payloads (tests/scenario_tests/
# test_block_actions_respond.py), which Slack sends for a click on a message.
BOLT_BLOCK_ACTIONS_KEYS = {
    "type", "user", "api_app_id", "container", "trigger_id", "team", "enterprise",
    "is_enterprise_install", "channel", "message", "state", "response_url", "actions",
}  # fmt: skip
INPUT_VIEW = {
    "type": "modal",
    "callback_id": "deny_reason",
    "title": {"type": "plain_text", "text": "Deny"},
    "submit": {"type": "plain_text", "text": "Deny"},
    "private_metadata": "call-7",
    "blocks": [
        {"type": "input", "block_id": "reason", "label": {"type": "plain_text", "text": "Why"},
         "element": {"type": "plain_text_input", "action_id": "text"}},
        {"type": "input", "block_id": "note", "optional": True,
         "label": {"type": "plain_text", "text": "Note"},
         "element": {"type": "plain_text_input", "action_id": "text"}},
    ],
}  # fmt: skip


def open_modal(slack: LocalSlack, client: WebClient, app: SocketApp, view: dict[str, Any]) -> str:
    ts = post_with_buttons(client, button("open"))
    assert slack.click("agents", ts, "open").acked
    trigger_id = app.requests[-1].payload["trigger_id"]
    return str(client.views_open(trigger_id=trigger_id, view=view)["view"]["id"])


def test_a_click_on_a_message_is_shaped_as_slack_shapes_it(
    slack: LocalSlack, client: WebClient, app: SocketApp, channel: str
) -> None:
    ts = post_with_buttons(client, button("stop", "Stop", value="s-1", style="danger"))
    slack.click("agents", ts, "stop", user=ALEX)
    payload = app.payloads[0]
    assert set(payload) == BOLT_BLOCK_ACTIONS_KEYS | {"token"}
    assert payload["type"] == "block_actions" and payload["api_app_id"] == APP_ID
    assert payload["token"] == VERIFICATION_TOKEN
    assert payload["user"] == {"id": ALEX, "username": "alex", "name": "alex",
                               "team_id": payload["team"]["id"]}  # fmt: skip
    assert payload["container"] == {
        "type": "message", "message_ts": ts, "channel_id": channel, "is_ephemeral": False,
    }  # fmt: skip
    assert re.fullmatch(r"\d+\.\d+\.[0-9a-f]+", payload["trigger_id"])
    assert payload["channel"] == {"id": channel, "name": "agents"}
    assert payload["message"] == client.conversations_history(channel=channel)["messages"][0]
    assert payload["state"] == {"values": {}}
    assert payload["response_url"].startswith(slack.page_url + "actions/")
    [action] = payload["actions"]
    assert action == {
        "action_id": "stop", "block_id": "controls", "type": "button", "value": "s-1",
        "text": {"type": "plain_text", "text": "Stop", "emoji": True},
        "action_ts": action["action_ts"],
    }  # fmt: skip
    assert re.fullmatch(r"\d{10}\.\d{6}", action["action_ts"])


def test_a_click_in_a_thread_names_the_thread(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    root = client.chat_postMessage(channel="#agents", text="session")["ts"]
    ts = post_with_buttons(client, button("full"), thread_ts=root)
    slack.click("agents", ts, "full")
    payload = app.payloads[0]
    assert payload["container"]["thread_ts"] == root
    assert payload["message"]["thread_ts"] == root


def test_a_section_accessory_is_clickable_and_a_missing_block_id_is_made_up_stably(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    section = {"type": "section", "text": {"type": "mrkdwn", "text": "Bash"},
               "accessory": button("full", "Full output")}  # fmt: skip
    ts = client.chat_postMessage(channel="#agents", text="t", blocks=[section])["ts"]
    slack.click("agents", ts, "full")
    slack.click("agents", ts, "full")
    first, second = (p["actions"][0]["block_id"] for p in app.payloads)
    assert first == second and re.fullmatch(r"[0-9a-f]{5}", first)


def test_clicking_what_is_not_there_is_refused(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    ts = post_with_buttons(client, button("stop"))
    with pytest.raises(SlackError, match="action_not_found"):
        slack.click("agents", ts, "approve")
    with pytest.raises(SlackError, match="user_not_found"):
        slack.click("agents", ts, "stop", user="U0NOBODY")
    assert app.requests == []


def test_a_click_on_an_ephemeral_message_says_so_and_carries_no_message(
    slack: LocalSlack, client: WebClient, app: SocketApp, channel: str
) -> None:
    blocks = [{"type": "actions", "elements": [button("undo")]}]
    ts = client.chat_postEphemeral(channel=channel, user=ALEX, text="x", blocks=blocks)[
        "message_ts"
    ]
    slack.click("agents", ts, "undo", user=ALEX)
    payload = app.payloads[0]
    assert payload["container"]["is_ephemeral"] is True and "message" not in payload
    with pytest.raises(SlackError, match="message_not_found"):
        slack.click("agents", ts, "undo")  # the local user never saw it


def test_a_click_in_a_modal_carries_the_view_not_the_channel(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    view = {"type": "modal", "title": {"type": "plain_text", "text": "Output"},
            "blocks": [{"type": "actions", "elements": [button("more")]}]}  # fmt: skip
    view_id = open_modal(slack, client, app, view)
    slack.click_view("more")
    payload = app.payloads[-1]
    assert payload["container"] == {"type": "view", "view_id": view_id}
    assert payload["view"]["id"] == view_id
    assert not {"channel", "message", "response_url"} & set(payload)


def test_a_submission_carries_what_was_typed_and_closes_the_modal(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    view_id = open_modal(slack, client, app, INPUT_VIEW)
    outcome = slack.submit_view(values={"reason": {"text": "rm -rf"}})
    assert outcome.acked and slack.modal() is None
    payload = app.payloads[-1]
    assert payload["type"] == "view_submission" and payload["view"]["id"] == view_id
    assert payload["view"]["private_metadata"] == "call-7"
    assert payload["view"]["state"]["values"] == {
        "reason": {"text": {"type": "plain_text_input", "value": "rm -rf"}},
        "note": {"text": {"type": "plain_text_input", "value": None}},
    }
    assert app.requests[-1].accepts_response_payload is True


def test_a_required_input_left_empty_is_not_sent(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    open_modal(slack, client, app, INPUT_VIEW)
    sent = len(app.requests)
    outcome = slack.submit_view(values={"note": {"text": "only the note"}})
    assert not outcome.acked and set(outcome.input_errors) == {"reason"}
    assert len(app.requests) == sent and slack.modal() is not None


def answer_with(response: dict[str, Any]) -> Any:
    def answer(request: SocketModeRequest) -> dict[str, Any] | None:
        return response if request.payload["type"] == "view_submission" else None

    return answer


@pytest.mark.parametrize(
    ("response", "titles"),
    [
        ({"response_action": "errors", "errors": {"reason": "Say why"}}, ["Deny"]),
        ({"response_action": "update", "view": {**INPUT_VIEW, "title": {
            "type": "plain_text", "text": "Updated"}}}, ["Updated"]),
        ({"response_action": "push", "view": {**INPUT_VIEW, "title": {
            "type": "plain_text", "text": "Pushed"}}}, ["Deny", "Pushed"]),
        ({"response_action": "clear"}, []),
        ({}, []),
    ],
)  # fmt: skip
def test_the_apps_response_action_is_done(
    slack: LocalSlack, client: WebClient, app: SocketApp, response: dict[str, Any],
    titles: list[str],
) -> None:  # fmt: skip
    app.answer = answer_with(response)
    open_modal(slack, client, app, INPUT_VIEW)
    outcome = slack.submit_view(values={"reason": {"text": "why not"}})
    assert outcome.acked
    assert [m["title"]["text"] for m in slack.modals()] == titles
    if response.get("response_action") == "errors":
        assert outcome.input_errors == {"reason": "Say why"}
        shown = slack.modal()
        assert shown is not None and shown["state"]["values"]["reason"]["text"]["value"] == (
            "why not"
        )


def test_view_closed_is_sent_only_when_the_view_asks(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    open_modal(slack, client, app, INPUT_VIEW)
    sent = len(app.requests)
    assert slack.close_view().acked and len(app.requests) == sent
    view_id = open_modal(slack, client, app, {**INPUT_VIEW, "notify_on_close": True,
                                              "clear_on_close": True})  # fmt: skip
    slack.close_view()
    payload = app.payloads[-1]
    assert payload["type"] == "view_closed" and payload["view"]["id"] == view_id
    assert payload["is_cleared"] is True and slack.modal() is None


def test_opening_the_home_tab_sends_app_home_opened(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    published = client.views_publish(user_id=ALEX, view={"type": "home", "blocks": []})["view"]
    assert slack.open_home(ALEX).acked
    request = app.requests[-1]
    assert request.type == "events_api"
    envelope = request.payload
    assert envelope["type"] == "event_callback" and envelope["api_app_id"] == APP_ID
    assert envelope["event_id"].startswith("Ev") and isinstance(envelope["event_time"], int)
    event = envelope["event"]
    assert (event["type"], event["user"], event["tab"]) == ("app_home_opened", ALEX, "home")
    assert event["channel"].startswith("D") and event["view"] == published
