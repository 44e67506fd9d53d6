"""blocks.text: untrusted text made safe and short for Slack."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blocks.text import (
    GRAVE,
    clean,
    code_block,
    code_span,
    escape_mrkdwn,
    head_tail,
    one_line,
    plain_text,
    safe_line,
    safe_mrkdwn,
    truncate,
    truncate_escaped,
    unescape_mrkdwn,
)

MENTIONS_AND_LINKS = [
    "<!channel>",
    "<!here>",
    "<!everyone>",
    "<@U0123ABC>",
    "<#C0123ABC>",
    "<!subteam^S0123ABC>",
    "<https://evil.example|https://bank.example>",
    "<!date^1392734382^{date}|x>",
]
HALF_ENTITY = re.compile(r"&(?!amp;|lt;|gt;)")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Text rich in what truncation must not break: entities, pairs, combining marks, flags, ZWJ.
tricky_text = st.lists(
    st.sampled_from(
        ["a", " ", "\n", "&", "<", ">", "é", "e\u0301", "🇫🇷", "👩\u200d💻", "👍🏽", "😀"]
    )
    | st.characters(),
    max_size=150,
).map("".join)


# escape_mrkdwn


def test_escape_mrkdwn_escapes_ampersand_and_angle_brackets() -> None:
    assert escape_mrkdwn("a & <b> c") == "a &amp; &lt;b&gt; c"


def test_escape_mrkdwn_leaves_every_other_character_alone() -> None:
    text = "*bold* _it_ ~s~ `code` \"q\" 'q' | : @here #general \\ é 😀"
    assert escape_mrkdwn(text) == text


def test_escape_mrkdwn_escapes_an_entity_again_so_it_shows_literally() -> None:
    assert escape_mrkdwn("&amp; &lt;") == "&amp;amp; &amp;lt;"


@pytest.mark.parametrize("special", MENTIONS_AND_LINKS)
def test_escape_mrkdwn_leaves_no_mention_or_link(special: str) -> None:
    escaped = escape_mrkdwn(f"hi {special} there")
    assert "<" not in escaped
    assert ">" not in escaped


@given(st.text())
def test_escape_mrkdwn_output_has_no_angle_brackets_and_unescapes_to_the_input(text: str) -> None:
    escaped = escape_mrkdwn(text)
    assert "<" not in escaped and ">" not in escaped
    assert not HALF_ENTITY.search(escaped)
    assert unescape_mrkdwn(escaped) == text


# clean


def test_clean_returns_text_without_control_characters_as_the_same_object() -> None:
    text = "plain\ttext\nwith é and 😀"
    assert clean(text) is text


def test_clean_removes_ansi_colour_codes() -> None:
    assert clean("\x1b[1;31mred\x1b[0m and \x1b[38;5;208morange\x1b[m") == "red and orange"


def test_clean_removes_osc_titles_and_hyperlinks() -> None:
    assert clean("\x1b]0;title\x07rest") == "rest"
    assert clean("\x1b]8;;https://x.example\x1b\\link\x1b]8;;\x1b\\") == "link"


def test_clean_removes_an_unterminated_escape_at_the_end() -> None:
    assert clean("ok\x1b[") == "ok"
    assert clean("ok\x1b") == "ok"


def test_clean_keeps_newlines_and_tabs() -> None:
    assert clean("a\tb\nc\x1b[0m") == "a\tb\nc"


def test_clean_removes_other_control_characters() -> None:
    assert clean("a\x00b\x07c\x7fd\x85e\x0cf") == "abcdef"


def test_clean_removes_eight_bit_csi_sequences() -> None:
    assert clean("\x9b31mred\x9b0m") == "red"


def test_clean_keeps_what_follows_the_last_carriage_return_of_a_line() -> None:
    assert clean("10%\r50%\r100%\ndone") == "100%\ndone"


def test_clean_turns_crlf_into_newlines() -> None:
    assert clean("a\r\nb\r\n") == "a\nb\n"


def test_clean_removes_bidi_overrides_that_reverse_text() -> None:
    assert clean("invoice\u202efdp.exe") == "invoicefdp.exe"


@given(st.text())
def test_clean_output_has_no_escape_or_control_character_but_newline_and_tab(text: str) -> None:
    cleaned = clean(text)
    assert not CONTROL.search(cleaned)
    assert not re.search("[\u202a-\u202e\u2066-\u2069]", cleaned)


def test_clean_is_linear_on_adversarial_input() -> None:
    texts = ["\x1b[" * 100_000, "\x1b]" * 100_000, ("a" * 50 + "\r") * 4_000, "\x1b" * 200_000]
    started = time.perf_counter()
    for text in texts:
        clean(text)
    assert time.perf_counter() - started < 2


# truncate


def test_truncate_returns_text_within_the_limit_unchanged() -> None:
    assert truncate("short", 5) == "short"


def test_truncate_prefers_a_line_end_near_the_limit_to_a_later_space() -> None:
    text = "x" * 50 + "\n" + "second line goes on"
    assert truncate(text, 60) == "x" * 50 + "…"


def test_truncate_cuts_at_a_word_boundary_near_the_limit() -> None:
    assert truncate("alpha beta gamma delta", 20) == "alpha beta gamma…"


def test_truncate_cuts_mid_word_when_no_boundary_is_close() -> None:
    text = "x" * 50 + " " + "y" * 500
    assert truncate(text, 300) == "x" * 50 + " " + "y" * 248 + "…"


def test_truncate_uses_the_given_marker() -> None:
    assert truncate("abcdefghij", 6, marker="[...]") == "a[...]"


def test_truncate_note_says_how_many_characters_were_cut() -> None:
    result = truncate("x" * 5000, 100, note=True)
    kept, _, rest = result.partition("…")
    assert rest == f"(+{5000 - len(kept):,} chars)"
    assert "," in rest


def test_truncate_to_a_limit_below_the_marker_still_respects_the_limit() -> None:
    assert truncate("abcdef", 1, marker="...") == "a"
    assert truncate("abcdef", 0) == ""


@pytest.mark.parametrize(
    "cluster",
    [
        "🇫🇷",
        "👩\u200d💻",
        "👍🏽",
        "e\u0301",
        "1\ufe0f\u20e3",
        "\U0001f3f4\U000e0067\U000e0062\U000e007f",
    ],
)
def test_truncate_never_splits_a_character_cluster(cluster: str) -> None:
    for limit in range(1, 12):
        kept = truncate("ab" + cluster * 5, limit).removesuffix("…")
        assert cluster * (kept.count(cluster)) == kept.removeprefix("ab").removeprefix("a")


def test_truncate_keeps_a_lone_surrogate_pair_together() -> None:
    text = "a" + "\ud83d\ude00" * 4
    assert truncate(text, 3) == "a…"


@given(tricky_text, st.integers(0, 200), st.booleans(), st.sampled_from(["…", "...", ""]))
def test_truncate_never_exceeds_its_limit_and_keeps_a_prefix(
    text: str, limit: int, note: bool, marker: str
) -> None:
    result = truncate(text, limit, marker, note=note)
    assert len(result) <= limit
    if len(text) <= limit:
        assert result == text
    else:
        kept = re.sub(r"\(\+[\d,]+ chars\)$", "", result) if note else result
        assert text.startswith(kept.removesuffix(marker) if marker else kept)


# truncate_escaped


def test_truncate_escaped_never_cuts_inside_an_entity() -> None:
    escaped = escape_mrkdwn("a&b<c>d" * 20)
    for limit in range(1, 60):
        result = truncate_escaped(escaped, limit)
        assert not HALF_ENTITY.search(result), result
        assert len(result) <= limit


def test_truncate_escaped_never_cuts_inside_a_link() -> None:
    mrkdwn = "see <https://example.com/a/long/path|the docs> for more"
    assert truncate_escaped(mrkdwn, 30) == "see…"


def test_truncate_escaped_closes_a_code_block_it_cut_open() -> None:
    mrkdwn = "intro\n```\n" + "code line\n" * 50 + "```"
    result = truncate_escaped(mrkdwn, 100)
    assert result.count("```") == 2
    assert result.endswith("\n```")
    assert len(result) <= 100


def test_truncate_escaped_note_counts_characters_as_the_reader_sees_them() -> None:
    escaped = escape_mrkdwn("&" * 1000)
    result = truncate_escaped(escaped, 100, note=True)
    shown = unescape_mrkdwn(result.partition("…")[0])
    assert result.endswith(f"(+{1000 - len(shown):,} chars)")


@given(st.text(st.sampled_from("ab &<>\n`")), st.integers(0, 120), st.booleans())
def test_truncate_escaped_keeps_escaped_text_whole_and_within_the_limit(
    text: str, limit: int, note: bool
) -> None:
    result = truncate_escaped(escape_mrkdwn(text), limit, note=note)
    assert len(result) <= limit
    assert not HALF_ENTITY.search(result)
    assert "<" not in result


# one_line, plain_text, safe_mrkdwn


def test_one_line_collapses_whitespace_and_newlines() -> None:
    assert one_line("  a\n\n b\t c  ", 100) == "a b c"


def test_one_line_removes_terminal_escapes() -> None:
    assert one_line("\x1b[32mok\x1b[0m\r\n done", 100) == "ok done"


def test_safe_line_escapes_before_cutting_so_the_limit_holds() -> None:
    result = safe_line("<" * 100 + "\n<!here>", 50)
    assert len(result) <= 50
    assert "<" not in result and "\n" not in result
    assert not HALF_ENTITY.search(result)


def test_one_line_does_not_cut_back_to_a_lone_angle_bracket_in_raw_text() -> None:
    assert one_line("if a < b then " + "c " * 100, 30) == "if a < b then c c c c c c c c…"


def test_one_line_truncates_to_the_limit() -> None:
    assert one_line("word " * 100, 20) == "word word word word…"


def test_plain_text_collapses_newlines_strips_controls_and_does_not_escape() -> None:
    assert plain_text("Fix <b>\n\x1b[1mbug\x1b[0m & more", 150) == "Fix <b> bug & more"


def test_plain_text_truncates_to_the_header_limit() -> None:
    assert len(plain_text("word " * 100, 150)) <= 150


def test_plain_text_multiline_keeps_newlines() -> None:
    assert plain_text("a\nb\x07", 10, multiline=True) == "a\nb"


def test_safe_mrkdwn_cleans_escapes_and_truncates() -> None:
    assert safe_mrkdwn("\x1b[31m<!here>\x1b[0m " + "x" * 100, 20) == "&lt;!here&gt; xxxxx…"


# code_span


def test_code_span_escapes_and_wraps_in_backticks() -> None:
    assert code_span("ls <@U1> & x", 100) == "`ls &lt;@U1&gt; &amp; x`"


def test_code_span_replaces_inner_backticks_so_the_span_cannot_break() -> None:
    assert code_span("echo `date`", 100) == f"`echo {GRAVE}date{GRAVE}`"


def test_code_span_is_one_line_within_the_limit() -> None:
    result = code_span("a\nb " * 100, 30)
    assert "\n" not in result
    assert len(result) <= 30
    assert result.startswith("`a b") and result.endswith("…`")


def test_code_span_of_nothing_is_empty() -> None:
    assert code_span(" \n ", 100) == ""


# code_block and head_tail


def test_code_block_escapes_its_content() -> None:
    assert code_block("if a < b && c > d:", 100) == "```\nif a &lt; b &amp;&amp; c &gt; d:\n```"


def test_code_block_neutralises_inner_fences() -> None:
    result = code_block("before\n```\n<!channel>\n````", 200)
    assert result.count("```") == 2
    assert result.startswith("```\n") and result.endswith("\n```")


def test_code_block_keeps_the_start_and_says_how_much_was_cut() -> None:
    text = "\n".join(f"line {i}" for i in range(1000))
    result = code_block(text, 200)
    assert len(result) <= 200
    assert result.startswith("```\nline 0\nline 1\n")
    assert re.search(r"…\(\+[\d,]+ chars\)\n```$", result)


def test_code_block_with_max_lines_keeps_the_first_and_last_lines() -> None:
    text = "\n".join(f"line {i}" for i in range(1000))
    result = code_block(text, 3000, max_lines=6)
    assert result == "```\nline 0\nline 1\nline 2\n… 995 lines omitted …\nline 998\nline 999\n```"


def test_head_tail_returns_short_text_unchanged() -> None:
    assert head_tail("a\nb\nc", 3, 100) == "a\nb\nc"


def test_head_tail_says_how_many_lines_were_omitted() -> None:
    text = "\n".join(str(i) for i in range(10_000))
    assert head_tail(text, 4, 1000) == "0\n1\n… 9,997 lines omitted …\n9999"


def test_head_tail_says_one_line_in_the_singular() -> None:
    assert head_tail("a\nb\nc\nd", 3, 100) == "a\n… 2 lines omitted …\nd"
    assert head_tail("a\n" + "b" * 200 + "\nc", 10, 100) == "a\n… 1 line omitted …\nc"


def test_head_tail_keeps_within_the_character_limit_with_long_lines() -> None:
    text = "\n".join("x" * 500 for _ in range(100))
    result = head_tail(text, 10, 400)
    assert len(result) <= 400
    assert "lines omitted" in result


@given(st.lists(st.text(st.sampled_from("ab &\n"), max_size=40), max_size=40), st.integers(1, 30))
def test_head_tail_never_exceeds_its_limits(lines: list[str], max_lines: int) -> None:
    text = escape_mrkdwn("\n".join(lines))
    result = head_tail(text, max_lines, 200)
    assert len(result) <= 200
    assert not HALF_ENTITY.search(result)
    if len(text) <= 200 and text.count("\n") < max_lines:
        assert result == text


@given(st.text(), st.integers(0, 500))
def test_code_helpers_stay_within_their_limit_and_keep_their_fences(text: str, limit: int) -> None:
    block = code_block(text, limit, max_lines=5)
    span = code_span(text, limit)
    assert len(block) <= limit and len(span) <= limit
    assert block == "" or (block.count("```") == 2 and "<" not in block)
    assert span == "" or (span.count("`") == 2 and "\n" not in span and "<" not in span)
