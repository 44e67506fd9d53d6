"""The local Slack's page in a real browser: headless Chromium from Debian's packages, driven by
Selenium, watching slacktail's real delivery path (a log file → Follower → Delivery → local Slack).

It proves what a person watching the page sees: a session's thread appears without a reload, its
tool message shows running (⏳) and then done (✅) in the same element, the root's reaction
follows the session, untrusted text is shown as text (nothing runs, no element is made from it),
and the bot token never reaches the page. And what a person does with an app's controls (a bolt
app over Socket Mode): a button clicked, a confirm dialog, a modal filled in and submitted, an
ephemeral answer seen by that person only, the App Home.

.ci/run installs `chromium` and `chromium-driver`; where they are missing the test is skipped,
saying what to install. Set SLACKTAIL_SCREENSHOTS=DIR to keep a screenshot of each step.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import orjson
import pytest
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select, WebDriverWait
from slack_bolt import Ack, App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk import WebClient

from bot.delivery import Delivery, SlackApi
from bot.follower import Follower, FollowerOptions
from bot.localslack import LocalSlack
from bot.sources.follow import FileFollower

from .apps import APP_TOKEN, close_quickly

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,900",
)
WAIT_S = 10.0  # the deadline of every wait; each normally ends in well under a second
TOKEN = "xoxb-browser-test-7f3a9c-do-not-show"
SID = "browser-1"
T = TypeVar("T")

# Records, in the page, every alert/confirm/prompt call and every element added to the document
# that could run code or fetch something (script, img, iframe, …, or any on* attribute).
WATCH_THE_PAGE = """
window.__alerts = [];
for (const name of ["alert", "confirm", "prompt"]) {
  window[name] = (message) => { window.__alerts.push(name + ": " + message); };
}
window.__inserted = [];
const RISKY = new Set(["SCRIPT", "IMG", "IFRAME", "OBJECT", "EMBED", "SVG", "LINK", "STYLE"]);
const check = (node) => {
  if (node.nodeType !== 1) return;
  for (const each of [node, ...node.querySelectorAll("*")]) {
    const handlers = [...each.attributes].filter((a) => a.name.startsWith("on"));
    if (RISKY.has(each.tagName.toUpperCase()) || handlers.length) {
      window.__inserted.push(each.outerHTML.slice(0, 200));
    }
  }
};
new MutationObserver((changes) => {
  for (const change of changes) change.addedNodes.forEach(check);
}).observe(document, { childList: true, subtree: true });
"""


def missing_browser() -> list[str]:
    return [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    """Headless Chromium with a fresh profile; Selenium never looks for or downloads a driver."""
    missing = missing_browser()
    if missing:
        pytest.skip(
            f"the browser test needs {' and '.join(missing)}: install Debian's packages with "
            "`apt-get install chromium chromium-driver` (.ci/run does, as root)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SE_OFFLINE", "true")  # the driver's path is given: Selenium Manager stays out
        driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        driver.set_page_load_timeout(WAIT_S)
        driver.set_script_timeout(WAIT_S)
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def slack() -> Iterator[LocalSlack]:
    with LocalSlack(token=TOKEN, rate_limits=False) as server:
        yield server


def wait_for(driver: WebDriver, what: str, condition: Callable[[WebDriver], T]) -> T:
    """`condition`'s first truthy answer, polled until the deadline (then a timeout naming
    `what`). A stale element is not waited out: it fails the test at once."""
    return WebDriverWait(driver, WAIT_S, poll_frequency=0.05).until(
        condition, message=f"waited {WAIT_S:.0f}s for {what}"
    )


def click(driver: WebDriver, what: str, locate: Callable[[WebDriver], WebElement]) -> None:
    """Click what `locate` finds, finding it again while the page redraws it (a message is
    drawn anew when it is updated, and an element found before is then stale)."""

    def clicked(d: WebDriver) -> bool:
        try:
            locate(d).click()
        except (StaleElementReferenceException, NoSuchElementException):
            return False
        return True

    wait_for(driver, what, clicked)


@contextlib.contextmanager
def screenshot_on_failure(driver: WebDriver, path: Path) -> Iterator[None]:
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            driver.save_screenshot(str(path))
            print(f"screenshot of the page: {path}")
        raise


def snap(driver: WebDriver, name: str) -> None:
    folder = os.environ.get("SLACKTAIL_SCREENSHOTS")
    if folder:
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))


def record(obj: dict[str, object]) -> bytes:
    return orjson.dumps(obj) + b"\n"


def append(log: Path, *records: dict[str, object]) -> None:
    """The agent writes more of its log."""
    with log.open("ab") as out:
        out.write(b"".join(record(r) for r in records))


def turn(follower: Follower) -> None:
    """One turn of slacktail's loop: read, render, deliver to the end."""
    follower.read()
    follower.render(force=True)
    follower.delivery.flush()


def follow(slack: LocalSlack, log: Path) -> Follower:
    delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id())
    return Follower(
        [FileFollower(log)],
        delivery,
        FollowerOptions(wall_clock=lambda: datetime(2026, 1, 1, tzinfo=UTC)),
    )


def dom_id(ts: str) -> str:
    return "msg-" + ts.replace(".", "-")


def body_text(message: WebElement) -> str:
    """What the message says, as shown (its author line and time left out)."""
    return str(message.find_element(By.CSS_SELECTOR, ":scope > .msg-main > .msg-body").text)


def in_thread(root: WebElement, selector: str) -> str:
    """A CSS selector for ``selector`` inside the thread under ``root``. The thread's box is
    redrawn with its root, so it is never held: each lookup finds what is in it in one
    command (a held box could be replaced between two commands; the messages in it are kept)."""
    ts = root.get_attribute("data-ts")
    return f'.thread[data-thread-ts="{ts}"] {selector}'.rstrip()


def thread_text(driver: WebDriver, root: WebElement) -> str:
    """The thread's text, read in one command."""
    script = "const t = arguments[0].querySelector(arguments[1]); return t ? t.innerText : '';"
    return str(driver.execute_script(script, root, in_thread(root, "")))


def reactions(message: WebElement) -> set[str]:
    chips = message.find_elements(By.CSS_SELECTOR, ":scope > .msg-main > .reactions > .reaction")
    return {str(chip.get_attribute("data-name")) for chip in chips}


def open_page(driver: WebDriver, slack: LocalSlack) -> None:
    driver.get(slack.page_url)
    wait_for(
        driver,
        "the page's live stream",
        lambda d: d.find_element(By.ID, "live").get_attribute("data-status") == "live",
    )
    wait_for(
        driver,
        "the empty #agents channel",
        lambda d: "No messages yet." in d.find_element(By.ID, "messages").text,
    )
    driver.execute_script("window.__samePage = true;" + WATCH_THE_PAGE)


# The agent's log (Claude Code's stream-json), record by record.
INIT = {"type": "system", "subtype": "init", "session_id": SID, "cwd": "/w/app", "model": "m"}


def assistant(*content: dict[str, object]) -> dict[str, object]:
    return {"type": "assistant", "session_id": SID, "message": {"id": "m1", "content": content}}


def tool_use(tool_id: str, name: str, tool_input: dict[str, object]) -> dict[str, object]:
    return assistant({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})


def tool_result(tool_id: str, output: str) -> dict[str, object]:
    result = {"type": "tool_result", "tool_use_id": tool_id, "content": output}
    return {"type": "user", "session_id": SID, "message": {"content": [result]}}


def success(text: str) -> dict[str, object]:
    return {"type": "result", "subtype": "success", "session_id": SID, "is_error": False,
            "result": text, "num_turns": 2, "duration_ms": 2500}  # fmt: skip


def test_a_thread_appears_and_its_tool_message_goes_from_running_to_done_in_place(
    browser: WebDriver, slack: LocalSlack, tmp_path: Path
) -> None:
    log = tmp_path / "agent.jsonl"
    log.write_bytes(b"")
    follower = follow(slack, log)
    with screenshot_on_failure(browser, tmp_path / "page.png"):
        open_page(browser, slack)

        append(log, INIT, tool_use("t1", "Bash", {"command": "make test"}))
        turn(follower)
        root = slack.channel_messages()[0]
        (tool,) = slack.thread(slack.channel_id(), root["ts"])[1:]

        # The thread appears: the session's root message, and in its thread the tool, running.
        root_el = wait_for(
            browser,
            "the session's root message",
            lambda d: d.find_element(By.ID, dom_id(root["ts"])),
        )
        tool_el = wait_for(
            browser,
            "the tool's message in the thread",
            lambda d: root_el.find_element(
                By.CSS_SELECTOR, in_thread(root_el, "#" + dom_id(tool["ts"]))
            ),
        )
        running = wait_for(
            browser,
            "the tool shown running",
            lambda d: body_text(tool_el).startswith("⏳ Bash make test") and body_text(tool_el),
        )
        assert "Claude Code" in body_text(root_el) and "Running" in body_text(root_el)
        assert reactions(root_el) == {"hourglass_flowing_sand"}
        snap(browser, "1-running")

        # The tool completes while the page stays open: the SAME element turns to done. (Had the
        # page replaced the element, `tool_el` would be stale and this wait would fail at once.)
        append(log, tool_result("t1", "42 passed"))
        turn(follower)
        done = wait_for(
            browser,
            "the same tool message shown done",
            lambda d: body_text(tool_el).startswith("✅ Bash make test") and body_text(tool_el),
        )
        assert "⏳" not in done and "42 passed" in done, (running, done)
        assert tool_el.get_attribute("id") == dom_id(tool["ts"])
        assert slack.thread(slack.channel_id(), root["ts"])[1]["ts"] == tool["ts"]
        tools = [
            m
            for m in root_el.find_elements(By.CSS_SELECTOR, in_thread(root_el, "article.message"))
            if "make test" in body_text(m)
        ]
        assert tools == [tool_el]  # one message for the tool, never a second one
        snap(browser, "2-done")

        # The session ends: the root's status and reaction follow, still without a reload.
        append(log, success("All tests pass"))
        turn(follower)
        wait_for(
            browser,
            "the root's status and reaction to turn to done",
            lambda d: (
                reactions(root_el) == {"white_check_mark"} and "✅ Succeeded" in body_text(root_el)
            ),
        )
        wait_for(
            browser,
            "the result in the thread",
            lambda d: "All tests pass" in thread_text(d, root_el),
        )
        assert browser.execute_script("return window.__samePage === true;"), "the page reloaded"
        assert browser.execute_script("return window.__alerts.concat(window.__inserted);") == []
        snap(browser, "3-finished")


def test_untrusted_text_is_shown_literally_and_the_token_never(
    browser: WebDriver, slack: LocalSlack, tmp_path: Path
) -> None:
    hostile = (
        "Pinging <!channel> and <@U0LOCALUSR>: <script>alert(1)</script> "
        '<img src=x onerror="alert(2)"> & *done*'
    )
    log = tmp_path / "agent.jsonl"
    log.write_bytes(b"")
    follower = follow(slack, log)
    with screenshot_on_failure(browser, tmp_path / "page.png"):
        open_page(browser, slack)
        append(log, INIT, assistant({"type": "text", "text": hostile}))
        turn(follower)
        root = slack.channel_messages()[0]
        (said,) = slack.thread(slack.channel_id(), root["ts"])[1:]

        said_el = wait_for(
            browser,
            "the assistant's text in the thread",
            lambda d: d.find_element(By.ID, dom_id(said["ts"])),
        )
        text = wait_for(browser, "the text rendered", lambda d: body_text(said_el))
        for literal in (
            "<!channel>",
            "<@U0LOCALUSR>",
            "<script>alert(1)</script>",
            '<img src=x onerror="alert(2)">',
            " & ",
        ):
            assert literal in text, (literal, text)
        assert not said_el.find_elements(By.CSS_SELECTOR, ".mention, script, img, a")
        assert browser.execute_script("return window.__alerts;") == []
        assert browser.execute_script("return window.__inserted;") == []
        assert browser.execute_script("return document.scripts.length;") == 2  # the page's own
        snap(browser, "4-untrusted")

        assert TOKEN not in browser.page_source
        state = browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch('/_state').then((r) => r.text()).then(done, (e) => done('failed: ' + e));"
        )
        assert str(state).startswith("{") and TOKEN not in str(state)


def test_quoted_lines_are_drawn_as_one_block_quote_as_slack_does(
    browser: WebDriver, slack: LocalSlack, tmp_path: Path
) -> None:
    text = (
        "Before\n> *Problem*: the totals\n> are floats\n&gt; typed in Slack\nAfter\n"
        "```\n> in a code block\n```"
    )
    section = {"type": "section", "text": {"type": "mrkdwn", "text": text}}
    with screenshot_on_failure(browser, tmp_path / "page.png"):
        open_page(browser, slack)
        client = WebClient(token=TOKEN, base_url=slack.base_url)
        ts = client.chat_postMessage(channel=slack.channel_id(), text="q", blocks=[section])["ts"]
        message = wait_for(browser, "the message", lambda d: d.find_element(By.ID, dom_id(ts)))
        wait_for(browser, "the text rendered", lambda d: "After" in body_text(message))
        (quote,) = message.find_elements(By.CSS_SELECTOR, "blockquote")
        assert quote.text == "Problem: the totals\nare floats\ntyped in Slack"
        assert quote.find_element(By.CSS_SELECTOR, "b").text == "Problem"
        assert quote.value_of_css_property("border-left-style") == "solid"
        lines = body_text(message).split("\n")
        assert lines[0] == "Before" and "After" in lines and "> in a code block" in lines
        assert not message.find_elements(By.CSS_SELECTOR, "pre blockquote")
        snap(browser, "5-quotes")


def test_a_click_on_a_button_reaches_the_app_and_its_modal_is_filled_in_and_submitted(
    browser: WebDriver, slack: LocalSlack, tmp_path: Path
) -> None:
    """A person clicks the app's buttons on the page, through bolt over Socket Mode: Full output
    opens a modal (its input refused once by the app, then accepted); Stop asks to confirm and
    is answered "not allowed" in an ephemeral message only that person sees."""
    slack.configure_app(app_token=APP_TOKEN)
    bolt = App(client=WebClient(token=TOKEN, base_url=slack.base_url))
    reason = {"type": "input", "block_id": "reason", "label": {"type": "plain_text", "text": "Why"},
              "element": {"type": "plain_text_input", "action_id": "text"}}  # fmt: skip

    @bolt.action("full_output")
    def full_output(ack: Ack, body: dict[str, Any], client: WebClient) -> None:
        ack()
        client.views_open(trigger_id=body["trigger_id"], view={
            "type": "modal", "callback_id": "deny", "title": {"type": "plain_text", "text": "Deny"},
            "submit": {"type": "plain_text", "text": "Deny"}, "blocks": [reason]})  # fmt: skip

    @bolt.view("deny")
    def deny(ack: Ack, view: dict[str, Any]) -> None:
        if view["state"]["values"]["reason"]["text"]["value"] == "no":
            ack(response_action="errors", errors={"reason": "Say why, please"})
        else:
            ack()

    @bolt.action("stop")
    def stop(ack: Ack, respond: Any) -> None:
        ack()
        respond(text="You may not stop this session.")

    handler = SocketModeHandler(bolt, APP_TOKEN)
    handler.connect()
    try:
        with screenshot_on_failure(browser, tmp_path / "page.png"):
            assert slack.wait_for(lambda: slack.socket_mode.connections == 1)
            open_page(browser, slack)
            confirm = {"title": {"type": "plain_text", "text": "Stop it?"},
                       "text": {"type": "mrkdwn", "text": "The agent stops."},
                       "confirm": {"type": "plain_text", "text": "Stop"},
                       "deny": {"type": "plain_text", "text": "Keep"},
                       "style": "danger"}  # fmt: skip
            controls = {"type": "actions", "elements": [
                {"type": "button", "text": {"type": "plain_text", "text": "Full output"},
                 "action_id": "full_output", "value": "t1"},
                {"type": "button", "text": {"type": "plain_text", "text": "Stop"},
                 "action_id": "stop", "style": "danger", "confirm": confirm}]}  # fmt: skip
            web = WebClient(token=TOKEN, base_url=slack.base_url)
            ts = web.chat_postMessage(channel="#agents", text="session", blocks=[controls])["ts"]
            web.assistant_threads_setStatus(
                channel_id=slack.channel_id(), thread_ts=ts, status="is running Bash…"
            )
            message = wait_for(browser, "the message", lambda d: d.find_element(By.ID, dom_id(ts)))
            wait_for(
                browser,
                "the status under the thread",
                lambda d: "slacktail is running Bash…" in message.text,
            )

            message.find_element(By.CSS_SELECTOR, '[data-action-id="full_output"]').click()
            modal = wait_for(
                browser, "the modal", lambda d: d.find_element(By.CSS_SELECTOR, "#overlay .modal")
            )
            assert modal.find_element(By.CLASS_NAME, "modal-title").text == "Deny"
            field = modal.find_element(By.CSS_SELECTOR, "input.input-field")
            field.send_keys("no")
            modal.find_element(By.CLASS_NAME, "modal-submit").click()
            wait_for(
                browser,
                "the app's error under the input",
                lambda d: (
                    modal.find_element(By.CLASS_NAME, "input-error").text == "Say why, please"
                ),
            )
            assert field.get_attribute("value") == "no"  # what was typed stays
            snap(browser, "5-modal-error")
            field.clear()
            field.send_keys("it deletes the build")
            modal.find_element(By.CLASS_NAME, "modal-submit").click()
            wait_for(
                browser,
                "the modal to close",
                lambda d: not d.find_element(By.ID, "overlay").is_displayed(),
            )
            assert slack.modal() is None

            message.find_element(By.CSS_SELECTOR, '[data-action-id="stop"]').click()
            dialog = wait_for(
                browser,
                "the confirm dialog",
                lambda d: d.find_element(By.CSS_SELECTOR, "#confirm .modal"),
            )
            assert "The agent stops." in dialog.text
            dialog.find_element(By.CLASS_NAME, "confirm-yes").click()
            answer = wait_for(
                browser,
                "the ephemeral answer",
                lambda d: d.find_element(By.CSS_SELECTOR, "article.ephemeral"),
            )
            assert "You may not stop this session." in answer.text
            assert "Only visible to you" in answer.text
            snap(browser, "6-ephemeral")

            Select(browser.find_element(By.ID, "me")).select_by_visible_text("alex")
            wait_for(
                browser,
                "alex's page, without the local user's ephemeral",
                lambda d: (
                    not d.find_elements(By.CSS_SELECTOR, "article.ephemeral")
                    and d.find_element(By.ID, "me").get_attribute("value") == "U0LOCALALX"
                ),
            )
            assert [p["user"]["id"] for p in slack.interactions.sent][:1] == ["U0LOCALUSR"]
            assert browser.execute_script("return window.__alerts.concat(window.__inserted);") == []
    finally:
        close_quickly(slack, handler.client)
        browser.execute_script("localStorage.clear();")


def test_the_home_tab_and_the_native_stop_of_an_agent_session(
    browser: WebDriver, slack: LocalSlack, tmp_path: Path
) -> None:
    slack.configure_app(app_token=APP_TOKEN)
    bolt = App(client=WebClient(token=TOKEN, base_url=slack.base_url))
    stopped: list[dict[str, Any]] = []

    @bolt.event("agent_session_stopped")
    def stop(event: dict[str, Any]) -> None:
        stopped.append(event)

    @bolt.event("app_home_opened")
    def opened(event: dict[str, Any], client: WebClient) -> None:
        text = f"Sessions for {event['user']}"
        section = {"type": "section", "text": {"type": "mrkdwn", "text": text}}
        client.views_publish(user_id=event["user"], view={"type": "home", "blocks": [section]})

    handler = SocketModeHandler(bolt, APP_TOKEN)
    handler.connect()
    try:
        with screenshot_on_failure(browser, tmp_path / "page.png"):
            assert slack.wait_for(lambda: slack.socket_mode.connections == 1)
            open_page(browser, slack)
            click(browser, "the Home link", lambda d: d.find_element(By.ID, "home-link"))
            wait_for(
                browser,
                "the Home the app published",
                lambda d: "Sessions for U0LOCALUSR" in d.find_element(By.ID, "messages").text,
            )
            snap(browser, "7-home")

            web = WebClient(token=TOKEN, base_url=slack.base_url)
            ts = web.chat_postMessage(channel="#agents", text="fix the build")["ts"]
            web.agents_sessions_setStatus(
                channel_id=slack.channel_id(), thread_ts=ts, status="processing"
            )
            click(browser, "the channel", lambda d: d.find_element(
                By.CSS_SELECTOR, '[data-channel-name="agents"]'))  # fmt: skip
            stop_button = wait_for(
                browser,
                "Slack's own Stop under the session's thread",
                lambda d: d.find_element(By.CSS_SELECTOR, f'.agent-stop[data-thread-ts="{ts}"]'),
            )
            stop_button.click()
            assert slack.wait_for(lambda: bool(stopped))
            assert (stopped[0]["thread_ts"], stopped[0]["user"]) == (ts, "U0LOCALUSR")
    finally:
        close_quickly(slack, handler.client)
