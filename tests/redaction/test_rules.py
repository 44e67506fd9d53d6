"""The rule table: every kind of secret is found in the places logs put it, and the words
that only look like a secret's start are left alone."""

from __future__ import annotations

import orjson
import pytest

from bot.redaction import KINDS, Redactor
from bot.redaction.rules import RULES, STEMS, entropy, high_entropy
from tests.fixtures.secrets.fake import FakeSecret, fake_secrets

SECRETS = fake_secrets()
REDACTOR = Redactor()


def test_the_table_covers_at_least_twenty_kinds_and_the_corpus_covers_every_kind() -> None:
    assert len(KINDS) >= 20
    assert sorted(fake.kind for fake in SECRETS) == sorted(KINDS)


@pytest.mark.parametrize("fake", SECRETS, ids=lambda fake: fake.kind)
def test_each_kind_is_replaced_by_a_marker_naming_it(fake: FakeSecret) -> None:
    redacted = REDACTOR.redact(f"before {fake.text} after")
    assert fake.probe not in redacted
    assert f"[redacted:{fake.kind}]" in redacted
    assert redacted.startswith("before ") and redacted.endswith(" after")


@pytest.mark.parametrize("fake", SECRETS, ids=lambda fake: fake.kind)
def test_each_kind_is_found_inside_json_escapes(fake: FakeSecret) -> None:
    inner = orjson.dumps({"key": fake.text}).decode()  # "{\"key\": \"...\"}" once more below
    twice = orjson.dumps({"command": f"curl -d '{inner}'"}).decode()
    assert fake.probe not in REDACTOR.redact(inner)
    assert fake.probe not in REDACTOR.redact(twice)


@pytest.mark.parametrize("fake", SECRETS, ids=lambda fake: fake.kind)
def test_each_kind_is_found_right_after_an_escaped_newline(fake: FakeSecret) -> None:
    assert fake.probe not in REDACTOR.redact("line one\\n" + fake.text + "\\nline three")


def test_a_private_key_block_with_escaped_newlines_is_redacted_whole() -> None:
    pem = next(fake for fake in SECRETS if fake.kind == "private-key")
    escaped = pem.text.replace("\n", "\\n")
    redacted = REDACTOR.redact(f'{{"out": "{escaped}\\nnext line"}}')
    assert redacted == '{"out": "[redacted:private-key]\\nnext line"}'


def test_a_private_key_block_cut_before_its_end_is_redacted_to_where_it_stops() -> None:
    pem = next(fake for fake in SECRETS if fake.kind == "private-key")
    cut = pem.text[: len(pem.text) // 2]
    redacted = REDACTOR.redact(f"{cut}")
    assert redacted == "[redacted:private-key]"


def test_a_url_keeps_its_user_and_host_and_loses_its_password() -> None:
    assert REDACTOR.redact("git clone https://bob:hunter2x@git.example.com/r.git") == (
        "git clone https://bob:[redacted:url-password]@git.example.com/r.git"
    )


@pytest.mark.parametrize(
    "text",
    [
        "task-runner-configuration-file-x1",  # ends like "sk-…" but is a word
        "password: hunter2",  # too short and plain to be a generated secret
        "max_tokens=4096",
        "token = self.token_provider",
        "api_key: ${OPENAI_API_KEY}",
        "the tokens were counted: 123456789",
        "see https://example.com/docs/api and mailto:bob@example.com",
        "[redacted:github-token]",
    ],
)
def test_look_alikes_are_left_as_they_are(text: str) -> None:
    assert REDACTOR.redact(text) == text


def test_a_secret_assignment_needs_a_high_entropy_value() -> None:
    redacted = REDACTOR.redact("SECRET_KEY=Zq8vR2mXw9LpT4kY")
    assert redacted == "SECRET_KEY=[redacted:secret-assignment]"
    assert REDACTOR.redact('"password": "aaaa1111"') == '"password": "aaaa1111"'


def test_high_entropy_wants_letters_digits_and_spread() -> None:
    assert high_entropy("Zq8vR2mXw9LpT4kY")
    assert not high_entropy("abcdefghijkl")  # no digit
    assert not high_entropy("aaaa1111aaaa")  # not spread
    assert entropy("abcd") == pytest.approx(2.0)


def test_every_keyword_holds_a_stem_of_the_record_pre_filter_and_stems_are_few() -> None:
    assert len(STEMS) < 64
    for rule in RULES:
        for keyword in rule.keywords:
            assert any(stem in keyword for stem in STEMS), (rule.kind, keyword)
