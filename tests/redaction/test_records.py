"""redact_record: every string of a record redacted before the session cuts anything short,
and the final payload pass that catches what only rendering brings together."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson

from blocks.thread import thread_messages
from bot.caps import PREVIEW_LIMIT, TEXT_CAP
from bot.records import (
    AssistantText,
    Origin,
    SessionStarted,
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
)
from bot.redaction import Redactor, bounded_redact, redact_record, redact_value
from bot.redaction.records import HEAD_LIMIT, TAIL_MARGIN
from bot.result_records import SessionResult
from bot.session import SessionBook
from tests.fixtures.secrets.fake import fake_secrets

SECRETS = {fake.kind: fake for fake in fake_secrets()}
TOKEN = SECRETS["github-token"].secret
REDACTOR = Redactor()
AT = datetime(2026, 1, 1, tzinfo=UTC)


def test_a_record_without_secrets_is_returned_as_the_very_same_object() -> None:
    record = ToolCall(Origin("s", AT, 1), call_id="c", name="Bash", input={"command": "ls -la"})
    assert redact_record(record, REDACTOR) is record


def test_every_string_field_and_nested_string_is_redacted() -> None:
    record = ToolCall(
        Origin("s", AT, 1),
        call_id="c",
        name="Bash",
        input={"command": f"curl -H {TOKEN}", "env": [{"K": TOKEN}], "n": 3},
        raw_input=f'{{"key": "{TOKEN}"}}',
    )  # fmt: skip
    redacted = redact_record(record, REDACTOR)
    assert TOKEN not in orjson.dumps(redacted).decode()
    assert redacted.input["n"] == 3 and redacted.call_id == "c"
    assert record.input["command"] == f"curl -H {TOKEN}"  # the original is not changed


def test_todos_and_result_tuples_are_redacted() -> None:
    todos = TodoUpdate(Origin("s", AT, 1), todos=(Todo(f"rotate {TOKEN}", "pending"),))
    result = SessionResult(Origin("s", AT, 2), text=f"done {TOKEN}", errors=(f"e {TOKEN}",))
    for record in (todos, result):
        assert TOKEN not in orjson.dumps(redact_record(record, REDACTOR)).decode()


def test_a_long_string_is_redacted_in_its_head_and_a_secret_across_the_head_limit_too() -> None:
    head = "x" * (HEAD_LIMIT - 10)
    text = f"{head} {TOKEN} {'y' * 50_000} {TOKEN}"  # the second lies past any preview
    redacted = bounded_redact(REDACTOR, text)
    assert redacted.startswith(f"{head} [redacted:github-token] ")
    assert redacted.endswith(TOKEN)
    assert len(redacted) < len(text)


def test_a_head_with_no_whitespace_past_the_limit_is_cut_at_the_margin() -> None:
    text = "z" * (HEAD_LIMIT + TAIL_MARGIN + 100) + f" {TOKEN}"
    assert bounded_redact(REDACTOR, text).endswith(TOKEN)


def _book(*records: object) -> SessionBook:
    book = SessionBook()
    book.apply(SessionStarted(Origin("s", AT, 0), agent="Claude Code"))
    for record in records:
        book.apply(redact_record(record, REDACTOR))
    return book


def _shown(book: SessionBook) -> str:
    messages = thread_messages(book.sessions["s"], AT)
    return orjson.dumps([redact_value(m.payload(), REDACTOR) for m in messages]).decode()


def test_a_secret_across_the_text_cap_shows_no_part_of_it() -> None:
    text = "w " * ((TEXT_CAP - 20) // 2) + TOKEN + " and more"
    shown = _shown(_book(AssistantText(Origin("s", AT, 1), text=text)))
    assert "ghp_" not in shown and TOKEN[4:12] not in shown


def test_a_secret_across_a_tool_error_preview_cut_shows_no_part_of_it() -> None:
    output = "e" * (PREVIEW_LIMIT - 10) + " " + TOKEN
    call = ToolCall(Origin("s", AT, 1), call_id="c", name="Bash", input={"command": "deploy"})
    result = ToolResult(Origin("s", AT, 2), call_id="c", output=output, is_error=True)
    shown = _shown(_book(call, result))
    assert "ghp_" not in shown and TOKEN[4:12] not in shown


def test_a_secret_split_across_two_deltas_is_caught_by_the_final_payload_pass() -> None:
    cut = len(TOKEN) // 2
    first = AssistantText(Origin("s", AT, 1), text=f"key {TOKEN[:cut]}", delta=True)
    second = AssistantText(Origin("s", AT, 2), text=f"{TOKEN[cut:]} end", delta=True)
    assert redact_record(first, REDACTOR) is first  # half a token is no token
    book = _book(first, second)
    raw = orjson.dumps([m.payload() for m in thread_messages(book.sessions["s"], AT)]).decode()
    assert TOKEN in raw  # joined by the session: only the final pass can see it
    assert TOKEN not in _shown(book)


def test_a_record_whose_words_only_look_like_keys_is_not_walked_again() -> None:
    output = '{"usage": {"input_tokens": 2, "cache_read_input_tokens": 17639}} see https://x.io'
    record = ToolResult(Origin("s", AT, 1), call_id="c", output=output)
    assert not REDACTOR.may_hold_secret_json(orjson.dumps(record))  # ...as the walk sees it
    assert redact_record(record, REDACTOR) is record


def test_an_assignment_across_a_newline_in_a_record_is_redacted() -> None:
    record = ToolResult(Origin("s", AT, 1), call_id="c", output='password:\n   "Xk9mQ2vLp8zR"\n')
    assert "Xk9mQ2vLp8zR" not in redact_record(record, REDACTOR).output


def test_words_that_only_look_like_a_key_or_an_assignment_are_not_walked_again() -> None:
    for output in ("run the task-runner-for-every-package-2 tests", "apiKeySource: environment",
                   '"time_to_first_token": 0.08507107299999461'):  # fmt: skip
        record = ToolResult(Origin("s", AT, 1), call_id="c", output=output)
        assert not REDACTOR.may_hold_secret_json(orjson.dumps(record)), output


def test_a_secret_after_any_character_json_writes_as_an_escape_is_redacted() -> None:
    for fake in fake_secrets():
        for before in (" ", "\b", "\f", "\n", "\x01", "\x1f", '"', "\\", "é"):
            record = ToolResult(Origin("s", AT, 1), call_id="c", output=f"{before}{fake.text}")
            assert fake.probe not in redact_record(record, REDACTOR).output, (fake.kind, before)


def test_an_assigned_value_with_letters_or_digits_past_ascii_is_redacted() -> None:
    outputs = ("token: éàüöñç\u0661\u0662\u0663\u0664", "password=qwZxRtYu²³", "secret: 12345678éà")
    for output in outputs:
        assert REDACTOR.redact(output) != output  # the rule takes it...
        record = ToolResult(Origin("s", AT, 1), call_id="c", output=output)
        assert redact_record(record, REDACTOR).output != output  # ...and the pre-filter lets it
