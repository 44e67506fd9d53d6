"""Stop in a real browser: ``slacktail run`` of a test agent posts to the local Slack (its app
connected by Socket Mode); the person clicks Stop on the page, confirms, and the agent gets
SIGINT (it writes a marker), the thread says who stopped it, and the session ends as stopped."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from bot.controls import STOP
from bot.localslack import LocalSlack
from bot.localslack.model import HUMAN_USER_ID
from tests.localslack.test_page_browser import (  # noqa: F401 (the browser fixture)
    browser,
    click,
    dom_id,
    open_page,
    reactions,
    thread_text,
    wait_for,
)

TOKEN = "xoxb-stop-browser-test-5e2b"
APP_TOKEN = "xapp-1-A0LOCALAPP-1-stop-browser-test"
AGENT = Path(__file__).parents[1] / "fixtures" / "stubborn_agent.py"
ROOT = Path(__file__).parents[2]


@pytest.fixture
def slack() -> Iterator[LocalSlack]:
    with LocalSlack(token=TOKEN, rate_limits=False) as server:
        server.configure_app(app_token=APP_TOKEN)
        yield server


def slacktail_run(slack: LocalSlack, marker: Path, state: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SLACK_BOT_TOKEN": TOKEN, "SLACK_APP_TOKEN": APP_TOKEN,
           "SLACK_API_URL": slack.base_url, "SLACKTAIL_CHANNEL": "agents",
           "SLACKTAIL_ALLOW_USERS": HUMAN_USER_ID, "SLACKTAIL_STATE_DIR": str(state),
           "PYTHONPATH": str(ROOT)}  # fmt: skip
    command = [sys.executable, "-m", "bot.cli", "run", "--",
               sys.executable, str(AGENT), str(marker), "obey"]  # fmt: skip
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)  # fmt: skip


def test_stop_clicked_on_the_page_interrupts_the_agent_and_the_thread_says_who(
    browser: WebDriver, slack: LocalSlack, tmp_path: Path  # noqa: F811
) -> None:
    marker = tmp_path / "signals"
    open_page(browser, slack)
    run = slacktail_run(slack, marker, tmp_path / "state")
    try:
        wait_for(browser, "the app connected", lambda d: slack.socket_mode.connections > 0)
        click(browser, "the root's Stop button", lambda d: d.find_element(
            By.CSS_SELECTOR, f'[data-action-id="{STOP}"]'))  # fmt: skip
        dialog = wait_for(browser, "the confirm dialog",
                          lambda d: d.find_element(By.CSS_SELECTOR, "#confirm .modal"))  # fmt: skip
        assert "SIGINT" in dialog.text
        dialog.find_element(By.CLASS_NAME, "confirm-yes").click()
        wait_for(browser, "the agent's marker", lambda d: marker.exists() and marker.read_text())
        assert marker.read_text().split() == ["SIGINT"]
        assert run.wait(30) == 130
        root_ts = str(slack.channel_messages("agents")[0]["ts"])
        root = browser.find_element(By.ID, dom_id(root_ts))
        wait_for(browser, "the thread saying who stopped it",
                 lambda d: "Stop asked by" in thread_text(d, root))  # fmt: skip
        wait_for(browser, "the root's ⏹", lambda d: "black_square_for_stop" in reactions(
            d.find_element(By.ID, dom_id(root_ts))))  # fmt: skip
        assert "Stopped" in browser.find_element(By.ID, dom_id(root_ts)).text
        assert not browser.find_elements(By.CSS_SELECTOR, f'[data-action-id="{STOP}"]')
    finally:
        if run.poll() is None:
            run.kill()
            run.wait(10)
        stderr = run.stderr.read().decode() if run.stderr else ""
        run.stderr and run.stderr.close()
    assert '"event":"agent_signalled"' in stderr and '"signal":"SIGINT"' in stderr
