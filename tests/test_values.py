"""The helpers on a log's values (bot.values): one name each, for every stage."""

from __future__ import annotations

import pytest

from bot.values import (
    as_float,
    as_int,
    blank,
    clip,
    dict_or_empty,
    first_and_more,
    json_text,
    line_count,
    patch_files,
    text_or_empty,
    text_or_none,
)


@pytest.mark.parametrize(("value", "expected"), [("a", "a"), ("", None), (3, None), (None, None)])
def test_text_or_none_keeps_only_a_non_empty_string(value: object, expected: str | None) -> None:
    assert text_or_none(value) == expected


@pytest.mark.parametrize(("value", "expected"), [("a", "a"), ("", ""), (["a"], ""), (None, "")])
def test_text_or_empty_gives_a_string_as_it_is_and_anything_else_as_empty(
    value: object, expected: str
) -> None:
    assert text_or_empty(value) == expected


def test_dict_or_empty_gives_an_object_as_it_is_and_anything_else_as_empty() -> None:
    given = {"a": 1}
    assert dict_or_empty(given) is given
    assert dict_or_empty([1]) == {} and dict_or_empty(None) == {}


@pytest.mark.parametrize(("text", "expected"), [("", True), (" \n\t", True), (" x ", False)])
def test_blank_is_empty_or_only_whitespace(text: str, expected: bool) -> None:
    assert blank(text) is expected


def test_a_bool_is_not_a_number() -> None:
    assert as_int(True) is None and as_float(False) is None
    assert as_int(2.9) == 2 and as_float(2) == 2.0 and as_int("2") is None


def test_clip_cuts_to_the_limit_with_an_ellipsis_last() -> None:
    assert clip("abcdef", 4) == "abc…"
    assert clip("abcd", 4) == "abcd"
    assert len(clip("x" * 1000)) == 300


def test_json_text_writes_what_orjson_refuses_as_python_shows_it() -> None:
    assert json_text({"a": [1, 2]}) == '{"a":[1,2]}'
    assert json_text({1: 2**70}) == repr({1: 2**70})


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", 0), ("a", 1), ("a\n", 1), ("a\n\n", 2), ("\n", 1), ("a\nb", 2), ("1\n2\n3\n4\n5\n", 5)],
)
def test_line_count_is_the_lines_a_person_sees_a_trailing_newline_ending_the_last(
    text: str, expected: int
) -> None:
    assert line_count(text) == expected


def test_patch_files_are_the_files_a_patch_adds_updates_or_deletes_in_its_order() -> None:
    patch = "*** Begin Patch\r\n*** Update File: b.py\r\n@@\r\n*** Delete File: a.py\r\n"
    assert patch_files(patch) == ["b.py", "a.py"]
    assert patch_files("--- a/x.py\n+++ b/x.py\n") == []


def test_first_and_more_names_the_first_and_counts_the_rest() -> None:
    assert first_and_more(["a", "b", "c"]) == "a (+2 more)"
    assert first_and_more(["a"]) == "a" and first_and_more([]) == ""
