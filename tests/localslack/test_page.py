"""The page: served, safe (no token, no innerHTML), and live through Server-Sent Events."""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlencode

from slack_sdk import WebClient

from bot.localslack import LocalSlack
from bot.localslack.page import EventBus, page_asset, page_html

from .apps import SocketApp, button, post_with_buttons
from .conftest import TOKEN
from .helpers import admin, call


def get(slack: LocalSlack, path: str, host: str | None = None) -> tuple[int, str, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", slack.port, timeout=10)
    try:
        headers = {"Host": host} if host else {}
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type") or "", response.read()
    finally:
        connection.close()


def test_the_page_is_served_with_its_hooks(slack: LocalSlack) -> None:
    status, content_type, body = get(slack, "/")
    assert status == 200 and content_type.startswith("text/html")
    page = body.decode()
    for hook in ('id="channels"', 'id="messages"', 'id="live"', "data-status", "dataset.ts"):
        assert hook in page


def test_the_page_never_shows_the_token(slack: LocalSlack, client: WebClient) -> None:
    client.chat_postMessage(channel="#agents", text="hello")
    for path in ("/", "/_state", "/_admin/faults"):
        assert TOKEN.encode() not in get(slack, path)[2]


def test_the_page_builds_message_text_with_text_nodes_only() -> None:
    page = page_html().decode()
    for unsafe in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert unsafe not in page


def test_state_has_channels_messages_threads_reactions_and_statuses(
    slack: LocalSlack, client: WebClient, channel: str
) -> None:
    root = client.chat_postMessage(channel=channel, text="root")["ts"]
    client.chat_postMessage(channel=channel, text="reply", thread_ts=root)
    client.reactions_add(channel=channel, timestamp=root, name="eyes")
    client.assistant_threads_setStatus(channel_id=channel, thread_ts=root, status="is thinking…")
    status, content_type, body = get(slack, "/_state")
    state = json.loads(body)
    assert status == 200 and content_type.startswith("application/json")
    [agents] = state["channels"]
    [message] = agents["messages"]
    assert message["replies"][0]["text"] == "reply"
    assert message["reactions"][0]["name"] == "eyes"
    assert agents["statuses"] == {root: "is thinking…"}
    assert state["seq"] >= 4


def read_event(stream: http.client.HTTPResponse) -> tuple[str, dict[str, object]]:
    """The next (event name, data) of a Server-Sent Events stream; comments are skipped."""
    name, data = "message", ""
    while True:
        line = stream.readline().decode().rstrip("\n")
        if not line:
            if data:
                return name, json.loads(data)
            continue
        field, _, value = line.partition(": ")
        if field == "event":
            name = value
        elif field == "data":
            data = value


def test_events_stream_a_change_when_a_message_is_posted(
    slack: LocalSlack, client: WebClient
) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", slack.port, timeout=5)
    try:
        connection.request("GET", "/_events")
        stream = connection.getresponse()
        assert stream.getheader("Content-Type") == "text/event-stream"
        assert read_event(stream)[0] == "hello"
        ts = client.chat_postMessage(channel="#agents", text="live")["ts"]
        name, data = read_event(stream)
        assert name == "change"
        assert (data["kind"], data["ts"]) == ("message_posted", ts)
        client.chat_update(channel=slack.channel_id(), ts=ts, text="edited")
        assert read_event(stream)[1]["kind"] == "message_updated"
    finally:
        connection.close()


def test_an_open_event_stream_ends_when_the_server_stops(slack: LocalSlack) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", slack.port, timeout=5)
    try:
        connection.request("GET", "/_events")
        stream = connection.getresponse()
        assert read_event(stream)[0] == "hello"
        slack.stop()
        assert stream.read() == b""
    finally:
        connection.close()


def test_a_late_reader_is_told_to_resync() -> None:
    bus = EventBus(keep=2)
    for i in range(4):
        bus.publish({"kind": "message_posted", "n": i})
    events = bus.wait(0, timeout=0)
    assert events is not None
    assert [e["kind"] for e in events] == ["resync", "message_posted", "message_posted"]
    bus.close()
    assert bus.wait(4, timeout=0) is None


def test_requests_for_another_host_name_are_refused(slack: LocalSlack) -> None:
    assert get(slack, "/_state", host="attacker.example:80")[0] == 403


def test_unknown_paths_are_not_found(slack: LocalSlack) -> None:
    assert call(slack, "/nothing-here", method="GET")[0] == 404


def test_the_page_shows_the_legend_its_server_was_given(slack: LocalSlack) -> None:
    assert json.loads(get(slack, "/_state")[2])["legend"] == []  # the tests' oracle has none
    with LocalSlack(token=TOKEN, legend=[("⏳", "session: running")]) as explained:
        assert json.loads(get(explained, "/_state")[2])["legend"] == [["⏳", "session: running"]]
    page = page_html().decode()
    assert 'id="legend"' in page and "renderLegend(data.legend" in page


# -- the interactive part: who am I, clicks, modals, the App Home -------------------------


def page_call(
    slack: LocalSlack, action: str, body: dict[str, object]
) -> tuple[int, dict[str, Any]]:
    status, answer, _ = call(
        slack, f"/_page/{action}", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    return status, answer


def test_the_interactive_script_is_served_and_builds_nodes_only(slack: LocalSlack) -> None:
    status, content_type, body = get(slack, "/page.js")
    assert status == 200 and content_type.startswith("text/javascript")
    assert body == page_asset("page.js") and b"/page.js" in page_html()
    for unsafe in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert unsafe.encode() not in body


def test_the_state_holds_what_the_chosen_person_sees(
    slack: LocalSlack, client: WebClient, channel: str
) -> None:
    client.chat_postEphemeral(channel=channel, user="U0LOCALALX", text="for alex")
    alex = json.loads(get(slack, "/_state?user=U0LOCALALX")[2])["me"]
    assert alex["user"] == "U0LOCALALX" and [e["text"] for e in alex["ephemerals"]] == ["for alex"]
    assert {"id": "U0LOCALSAM", "name": "sam"} in alex["people"]
    assert (alex["modals"], alex["home"], alex["warnings"]) == ([], None, [])
    assert alex["app"] == {"transport": None, "connections": 0}
    someone = json.loads(get(slack, "/_state?user=U0NOBODY")[2])["me"]
    assert someone["user"] == "U0LOCALUSR" and someone["ephemerals"] == []


def test_page_calls_take_json_only_and_a_known_person(slack: LocalSlack) -> None:
    form = urlencode({"user": "U0LOCALUSR", "channel": "agents"}).encode()
    status, _, _ = call(
        slack, "/_page/click", form, {"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert status == 415
    assert page_call(slack, "click", {"user": "U0NOBODY"}) == (
        400,
        {"ok": False, "error": "user_not_found"},
    )
    assert page_call(slack, "dance", {"user": "U0LOCALUSR"})[0] == 404


def test_a_click_on_the_page_reaches_the_app_as_that_person(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    ts = post_with_buttons(client, button("stop"))
    status, answer = page_call(
        slack,
        "click",
        {"user": "U0LOCALSAM", "channel": slack.channel_id(), "ts": ts, "action_id": "stop",
         "block_index": 0},
    )  # fmt: skip
    assert (status, answer["acked"]) == (200, True)
    assert app.payloads[0]["user"]["id"] == "U0LOCALSAM"
    assert page_call(slack, "click", {"user": "U0LOCALSAM", "channel": slack.channel_id(),
                                      "ts": ts, "action_id": "nope"})[1]["error"] == (
        "action_not_found"
    )  # fmt: skip


def test_a_modal_is_submitted_from_the_page_by_input_position(
    slack: LocalSlack, client: WebClient, app: SocketApp
) -> None:
    ts = post_with_buttons(client, button("open"))
    slack.click("agents", ts, "open")
    reason = {"type": "input", "label": {"type": "plain_text", "text": "Why"},
              "element": {"type": "plain_text_input"}}  # fmt: skip
    view = {"type": "modal", "title": {"type": "plain_text", "text": "Deny"},
            "submit": {"type": "plain_text", "text": "Deny"},
            "blocks": [{"type": "divider"}, reason]}  # fmt: skip
    view_id = client.views_open(trigger_id=app.payloads[0]["trigger_id"], view=view)["view"]["id"]
    shown = json.loads(get(slack, "/_state")[2])["me"]["modals"][0]
    assert shown["id"] == view_id and len(shown["block_ids"]) == 2 and shown["errors"] == {}
    status, answer = page_call(
        slack, "submit", {"user": "U0LOCALUSR", "view_id": view_id, "values_by_index": {"1": "no"}}
    )
    assert (status, answer["acked"]) == (200, True)
    [values] = app.payloads[-1]["view"]["state"]["values"].values()
    assert [v["value"] for v in values.values()] == ["no"]
    assert slack.modal() is None


def test_opening_the_home_tab_on_the_page_tells_the_app(slack: LocalSlack, app: SocketApp) -> None:
    assert page_call(slack, "home", {"user": "U0LOCALALX"})[1]["acked"] is True
    assert app.payloads[0]["event"]["user"] == "U0LOCALALX"


def test_the_apps_transport_can_be_set_over_http(slack: LocalSlack) -> None:
    assert admin(slack, "/_admin/app", {"app_token": "xapp-1-http"}) == (
        200,
        {"ok": True, "transport": "socket_mode"},
    )
    assert admin(slack, "/_admin/app", {"app_token": "xoxb-no"})[0] == 400
    assert admin(slack, "/_admin/app", {"colour": "red"})[0] == 400
    assert admin(slack, "/_admin/app", {"app_token": 5})[0] == 400
    assert admin(slack, "/_admin/app", {"ack_timeout": 0.5})[0] == 200
