"""Helpers the formats share."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bot.formats.common import add_count, turn_notice
from bot.records import Origin
from bot.values import one_clean_line

# Printable ASCII with every control, DEL and some wider characters mixed in, long and short.
line_text = st.text(
    alphabet=st.sampled_from([chr(c) for c in range(0, 128)] + ["é", "→", "\xa0", "\u2028"]),
    max_size=80,
)


@given(line_text)
@example("a" * 30 + "\x7f")
@example("a" * 30 + "\x1f")
@example("a" * 30 + "\t")
@example("printable text of more than twenty-four characters")
def test_one_clean_line_is_printable_single_spaced_and_trimmed(text: str) -> None:
    plain = (
        not text.startswith(" ")
        and not text.endswith(" ")
        and "  " not in text
        and text.isprintable()
    )
    assert one_clean_line(text) is plain


def test_a_count_adds_up_and_what_is_not_a_count_leaves_the_total_as_it_is() -> None:
    assert add_count(None, 3) == 3
    assert add_count(3, 4) == 7
    assert add_count(3, 0) == 3
    assert add_count(None, None) is None  # unknown stays unknown, never 0
    assert add_count(5, "7") == 5
    assert add_count(5, True) == 5


@pytest.mark.parametrize(
    ("figures", "text"),
    [
        ((12_500, 1200, 80, 5000, 300), "Completed · 12.5s · 1,200 in / 80 out / 5,000 cached / "
                                        "300 reasoning tokens"),
        ((65_000, 0, 0, 0, 0), "Completed · 1m 05s · 0 in / 0 out tokens"),  # a reported 0 too
        ((7_500_000, None, 10, None, None), "Completed · 2h 05m · 10 out tokens"),
        ((None, None, None, None, None), "Completed"),  # nothing given: nothing made up
    ],
    ids=["all", "zeros", "hours", "none"],
)
def test_a_turn_notice_says_the_figures_its_log_gives(
    figures: tuple[int | None, int | None, int | None, int | None, int | None], text: str
) -> None:
    duration, fresh, out, cached, reasoning = figures
    notice = turn_notice(Origin("s", None, 1), "Completed", duration, fresh, out, cached, reasoning)
    assert (notice.kind, notice.level, notice.text) == ("turn", "info", text)
