"""A stop while changes wait: delivery goes on ``drain_s`` more, saying so once; what a stop
cut short is said too."""

from __future__ import annotations

import pytest

from bot.logs import EventLog
from bot.stopping import Stopping
from tests.conftest import FakeClock


def stopping(clock: FakeClock, *, keeps_state: bool = True) -> Stopping:
    return Stopping(clock, lambda: 12, EventLog(None), keeps_state=keeps_state)


def test_without_a_stop_the_final_delivery_never_gives_up(
    capsys: pytest.CaptureFixture[str],
) -> None:
    clock = FakeClock()
    stop = stopping(clock)
    clock.advance(3600)
    assert not stop.give_up()
    stop.ended(done=False)  # a deadline of the caller's: nothing to say about a stop
    assert capsys.readouterr().err == ""


def test_a_stop_is_said_once_and_delivery_gives_up_after_draining(
    capsys: pytest.CaptureFixture[str],
) -> None:
    clock = FakeClock()
    stop = stopping(clock)
    stop.stop.set()
    assert not stop.give_up()
    clock.advance(30)
    assert not stop.give_up()
    clock.advance(0.1)
    assert stop.give_up()
    stop.ended(done=False)
    assert capsys.readouterr().err.splitlines() == [
        "slacktail: stopping: sending the 12 changes still waiting for Slack, for at most 30 s; "
        "Ctrl-C again stops at once (the next start sends the rest)",
        "slacktail: stopped with 12 changes not sent to Slack; the next start sends them",
    ]


def test_without_a_state_file_no_next_start_is_promised(
    capsys: pytest.CaptureFixture[str],
) -> None:
    stop = stopping(FakeClock(), keeps_state=False)
    stop.stop.set()
    stop.give_up()
    stop.ended(done=False)
    assert "next start" not in capsys.readouterr().err
