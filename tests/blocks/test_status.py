from __future__ import annotations

from blocks.status import THINKING, agent_state, doing_now
from bot.caps import STATUS_LIMIT
from bot.records import Origin, ToolCall
from bot.result_records import ResultStatus, SessionResult, TurnEnded
from bot.session import SessionStatus
from tests.session.test_state import SID, at, call, result, session_of, started


def test_a_running_call_is_what_the_session_is_doing() -> None:
    session = session_of(started(), call("c1", "Bash"))
    assert doing_now(session) == "running Bash: ls"


def test_the_newest_of_parallel_open_calls_is_shown() -> None:
    read = ToolCall(Origin(SID, at(2), 5), call_id="c2", name="Read", input={"file_path": "a.py"})
    session = session_of(started(), call("c1", "Bash"), read)
    assert doing_now(session) == "running Read: a.py"
    session.apply(result("c2", 3))
    assert doing_now(session) == "running Bash: ls"


def test_a_running_session_with_no_open_call_is_thinking() -> None:
    session = session_of(started(), call("c1"), result("c1"))
    assert doing_now(session) == THINKING


def test_a_long_command_is_cut_to_one_short_line() -> None:
    long = ToolCall(Origin(SID, at(1), 2), call_id="c1", name="Bash",
                    input={"command": "echo " + "x " * 300 + "\nls"})  # fmt: skip
    line = doing_now(session_of(started(), long))
    assert len(line) <= STATUS_LIMIT and "\n" not in line and line.startswith("running Bash: echo")


def test_nothing_is_shown_once_the_session_waits_or_ended() -> None:
    waiting = session_of(started(), TurnEnded(Origin(SID, at(3), 9)))
    assert waiting.status is SessionStatus.WAITING and doing_now(waiting) == ""
    succeeded = SessionResult(Origin(SID, at(3), 9), status=ResultStatus.SUCCEEDED)
    ended = session_of(started(), succeeded)
    assert doing_now(ended) == ""
    closed = session_of(started(), call("c1"))
    closed.close()
    assert doing_now(closed) == ""


def test_an_agent_session_processes_while_running_is_active_while_waiting_and_closes() -> None:
    session = session_of(started(), call("c1"))
    assert agent_state(session) == "processing"
    session.apply(TurnEnded(Origin(SID, at(3), 9)))
    assert agent_state(session) == "active"
    session.apply(SessionResult(Origin(SID, at(4), 10), status=ResultStatus.SUCCEEDED))
    assert agent_state(session) == "closed"


def test_a_session_whose_input_ended_without_a_result_is_closed() -> None:
    session = session_of(started(), call("c1"))
    session.close(expects_result=False)
    assert agent_state(session) == "closed"
