from __future__ import annotations

import io

from bot.progress import MIN_BYTES, ProgressBar


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
