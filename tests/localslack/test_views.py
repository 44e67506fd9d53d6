"""views.open / push / update / publish through slack_sdk: triggers good once and for 3 seconds,
a stack of three modals, view ids, external ids and hashes, a Home per person."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.localslack import LocalSlack
from tests.conftest import FakeClock

from .apps import SocketApp, button, post_with_buttons

ALEX = "U0LOCALALX"


def modal(title: str = "Details", **extra: Any) -> dict[str, Any]:
    blocks = [{"type": "actions", "elements": [button("more", "More")]}]
    return {"type": "modal", "title": {"type": "plain_text", "text": title},
            "blocks": blocks, **extra}  # fmt: skip


def home(text: str = "Sessions") -> dict[str, Any]:
    section = {"type": "section", "text": {"type": "mrkdwn", "text": text}}
    return {"type": "home", "blocks": [section]}


def trigger(slack: LocalSlack, client: WebClient, app: SocketApp, user: str = "U0LOCALUSR") -> str:
    """The trigger_id of a click by `user` on a new message's button."""
    ts = post_with_buttons(client, button("open"))
    assert slack.click("agents", ts, "open", user=user).acked
    return str(app.requests[-1].payload["trigger_id"])


def view_trigger(slack: LocalSlack, app: SocketApp, user: str = "U0LOCALUSR") -> str:
    """The trigger_id of a click on the button in `user`'s open modal."""
    assert slack.click_view("more", user=user).acked
    return str(app.requests[-1].payload["trigger_id"])


def error_of(action: Callable[[], Any]) -> str:
    with pytest.raises(SlackApiError) as caught:
        action()
    return str(caught.value.response["error"])


def test_views_open_shows_the_modal_to_the_person_who_clicked(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    opened = client.views_open(trigger_id=trigger(slack, client, app, ALEX), view=modal())["view"]
    assert opened["id"].startswith("V") and opened["root_view_id"] == opened["id"]
    assert opened["previous_view_id"] is None and opened["type"] == "modal"
    assert opened["state"] == {"values": {}} and opened["hash"]
    assert opened["app_id"] and opened["bot_id"] and opened["team_id"]
    assert slack.modal(ALEX) == opened
    assert slack.modal() is None


def test_a_trigger_is_good_once(slack: LocalSlack, client: WebClient, app: SocketApp) -> None:
    trigger_id = trigger(slack, client, app)
    client.views_open(trigger_id=trigger_id, view=modal())
    assert error_of(lambda: client.views_open(trigger_id=trigger_id, view=modal())) == (
        "exchanged_trigger_id"
    )


def test_a_trigger_is_good_for_three_seconds(
    slack: LocalSlack, client: WebClient, app: SocketApp, clock: FakeClock
) -> None:
    trigger_id = trigger(slack, client, app)
    clock.advance(3.1)
    assert error_of(lambda: client.views_open(trigger_id=trigger_id, view=modal())) == (
        "expired_trigger_id"
    )
    fresh = trigger(slack, client, app)
    clock.advance(2.9)
    assert client.views_open(trigger_id=fresh, view=modal())["ok"]


def test_a_made_up_trigger_is_invalid(client: WebClient, app: SocketApp) -> None:
    assert error_of(lambda: client.views_open(trigger_id="nonsense", view=modal())) == (
        "invalid_trigger_id"
    )
    assert error_of(lambda: client.views_open(trigger_id="1.2.abcdef", view=modal())) == (
        "invalid_trigger_id"
    )


def test_an_invalid_view_is_refused_without_using_the_trigger(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    trigger_id = trigger(slack, client, app)
    with pytest.raises(SlackApiError) as caught:
        client.views_open(trigger_id=trigger_id, view=modal("t" * 25))
    body = caught.value.response.data
    assert isinstance(body, dict) and body["error"] == "invalid_arguments"
    assert body["response_metadata"]["messages"] == [
        "[ERROR] must be less than 25 characters [json-pointer:/view/title/text]"
    ]
    assert client.views_open(trigger_id=trigger_id, view=modal("t" * 24))["ok"]


def test_views_push_stacks_up_to_three_modals(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    root = client.views_open(trigger_id=trigger(slack, client, app), view=modal("one"))["view"]
    second = client.views_push(trigger_id=view_trigger(slack, app), view=modal("two"))["view"]
    assert (second["root_view_id"], second["previous_view_id"]) == (root["id"], root["id"])
    client.views_push(trigger_id=view_trigger(slack, app), view=modal("three"))
    assert [m["title"]["text"] for m in slack.modals()] == ["one", "two", "three"]
    assert error_of(
        lambda: client.views_push(trigger_id=view_trigger(slack, app), view=modal("four"))
    ) == ("push_limit_reached")


def test_views_push_needs_an_open_modal(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    assert error_of(
        lambda: client.views_push(trigger_id=trigger(slack, client, app), view=modal())
    ) == ("not_found")


def test_views_update_by_id_or_external_id_with_the_hash(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    opened = client.views_open(
        trigger_id=trigger(slack, client, app), view=modal("v1", external_id="approval-7")
    )["view"]
    v2 = modal("v2", external_id="approval-7")
    by_id = client.views_update(view_id=opened["id"], hash=opened["hash"], view=v2)
    assert by_id["view"]["id"] == opened["id"] and by_id["view"]["hash"] != opened["hash"]
    assert error_of(
        lambda: client.views_update(view_id=opened["id"], hash=opened["hash"], view=modal("v3"))
    ) == ("hash_conflict")
    client.views_update(external_id="approval-7", view=modal("v4", external_id="approval-7"))
    shown = slack.modal()
    assert shown is not None and shown["title"]["text"] == "v4"
    assert error_of(lambda: client.views_update(view_id="V0NOPE", view=modal())) == "not_found"
    assert error_of(lambda: client.views_update(external_id="nope", view=modal())) == "not_found"


def test_an_external_id_is_unique_in_the_team(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    client.views_publish(user_id=ALEX, view={**home(), "external_id": "home-1"})
    assert error_of(
        lambda: client.views_open(
            trigger_id=trigger(slack, client, app), view=modal(external_id="home-1")
        )
    ) == ("duplicate_external_id")


def test_views_publish_sets_one_persons_home(slack: LocalSlack, client: WebClient) -> None:
    published = client.views_publish(user_id=ALEX, view=home("2 running"))["view"]
    assert published["type"] == "home" and published["close"] is None
    assert slack.home(ALEX) == published and slack.home() is None
    again = client.views_publish(user_id=ALEX, view=home("1 running"), hash=published["hash"])
    assert again["view"]["id"] == published["id"]
    assert error_of(
        lambda: client.views_publish(user_id=ALEX, view=home(), hash=published["hash"])
    ) == ("hash_conflict")
    assert error_of(lambda: client.views_publish(user_id="U0NOBODY", view=home())) == (
        "user_not_found"
    )
    assert error_of(lambda: client.views_publish(user_id=ALEX, view=modal())) == (
        "invalid_arguments"
    )


def test_a_modal_closed_by_its_person_is_gone_and_cannot_be_updated(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    opened = client.views_open(trigger_id=trigger(slack, client, app), view=modal())["view"]
    assert slack.close_view().acked
    assert slack.modal() is None
    assert error_of(lambda: client.views_update(view_id=opened["id"], view=modal())) == (
        "not_found"
    )
