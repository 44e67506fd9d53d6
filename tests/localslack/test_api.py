"""Every Web API method slacktail uses, through slack_sdk's own client: answers and refusals."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.localslack import LocalSlack
from bot.localslack.model import BLOCKS_FALLBACK_TEXT, BOT_USER_ID

from .conftest import TOKEN
from .helpers import call, form

META = {"event_type": "slacktail_message", "event_payload": {"key": "root", "session": "s1"}}


def refusal(action: Callable[[], Any]) -> dict[str, Any]:
    """The body of the SlackApiError that `action` raises (HTTP 200, ok false)."""
    with pytest.raises(SlackApiError) as caught:
        action()
    assert caught.value.response.status_code == 200
    data = caught.value.response.data
    assert isinstance(data, dict) and data["ok"] is False
    return data


def error_of(action: Callable[[], Any]) -> str:
    return str(refusal(action)["error"])


# -- auth and transport --------------------------------------------------------------------


def test_auth_test_names_the_bot_and_team(client: WebClient, slack: LocalSlack) -> None:
    data = client.auth_test().data
    assert isinstance(data, dict)
    assert data["user_id"] == BOT_USER_ID and data["bot_id"] and data["team_id"]
    assert data["url"] == slack.page_url


def test_a_call_without_a_token_is_not_authed(slack: LocalSlack) -> None:
    anonymous = WebClient(base_url=slack.base_url, retry_handlers=[])
    assert error_of(anonymous.auth_test) == "not_authed"


def test_a_wrong_token_is_invalid_auth(slack: LocalSlack) -> None:
    stranger = WebClient(token="xoxb-wrong", base_url=slack.base_url, retry_handlers=[])
    assert error_of(lambda: stranger.chat_postMessage(channel="#agents", text="x")) == (
        "invalid_auth"
    )
    assert slack.channel_messages() == []


def test_a_token_form_field_authenticates_a_form_call(slack: LocalSlack) -> None:
    body = form(slack, "chat.postMessage", {"token": TOKEN, "channel": "agents", "text": "hi"})
    assert body["ok"] is True
    assert slack.channel_messages()[0]["text"] == "hi"


def test_a_token_inside_a_json_body_does_not_authenticate(slack: LocalSlack) -> None:
    _, body, _ = call(
        slack,
        "api/auth.test",
        b'{"token": "%s"}' % TOKEN.encode(),
        {"Content-Type": "application/json"},
    )
    assert body["error"] == "not_authed"


def test_a_query_string_call_works_like_slack_sdks_get(slack: LocalSlack) -> None:
    channel = slack.channel_id()
    status, body, _ = call(
        slack,
        f"api/conversations.info?channel={channel}",
        headers={"Authorization": f"Bearer {TOKEN}"},
        method="GET",
    )
    assert status == 200 and body["channel"]["name"] == "agents"


def test_an_unknown_method_answers_unknown_method(client: WebClient) -> None:
    assert error_of(lambda: client.api_call("chat.nonsense")) == "unknown_method"


@pytest.mark.parametrize(
    ("content_type", "body", "code"),
    [
        ("application/json", b"{not json", "invalid_json"),
        ("application/json", b"[1, 2]", "invalid_json"),
        ("text/csv", b"a,b", "invalid_post_type"),
        ("", b"channel=x", "missing_post_type"),
    ],
)
def test_unreadable_bodies_are_refused_in_slacks_words(
    slack: LocalSlack, content_type: str, body: bytes, code: str
) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if content_type:
        headers["Content-Type"] = content_type
    status, answer, _ = call(slack, "api/chat.postMessage", body, headers)
    assert (status, answer) == (200, {"ok": False, "error": code})


# -- conversations.* -----------------------------------------------------------------------


def test_conversations_list_pages_with_a_cursor(client: WebClient, slack: LocalSlack) -> None:
    slack.create_channel("builds")
    slack.create_channel("deploys")
    names = []
    for page in client.conversations_list(limit=2):
        names += [c["name"] for c in page["channels"]]
    assert names == ["agents", "builds", "deploys"]


def test_conversations_list_of_other_types_is_empty(client: WebClient) -> None:
    assert client.conversations_list(types="im,mpim")["channels"] == []


def test_conversations_list_refuses_a_foreign_cursor(client: WebClient) -> None:
    assert error_of(lambda: client.conversations_list(cursor="garbage!")) == "invalid_cursor"


def test_conversations_info_takes_an_id_not_a_name(client: WebClient, channel: str) -> None:
    info = client.conversations_info(channel=channel)["channel"]
    assert info["id"] == channel and info["is_member"] is True
    assert error_of(lambda: client.conversations_info(channel="agents")) == "channel_not_found"


def test_history_returns_channel_messages_newest_first(client: WebClient, channel: str) -> None:
    first = client.chat_postMessage(channel=channel, text="first")["ts"]
    client.chat_postMessage(channel=channel, text="reply", thread_ts=first)
    client.chat_postMessage(channel=channel, text="second")
    texts = [m["text"] for m in client.conversations_history(channel=channel)["messages"]]
    assert texts == ["second", "first"]


def test_history_paginates_through_next_cursor(client: WebClient, channel: str) -> None:
    for i in range(5):
        client.chat_postMessage(channel=channel, text=str(i))
    pages = [
        [m["text"] for m in page["messages"]]
        for page in client.conversations_history(channel=channel, limit=2)
    ]
    assert pages == [["4", "3"], ["2", "1"], ["0"]]


def test_history_with_oldest_and_latest(client: WebClient, channel: str) -> None:
    stamps = [client.chat_postMessage(channel=channel, text=str(i))["ts"] for i in range(4)]
    page = client.conversations_history(channel=channel, oldest=stamps[0], latest=stamps[3])
    assert [m["text"] for m in page["messages"]] == ["2", "1"]
    assert error_of(lambda: client.conversations_history(channel=channel, oldest="soon")) == (
        "invalid_ts_oldest"
    )


def test_history_refuses_an_unknown_channel_and_a_bad_cursor(
    client: WebClient, channel: str
) -> None:
    assert error_of(lambda: client.conversations_history(channel="C404")) == "channel_not_found"
    assert error_of(lambda: client.conversations_history(channel=channel, cursor="x")) == (
        "invalid_cursor"
    )


def test_metadata_comes_back_only_with_include_all_metadata(
    client: WebClient, channel: str
) -> None:
    root = client.chat_postMessage(channel=channel, text="root", metadata=META)
    assert "metadata" not in root["message"]
    assert "metadata" not in client.conversations_history(channel=channel)["messages"][0]
    history = client.conversations_history(channel=channel, include_all_metadata=True)
    assert history["messages"][0]["metadata"] == META
    replies = client.conversations_replies(channel=channel, ts=root["ts"])
    assert "metadata" not in replies["messages"][0]
    replies = client.conversations_replies(
        channel=channel, ts=root["ts"], include_all_metadata=True
    )
    assert replies["messages"][0]["metadata"] == META


def test_replies_return_the_thread_and_paginate(client: WebClient, channel: str) -> None:
    root = client.chat_postMessage(channel=channel, text="root")["ts"]
    for i in range(3):
        client.chat_postMessage(channel=channel, text=str(i), thread_ts=root)
    pages = [
        [m["text"] for m in page["messages"]]
        for page in client.conversations_replies(channel=channel, ts=root, limit=2)
    ]
    assert pages == [["root", "0"], ["1", "2"]]


def test_replies_of_an_unknown_ts_answer_thread_not_found(client: WebClient, channel: str) -> None:
    assert error_of(lambda: client.conversations_replies(channel=channel, ts="1.000001")) == (
        "thread_not_found"
    )


# -- chat.postMessage ----------------------------------------------------------------------


@pytest.mark.parametrize("ref", ["id", "#agents", "agents"])
def test_post_takes_a_channel_id_or_name(
    client: WebClient, slack: LocalSlack, channel: str, ref: str
) -> None:
    answer = client.chat_postMessage(channel=channel if ref == "id" else ref, text="hi")
    assert answer["channel"] == channel
    assert answer["message"]["ts"] == answer["ts"]
    assert slack.channel_messages()[0]["ts"] == answer["ts"]


def test_post_without_text_or_blocks_is_no_text(client: WebClient, channel: str) -> None:
    with pytest.warns(UserWarning):  # slack_sdk warns of it too
        assert error_of(lambda: client.chat_postMessage(channel=channel, text="")) == "no_text"
        assert error_of(lambda: client.chat_postMessage(channel=channel, text="  ")) == "no_text"


def test_post_to_an_unknown_channel_is_channel_not_found(client: WebClient) -> None:
    assert error_of(lambda: client.chat_postMessage(channel="#nowhere", text="x")) == (
        "channel_not_found"
    )


def test_post_to_a_channel_the_bot_is_not_in_is_not_in_channel(
    client: WebClient, slack: LocalSlack
) -> None:
    slack.create_channel("private-ish", is_member=False)
    assert error_of(lambda: client.chat_postMessage(channel="#private-ish", text="x")) == (
        "not_in_channel"
    )


def test_post_with_blocks_and_no_text_gets_slacks_fallback_text(
    client: WebClient, channel: str
) -> None:
    with pytest.warns(UserWarning):  # slack_sdk's own nudge to send a text
        answer = client.chat_postMessage(channel=channel, blocks=[{"type": "divider"}])
    assert answer["message"]["text"] == BLOCKS_FALLBACK_TEXT


def test_post_takes_blocks_as_a_json_string_in_a_form(slack: LocalSlack) -> None:
    blocks = '[{"type": "section", "text": {"type": "mrkdwn", "text": "*hi*"}}]'
    body = form(
        slack, "chat.postMessage", {"channel": "agents", "text": "hi", "blocks": blocks}, TOKEN
    )
    assert body["ok"] is True
    assert slack.channel_messages()[0]["blocks"][0]["text"]["text"] == "*hi*"


@pytest.mark.parametrize(
    "blocks",
    [
        '{"type": "divider"}',
        '"[{\\"type\\": \\"divider\\"}]"',  # double-encoded
        "not json",
    ],
)
def test_blocks_that_are_not_a_json_array_are_invalid_blocks_format(
    slack: LocalSlack, blocks: str
) -> None:
    body = form(
        slack, "chat.postMessage", {"channel": "agents", "text": "x", "blocks": blocks}, TOKEN
    )
    assert body == {"ok": False, "error": "invalid_blocks_format"}


def test_a_reply_to_an_unknown_thread_is_refused(client: WebClient, channel: str) -> None:
    assert (
        error_of(
            lambda: client.chat_postMessage(
                channel=channel, text="x", thread_ts="1700000000.000001"
            )
        )
        == "thread_not_found"
    )
    assert (
        error_of(lambda: client.chat_postMessage(channel=channel, text="x", thread_ts="0"))
        == "invalid_thread_ts"
    )


def test_a_reply_to_a_deleted_parent_with_replies_cannot_be_made(
    client: WebClient, channel: str
) -> None:
    root = client.chat_postMessage(channel=channel, text="root")["ts"]
    client.chat_postMessage(channel=channel, text="r", thread_ts=root)
    client.chat_delete(channel=channel, ts=root)
    assert (
        error_of(lambda: client.chat_postMessage(channel=channel, text="x", thread_ts=root))
        == "cannot_reply_to_message"
    )


def test_reply_broadcast_shows_the_reply_in_the_channel(
    client: WebClient, slack: LocalSlack, channel: str
) -> None:
    root = client.chat_postMessage(channel=channel, text="root")["ts"]
    client.chat_postMessage(channel=channel, text="result", thread_ts=root, reply_broadcast=True)
    assert [m["text"] for m in slack.channel_messages()] == ["root", "result"]
    assert len(slack.thread(channel, root)) == 2


def test_post_accepts_and_records_the_safety_options(
    client: WebClient, slack: LocalSlack, channel: str
) -> None:
    client.chat_postMessage(
        channel=channel,
        text="<!channel> hi",
        unfurl_links=False,
        unfurl_media=False,
        parse="none",
        link_names=False,
    )
    [request] = slack.requests
    assert request.params["parse"] == "none" and request.params["link_names"] is False
    assert request.params["unfurl_links"] is False and request.params["unfurl_media"] is False


@pytest.mark.parametrize(
    ("metadata", "code"),
    [
        ("not json", "invalid_metadata_format"),
        ('["a list"]', "invalid_metadata_format"),
        ('{"event_type": "x"}', "invalid_metadata_schema"),
        ('{"event_type": "", "event_payload": {}}', "invalid_metadata_schema"),
    ],
)
def test_malformed_metadata_is_refused(slack: LocalSlack, metadata: str, code: str) -> None:
    fields = {"channel": "agents", "text": "x", "metadata": metadata}
    assert form(slack, "chat.postMessage", fields, TOKEN) == {"ok": False, "error": code}


def test_text_past_40000_characters_is_truncated_with_a_warning(
    client: WebClient, slack: LocalSlack, channel: str
) -> None:
    answer = client.chat_postMessage(channel=channel, text="x" * 40_001)
    assert answer["response_metadata"]["warnings"] == ["message_truncated"]
    assert len(slack.channel_messages()[0]["text"]) == 40_000
    plain = client.chat_postMessage(channel=channel, text="x" * 40_000)
    assert isinstance(plain.data, dict) and "warning" not in plain.data


# -- chat.update and chat.delete -----------------------------------------------------------


def test_update_replaces_the_message_in_place(
    client: WebClient, slack: LocalSlack, channel: str
) -> None:
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "running"}}]
    ts = client.chat_postMessage(channel=channel, text="running", blocks=blocks)["ts"]
    done = [{"type": "section", "text": {"type": "mrkdwn", "text": "done"}}]
    answer = client.chat_update(channel=channel, ts=ts, text="done", blocks=done)
    assert answer["ts"] == ts and answer["text"] == "done"
    [message] = slack.channel_messages()
    assert message["blocks"] == done and "edited" not in message


def test_update_with_text_and_no_blocks_removes_the_blocks(
    client: WebClient, slack: LocalSlack, channel: str
) -> None:
    ts = client.chat_postMessage(channel=channel, text="t", blocks=[{"type": "divider"}])["ts"]
    client.chat_update(channel=channel, ts=ts, text="plain")
    [message] = slack.channel_messages()
    assert "blocks" not in message and message["text"] == "plain" and "edited" in message


def test_update_of_someone_elses_message_is_cant_update_message(
    client: WebClient, slack: LocalSlack, channel: str
) -> None:
    ts = slack.post_as_user(channel, "a person wrote this")
    assert error_of(lambda: client.chat_update(channel=channel, ts=ts, text="x")) == (
        "cant_update_message"
    )


def test_update_of_an_unknown_or_deleted_message_is_message_not_found(
    client: WebClient, channel: str
) -> None:
    ts = client.chat_postMessage(channel=channel, text="soon gone")["ts"]
    client.chat_delete(channel=channel, ts=ts)
    assert error_of(lambda: client.chat_update(channel=channel, ts=ts, text="x")) == (
        "message_not_found"
    )
    assert error_of(lambda: client.chat_update(channel=channel, ts="1.000001", text="x")) == (
        "message_not_found"
    )


def test_update_without_content_is_no_text(client: WebClient, channel: str) -> None:
    ts = client.chat_postMessage(channel=channel, text="t")["ts"]
    with pytest.warns(UserWarning):
        assert error_of(lambda: client.chat_update(channel=channel, ts=ts)) == "no_text"


def test_update_refuses_invalid_blocks_like_post(client: WebClient, channel: str) -> None:
    ts = client.chat_postMessage(channel=channel, text="t")["ts"]
    blocks = [{"type": "header", "text": {"type": "plain_text", "text": "h" * 151}}]
    data = refusal(lambda: client.chat_update(channel=channel, ts=ts, text="t", blocks=blocks))
    assert data["error"] == "invalid_blocks"


def test_update_can_replace_metadata(client: WebClient, channel: str) -> None:
    ts = client.chat_postMessage(channel=channel, text="t", metadata=META)["ts"]
    newer = {"event_type": "slacktail_message", "event_payload": {"key": "root", "v": 2}}
    client.chat_update(channel=channel, ts=ts, text="t2", metadata=newer)
    history = client.conversations_history(channel=channel, include_all_metadata=True)
    assert history["messages"][0]["metadata"] == newer


def test_delete_removes_the_message(client: WebClient, slack: LocalSlack, channel: str) -> None:
    ts = client.chat_postMessage(channel=channel, text="bye")["ts"]
    assert client.chat_delete(channel=channel, ts=ts)["ts"] == ts
    assert slack.channel_messages() == []
    assert error_of(lambda: client.chat_delete(channel=channel, ts=ts)) == "message_not_found"


def test_delete_of_someone_elses_message_is_cant_delete_message(
    client: WebClient, slack: LocalSlack, channel: str
) -> None:
    ts = slack.post_as_user(channel, "mine")
    assert error_of(lambda: client.chat_delete(channel=channel, ts=ts)) == "cant_delete_message"


# -- reactions -----------------------------------------------------------------------------


def test_reactions_add_get_remove(client: WebClient, channel: str) -> None:
    ts = client.chat_postMessage(channel=channel, text="x")["ts"]
    client.reactions_add(channel=channel, timestamp=ts, name="hourglass_flowing_sand")
    client.reactions_add(channel=channel, timestamp=ts, name="thumbsup::skin-tone-2")
    got = client.reactions_get(channel=channel, timestamp=ts)
    assert got["type"] == "message" and got["channel"] == channel
    assert got["message"]["reactions"][0] == {
        "name": "hourglass_flowing_sand",
        "users": [BOT_USER_ID],
        "count": 1,
    }
    client.reactions_remove(channel=channel, timestamp=ts, name="hourglass_flowing_sand")
    names = [
        r["name"]
        for r in client.reactions_get(channel=channel, timestamp=ts)["message"]["reactions"]
    ]
    assert names == ["thumbsup::skin-tone-2"]


def test_adding_a_reaction_twice_is_already_reacted(client: WebClient, channel: str) -> None:
    ts = client.chat_postMessage(channel=channel, text="x")["ts"]
    client.reactions_add(channel=channel, timestamp=ts, name="x")
    assert error_of(lambda: client.reactions_add(channel=channel, timestamp=ts, name="x")) == (
        "already_reacted"
    )


@pytest.mark.parametrize("name", [":white_check_mark:", "✅", "", "Capital"])
def test_a_reaction_name_must_be_a_short_name_without_colons(
    client: WebClient, channel: str, name: str
) -> None:
    ts = client.chat_postMessage(channel=channel, text="x")["ts"]
    assert error_of(lambda: client.reactions_add(channel=channel, timestamp=ts, name=name)) == (
        "invalid_name"
    )


def test_removing_a_reaction_not_there_is_no_reaction(client: WebClient, channel: str) -> None:
    ts = client.chat_postMessage(channel=channel, text="x")["ts"]
    assert error_of(lambda: client.reactions_remove(channel=channel, timestamp=ts, name="x")) == (
        "no_reaction"
    )


def test_reactions_on_missing_messages_or_bad_timestamps_are_refused(
    client: WebClient, channel: str
) -> None:
    assert (
        error_of(lambda: client.reactions_add(channel=channel, timestamp="1.000001", name="x"))
        == "message_not_found"
    )
    assert error_of(lambda: client.reactions_add(channel=channel, timestamp="now", name="x")) == (
        "bad_timestamp"
    )
    assert error_of(lambda: client.reactions_get(channel=channel)) == "no_item_specified"


# -- assistant.threads.setStatus -----------------------------------------------------------


def test_set_status_shows_under_the_thread_until_cleared(
    client: WebClient, slack: LocalSlack, channel: str
) -> None:
    root = client.chat_postMessage(channel=channel, text="root")["ts"]
    client.assistant_threads_setStatus(
        channel_id=channel, thread_ts=root, status="is running Bash…"
    )
    assert slack.workspace.statuses(channel) == {root: "is running Bash…"}
    client.assistant_threads_setStatus(channel_id=channel, thread_ts=root, status="")
    assert slack.workspace.statuses(channel) == {}


def test_set_status_lasts_until_the_app_posts_in_the_thread_not_a_person_or_an_edit(
    client: WebClient, slack: LocalSlack, channel: str
) -> None:
    root = client.chat_postMessage(channel=channel, text="root")["ts"]
    client.assistant_threads_setStatus(
        channel_id=channel, thread_ts=root, status="is running Bash…", loading_messages=["1/3"]
    )
    slack.post_as_user("agents", "how long?", thread_ts=root)
    client.chat_update(channel=channel, ts=root, text="root, edited")
    assert slack.status("agents", root) == "is running Bash…"
    details = slack.workspace.status(channel, root)
    assert details is not None and details["loading_messages"] == ["1/3"]
    client.chat_postMessage(channel=channel, text="✅ Bash", thread_ts=root)
    assert slack.status("agents", root) is None


def test_set_status_refuses_unknown_threads_and_channels(client: WebClient, channel: str) -> None:
    assert (
        error_of(
            lambda: client.assistant_threads_setStatus(
                channel_id=channel, thread_ts="1.000001", status="x"
            )
        )
        == "invalid_thread_ts"
    )
    assert (
        error_of(
            lambda: client.assistant_threads_setStatus(
                channel_id="C404", thread_ts="1.0", status="x"
            )
        )
        == "channel_not_found"
    )


def test_set_status_takes_at_most_ten_loading_messages(client: WebClient, channel: str) -> None:
    root = client.chat_postMessage(channel=channel, text="root")["ts"]
    assert (
        error_of(
            lambda: client.assistant_threads_setStatus(
                channel_id=channel, thread_ts=root, status="x", loading_messages=["m"] * 11
            )
        )
        == "invalid_arguments"
    )
