"""Markdown conversions at the edges of line syntax (one-line texts, numbered items, rules),
and the text module's shortcuts for spacing and cleaning, each compared with the plain way."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blocks.markdown import RULE, to_mrkdwn
from blocks.text import clean, one_line


@pytest.mark.parametrize(
    "text",
    ["plain prose", "two lines\nof prose", "snake_case names", "2 * 3", "a ~ b", "1.item"],
)
def test_text_without_markdown_syntax_is_kept_as_it_is(text: str) -> None:
    assert to_mrkdwn(text) == text


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("", ""),
        ("```python", ""),  # a fence that opens an empty block
        ("| a | b |", "| a | b |"),  # no delimiter row below: not a table
        ("> a & b", "> a &amp; b"),
        ("x_y and _it_", "x_y and _it_"),
        ("` <b> `", "`&lt;b&gt;`"),  # one space trimmed from both ends of code, after escaping
        ("`  `", "  "),
        ("`  a  `", "` a `"),
        ("- [x] done", "☑ done"),
        ("- [x]done", "• [x]done"),
    ],
)
def test_one_line_texts_convert_like_any(markdown: str, mrkdwn: str) -> None:
    assert to_mrkdwn(markdown) == mrkdwn


@pytest.mark.parametrize(
    ("line", "mrkdwn"),
    [
        ("1234567890. ten digits", "1234567890. ten digits"),
        ("123456789.  nine digits", "123456789. nine digits"),
        (" \t12) *item*", " \t12) _item_"),
        ("1.no space", "1.no space"),
        ("1. ", "1. "),
        ("1٣. an ASCII digit first", "1٣. an ASCII digit first"),
        ("٣. *arabic-indic*", "٣. _arabic-indic_"),
        ("²) superscript", "²) superscript"),
        ("\xa01. after a no-break space", "\xa01. after a no-break space"),
    ],
)
def test_a_numbered_item_starts_with_an_ascii_digit_and_a_space_after_its_dot(
    line: str, mrkdwn: str
) -> None:
    assert to_mrkdwn(line) == mrkdwn


@given(st.text(alphabet="-*_ a").map(str.strip).filter(lambda text: text[:1] in ("-", "*", "_")))
def test_rules_are_told_as_by_counting(stripped: str) -> None:
    mark = stripped[0]
    expected = stripped.count(mark) >= 3 and set(stripped) <= {mark, " "}
    assert (to_mrkdwn(stripped) == RULE) == expected


def test_a_list_item_is_not_a_rule_but_a_rule_is() -> None:
    assert to_mrkdwn("- - -") == RULE
    assert to_mrkdwn("* * * x") == "• * * x"


spaced_text = st.lists(
    st.sampled_from([chr(c) for c in range(0x20)] + ["\x7f", "\x85", "\u2028", "é", "→"])
    | st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=4),
    max_size=20,
).map("".join)


def to_clean(char: str) -> bool:
    """What cleaning removes: a control character but a tab or a newline, a bidi override."""
    return (unicodedata.category(char) == "Cc" and char not in "\t\n") or (
        "\u202a" <= char <= "\u202e" or "\u2066" <= char <= "\u2069"
    )


def flat_by_split(text: str) -> str:
    """One line the plain way: cleaned (the regex's way: a control character of its own after
    it), then its white space collapsed by `str.split`."""
    return " ".join(clean(text + "\n\x00").split())


@given(spaced_text)
def test_spacing_translated_as_bytes_is_spacing_by_split(text: str) -> None:
    assert one_line(text, len(text) + 1) == flat_by_split(text)


@pytest.mark.parametrize("code", range(0x100))
def test_each_character_up_to_ff_is_spaced_and_cleaned_as_the_plain_way(code: int) -> None:
    for text in (chr(code), f"ascii {chr(code)} text", f"wider → {chr(code)}"):
        assert one_line(text, len(text) + 1) == flat_by_split(text)
        assert (clean(text) == text) == (not any(map(to_clean, text)))
