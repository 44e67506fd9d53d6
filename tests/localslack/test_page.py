"""The page: served, safe (no token, no innerHTML), and live through Server-Sent Events."""

from __future__ import annotations

import http.client
import json

from slack_sdk import WebClient

from bot.localslack import LocalSlack
from bot.localslack.page import EventBus, page_html

from .conftest import TOKEN
from .helpers import call


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
