"""blocks.markdown: the Markdown an assistant writes, as escaped Slack mrkdwn."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blocks.markdown import RULE, to_mrkdwn
from blocks.text import GRAVE

# Every `<` we emit opens `<http(s)://target|label>` or `<http(s)://target>`: no space, `<`,
# `>` or `|` in the target, no `<` or `>` in the label.
OUR_LINK = re.compile(r"<https?://[^\s<>|]+(?:\|[^<>]*)?>", re.IGNORECASE)
markdown_pieces = st.sampled_from(
    [
        "<!channel>", "<!here>", "<@U1>", "<#C1>", "<", ">", "&", "<https://a.example>",
        "[", "]", "(", ")", "](", "[x](", "https://", "http://e.example/p?q=1&r=2", "javascript:",
        "paypal.com", "*", "**", "_", "__", "~~", "`", "```", "~~~", "#", "# ", "> ", "- ", "1. ",
        "|", "|---|", "\n", " ", "\\", "a", "b.c", "@", "!", "^", "é", "\x1b[31m",
    ]
)  # fmt: skip
markdown_text = st.lists(markdown_pieces | st.text(max_size=5), max_size=60).map("".join)


# emphasis and headings


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("**bold**", "*bold*"),
        ("__bold__", "*bold*"),
        ("*italic*", "_italic_"),
        ("_italic_", "_italic_"),
        ("~~strike~~", "~strike~"),
        ("***both***", "*_both_*"),
        ("a **b** c *d* e", "a *b* c _d_ e"),
    ],
)
def test_emphasis_becomes_mrkdwn_emphasis(markdown: str, mrkdwn: str) -> None:
    assert to_mrkdwn(markdown) == mrkdwn


def test_snake_case_identifiers_are_not_italicised() -> None:
    assert to_mrkdwn("call my_long_function_name now") == "call my_long_function_name now"


def test_asterisks_between_spaces_are_not_emphasis() -> None:
    assert to_mrkdwn("2 * 3 * 4") == "2 * 3 * 4"


def test_backslash_escapes_show_the_character_itself() -> None:
    assert to_mrkdwn(r"\# not a heading, \[not\] a link") == "# not a heading, [not] a link"


@pytest.mark.parametrize("level", range(1, 7))
def test_headings_become_bold_lines(level: int) -> None:
    assert to_mrkdwn("#" * level + " Plan for today") == "*Plan for today*"


def test_heading_drops_its_closing_hashes_and_inner_bold() -> None:
    assert to_mrkdwn("## The **real** fix ##") == "*The real fix*"


def test_a_hash_without_a_space_is_not_a_heading() -> None:
    assert to_mrkdwn("#hashtag") == "#hashtag"


def test_a_horizontal_rule_becomes_a_line() -> None:
    assert to_mrkdwn("a\n\n---\n\nb") == f"a\n\n{RULE}\n\nb"


# links


def test_a_web_link_becomes_a_mrkdwn_link() -> None:
    assert to_mrkdwn("see [the docs](https://docs.example/a?b=1)") == (
        "see <https://docs.example/a?b=1|the docs>"
    )


def test_a_link_keeps_a_url_with_balanced_parentheses() -> None:
    assert to_mrkdwn("[wiki](https://en.wikipedia.org/wiki/Foo_(bar))") == (
        "<https://en.wikipedia.org/wiki/Foo_(bar)|wiki>"
    )


def test_a_link_title_is_dropped() -> None:
    assert to_mrkdwn('[x](https://a.example "Title")') == "<https://a.example|x>"


def test_a_link_target_is_escaped_and_cannot_smuggle_a_label() -> None:
    assert to_mrkdwn("[x](https://a.example/?a=1&b=|<y>)") == (
        "<https://a.example/?a=1&amp;b=%7C%3Cy%3E|x>"
    )


def test_a_link_label_is_escaped() -> None:
    assert to_mrkdwn("[<!channel> & co](https://a.example)") == (
        "<https://a.example|&lt;!channel&gt; &amp; co>"
    )


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "mailto:a@b.example", "./src/main.py", "ftp://f.example/x"]
)
def test_a_link_to_anything_but_http_is_plain_text(url: str) -> None:
    assert to_mrkdwn(f"[label]({url})") == f"label ({url})"


@pytest.mark.parametrize(
    ("label", "url"),
    [
        ("paypal.com", "https://evil.example"),
        ("https://bank.example/login", "https://evil.example/login"),
        ("github.com/me/repo", "https://github.com/attacker/repo"),
        ("google.com", "https://google.com@evil.example/"),
        ("http://localhost", "https://evil.example"),
        ("10.0.0.1", "https://evil.example"),
    ],
)
def test_a_deceptive_link_is_plain_text_showing_its_target(label: str, url: str) -> None:
    assert to_mrkdwn(f"[{label}]({url})") == f"{label} ({url})"


@pytest.mark.parametrize(
    ("label", "url"),
    [
        ("example.com", "https://www.example.com/docs"),
        ("https://example.com/docs/", "https://example.com/docs"),
        ("Example.COM", "https://example.com"),
        ("docs", "https://example.com"),
    ],
)
def test_a_label_naming_its_own_target_stays_a_link(label: str, url: str) -> None:
    assert to_mrkdwn(f"[{label}]({url})") == f"<{url}|{label}>"


def test_a_link_with_an_empty_label_shows_its_url() -> None:
    assert to_mrkdwn("[](https://a.example)") == "<https://a.example>"


def test_an_image_becomes_a_link_to_it() -> None:
    assert to_mrkdwn("![chart](https://a.example/c.png)") == "<https://a.example/c.png|chart>"


def test_a_bare_url_stays_text() -> None:
    assert to_mrkdwn("go to https://a.example/x?y=1&z=2") == "go to https://a.example/x?y=1&amp;z=2"


def test_an_autolink_becomes_a_bare_url() -> None:
    assert to_mrkdwn("<https://a.example/x>") == "https://a.example/x"


# escaping


@pytest.mark.parametrize(
    "special", ["<!channel>", "<!here>", "<@U123>", "<#C123>", "<!subteam^S1>"]
)
def test_mentions_in_text_show_literally(special: str) -> None:
    assert to_mrkdwn(f"ping {special}") == "ping " + special.replace("<", "&lt;").replace(
        ">", "&gt;"
    )


def test_angle_brackets_and_ampersands_are_escaped_outside_quotes() -> None:
    assert to_mrkdwn("a > b && c < d") == "a &gt; b &amp;&amp; c &lt; d"


def test_terminal_escapes_are_removed() -> None:
    assert to_mrkdwn("\x1b[1mdone\x1b[0m") == "done"


# lists and quotes


@pytest.mark.parametrize("marker", ["-", "*", "+"])
def test_bullets_become_bullet_points(marker: str) -> None:
    assert to_mrkdwn(f"{marker} first **one**") == "• first *one*"


def test_nested_bullets_keep_their_indentation() -> None:
    assert to_mrkdwn("- a\n  - b") == "• a\n  • b"


def test_numbered_lists_are_kept() -> None:
    assert to_mrkdwn("1. one\n2) _two_") == "1. one\n2) _two_"


def test_task_list_items_become_boxes() -> None:
    assert to_mrkdwn("- [ ] todo\n- [x] done") == "☐ todo\n☑ done"


def test_a_blockquote_becomes_a_mrkdwn_quote() -> None:
    assert to_mrkdwn("> quoted **text** <here>") == "> quoted *text* &lt;here&gt;"


def test_nested_blockquotes_flatten_to_one_quote() -> None:
    assert to_mrkdwn(">> deep\n> > deeper") == "> deep\n> deeper"


def test_a_code_block_in_a_quote_is_quoted_inline_code_line_by_line() -> None:
    markdown = "> Update:\n> ```elixir\n> defp a() <x> `do`\n>\n> end\n> ```\n> Runs `x`."
    assert to_mrkdwn(markdown) == (
        "> Update:\n> `defp a() &lt;x&gt; ˋdoˋ`\n>\n> `end`\n> Runs `x`."
    )


def test_a_code_block_in_a_quote_ends_with_the_quote_when_never_closed() -> None:
    assert to_mrkdwn("> ~~~\n> open\nout of it") == "> `open`\nout of it"


def test_a_quote_marker_in_the_middle_of_a_line_is_escaped() -> None:
    assert to_mrkdwn("x > y") == "x &gt; y"


# code


def test_a_fenced_code_block_is_kept_escaped_and_not_converted() -> None:
    markdown = "```python\nx = **y** < 3 and _z_\n# not a heading\n```"
    assert to_mrkdwn(markdown) == "```\nx = **y** &lt; 3 and _z_\n# not a heading\n```"


def test_a_tilde_fence_can_hold_backtick_fences_which_are_neutralised() -> None:
    result = to_mrkdwn("~~~\n```\ninner\n```\n~~~")
    assert result == f"```\n{GRAVE * 3}\ninner\n{GRAVE * 3}\n```"


def test_an_unclosed_fence_is_closed_at_the_end() -> None:
    assert to_mrkdwn("```\ncode *x*") == "```\ncode *x*\n```"


def test_a_fence_only_closes_with_at_least_as_many_backticks() -> None:
    assert to_mrkdwn("````\n```\n````") == f"```\n{GRAVE * 3}\n```"


def test_inline_code_is_kept_escaped_and_not_converted() -> None:
    assert to_mrkdwn("run `**x** <y>` now") == "run `**x** &lt;y&gt;` now"


def test_inline_code_with_double_backticks_can_hold_a_backtick() -> None:
    assert to_mrkdwn("``a ` b``") == f"`a {GRAVE} b`"


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("Added a **`getX()`** method", "Added a *`getX()`* method"),
        ("**Removed the `chalk` import** too", "*Removed the `chalk` import* too"),
        ("*see `x`*", "_see `x`_"),
        ("~~`old()`~~ `new()`", "~`old()`~ `new()`"),
        ("__`a` and `b`__", "*`a` and `b`*"),
        ("# **`Theme`** class", "*`Theme` class*"),
    ],
)
def test_emphasis_may_enclose_inline_code(markdown: str, mrkdwn: str) -> None:
    assert to_mrkdwn(markdown) == mrkdwn


def test_marks_inside_inline_code_do_not_pair_with_marks_outside_it() -> None:
    assert to_mrkdwn("a **b `c**` d") == "a **b `c**` d"


def test_a_lone_surrogate_in_a_line_with_code_cannot_stand_for_the_code() -> None:
    assert to_mrkdwn(f"x{chr(0xD800)}y `c`") == "x\ufffdy `c`"


def test_an_unmatched_backtick_cannot_open_code() -> None:
    assert to_mrkdwn("it`s ```") == f"it{GRAVE}s {GRAVE * 3}"


# tables


def test_a_table_becomes_an_aligned_code_block() -> None:
    markdown = "| name | size |\n|------|-----:|\n| a.py | 10 |\n| long_name.py | 2 |\nafter"
    assert to_mrkdwn(markdown) == (
        "```\n"
        "name         | size\n"
        "-------------+-----\n"
        "a.py         | 10\n"
        "long_name.py | 2\n"
        "```\n"
        "after"
    )


def test_a_table_cell_is_escaped_and_may_hold_an_escaped_pipe() -> None:
    assert to_mrkdwn("| a |\n|---|\n| x \\| <y> |") == "```\na\n-------\nx | &lt;y&gt;\n```"


def test_a_very_wide_table_is_not_padded() -> None:
    wide = "x" * 200
    assert to_mrkdwn(f"|{wide}|b|\n|-|-|\n|1|2|") == f"```\n{wide} | b\n---\n1 | 2\n```"


# properties


@given(markdown_text)
def test_output_has_no_mention_and_every_angle_bracket_opens_a_web_link(markdown: str) -> None:
    result = to_mrkdwn(markdown)
    for forbidden in ("<!", "<@", "<#"):
        assert forbidden not in result
    for line in OUR_LINK.sub("", result).split("\n"):
        body = line[2:] if line.startswith("> ") else "" if line == ">" else line
        assert "<" not in body and ">" not in body


@given(markdown_text)
def test_every_link_comes_from_a_markdown_web_link(markdown: str) -> None:
    result = to_mrkdwn(markdown)
    if "](http" not in markdown.lower():
        assert "<" not in result


@given(st.text())
def test_any_text_converts_without_error_and_without_raw_specials(text: str) -> None:
    result = to_mrkdwn(text)
    assert "<!" not in result and "<@" not in result and "<#" not in result


@pytest.mark.parametrize(
    "markdown",
    [
        "**a " * 50_000,
        "*a " * 60_000,
        "_a " * 60_000,
        "~~a " * 50_000,
        "[a](" * 50_000,
        "[" * 200_000,
        "](" * 100_000,
        "` " * 100_000,
        "".join("`" * k + "a" for k in range(1, 600)),
        "\\" * 200_000,
        ">" * 200_000,
        "# " + "a #" * 60_000,
        "|a" * 100_000 + "\n|-|\n" + "|b\n" * 1_000,
        "[" + "a." * 100_000 + "com](https://x.example)",
        "- a\n" * 50_000,
        "```\n" * 50_000,
    ],
    ids=lambda text: repr(text[:12]),
)
def test_conversion_is_linear_on_adversarial_input(markdown: str) -> None:
    started = time.perf_counter()
    to_mrkdwn(markdown)
    assert time.perf_counter() - started < 2
