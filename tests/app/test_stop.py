"""Stop: SIGINT, then SIGTERM after a grace period, then SIGKILL after another."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.app.stop import AgentStop
from bot.controls import STOP, Click
from bot.logs import EventLog
from bot.sources.command import AgentCommand

AGENT = Path(__file__).parents[1] / "fixtures" / "stubborn_agent.py"


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "signals"


def start(marker: Path, *args: str) -> AgentCommand:
    command = AgentCommand([sys.executable, str(AGENT), str(marker), *args], passthrough=None,
                           forward_signals=False)  # fmt: skip
    assert command.wait_ready(10)  # its first line: its signal handlers are in place
    return command


@pytest.fixture
def stubborn(marker: Path) -> Iterator[AgentCommand]:
    command = start(marker)
    yield command
    command.forward_signal(9)
    command.wait(10)
    command.close()


def click(user: str = "U1") -> Click:
    return Click(STOP, "stubborn-1", {}, user, "C1", "1.2")


def test_an_agent_that_ignores_sigint_and_sigterm_is_killed(
    stubborn: AgentCommand, marker: Path
) -> None:
    stop = AgentStop(stubborn, EventLog(None), interrupt_grace_s=0.3, terminate_grace_s=0.3)
    assert stop(click()).done
    assert stubborn.wait(15) == 128 + 9
    assert marker.read_text().split() == ["SIGINT", "SIGTERM"]
    ending = stubborn.ending()
    assert ending is not None and ending.signal == "SIGKILL"


def test_an_agent_that_stops_on_sigint_gets_nothing_more(marker: Path) -> None:
    command = start(marker, "obey")
    try:
        stop = AgentStop(command, EventLog(None), interrupt_grace_s=5, terminate_grace_s=5)
        assert stop(click()).done
        assert command.wait(15) == 130
        assert stop.thread is not None
        stop.thread.join(10)
        assert marker.read_text().split() == ["SIGINT"]
        ending = command.ending()
        assert ending is not None and ending.signal == "SIGINT"  # its sessions end as stopped
    finally:
        command.close()


def test_a_second_stop_while_stopping_is_told_who_asked(stubborn: AgentCommand) -> None:
    stop = AgentStop(stubborn, EventLog(None), interrupt_grace_s=5, terminate_grace_s=5)
    assert stop(click("U1")).done
    second = stop(click("U2"))
    assert not second.done and second.said is not None and "<@U1>" in second.said


def test_stop_after_the_agent_exited_is_answered(marker: Path) -> None:
    command = start(marker, "obey")
    try:
        command.forward_signal(2)
        command.wait(10)
        outcome = AgentStop(command, EventLog(None))(click())
        assert not outcome.done and outcome.said is not None and "already exited" in outcome.said
    finally:
        command.close()
