"""Durations and times in messages come from the log: where it gives none (no times, or the
same time at both ends) none is shown, in the channel and in the preview alike."""

from __future__ import annotations

from datetime import timedelta

from blocks.message import Message
from blocks.thread import thread_messages
from bot.preview import message_text
from bot.records import (
    Delegation,
    Origin,
    Record,
    SessionResult,
    SessionStarted,
    ToolCall,
    ToolResult,
)
from bot.session import Session
from tests.blocks.test_messages import T0, at, shown

READ = T0 + timedelta(days=300)  # when slacktail read the lines


def untimed(line: int) -> Origin:
    return Origin("s1", None, line)


def followed(records: list[Record], step_s: float = 0.0) -> dict[str, Message]:
    """The messages as the channel gets them: each record applied when it was read (``step_s``
    apart), rendered at the last read time."""
    session = Session("s1")
    now = READ
    for index, record in enumerate(records):
        now = READ + timedelta(seconds=index * step_s)
        session.apply(record, now)
    return {message.key: message for message in thread_messages(session, now)}


def previewed(records: list[Record]) -> dict[str, Message]:
    session = Session("s1")
    for record in records:
        session.apply(record)
    return {message.key: message for message in thread_messages(session)}


def bash_call(origin: Origin) -> ToolCall:
    return ToolCall(origin, call_id="a", name="Bash", input={"command": "make"})


def bash(called: Origin, answered: Origin) -> list[Record]:
    """A ``make`` call and its result."""
    return [bash_call(called), ToolResult(answered, call_id="a", output="ok")]


def test_an_untimed_tool_shows_no_duration_in_the_channel_or_the_preview() -> None:
    records = bash(untimed(1), untimed(2))
    line = "✅ *Bash* `make`"
    for step in (0.0, 7.0):  # read at once, or as a live log is
        assert followed(records, step)["tools:1"].blocks[0]["text"]["text"] == line
    assert previewed(records)["tools:1"].blocks[0]["text"]["text"] == line
    assert message_text(followed(records)["tools:1"]).splitlines()[0] == "✅ Bash `make`"


def test_a_tool_whose_call_and_result_share_one_logged_time_shows_no_duration() -> None:
    records = bash(Origin("s1", at(4), 1), Origin("s1", at(4), 2))
    assert followed(records)["tools:1"].blocks[0]["text"]["text"] == "✅ *Bash* `make`"


def test_a_result_logged_before_its_call_shows_no_duration() -> None:
    records = bash(Origin("s1", at(4), 1), Origin("s1", at(3), 2))
    assert followed(records)["tools:1"].blocks[0]["text"]["text"] == "✅ *Bash* `make`"


def test_an_untimed_delegation_shows_no_duration() -> None:
    records: list[Record] = [
        SessionStarted(untimed(1), agent="Agno team Dev Team"),
        Delegation(untimed(2), call_id="d", member="researcher", task="Find limits"),
        ToolResult(untimed(3), call_id="d", output="Tier 3"),
    ]
    head = followed(records, 5.0)["delegation:1"].blocks[0]["text"]["text"]
    assert head == "✅ 🤝 *Agno team Dev Team* → *researcher*\n>Find limits"


def test_an_untimed_session_root_shows_no_start_and_no_elapsed_time() -> None:
    records: list[Record] = [SessionStarted(untimed(1), agent="SWE-agent"), bash_call(untimed(2))]
    running = followed(records, 90.0)["root"]
    assert running.blocks[-1]["elements"][0]["text"] == "⏳ *Running* · 1 tool call (1 running)"
    assert "Started" not in shown(running)
    done = followed([*records, SessionResult(untimed(3))], 90.0)["root"]
    assert done.blocks[-1]["elements"][0]["text"] == "✅ *Succeeded* · 1 tool call (1 interrupted)"
    assert done.blocks == previewed([*records, SessionResult(untimed(3))])["root"].blocks


def test_an_ended_session_of_one_logged_instant_shows_no_elapsed_time() -> None:
    records: list[Record] = [SessionStarted(Origin("s1", at(2), 1), agent="Agno"),
                             SessionResult(Origin("s1", at(2), 2))]  # fmt: skip
    status = followed(records)["root"].blocks[-1]["elements"][0]["text"]
    assert status == "✅ *Succeeded* · no tools yet"


def test_a_timed_session_shows_its_logged_start_and_span() -> None:
    records: list[Record] = [SessionStarted(Origin("s1", at(0), 1), agent="Agno"),
                             SessionResult(Origin("s1", at(75), 2))]  # fmt: skip
    root = followed(records)["root"]
    assert root.blocks[-1]["elements"][0]["text"] == "✅ *Succeeded* · no tools yet · 1m 15s"
    assert "*Started*" in shown(root)
