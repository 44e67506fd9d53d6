"""The shortcuts `to_mrkdwn` takes give exactly what the plain way gives: the syntax a whole
text holds asked once (a line skips what its text lacks), one-line texts, and block syntax
told with str methods rather than a regex."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from blocks.emphasis import two_stars
from blocks.markdown import RULE, _converted, _is_rule, _numbered, _syntax, to_mrkdwn
from blocks.text import _NEEDS_CLEAN, _nothing_to_clean, _spaced, clean

EVERY_SYNTAX = -1  # all bits set: each line asks all its own questions, as if any could apply
NO_SYNTAX = 0  # no bit set: nothing inline to convert

# Rich in what the whole-text questions ask about, and in what makes a part of a line start
# or end: marks, escapes, code, links, quotes, list and heading markers, newlines.
markdown_pieces = st.sampled_from(
    [
        "\n", "\n\n", " ", "  ", "\t", "a", "word", "x_y", "_a", "a_", "__", "_", "*", "**",
        "***", "~", "~~", "~~~", "\\", "\\*", "`", "``", "```", "ˋ", "&", "<", ">", ">>",
        "   > ", "> ", "<https://a.example>", "<!here>", "[", "]", "(", ")", "[a](", "[x] ",
        "[ ] ", "[a](https://a.example)", "![](https://b.example/i.png)", "[w.com](https://x.example)",
        "|", "| a | b |", "|---|---|", "---", "* * *", "___", "# ", "### t ##", "####### ",
        "- ", "+ ", "* ", "1. ", "12) ", "1234567890. ", "٣. ", "²) ", "é", "→", "\xa0",
        "<HTTPS://C.EXAMPLE>", "\n~~~\n", "\n```\n", "--- | ---",
    ]
)  # fmt: skip
markdown_text = st.lists(markdown_pieces | st.text(max_size=3), max_size=40).map("".join)


@given(markdown_text)
@example("a_b\n__c__")  # a `_` after a newline: the text's `_` question says so
@example("~~gone~~ and **kept**")
@example("`a`_b_ **c**")  # a part starting after a code span
@example("x > y\n**b**")  # a `>` to escape in a line without one
@example("one line **bold** & `code`")
@example("```")  # a one-line text that only opens a fence
@example("~~~\na *b*\n~~~")  # a fence of tildes, in a text with no backtick
@example("a | b\n--- | ---\nc | d")  # a table with no `|` at the ends of its rows
@example("see <HTTPS://A.EXAMPLE> now")  # an autolink in capitals
def test_whole_text_questions_convert_as_each_line_asking_its_own(markdown: str) -> None:
    text = clean(markdown)
    assert to_mrkdwn(markdown) == _converted(text, EVERY_SYNTAX)


@pytest.mark.parametrize(
    "text",
    ["plain prose", "two lines\nof prose", "snake_case names", "2 * 3", "a ~ b", "1. item"],
)
def test_text_without_inline_syntax_asks_no_line_anything(text: str) -> None:
    assert _syntax(text) == NO_SYNTAX
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
    assert _converted(markdown, EVERY_SYNTAX) == mrkdwn


NUMBERED = re.compile(r"([ \t]*)(\d{1,9}[.)])[ \t]+(.*)")
numbered_lines = st.lists(
    st.sampled_from(
        ["1", "9", "10", "123456789", "0", "٣", "²", "①", ".", ")", " ", "\t", "\xa0", "a", "-"]
    )
    | st.characters(exclude_characters="\n"),
    max_size=14,
).map("".join)


@given(numbered_lines)
@example("1234567890. ten digits")
@example("123456789. nine digits")
@example(" \t12) item")
@example("1.no space")
@example("1. ")
@example("٣. arabic-indic")
@example("²) superscript")
@example("①. circled")
def test_numbered_items_are_told_as_the_regex_tells_them(line: str) -> None:
    match = NUMBERED.fullmatch(line)
    expected = f"{match[1]}{match[2]} {match[3]}" if match else None
    assert _numbered(line, NO_SYNTAX) == expected


@given(st.text(alphabet="-*_ a").map(str.strip).filter(lambda text: text[:1] in ("-", "*", "_")))
def test_rules_are_told_as_by_counting(stripped: str) -> None:
    mark = stripped[0]
    expected = stripped.count(mark) >= 3 and set(stripped) <= {mark, " "}
    assert _is_rule(stripped, mark) == expected


def test_a_list_item_is_not_a_rule_but_a_rule_is() -> None:
    assert to_mrkdwn("- - -") == RULE
    assert to_mrkdwn("* * * x") == "• * * x"


@given(st.text(alphabet="*a \n", max_size=12) | st.text())
def test_two_stars_counts_as_count_does(text: str) -> None:
    assert two_stars(text) == (text.count("*") >= 2)


spaced_text = st.lists(
    st.sampled_from([chr(c) for c in range(0x20)] + ["\x7f", "\x85", "\u2028", "é", "→"])
    | st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=4),
    max_size=20,
).map("".join)


def spaced_by_replace(text: str) -> str | None:
    spaced = text.replace("\n", " ").replace("\t", " ")
    return spaced if spaced.isprintable() else None


@given(spaced_text)
def test_spacing_translated_as_bytes_is_spacing_by_replace(text: str) -> None:
    assert _spaced(text) == spaced_by_replace(text)


@pytest.mark.parametrize("code", range(0x100))
def test_each_character_up_to_ff_is_spaced_and_cleaned_as_the_plain_way(code: int) -> None:
    for text in (chr(code), f"ascii {chr(code)} text", f"wider → {chr(code)}"):
        assert _spaced(text) == spaced_by_replace(text)
        assert _nothing_to_clean(text) == (_NEEDS_CLEAN.search(text) is None)
