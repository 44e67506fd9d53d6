"""The Redactor: the pre-filter, extra patterns and allowlist from the settings, slacktail's
own tokens by value, and redaction that can be applied twice."""

from __future__ import annotations

import pytest

from bot.redaction import PatternError, Redactor, extra_rule
from tests.fixtures.secrets.fake import fake_secrets

GITHUB = next(fake for fake in fake_secrets() if fake.kind == "github-token").secret


def test_text_with_no_keyword_is_returned_as_the_very_same_object() -> None:
    text = "an ordinary line of tool output, " * 100
    assert Redactor().redact(text) is text


def test_an_extra_pattern_is_redacted_under_its_name() -> None:
    redactor = Redactor(["internal-ticket::TKT-[0-9]{6}", r"corp_[a-z]{10}"])
    assert redactor.redact("see TKT-123456 and corp_abcdefghij") == (
        "see [redacted:internal-ticket] and [redacted:custom]"
    )


@pytest.mark.parametrize("spec", ["(unclosed", "name::[z-a]", "x*", "name::"])
def test_an_invalid_extra_pattern_is_a_one_line_pattern_error(spec: str) -> None:
    with pytest.raises(PatternError) as raised:
        extra_rule(spec)
    assert "\n" not in str(raised.value)


def test_an_allowlisted_value_is_kept_exactly_or_by_expression() -> None:
    example = "AKIAIOSFODNN7EXAMPLE"
    redactor = Redactor(allow=[example, "re:ghp_0{36}"])
    assert redactor.redact(f"key {example}") == f"key {example}"
    assert redactor.redact("ghp_" + "0" * 36) == "ghp_" + "0" * 36
    assert redactor.redact(f"key {GITHUB}") == "key [redacted:github-token]"


def test_an_invalid_allowlist_expression_is_a_pattern_error() -> None:
    with pytest.raises(PatternError, match="allowlist"):
        Redactor(allow=["re:(oops"])


def test_configured_values_are_redacted_wherever_they_appear() -> None:
    token = "xoxb-own-token-of-slacktail-123"
    redactor = Redactor(values=[token, "short"])  # too short to be a token: ignored
    assert redactor.redact(f"url?t={token}&x") == "url?t=[redacted:configured-secret]&x"
    assert redactor.redact("a short word") == "a short word"


def test_redacting_twice_changes_nothing_more() -> None:
    redactor = Redactor()
    for fake in fake_secrets():
        once = redactor.redact(f"x {fake.text} y")
        assert redactor.redact(once) == once


def test_the_json_pre_filter_sees_keywords_that_json_escapes() -> None:
    redactor = Redactor(values=['tok"en\\value-123'])
    assert redactor.may_hold_secret_json(b'{"a": "tok\\"en\\\\value-123"}')
    assert not Redactor().may_hold_secret_json(b'{"a": "nothing to see"}')


def test_the_json_pre_filter_lets_plain_urls_through_and_stops_a_url_password() -> None:
    redactor = Redactor()
    assert not redactor.may_hold_secret_json(b'{"a": "see https://example.com/x?y=1"}')
    assert redactor.may_hold_secret_json(b'{"a": "x", "b": ["db=postgres://u:pw1@h/d"]}')
