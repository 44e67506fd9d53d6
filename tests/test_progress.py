"""The progress bar of `follow --once` and a large `preview`: what was read and what was sent,
drawn on a terminal only, other lines kept off its line."""

from __future__ import annotations

import io
import sys

import pytest

from bot.events import SessionStarted
from bot.logs import EventLog
from bot.progress import EVERY_S, MIN_BYTES, ProgressBar
from tests.conftest import FakeClock


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bar_is_drawn_on_a_terminal_for_a_large_file() -> None:
    stream = Terminal()
    bar = ProgressBar(MIN_BYTES * 2, "big.jsonl", stream)
    bar.update(MIN_BYTES * 2)
    bar.close()
    out = stream.getvalue()
    assert "big.jsonl" in out and "100%" in out
    assert out.endswith("\r\x1b[2K")


def test_nothing_is_drawn_when_output_is_not_a_terminal() -> None:
    stream = io.StringIO()
    bar = ProgressBar(MIN_BYTES * 2, "big.jsonl", stream)
    bar.update(MIN_BYTES)
    bar.close()
    assert stream.getvalue() == ""


def test_nothing_is_drawn_for_a_small_file() -> None:
    stream = Terminal()
    bar = ProgressBar(1000, "small.jsonl", stream)
    bar.update(500)
    bar.close()
    assert stream.getvalue() == ""


def test_the_bar_shows_what_was_sent_as_well_as_what_was_read() -> None:
    stream = Terminal()
    bar = ProgressBar(2_000_000, "agent.jsonl", stream, min_bytes=0)
    bar.watch_delivery(lambda: (12, 28))
    bar.update(2_000_000)
    drawn = stream.getvalue()
    assert "read ████████████████████ 100%  2/2 MB" in drawn
    assert "sent ██████░░░░░░░░░░░░░░ 12 of 40" in drawn


def test_a_log_of_no_known_size_shows_what_was_sent_alone() -> None:
    stream = Terminal()
    bar = ProgressBar(0, "stdin", stream, min_bytes=0)
    bar.watch_delivery(lambda: (1, 1))
    bar.draw()
    assert stream.getvalue() == "\rstdin  · sent ██████████░░░░░░░░░░ 1 of 2"


def test_the_bar_is_redrawn_while_delivery_sleeps() -> None:
    stream, clock, sent = Terminal(), FakeClock(), [0]
    bar = ProgressBar(10, "a.jsonl", stream, min_bytes=0, clock=clock)
    bar.watch_delivery(lambda: (sent[0], 3 - sent[0]))
    bar.draw()
    sent[0] = 2
    clock.advance(EVERY_S)
    bar.sleep(0)
    assert stream.getvalue().endswith("2 of 3")


def test_a_line_written_to_stderr_while_the_bar_is_shown_goes_above_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    log = EventLog(stream)
    bar = ProgressBar(10, "a.jsonl", stream, min_bytes=0)
    bar.update(5)
    with bar.lines_above(log):
        log.event(SessionStarted("s", agent=None, source="a.jsonl"))
        print("slacktail: a notice", file=sys.stderr)
    bar.close()
    drawn, clear = "\r" + bar.line(), "\r\x1b[2K"
    event, notice, last = stream.getvalue().split("\n")
    assert event.startswith(drawn + clear + '{"at":') and event.endswith('"source":"a.jsonl"}')
    assert notice == drawn + clear + "slacktail: a notice"
    assert last == drawn + clear
    assert sys.stderr is stream and log.stream is stream  # put back
