"""A session's figures as shown, in the result message and the root's status line: what the
result reports, each where given; an unknown figure shown neither as 0 nor as an empty field."""

from __future__ import annotations

from blocks.message import Message
from bot.records import Origin
from bot.result_records import ResultStatus, SessionResult
from tests.blocks.test_messages import at, shown, start, thread


def ended(**figures: int | float | None) -> dict[str, Message]:
    return thread(start(), SessionResult(Origin("s1", at(9), 2), **figures))  # type: ignore[arg-type]


def facts(**figures: int | float | None) -> dict[str, str]:
    """The result message's fields, label to value."""
    message = ended(**figures)["result"]
    pairs = [
        field["text"].split("\n", 1)
        for block in message.blocks
        for field in block.get("fields", [])
    ]
    return {label.strip("*"): value for label, value in pairs}


def status(**figures: int | float | None) -> str:
    text = ended(**figures)["root"].blocks[-1]["elements"][0]["text"]
    assert isinstance(text, str)
    return text


def test_with_tokens_and_no_cost_the_tokens_are_shown_and_no_cost() -> None:
    assert facts(input_tokens=12_000, output_tokens=800) == {"Tokens": "12k in / 800 out"}
    assert status(input_tokens=12_000, output_tokens=800) == (
        "✅ *Succeeded* · no tools yet · 9.0s · 800 tokens out"
    )


def test_with_no_cost_and_no_tokens_neither_is_shown() -> None:
    assert facts(num_turns=3) == {"Turns": "3"}
    assert status() == "✅ *Succeeded* · no tools yet · 9.0s"
    assert "$" not in shown(ended()["result"]) and "tokens" not in shown(ended()["root"])


def test_a_token_count_not_given_is_left_out_not_written_0() -> None:
    assert facts(output_tokens=800) == {"Tokens": "800 out"}
    assert facts(input_tokens=5000) == {"Tokens": "5.0k in"}
    assert status(input_tokens=5000).endswith(" · 5.0k tokens in")


def test_cached_and_reasoning_tokens_are_shown_where_given() -> None:
    tokens = facts(input_tokens=20_000, output_tokens=900, cache_read_tokens=15_000,
                   reasoning_tokens=300)["Tokens"]  # fmt: skip
    assert tokens == "20k in / 900 out / 15k cached / 300 reasoning"
    assert facts(output_tokens=900, reasoning_tokens=0)["Tokens"] == "900 out"


def test_premium_requests_are_shown_where_given() -> None:
    assert facts(premium_requests=3) == {"Premium requests": "3"}
    assert status(premium_requests=1).endswith(" · 1 premium request")
    assert "remium" not in shown(ended(output_tokens=5)["result"])


def test_a_reported_cost_of_0_is_shown_as_reported() -> None:
    assert facts(cost_usd=0.0)["Cost"] == "$0.0000"
    assert status(cost_usd=0.0, output_tokens=0) == (
        "✅ *Succeeded* · no tools yet · 9.0s · $0.0000 · 0 tokens out"
    )


def test_turns_duration_and_api_time_are_shown_where_given() -> None:
    assert facts(duration_ms=65_000, duration_api_ms=40_000, num_turns=12) == {
        "Duration": "1m 05s", "API time": "40s", "Turns": "12"
    }  # fmt: skip
    assert facts() == {}


def test_the_root_shows_what_all_the_sessions_results_spent_not_only_the_last() -> None:
    first = SessionResult(Origin("s1", at(5), 2), output_tokens=700, cost_usd=0.25)
    failed = SessionResult(Origin("s1", at(9), 3), status=ResultStatus.FAILED, error="boom")
    text = thread(start(), first, failed)["root"].blocks[-1]["elements"][0]["text"]
    assert text.endswith(" · $0.25 · 700 tokens out")
    second = SessionResult(Origin("s1", at(9), 3), output_tokens=800, cost_usd=0.5)
    text = thread(start(), first, second)["root"].blocks[-1]["elements"][0]["text"]
    assert text.endswith(" · $0.75 · 1.5k tokens out")
