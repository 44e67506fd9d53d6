"""The controls through Bolt itself against the local Slack, by Socket Mode and by HTTP (each
request signed, and verified by Bolt)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from slack_sdk import WebClient

from bot.app.access import Access
from bot.app.serving import bolt_app
from bot.app.slack_app import ENDED, NOT_ALLOWED, NOT_AVAILABLE, NOT_FOLLOWED, ControlsApp
from bot.controls import FULL_OUTPUT, STOP, button_value
from bot.localslack import LocalSlack
from bot.localslack.model import HUMAN_USER_ID
from bot.logs import EventLog

from .helpers import BOT_TOKEN, FINISHED, RUNNING, Followed, Recorder, controls_app

OTHER_USER = "U0LOCALALX"
APP_TOKEN_ELSE = "xapp-1-A0LOCALAPP-1-another-token"
TRANSPORTS = ["socket_mode", "http"]


@pytest.fixture
def slack() -> Iterator[LocalSlack]:
    server = LocalSlack(token=BOT_TOKEN, rate_limits=False)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def post_root(slack: LocalSlack, session: str, *action_ids: str) -> str:
    client = WebClient(token=BOT_TOKEN, base_url=slack.base_url, retry_handlers=[])
    buttons = [{"type": "button", "text": {"type": "plain_text", "text": a}, "action_id": a,
                "value": button_value(session)} for a in action_ids]  # fmt: skip
    blocks = [{"type": "actions", "elements": buttons}]
    return str(client.chat_postMessage(channel="#agents", text="root", blocks=blocks)["ts"])


def said_to(slack: LocalSlack, user: str) -> list[str]:
    return [str(message.get("text")) for message in slack.ephemerals(user)]


def thread_texts(slack: LocalSlack, ts: str) -> list[str]:
    return [str(m.get("text")) for m in slack.thread("agents", ts)[1:]]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_allowed_click_is_carried_out_and_said_in_the_thread(
    slack: LocalSlack, transport: str
) -> None:
    stop = Recorder()
    followed = Followed({"s-1": RUNNING})
    with controls_app(slack, transport, {STOP: stop}, followed, Access([HUMAN_USER_ID])):
        ts = post_root(slack, "s-1", STOP)
        assert slack.click("agents", ts, STOP).acked
        assert slack.wait_for(lambda: len(thread_texts(slack, ts)) == 1)
    assert [(c.session, c.user, c.message_ts) for c in stop.clicks] == [("s-1", HUMAN_USER_ID, ts)]
    (said,) = thread_texts(slack, ts)
    assert said.startswith(f"⏹ Stop asked by <@{HUMAN_USER_ID}> at <!date^")


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_click_by_someone_not_allowed_does_nothing_and_is_told(
    slack: LocalSlack, transport: str
) -> None:
    stop = Recorder()
    with controls_app(slack, transport, {STOP: stop}, Followed({"s-1": RUNNING}),
                      Access([HUMAN_USER_ID])):  # fmt: skip
        ts = post_root(slack, "s-1", STOP)
        assert slack.click("agents", ts, STOP, user=OTHER_USER).acked
        assert slack.wait_for(lambda: said_to(slack, OTHER_USER) == [NOT_ALLOWED])
    assert stop.clicks == [] and thread_texts(slack, ts) == []


def test_nobody_is_allowed_by_default(slack: LocalSlack) -> None:
    stop = Recorder()
    with controls_app(slack, "socket_mode", {STOP: stop}, Followed({"s-1": RUNNING}), Access()):
        ts = post_root(slack, "s-1", STOP)
        slack.click("agents", ts, STOP)
        assert slack.wait_for(lambda: said_to(slack, HUMAN_USER_ID) == [NOT_ALLOWED])
    assert stop.clicks == []


def test_channel_members_may_act_when_allowed_as_such(slack: LocalSlack) -> None:
    stop = Recorder()
    client = WebClient(token=BOT_TOKEN, base_url=slack.base_url, retry_handlers=[])
    members = Access(members=lambda chan: client.conversations_members(channel=chan)["members"])
    with controls_app(slack, "socket_mode", {STOP: stop}, Followed({"s-1": RUNNING}), members):
        ts = post_root(slack, "s-1", STOP)
        slack.click("agents", ts, STOP)
        assert slack.wait_for(lambda: len(stop.clicks) == 1)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_click_on_a_finished_session_is_answered(slack: LocalSlack, transport: str) -> None:
    stop = Recorder()
    with controls_app(slack, transport, {STOP: stop}, Followed({"s-1": FINISHED}),
                      Access([HUMAN_USER_ID])):  # fmt: skip
        ts = post_root(slack, "s-1", STOP)
        slack.click("agents", ts, STOP)
        assert slack.wait_for(lambda: said_to(slack, HUMAN_USER_ID) == [ENDED])
    assert stop.clicks == []


def test_a_control_not_wired_is_answered_not_available(slack: LocalSlack) -> None:
    with controls_app(slack, "socket_mode", {}, Followed({"s-1": RUNNING}),
                      Access([HUMAN_USER_ID])):  # fmt: skip
        ts = post_root(slack, "s-1", FULL_OUTPUT)
        slack.click("agents", ts, FULL_OUTPUT)
        assert slack.wait_for(lambda: said_to(slack, HUMAN_USER_ID) == [NOT_AVAILABLE])


def test_a_click_for_a_session_nobody_follows_is_answered(slack: LocalSlack) -> None:
    with controls_app(slack, "socket_mode", {STOP: Recorder()}, Followed(),
                      Access([HUMAN_USER_ID])):  # fmt: skip
        ts = post_root(slack, "gone", STOP)
        slack.click("agents", ts, STOP)
        assert slack.wait_for(lambda: said_to(slack, HUMAN_USER_ID) == [NOT_FOLLOWED])


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_click_reaching_another_process_is_carried_out_by_the_owner(
    slack: LocalSlack, transport: str, tmp_path: Path
) -> None:
    """A (which follows s-a) receives the click for s-b: B, which follows it, carries it out."""
    stop_a, stop_b = Recorder(), Recorder()
    allowed = Access([HUMAN_USER_ID])
    with controls_app(slack, transport, {STOP: stop_a}, Followed({"s-a": RUNNING}),
                      allowed) as a:  # fmt: skip
        b = ControlsApp(bolt_app(WebClient(token=BOT_TOKEN, base_url=slack.base_url), None),
                        allowed, {STOP: stop_b}, Followed({"s-b": RUNNING}), a.log)  # fmt: skip
        a.share(tmp_path, "a")
        b.share(tmp_path, "b")  # B is not connected to Slack: only A receives the click
        try:
            ts = post_root(slack, "s-b", STOP)
            slack.click("agents", ts, STOP)
            assert slack.wait_for(lambda: len(thread_texts(slack, ts)) == 1)
        finally:
            assert b.owners is not None
            b.owners.close()
    assert stop_a.clicks == [] and [c.session for c in stop_b.clicks] == ["s-b"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_slacks_own_stop_of_an_agent_session_stops_the_session_of_its_thread(
    slack: LocalSlack, transport: str
) -> None:
    stop = Recorder()
    client = WebClient(token=BOT_TOKEN, base_url=slack.base_url, retry_handlers=[])
    ts = post_root(slack, "s-1", STOP)
    followed = Followed({"s-1": RUNNING}, {ts: "s-1"})
    with controls_app(slack, transport, {STOP: stop}, followed, Access([HUMAN_USER_ID])):
        client.api_call("agents.sessions.setStatus", json={
            "channel_id": slack.channel_id("agents"), "thread_ts": ts, "status": "processing"})
        assert slack.stop_agent_session("agents", ts).acked
        assert slack.wait_for(lambda: len(stop.clicks) == 1)
    assert (stop.clicks[0].session, stop.clicks[0].user) == ("s-1", HUMAN_USER_ID)


def test_an_app_token_slack_refuses_is_one_line_and_posting_goes_on(
    slack: LocalSlack, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.app.running import Receiving, app_beside
    from bot.config import Settings

    slack.configure_app(app_token=APP_TOKEN_ELSE)
    client = WebClient(token=BOT_TOKEN, base_url=slack.base_url, retry_handlers=[])
    with app_beside(Settings(), Receiving("xapp-1-not-this-one"), client, Followed(), {},
                    EventLog(None)) as app:  # fmt: skip
        assert app is None
    ours = [line for line in capsys.readouterr().err.splitlines() if line.startswith("slacktail")]
    assert len(ours) == 1 and ours[0].startswith("slacktail: the app cannot receive clicks (")


def test_an_http_request_without_slacks_signature_is_refused(slack: LocalSlack) -> None:
    import urllib.error
    import urllib.parse
    import urllib.request

    stop = Recorder()
    with controls_app(slack, "http", {STOP: stop}, Followed({"s-1": RUNNING}),
                      Access([HUMAN_USER_ID])) as app:  # fmt: skip
        url = slack.link.settings.request_url
        assert url is not None and app.bolt is not None
        payload = {"type": "block_actions", "user": {"id": HUMAN_USER_ID},
                   "actions": [{"action_id": STOP, "value": '{"session": "s-1"}'}]}  # fmt: skip
        body = urllib.parse.urlencode({"payload": orjson.dumps(payload).decode()}).encode()
        request = urllib.request.Request(url, data=body, headers={
            "X-Slack-Request-Timestamp": "1", "X-Slack-Signature": "v0=forged"})  # fmt: skip
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 401
    assert stop.clicks == []


def test_an_app_nobody_may_use_says_how_to_allow_people(
    slack: LocalSlack, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.app.running import Receiving, app_beside
    from bot.config import Settings

    slack.configure_app(app_token=APP_TOKEN_ELSE)
    client = WebClient(token=BOT_TOKEN, base_url=slack.base_url, retry_handlers=[])
    with app_beside(Settings(), Receiving(APP_TOKEN_ELSE), client, Followed(), {},
                    EventLog(None)) as app:  # fmt: skip
        assert app is not None
    assert "nobody may use the controls yet: allow people with --allow-user" in (
        capsys.readouterr().err
    )


def test_an_http_port_that_is_taken_is_one_line_and_posting_goes_on(
    slack: LocalSlack, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import socket

    from bot.app.running import Receiving, app_beside
    from bot.config import Settings

    client = WebClient(token=BOT_TOKEN, base_url=slack.base_url, retry_handlers=[])
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        how = Receiving(http_port=taken.getsockname()[1], signing_secret="s")
        with app_beside(Settings(), how, client, Followed(), {}, EventLog(None),
                        state_dir=tmp_path) as app:  # fmt: skip
            assert app is None
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("slacktail: the app cannot receive clicks (OSError")
    assert list((tmp_path / "app").glob("*.sock")) == []  # its handover socket is gone too
