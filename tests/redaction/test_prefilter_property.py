"""The record pre-filter (keywords and confirmations over the record as JSON) never skips a
record that redacting its strings one by one would change: checked on generated text made of
keywords, values, quotes, backslashes, whitespace, control and non-ASCII characters."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.records import Origin, ToolCall, ToolResult
from bot.redaction import Redactor, bounded_redact, redact_record
from tests.fixtures.secrets.fake import fake_secrets

REDACTOR = Redactor()
PIECES = [
    "token", "Token", "PASSWORD", "secret_access_key", "apiKey", "Bearer", "Authorization",
    "basic", "://", "bob", "@", ":", "=", "=>", '"', "'", "\\", "\\n", "\n", "\t", " ", "\x0b",
    "\x01", "é", "€", "Zq8vR2mXw9LpT4kY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "12345678",
    "abc", ",", "sk-", "eyJ", "xox", "AKIA", "_", "-", "/",
    *[fake.text for fake in fake_secrets()[:8]],
]  # fmt: skip
TEXTS = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_a_record_is_redacted_exactly_as_its_strings_are(text: str) -> None:
    record = ToolResult(Origin("s", None, 1), call_id="c", output=text)
    assert redact_record(record, REDACTOR).output == bounded_redact(REDACTOR, text)


@settings(max_examples=200, deadline=None)
@given(TEXTS, TEXTS)
def test_nested_inputs_are_redacted_exactly_as_their_strings_are(key: str, value: str) -> None:
    record = ToolCall(Origin("s", None, 1), call_id="c", name="Bash", input={"a": [{key: value}]})
    redacted = redact_record(record, REDACTOR).input["a"][0]
    assert redacted == {bounded_redact(REDACTOR, key): bounded_redact(REDACTOR, value)}


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_redaction_is_idempotent(text: str) -> None:
    once = REDACTOR.redact(text)
    assert REDACTOR.redact(once) == once
