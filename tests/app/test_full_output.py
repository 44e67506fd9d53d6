"""The Full output control through Bolt itself: a click on a tool call's Full output button, on
the local Slack, reaches a Bolt app over Socket Mode (bolt's own SocketModeHandler), which acks
and calls the control; the person then sees the whole output in a modal, redacted and paged,
or, once the log was rotated, a modal saying so."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from slack_bolt import Ack, App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk import WebClient

from blocks.full_output import pages_of
from blocks.thread import thread_messages
from bot.app.full_output import GONE, calls_in, full_output
from bot.checkpoints import Checkpoints, CoreState
from bot.controls import (
    FULL_OUTPUT,
    FULL_OUTPUT_NEXT,
    FULL_OUTPUT_PREVIOUS,
    Click,
    Control,
    Outcome,
    read_value,
)
from bot.localslack import LocalSlack
from bot.redaction import Redactor
from bot.session import SessionBook
from bot.session.settings import SessionSettings
from bot.store import Store
from tests.blocks.test_full_output import code_of
from tests.conftest import FakeClock
from tests.localslack.apps import close_quickly
from tests.test_outputs import SECRET, SID, claude_stream, followed, long_output, read_into_book

TOKEN = "xoxb-full-output-test"
APP_TOKEN = "xapp-1-A0LOCALAPP-1-full-output"
USER = "U0LOCALUSR"


def click_of(body: dict[str, Any]) -> Click | None:
    """What the app makes of an allowed click (the app's own work; enough of it here)."""
    action = body["actions"][0]
    read = read_value(action.get("value", ""))
    if read is None:
        return None
    session, fields = read
    container = body.get("container", {})
    return Click(
        action["action_id"], session, fields, body["user"]["id"],
        container.get("channel_id", ""), container.get("message_ts", ""),
        body.get("trigger_id"), (body.get("view") or {}).get("id"),
    )  # fmt: skip


class BoltApp:
    """A Bolt app on the local Slack over Socket Mode whose Full output actions ack and call
    ``control``; each outcome kept."""

    def __init__(self, slack: LocalSlack, control: Control) -> None:
        self.outcomes: list[Outcome] = []
        self.bolt = App(client=WebClient(token=TOKEN, base_url=slack.base_url))
        for action_id in (FULL_OUTPUT, FULL_OUTPUT_NEXT, FULL_OUTPUT_PREVIOUS):
            self.bolt.action(action_id)(self._on_click(control))
        self.handler = SocketModeHandler(self.bolt, APP_TOKEN)

    def _on_click(self, control: Control) -> Any:
        def listener(ack: Ack, body: dict[str, Any]) -> None:
            ack()
            click = click_of(body)
            if click is not None:
                self.outcomes.append(control(click))

        return listener


@pytest.fixture
def slack() -> Iterator[LocalSlack]:
    server = LocalSlack(token=TOKEN, rate_limits=False, clock=FakeClock())
    server.start()
    try:
        yield server
    finally:
        server.stop()


def follow(log: Path) -> CoreState:
    """The log read as a follower reads it, its sessions' messages showing their controls."""
    return read_into_book(followed(log), SessionBook(SessionSettings(controls=True)))


def post_tools(slack: LocalSlack, core: CoreState) -> str:
    """The session's tool messages posted to #agents; the ts of the one with a Full output."""
    client = WebClient(token=TOKEN, base_url=slack.base_url, retry_handlers=[])
    found = ""
    for message in thread_messages(core.book.sessions[SID]):
        blocks = list(message.blocks)
        ts = str(client.chat_postMessage(channel="#agents", text=message.text,
                                         blocks=blocks)["ts"])  # fmt: skip
        if FULL_OUTPUT in str(blocks):
            found = ts
    assert found
    return found


@pytest.fixture
def running(slack: LocalSlack, tmp_path: Path) -> Iterator[tuple[BoltApp, Path, str]]:
    """A followed log with a long output, its messages posted, and the app connected."""
    log = tmp_path / "run.jsonl"
    log.write_bytes(claude_stream(long_output()))
    core = follow(log)
    slack.configure_app(app_token=APP_TOKEN)
    app = BoltApp(slack, full_output(calls_in(core), app_client(slack), Redactor()))
    app.handler.connect()
    try:
        assert slack.wait_for(lambda: slack.socket_mode.connections == 1)
        yield app, log, post_tools(slack, core)
    finally:
        close_quickly(slack, app.handler.client)


def app_client(slack: LocalSlack) -> WebClient:
    return WebClient(token=TOKEN, base_url=slack.base_url, retry_handlers=[])


def shown(slack: LocalSlack, app: BoltApp, count: int) -> dict[str, Any]:
    assert slack.wait_for(lambda: len(app.outcomes) >= count)
    modal = slack.modal(USER)
    assert modal is not None
    return modal


def test_a_click_opens_the_whole_output_redacted_in_pages(
    slack: LocalSlack, running: tuple[BoltApp, Path, str]
) -> None:
    app, _, ts = running
    assert slack.click("agents", ts, FULL_OUTPUT, user=USER).acked
    pages = [code_of(shown(slack, app, 1))]
    expected = Redactor().redact(long_output())
    count = len(pages_of(expected))
    assert count > 1
    for page in range(1, count):
        assert slack.click_view(FULL_OUTPUT_NEXT, user=USER).acked
        pages.append(code_of(shown(slack, app, page + 1)))
    assert "\n".join(pages) == expected
    assert SECRET not in "".join(pages) and "[redacted:github-token]" in pages[0]
    assert slack.click_view(FULL_OUTPUT_PREVIOUS, user=USER).acked
    assert code_of(shown(slack, app, count + 1)) == pages[-2]
    assert all(outcome.done for outcome in app.outcomes)
    assert len(slack.modals(USER)) == 1  # pages turn in place: one modal, not a stack


def test_a_rotated_log_gives_a_modal_saying_it_changed(
    slack: LocalSlack, running: tuple[BoltApp, Path, str]
) -> None:
    app, log, ts = running
    os.rename(log, log.with_suffix(".1"))
    log.write_bytes(claude_stream("a new run", call="toolu_07"))
    assert slack.click("agents", ts, FULL_OUTPUT, user=USER).acked
    modal = shown(slack, app, 1)
    assert "changed" in str(modal["blocks"]) and "row 0400" not in str(modal["blocks"])
    assert app.outcomes[0].done is False and app.outcomes[0].said


def test_a_call_this_process_does_not_know_is_answered() -> None:
    control = full_output(lambda session, call: None, WebClient(), Redactor())
    click = Click(FULL_OUTPUT, "s", {"call": "c"}, USER, "C1", "1.0", "trigger")
    assert control(click) == Outcome(False, GONE)


def test_a_session_retired_to_the_store_still_answers(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    log.write_bytes(claude_stream(long_output()))
    core = follow(log)
    checkpoints = Checkpoints(Store.memory(), "job")
    checkpoints.archive(core.book.sessions[SID])
    core.book.release(SID)
    assert calls_in(core)(SID, "toolu_01") is None
    found = calls_in(core, checkpoints.unarchive)(SID, "toolu_01")
    assert found is not None and (found.name, found.family) == ("Bash", "claude-stream-json")
    assert found.at.path == str(log) and found.at.line == 3
