"""Approve / Deny on the local Slack's page in a real browser (headless Chromium, Selenium): a
test MCP client asks `slacktail approvals` (a real subprocess) twice, as Claude Code does; the
follower shows both requests in the session's thread; a person approves one and denies the other
on the page, through a bolt app over Socket Mode; the client gets each answer, and each message
then shows its outcome."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from bot.app.approvals import approvals
from bot.app.desk import Desk
from bot.localslack import LocalSlack
from tests.localslack.test_page_browser import (
    body_text,
    click,
    dom_id,
    open_page,
    screenshot_on_failure,
    snap,
    wait_for,
)

from .approval_helpers import TOKEN, append, approvals_in, bolt_app, follow, init, tool_use, turn
from .mcp_client import WAIT_S, approval_client

SID = "browser-approvals"


@pytest.fixture
def slack() -> Iterator[LocalSlack]:
    with LocalSlack(token=TOKEN, rate_limits=False) as server:
        yield server


def wait_for_requests(desk: Desk, count: int) -> None:
    deadline = time.monotonic() + WAIT_S
    while len(desk.changed_since(0)) < count:
        assert time.monotonic() < deadline, f"waited {WAIT_S:.0f}s for {count} requests"
        time.sleep(0.02)


def test_a_person_approves_one_request_and_denies_another_and_the_agent_gets_each_answer(
    browser: WebDriver, slack: LocalSlack, tmp_path: Path
) -> None:
    log = tmp_path / "agent.jsonl"
    append(log, init(SID), tool_use(SID, "toolu_1", "Bash", {"command": "make deploy"}))
    append(log, tool_use(SID, "toolu_2", "Write", {"file_path": "/etc/hosts", "content": "x"}))
    follower = follow(slack, log, tmp_path)
    desk = Desk.open(tmp_path)
    with (
        screenshot_on_failure(browser, tmp_path / "page.png"),
        approval_client(tmp_path) as client,
        bolt_app(slack, approvals(desk)),
    ):
        open_page(browser, slack)
        deploy = client.ask("Bash", {"command": "make deploy"}, "toolu_1")
        wait_for_requests(desk, 1)
        hosts = client.ask("Write", {"file_path": "/etc/hosts", "content": "x"}, "toolu_2")
        wait_for_requests(desk, 2)
        turn(follower)
        first, second = approvals_in(slack, SID)
        first_el = wait_for(browser, "the first request", lambda d: d.find_element(
            By.ID, dom_id(first["ts"])))  # fmt: skip
        second_el = wait_for(browser, "the second request", lambda d: d.find_element(
            By.ID, dom_id(second["ts"])))  # fmt: skip
        assert "make deploy" in body_text(first_el) and "/etc/hosts" in body_text(second_el)
        snap(browser, "approvals-1-asked")

        click(browser, "Approve", lambda d: d.find_element(By.ID, dom_id(first["ts"])).find_element(
            By.CSS_SELECTOR, '[data-action-id="slacktail_approve"]'))  # fmt: skip
        assert deploy.result(WAIT_S) == {"behavior": "allow",
                                         "updatedInput": {"command": "make deploy"}}  # fmt: skip
        assert not hosts.done()  # the other request still waits
        click(browser, "Deny", lambda d: d.find_element(By.ID, dom_id(second["ts"])).find_element(
            By.CSS_SELECTOR, '[data-action-id="slacktail_deny"]'))  # fmt: skip
        assert hosts.result(WAIT_S) == {"behavior": "deny",
                                        "message": "Denied in Slack by U0LOCALUSR."}  # fmt: skip

        turn(follower)
        wait_for(browser, "the first request shown approved",
                 lambda d: "Approved by" in body_text(first_el))  # fmt: skip
        wait_for(browser, "the second request shown denied",
                 lambda d: "Denied by" in body_text(second_el))  # fmt: skip
        assert not first_el.find_elements(By.CSS_SELECTOR, "[data-action-id]")
        assert not second_el.find_elements(By.CSS_SELECTOR, "[data-action-id]")
        snap(browser, "approvals-2-decided")
