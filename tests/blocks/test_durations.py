"""Durations and times in messages come from the log: where it gives none (no times, or the
same time at both ends) none is shown, in the channel and in the preview alike."""

from __future__ import annotations

from datetime import datetime, timedelta

from blocks.message import Message
from blocks.thread import thread_messages
from bot.preview import message_text
from bot.records import Delegation, Origin, Record, SessionStarted, ToolCall, ToolResult
from bot.result_records import SessionResult, TurnEnded
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


def test_an_untimed_session_root_shows_no_start_and_counts_read_times_only_while_live() -> None:
    records: list[Record] = [SessionStarted(untimed(1), agent="SWE-agent"), bash_call(untimed(2))]
    running = followed(records, 90.0)["root"]
    status = "⏳ *Running* · 1 tool call (1 running)"
    assert running.blocks[-1]["elements"][0]["text"] == status + " · 1m"  # read 90 s ago
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


def status_of(session: Session, now: datetime | None) -> str:
    text = thread_messages(session, now)[0].blocks[-1]["elements"][0]["text"]
    assert isinstance(text, str)
    return text


def five_hours(read_at: datetime) -> Session:
    """A five-hour session of a log written long ago, read at ``read_at``, its call open."""
    session = Session("s1")
    session.apply(SessionStarted(Origin("s1", at(0), 1), agent="Claude Code"), read_at)
    session.apply(bash_call(Origin("s1", at(5 * 3600), 2)), read_at)
    return session


def test_a_session_logged_months_ago_shows_its_own_span_not_now_minus_its_start() -> None:
    session = five_hours(READ)
    assert status_of(session, READ).endswith(" · 5h 0m")  # before it is found idle
    session.tick(READ)
    assert status_of(session, READ) == "💤 *Idle* · 1 tool call (1 running) · 5h 0m"


def test_a_live_timed_session_counts_up_to_now_in_whole_minutes() -> None:
    session = five_hours(at(5 * 3600 + 30))
    assert status_of(session, at(5 * 3600 + 90)).endswith(" · 5h 1m")


def test_a_waiting_sessions_duration_ends_at_its_last_record() -> None:
    session = five_hours(READ)
    session.apply(ToolResult(Origin("s1", at(5 * 3600 + 12), 3), call_id="a"), READ)
    session.apply(TurnEnded(Origin("s1", at(5 * 3600 + 12), 4)), READ)
    assert status_of(session, READ + timedelta(hours=3)).endswith(" · 5h 0m")
    assert status_of(session, None).startswith("💬 *Waiting for the user* · 1 tool call · ")


def test_an_untimed_log_read_at_once_shows_no_elapsed_time_once_its_input_ended() -> None:
    session = Session("s1")
    for record in (SessionStarted(untimed(1), agent="Claude Code"), bash_call(untimed(2))):
        session.apply(record, READ)
    session.close()
    assert status_of(session, READ + timedelta(seconds=2)) == (
        "⏳ *Running* · 1 tool call (1 running)"
    )
