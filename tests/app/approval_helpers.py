"""What the approvals tests share: an agent's stream-json log followed into the local Slack with
the desk's requests shown (the follower's real path), and a bolt app over Socket Mode whose
listener acknowledges an Approve / Deny click and carries it out with the control."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from slack_bolt import Ack, App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk import WebClient

from bot.app.approval_threads import ApprovalThreads
from bot.app.desk import Desk
from bot.controls import Click, Control, read_value
from bot.delivery import Delivery, SlackApi
from bot.follower import Follower, FollowerOptions
from bot.localslack import LocalSlack
from bot.localslack.model import JSON
from bot.redaction import Redactor
from bot.sources.follow import FileFollower
from tests.localslack.apps import APP_TOKEN, close_quickly

TOKEN = "xoxb-approvals-test-token"


def init(sid: str, cwd: str = "/w/app") -> dict[str, object]:
    return {"type": "system", "subtype": "init", "session_id": sid, "cwd": cwd, "model": "m"}


def tool_use(sid: str, tool_id: str, name: str, tool_input: dict[str, object]) -> dict[str, object]:
    content = [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]
    return {"type": "assistant", "session_id": sid,
            "message": {"id": f"m-{tool_id}", "content": content}}  # fmt: skip


def append(log: Path, *records: dict[str, object]) -> None:
    """The agent writes more of its log."""
    with log.open("ab") as out:
        out.write(b"".join(orjson.dumps(r) + b"\n" for r in records))


def ask(desk: Desk, tool_use_id: str | None, timeout_s: float = 300.0) -> str:
    """A request on the desk, as `slacktail approvals` writes it; its id."""
    return desk.ask("Bash", "make deploy", tool_use_id=tool_use_id, hint="/w/app",
                    timeout_s=timeout_s).id  # fmt: skip


def follow(
    slack: LocalSlack, log: Path, state_dir: Path, clock: Callable[[], float] = time.time,
    redactor: Redactor | None = None,
) -> Follower:  # fmt: skip
    """A follower of ``log`` showing the requests on the desk in ``state_dir`` (``clock``: the
    desk's epoch seconds)."""
    delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id())
    approvals = ApprovalThreads(state_dir, clock, redactor)
    options = FollowerOptions(wall_clock=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                              approvals=approvals)  # fmt: skip
    return Follower([FileFollower(log)], delivery, options)


def turn(follower: Follower) -> None:
    """One turn of the follower's loop, delivered to the end."""
    follower.read()
    follower.render(force=True)
    assert follower.approvals is not None
    follower.approvals.turn(follower.book, follower.delivery)
    follower.delivery.flush()


def root_of(slack: LocalSlack, sid: str) -> JSON:
    """The root message of a session's thread."""
    for message in slack.channel_messages():
        if (message.get("metadata") or {}).get("event_payload", {}).get("session") == sid:
            return message
    raise AssertionError(f"no thread for {sid}")


def approvals_in(slack: LocalSlack, sid: str) -> list[JSON]:
    """The permission requests shown in a session's thread, oldest first."""
    root = root_of(slack, sid)
    replies = slack.thread(slack.channel_id(), root["ts"])[1:]
    return [m for m in replies if "Permission requested" in str(m.get("blocks"))]


def shown_outcome(message: JSON) -> str | None:
    """What a request's message says of its outcome (None: it still waits, with buttons)."""
    for block in message["blocks"]:
        if block["type"] == "context":
            return str(block["elements"][0]["text"])
    return None


@contextmanager
def bolt_app(slack: LocalSlack, control: Control) -> Iterator[App]:
    """A bolt App over Socket Mode (its builtin handler): an Approve / Deny click is
    acknowledged, carried out by ``control``, and its outcome told to the person who clicked."""
    slack.configure_app(app_token=APP_TOKEN)
    bolt = App(client=WebClient(token=TOKEN, base_url=slack.base_url))

    @bolt.action(re.compile(r"^slacktail_(approve|deny)$"))
    def on_click(ack: Ack, body: dict[str, Any], respond: Any) -> None:
        ack()
        action = body["actions"][0]
        read = read_value(action["value"])
        assert read is not None
        session, fields = read
        click = Click(action["action_id"], session, fields, body["user"]["id"],
                      body["channel"]["id"], body["message"]["ts"])  # fmt: skip
        outcome = control(click)
        if outcome.said:
            respond(text=outcome.said, response_type="ephemeral", replace_original=False)

    handler = SocketModeHandler(bolt, APP_TOKEN)
    handler.connect()
    try:
        assert slack.wait_for(lambda: slack.socket_mode.connections == 1)
        yield bolt
    finally:
        close_quickly(slack, handler.client)
