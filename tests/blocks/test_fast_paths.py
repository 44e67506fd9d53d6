"""The shortcuts taken for speed in blocks give exactly what the plain way gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from blocks.markdown import _code_spans
from blocks.text import (
    _CONTROL,
    _NEEDS_CLEAN,
    ELLIPSIS,
    _apply_carriage_returns,
    _truncate,
    clean,
    escape_mrkdwn,
    one_line,
    safe_line,
)

# Text rich in what the shortcuts look for: spaces, newlines, tabs, controls, escapes, marks.
spaced_text = st.lists(
    st.sampled_from(
        [
            "a", "word", " ", "  ", "     ", "\n", "\n\n", "\t", "\r", "\r\n", "\x1b[31m", "\x0b",
            "\x1f", "\x85", "\xa0", "\u2028", "\u202e", "é", "→", "&", "<", ">", "*", "_", "~",
            "`", "``", "\\", "x_y", "__", "**",
        ]
    )
    | st.characters(),
    max_size=80,
).map("".join)


def plain_clean(text: str) -> str:
    if _NEEDS_CLEAN.search(text) is None:
        return text
    if "\r" in text:
        text = _apply_carriage_returns(text)
    return _CONTROL.sub("", text)


def plain_one_line(text: str, limit: int) -> str:
    flat = " ".join(plain_clean(text).split())
    return _truncate(flat, limit, ELLIPSIS, False, escaped=True, mrkdwn=False)


@given(spaced_text)
def test_clean_answers_as_the_regex_does(text: str) -> None:
    assert clean(text) == plain_clean(text)


@given(spaced_text, st.integers(min_value=1, max_value=30))
def test_one_line_flattens_only_what_its_cut_needs(text: str, limit: int) -> None:
    assert one_line(text, limit) == plain_one_line(text, limit)
    assert safe_line(text, limit) == plain_one_line(escape_mrkdwn(text), limit)


def test_one_line_of_a_long_text_is_cut_from_its_first_lines() -> None:
    lines = [f"{n:>6}→{'  ' * (n % 4)}line {n}\t& <more>" for n in range(2000)]
    text = "\n".join(lines)
    for limit in (20, 160, 280):
        assert one_line(text, limit) == plain_one_line(text, limit)
        assert safe_line(text, limit) == plain_one_line(escape_mrkdwn(text), limit)
    blank_start = "\n" * 5000 + " " * 3000 + text
    assert one_line(blank_start, 160) == plain_one_line(blank_start, 160)


def test_one_line_of_one_long_line_is_cut_within_it_unless_cleaning_spans_the_cut() -> None:
    line = "word &amp; <b> " * 2000
    ends = ["", "\rafter a carriage return", "\x1b[31mred\x1b[0m", "x\x9b1m", "\x07\x00 bell"]
    for end in ends:
        for text in (line + end, end + line, "first\n" + line + end + "\nlast"):
            for limit in (20, 160, 280):
                assert one_line(text, limit) == plain_one_line(text, limit)
                assert safe_line(text, limit) == plain_one_line(escape_mrkdwn(text), limit)
    straddling = "a" * 200 + "\x1b[" + "3" * 300 + "m tail"
    assert one_line(straddling, 100) == plain_one_line(straddling, 100)


def plain_code_spans(text: str) -> list[tuple[int, int, str]]:
    """Each backtick run closed by the next run of the same length (quadratic, obvious)."""
    runs = [(m.start(), m.end()) for m in __import__("re").finditer(r"`+", text)]
    spans = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        closing = next(
            (j for j in range(index + 1, len(runs)) if runs[j][1] - runs[j][0] == end - start),
            None,
        )
        if closing is None:
            index += 1
            continue
        spans.append((start, runs[closing][1], text[end : runs[closing][0]]))
        index = closing + 1
    return spans


@given(spaced_text)
def test_code_spans_pair_backtick_runs_as_the_obvious_way_does(text: str) -> None:
    assert _code_spans(text) == plain_code_spans(text)
