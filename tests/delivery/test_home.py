"""The App Home: a real Bolt app over Socket Mode to the local Slack; a person opens the Home
tab and sees the sessions followed, a link to each thread, and a change after a refresh."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk import WebClient

from bot.app.home import register_home
from bot.delivery import Delivery, SlackApi
from bot.delivery.home import (
    HOME_EVERY_S,
    HomePublisher,
    archive_link,
    home_for,
    link_for,
    page_link,
)
from bot.follower import Follower, FollowerOptions
from bot.localslack import LocalSlack
from bot.localslack.model import HUMAN_USER_ID
from bot.records import Origin, SessionStarted
from bot.session import Session
from bot.sources.follow import FileFollower
from tests.conftest import FakeClock
from tests.localslack.apps import APP_TOKEN, close_quickly

TOKEN = "xoxb-home"
SID = "s-home"


def line(obj: dict[str, object]) -> bytes:
    return orjson.dumps(obj) + b"\n"


START = (
    line({"type": "system", "subtype": "init", "session_id": SID, "cwd": "/w", "model": "m"})
    + line({"type": "user", "session_id": SID,
            "message": {"role": "user", "content": "Fix the flaky test"}})
    + line({"type": "assistant", "session_id": SID, "message": {"id": "m1", "content": [
        {"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "pytest -q"}}]}})
)  # fmt: skip
RESULT = line({"type": "result", "subtype": "success", "session_id": SID, "is_error": False,
               "result": "fixed", "duration_ms": 1000, "num_turns": 1})  # fmt: skip


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def slack(clock: FakeClock) -> Iterator[LocalSlack]:
    with LocalSlack(token=TOKEN, rate_limits=True, clock=clock) as server:
        server.configure_app(app_token=APP_TOKEN)
        yield server


def home_text(slack: LocalSlack, user: str = HUMAN_USER_ID) -> str:
    return orjson.dumps(slack.home(user) or {}).decode()


def test_a_person_opening_the_home_sees_the_sessions_and_a_change_after_a_refresh(
    slack: LocalSlack, clock: FakeClock, tmp_path: Path
) -> None:
    log = tmp_path / "a.jsonl"
    log.write_bytes(START)
    delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                        sleep=clock.sleep)  # fmt: skip
    home = HomePublisher(delivery, page_link(slack.page_url))
    follower = Follower([FileFollower(log)], delivery, FollowerOptions(clock=clock,
                                                                     surfaces=(home,)))
    bolt = App(client=WebClient(token=TOKEN, base_url=slack.base_url))
    register_home(bolt, home)
    handler = SocketModeHandler(bolt, APP_TOKEN)
    handler.connect()
    try:
        assert slack.wait_for(lambda: slack.socket_mode.connections == 1)

        def turn() -> None:
            clock.advance(HOME_EVERY_S)
            follower.read()
            follower.render(force=True)
            delivery.flush()
            home.step()

        turn()
        assert slack.home() is None  # nobody opened it yet: nothing published
        assert slack.open_home().acked
        turn()
        assert slack.wait_for(lambda: "Fix the flaky test" in home_text(slack))
        (root,) = slack.channel_messages()
        shown = home_text(slack)
        assert f"#msg-{root['ts']}" in shown  # a link to the session's thread
        assert "Running" in shown and "running Bash: pytest -q" in shown

        with log.open("ab") as more:
            more.write(RESULT)
        turn()
        assert slack.wait_for(lambda: "Succeeded" in home_text(slack))
        assert slack.home("U0LOCALALX") is None  # only those who opened it get it
    finally:
        close_quickly(slack, handler.client)


def test_a_person_opening_it_again_gets_the_last_view_at_once(
    slack: LocalSlack, clock: FakeClock
) -> None:
    delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                        sleep=clock.sleep)  # fmt: skip
    home = HomePublisher(delivery, page_link(slack.page_url))
    session = Session("s1")
    session.apply(SessionStarted(Origin("s1", None, 1), agent="Codex"))
    home.saw(session)
    home.step()  # built; nobody to send it to yet
    home.opened(HUMAN_USER_ID)  # from the app's thread: sent at once
    assert "Codex" in home_text(slack)


def test_a_thread_link_is_slacks_permalink_form() -> None:
    link = archive_link("https://acme.slack.com/")
    assert link("C123", "1700000000.000100") == (
        "https://acme.slack.com/archives/C123/p1700000000000100"
    )


def test_the_link_is_to_the_local_page_or_to_the_workspace_slack_named(slack: LocalSlack) -> None:
    api = SlackApi(TOKEN, slack.base_url)
    assert link_for(api, "http://127.0.0.1:9/#x")("C1", "1.2") == "http://127.0.0.1:9/#msg-1.2"
    api.check_auth()
    assert link_for(api)("C1", "1.000200") == f"{api.team_url}archives/C1/p1000200"
    assert api.team_url.startswith("http")


def test_a_person_opening_the_home_before_any_session_is_told_there_is_none_yet(
    slack: LocalSlack, clock: FakeClock
) -> None:
    delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                        sleep=clock.sleep)  # fmt: skip
    home = HomePublisher(delivery, page_link(slack.page_url))
    home.opened(HUMAN_USER_ID)
    home.step()
    assert "No session yet" in home_text(slack)


def test_the_home_is_on_unless_the_settings_turn_it_off(
    slack: LocalSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.config import load_settings
    from bot.logs import EventLog

    delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id())
    home = home_for(load_settings({}), delivery, EventLog(None), slack.page_url)
    assert home is not None and home.link("C1", "1.2").endswith("#msg-1.2")
    monkeypatch.setenv("SLACKTAIL_APP_HOME", "0")
    assert home_for(load_settings({}), delivery, EventLog(None)) is None


def test_the_app_beside_the_follower_publishes_the_home_to_whoever_opens_it(
    slack: LocalSlack, clock: FakeClock
) -> None:
    from bot.app.running import FollowedSessions, Receiving, app_beside
    from bot.config import Settings
    from bot.logs import EventLog

    delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                        sleep=clock.sleep)  # fmt: skip
    home = HomePublisher(delivery, page_link(slack.page_url))
    session = Session("s1")
    session.apply(SessionStarted(Origin("s1", None, 1), agent="Codex"))
    home.saw(session)
    home.step()
    client = WebClient(token=TOKEN, base_url=slack.base_url)
    with app_beside(Settings(), Receiving(app_token=APP_TOKEN), client,
                    FollowedSessions({}, {}), {}, EventLog(None), homes=[home]) as app:  # fmt: skip
        assert app is not None
        assert slack.wait_for(lambda: slack.socket_mode.connections == 1)
        assert slack.open_home().acked
        assert slack.wait_for(lambda: "Codex" in home_text(slack))
