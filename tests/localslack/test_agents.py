"""Agent sessions (agents.sessions.*, Slack's own Stop and agent_session_stopped) and streamed
messages (chat.startStream / appendStream / stopStream), through slack_sdk."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.localslack import LocalSlack
from bot.localslack.model import TEAM_ID, SlackError
from tests.conftest import FakeClock

from .apps import SocketApp
from .helpers import call

ALEX = "U0LOCALALX"


def error_of(action: Callable[[], Any]) -> str:
    with pytest.raises(SlackApiError) as caught:
        action()
    return str(caught.value.response["error"])


@pytest.fixture
def root(client: WebClient, channel: str) -> str:
    return str(client.chat_postMessage(channel=channel, text="fix the build")["ts"])


def start(client: WebClient, channel: str, root: str, **args: Any) -> str:
    return str(client.chat_startStream(channel=channel, thread_ts=root, recipient_user_id=ALEX,
                                       recipient_team_id=TEAM_ID, **args)["ts"])  # fmt: skip


# -- sessions ------------------------------------------------------------------------------


def test_a_session_is_made_with_its_title_then_only_its_status_changes(
    slack: LocalSlack, client: WebClient, channel: str, root: str
) -> None:
    made = client.agents_sessions_setStatus(
        channel_id=channel, thread_ts=root, status="processing", title="Fix the build",
        initiator_user_id=ALEX,
    )  # fmt: skip
    assert (made["status"], made["agent_status"], made["title"]) == (
        "processing", "processing", "Fix the build"
    )  # fmt: skip
    again = client.agents_sessions_setStatus(
        channel_id=channel, thread_ts=root, status="active", title="ignored"
    )
    assert again["title"] == "Fix the build"
    assert slack.agent_session("agents", root) == {
        "status": "active", "title": "Fix the build", "initiator": ALEX
    }  # fmt: skip
    client.agents_sessions_rename(channel_id=channel, thread_ts=root, title="Build fixed")
    session = slack.agent_session("agents", root)
    assert session is not None and session["title"] == "Build fixed"


def test_session_refusals(client: WebClient, channel: str, root: str) -> None:
    def set_status(**args: Any) -> Callable[[], Any]:
        return lambda: client.agents_sessions_setStatus(channel_id=channel, **args)

    assert error_of(set_status(thread_ts=root, status="running")) == "invalid_status"
    assert error_of(set_status(status="processing")) == "thread_ts_required"
    assert error_of(set_status(thread_ts=root, status="active", title="t" * 201)) == (
        "invalid_arguments"
    )
    assert error_of(set_status(thread_ts=root, status="active", initiator_user_id="U0NOBODY")) == (
        "user_not_found"
    )
    assert error_of(
        lambda: client.agents_sessions_rename(channel_id=channel, thread_ts=root, title="x")
    ) == ("session_not_found")


def test_the_native_stop_sends_agent_session_stopped_and_stops_the_threads_streams(
    slack: LocalSlack, client: WebClient, app: SocketApp, channel: str, root: str
) -> None:
    client.agents_sessions_setStatus(channel_id=channel, thread_ts=root, status="processing")
    ts = start(client, channel, root, markdown_text="Looking…")
    outcome = slack.stop_agent_session("agents", root, user=ALEX)
    assert outcome.acked
    event = app.requests[-1].payload["event"]
    assert {k: v for k, v in event.items() if k != "event_ts"} == {
        "type": "agent_session_stopped", "channel": channel, "thread_ts": root, "user": ALEX,
        "streaming_message_ts": [ts],
    }  # fmt: skip
    session = slack.agent_session("agents", root)
    assert session is not None and session["status"] == "processing"  # the app moves it on
    assert error_of(
        lambda: client.chat_appendStream(channel=channel, ts=ts, markdown_text="more")
    ) == ("stopped_by_user")
    client.agents_sessions_setStatus(channel_id=channel, thread_ts=root, status="active")
    with pytest.raises(SlackError, match="not_processing"):
        slack.stop_agent_session("agents", root)


def test_the_page_shows_sessions_and_its_stop_button_works(
    slack: LocalSlack, client: WebClient, app: SocketApp, channel: str, root: str
) -> None:
    client.agents_sessions_setStatus(channel_id=channel, thread_ts=root, status="processing")
    status, state, _ = call(slack, "/_state", method="GET")
    assert state["agent_sessions"] == {channel: {root: {"status": "processing", "title": ""}}}
    body = b'{"user": "U0LOCALSAM", "channel": "%s", "thread_ts": "%s"}' % (
        channel.encode(),
        root.encode(),
    )
    status, answer, _ = call(slack, "/_page/stop", body, {"Content-Type": "application/json"})
    assert (status, answer["acked"]) == (200, True)
    assert app.payloads[-1]["event"]["user"] == "U0LOCALSAM"


# -- streams -------------------------------------------------------------------------------


def test_a_stream_grows_one_message_in_the_thread_until_stopped(
    slack: LocalSlack, client: WebClient, channel: str, root: str
) -> None:
    ts = start(client, channel, root, markdown_text="Running ")
    client.chat_appendStream(channel=channel, ts=ts, markdown_text="the tests…")
    reply = slack.thread("agents", root)[-1]
    assert reply["ts"] == ts and reply["text"] == "Running the tests…"
    assert reply["blocks"] == [{"type": "markdown", "text": "Running the tests…"}]
    final = [{"type": "context", "elements": [{"type": "mrkdwn", "text": "2.5 s"}]}]
    stopped = client.chat_stopStream(channel=channel, ts=ts, markdown_text=" 42 passed",
                                     blocks=final)  # fmt: skip
    assert stopped["message"]["text"] == "Running the tests… 42 passed"
    assert stopped["message"]["blocks"][-1] == final[0]
    assert error_of(
        lambda: client.chat_appendStream(channel=channel, ts=ts, markdown_text="late")
    ) == ("message_not_in_streaming_state")
    assert len(slack.thread("agents", root)) == 2


def test_tasks_stream_as_task_cards_or_one_plan(
    slack: LocalSlack, client: WebClient, channel: str, root: str
) -> None:
    running = {"type": "task_update", "id": "t1", "title": "Run tests", "status": "in_progress"}
    ts = start(client, channel, root, task_display_mode="plan", chunks=[
        {"type": "plan_update", "title": "Fixing the build"}, running])  # fmt: skip
    client.chat_appendStream(channel=channel, ts=ts, markdown_text="", chunks=[
        {**running, "status": "complete", "output": "42 passed"}])  # fmt: skip
    [plan] = slack.thread("agents", root)[-1]["blocks"]
    assert plan["type"] == "plan" and plan["title"] == "Fixing the build"
    [task] = plan["tasks"]
    assert (task["task_id"], task["status"]) == ("t1", "complete")
    timeline = start(client, channel, root, chunks=[running])
    assert slack.thread("agents", root)[-1]["ts"] == timeline
    assert slack.thread("agents", root)[-1]["blocks"][0]["type"] == "task_card"


def test_stream_refusals(client: WebClient, channel: str, root: str, clock: FakeClock) -> None:
    assert error_of(
        lambda: client.chat_startStream(channel=channel, thread_ts=root, markdown_text="x")
    ) == ("missing_recipient_user_id")
    assert error_of(lambda: start(client, channel, root, chunks=[{"type": "confetti"}])) == (
        "invalid_chunks"
    )
    assert error_of(lambda: start(client, channel, root, markdown_text="m" * 12001)) == (
        "msg_too_long"
    )
    assert error_of(
        lambda: client.chat_appendStream(channel=channel, ts="1.000001", markdown_text="x")
    ) == ("message_not_found")
    ts = start(client, channel, root, markdown_text="x")
    clock.advance(301)
    assert error_of(
        lambda: client.chat_appendStream(channel=channel, ts=ts, markdown_text="y")
    ) == ("message_not_in_streaming_state")
