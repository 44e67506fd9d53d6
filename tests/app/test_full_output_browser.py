"""Full output in a real browser (headless Chromium, as tests/localslack/test_page_browser.py):
the page shows the Full output button on a tool call whose output was cut; a click, through a
Bolt app over Socket Mode, opens the modal with the whole output, and Next shows its next page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from slack_sdk import WebClient

from blocks.full_output import pages_of
from bot.app.full_output import calls_in, full_output
from bot.controls import FULL_OUTPUT, FULL_OUTPUT_NEXT
from bot.localslack import LocalSlack
from bot.redaction import Redactor
from tests.app.test_full_output import APP_TOKEN, BoltApp, follow, post_tools
from tests.localslack.apps import close_quickly
from tests.localslack.test_page_browser import (  # noqa: F401 (browser: a fixture)
    browser,
    dom_id,
    open_page,
    screenshot_on_failure,
    wait_for,
)
from tests.test_outputs import SECRET, claude_stream, long_output

TOKEN = "xoxb-full-output-test"  # the token post_tools and BoltApp use


@pytest.fixture
def slack() -> Iterator[LocalSlack]:
    with LocalSlack(token=TOKEN, rate_limits=False) as server:
        yield server


def modal_text(driver: WebDriver) -> str:
    """What the open modal shows (found again each time: the page redraws a changed view)."""
    try:
        found = driver.find_elements(By.CSS_SELECTOR, "#overlay .modal")
        return str(found[0].text) if found else ""
    except StaleElementReferenceException:  # redrawn between finding it and reading it
        return ""


def test_a_person_clicks_full_output_and_reads_the_whole_output_in_the_modal(
    browser: WebDriver,  # noqa: F811
    slack: LocalSlack,
    tmp_path: Path,
) -> None:
    log = tmp_path / "run.jsonl"
    log.write_bytes(claude_stream(long_output()))
    core = follow(log)
    slack.configure_app(app_token=APP_TOKEN)
    client = WebClient(token=TOKEN, base_url=slack.base_url, retry_handlers=[])
    app = BoltApp(slack, full_output(calls_in(core), client, Redactor()))
    app.handler.connect()
    pages = pages_of(Redactor().redact(long_output()))
    try:
        with screenshot_on_failure(browser, tmp_path / "page.png"):
            assert slack.wait_for(lambda: slack.socket_mode.connections == 1)
            open_page(browser, slack)
            ts = post_tools(slack, core)
            message = wait_for(browser, "the message", lambda d: d.find_element(By.ID, dom_id(ts)))
            selector = f'[data-action-id="{FULL_OUTPUT}"]'
            button = wait_for(
                browser,
                "the Full output button",
                lambda d: message.find_element(By.CSS_SELECTOR, selector),
            )
            assert button.text == "Full output"
            button.click()
            wait_for(browser, "the first page", lambda d: "row 0001" in modal_text(d))
            modal = browser.find_element(By.CSS_SELECTOR, "#overlay .modal")
            assert modal.find_element(By.CLASS_NAME, "modal-title").text == "Full output"
            shown = modal.text
            assert "cat big.log" in shown and f"page 1 of {len(pages)}" in shown
            assert pages[0].rstrip("\n").split("\n")[-1] in shown
            assert SECRET not in shown and "[redacted:github-token]" in shown
            modal.find_element(By.CSS_SELECTOR, f'[data-action-id="{FULL_OUTPUT_NEXT}"]').click()
            last_of_second = pages[1].rstrip("\n").split("\n")[-1]
            wait_for(browser, "the second page", lambda d: last_of_second in modal_text(d))
            assert "row 0001" not in modal_text(browser)
    finally:
        close_quickly(slack, app.handler.client)
