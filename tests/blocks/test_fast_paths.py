"""The shortcuts taken for speed in blocks give exactly what the plain way gives."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from blocks.markdown import to_mrkdwn
from blocks.text import GRAVE, clean, escape_mrkdwn, one_line, safe_line, truncate_escaped

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


def to_clean(char: str) -> bool:
    """The plain rule of what cleaning removes: a control character but a tab or a newline,
    and the bidi overrides and isolates."""
    return (unicodedata.category(char) == "Cc" and char not in "\t\n") or (
        "\u202a" <= char <= "\u202e" or "\u2066" <= char <= "\u2069"
    )


def plain_clean(text: str) -> str:
    """`clean` the regex's way: a control character after a newline of its own makes `clean`
    take it, and adds nothing to what the text gives (escape sequences end at a newline)."""
    return clean(text + "\n\x00")[:-1]


def masked(text: str) -> str:
    """``<`` and backticks as other characters a cut treats alike: `truncate_escaped` then cuts
    as `one_line` does (no link to keep whole, no code block to close)."""
    return text.replace("<", "\x01").replace("`", "\x02")


def plain_one_line(text: str, limit: int) -> str:
    """`one_line` the plain way (masked): clean it all, collapse its white space, then cut."""
    return truncate_escaped(masked(" ".join(plain_clean(text).split())), limit)


def assert_one_line_is_plain(text: str, limit: int) -> None:
    assert masked(one_line(text, limit)) == plain_one_line(text, limit)
    assert masked(safe_line(text, limit)) == plain_one_line(escape_mrkdwn(text), limit)


@given(spaced_text)
def test_clean_answers_as_the_regex_does(text: str) -> None:
    assert clean(text) == plain_clean(text)
    assert (clean(text) == text) == (not any(map(to_clean, text)))  # as is when nothing to clean


@given(spaced_text, st.integers(min_value=1, max_value=30))
def test_one_line_flattens_only_what_its_cut_needs(text: str, limit: int) -> None:
    assert_one_line_is_plain(text, limit)


def test_one_line_of_a_long_text_is_cut_from_its_first_lines() -> None:
    lines = [f"{n:>6}→{'  ' * (n % 4)}line {n}\t& <more>" for n in range(2000)]
    text = "\n".join(lines)
    for limit in (20, 160, 280):
        assert_one_line_is_plain(text, limit)
    blank_start = "\n" * 5000 + " " * 3000 + text
    assert_one_line_is_plain(blank_start, 160)


def test_one_line_of_one_long_line_is_cut_within_it_unless_cleaning_spans_the_cut() -> None:
    line = "word &amp; <b> " * 2000
    ends = ["", "\rafter a carriage return", "\x1b[31mred\x1b[0m", "x\x9b1m", "\x07\x00 bell"]
    for end in ends:
        for text in (line + end, end + line, "first\n" + line + end + "\nlast"):
            for limit in (20, 160, 280):
                assert_one_line_is_plain(text, limit)
    straddling = "a" * 200 + "\x1b[" + "3" * 300 + "m tail"
    assert_one_line_is_plain(straddling, 100)


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


def plain_code(content: str) -> str:
    """A code span's mrkdwn: blank content as it is, else one space trimmed from both ends."""
    if not content.strip():
        return escape_mrkdwn(content)
    if content.startswith(" ") and content.endswith(" ") and len(content) > 2:
        content = content[1:-1]
    return "`" + escape_mrkdwn(content.replace("`", GRAVE)) + "`"


def plain_inline_code(text: str) -> str:
    """A line of words and backticks as mrkdwn: its code spans paired the obvious way, the
    backticks outside them replaced."""
    out = []
    position = 0
    for start, end, content in plain_code_spans(text):
        out.append(escape_mrkdwn(text[position:start]).replace("`", GRAVE))
        out.append(plain_code(content))
        position = end
    return "".join(out) + escape_mrkdwn(text[position:]).replace("`", GRAVE)


WORDS = ["a", "b c", " ", "  ", "&"]
backticked_line = st.one_of(
    st.lists(st.sampled_from([*WORDS, "`"])),  # single backticks only
    st.lists(st.sampled_from([*WORDS, "`", "``", "```"])),
).map(lambda parts: "a" + "".join(parts))  # a word first: no block syntax


@given(backticked_line)
def test_code_spans_pair_backtick_runs_as_the_obvious_way_does(text: str) -> None:
    assert to_mrkdwn(text) == plain_inline_code(text)
