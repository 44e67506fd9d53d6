"""The agents that write Claude Code's stream-json: Amp (its label, its agent mode, its exit
codes inside tool results) and Qwen Code (its label, its version, its one-array JSON output,
its error object), read by ``claude_stream``; numbers counted from the raw files."""

from __future__ import annotations

from collections import Counter
from typing import Any

import orjson
import pytest

from bot.formats import claude_stream, detect_family
from bot.formats.claude_stream import Parser, detect
from bot.formats.claude_stream_dialects import agent_of, amp_tool_output, is_message_array
from bot.preview import build_preview, preview_document
from bot.records import (
    AssistantText,
    Notice,
    Record,
    SessionStarted,
    Thinking,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import ResultStatus, SessionResult
from bot.session import Session
from bot.session.settings import SessionSettings
from tests.conftest import FIXTURES, corpus_file
from tests.formats.helpers import only, records_of

AMP_DIR = "amp-stream-json"
AMP = "empathic__toolpath__stream.jsonl"
AMP_SESSION = "T-019fa4db-29cf-70c9-8d9b-81524df70e52"
FAILED_CAT = "TU-033wt8ohXapDIiGHiONt0i"
QWEN_STREAM = FIXTURES / "qwen_stream_json.jsonl"
QWEN_JSON = FIXTURES / "qwen_output_json.json"
QWEN_SESSION = "6a1f0c2e-5b7d-4e1a-9c3b-qwen00000001"


def read(path: Any) -> list[Record]:
    return records_of(path)


def tool_result(content: str, session: str, is_error: bool = False) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": "t1", "content": content, "is_error": is_error}
    return {
        "type": "user",
        "session_id": session,
        "parent_tool_use_id": None,
        "message": {"role": "user", "content": [block]},
    }


def init(session: str = "s1", **fields: Any) -> dict[str, Any]:
    return {"type": "system", "subtype": "init", "session_id": session, "tools": [], **fields}


# --- who wrote the stream --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "agent"),
    [
        ({"session_id": "T-019f", "agent_mode": "smart"}, "Amp"),
        ({"session_id": "T-019f"}, "Amp"),
        ({"session_id": "a2566954", "agent_mode": "rush"}, "Amp"),
        ({"session_id": "q", "qwen_code_version": "0.4.1"}, "Qwen Code"),
        ({"session_id": "a2566954", "claude_code_version": "2.0.25"}, "Claude Code"),
    ],
)
def test_the_init_names_the_agent(fields: dict[str, Any], agent: str) -> None:
    assert agent_of(fields) == agent


def test_an_amp_session_shows_its_agent_mode_where_the_model_would_be() -> None:
    (started,) = Parser("src").parse(init("T-1", agent_mode="medium", cwd="/tmp/w"), 1) or []
    assert isinstance(started, SessionStarted)
    assert (started.agent, started.model, started.version) == ("Amp", "medium mode", None)


def test_a_qwen_session_is_labelled_with_its_version_and_its_own_model() -> None:
    line = init("q1", qwen_code_version="0.4.1", model="qwen3-coder-plus")
    (started,) = Parser("src").parse(line, 1) or []
    assert isinstance(started, SessionStarted)
    assert (started.agent, started.model, started.version) == (
        "Qwen Code",
        "qwen3-coder-plus",
        "0.4.1",
    )


# --- Amp's tool results ----------------------------------------------------------------------


def test_an_amp_command_that_exits_non_zero_fails_though_is_error_is_false() -> None:
    parser = Parser("src")
    parser.parse(init("T-1", agent_mode="smart"), 1)
    content = '{"output":"cat: x: No such file or directory\\n","exitCode":1}'
    (result,) = parser.parse(tool_result(content, "T-1"), 2) or []
    assert isinstance(result, ToolResult)
    assert (result.is_error, result.output) == (
        True,
        "Exit code 1\ncat: x: No such file or directory\n",
    )


def test_an_amp_result_shows_the_commands_output_the_skills_text_and_the_patchs_summary() -> None:
    assert amp_tool_output('{"output":"1\\n2\\n","exitCode":0}') == ("1\n2\n", False)
    skill = '{"content":[{"type":"text","text":"<loaded_skill>"}]}'
    assert amp_tool_output(skill) == ("<loaded_skill>", False)
    patch = '{"summary":"add: /w/notes.md (+2/-0)","files":[{"type":"add"}]}'
    assert amp_tool_output(patch) == ("add: /w/notes.md (+2/-0)", False)
    for other in ("plain text", '{"exitCode": 1}', '{"a": 1, "content": []}', "{not json"):
        assert amp_tool_output(other) is None


def test_a_claude_tool_result_that_looks_like_amps_is_left_as_it_is() -> None:
    parser = Parser("src")
    parser.parse(init("a2566954", claude_code_version="2.0.25"), 1)
    content = '{"output":"x","exitCode":1}'
    (result,) = parser.parse(tool_result(content, "a2566954"), 2) or []
    assert isinstance(result, ToolResult)
    assert (result.is_error, result.output) == (False, content)


def test_amp_file_eleven_calls_one_failed_a_task_and_a_result_without_cost() -> None:
    records = read(corpus_file(AMP_DIR, AMP))
    assert {r.session_id for r in records} == {AMP_SESSION}
    (started,) = only(records, SessionStarted)
    assert (started.agent, started.model, started.cwd, len(started.tools)) == (
        "Amp",
        "medium mode",
        "/tmp/amp-elicit",
        29,
    )
    calls = only(records, ToolCall)
    assert Counter(c.name for c in calls) == {
        "shell_command": 6,
        "apply_patch": 3,
        "skill": 1,
        "Task": 1,
    }
    results = only(records, ToolResult)
    assert len(results) == 11
    assert [(r.call_id, r.output.splitlines()[0]) for r in results if r.is_error] == [
        (FAILED_CAT, "Exit code 1")
    ]
    assert len(only(records, AssistantText)) == 12
    (result,) = only(records, SessionResult)
    assert (result.status, result.num_turns, result.duration_ms) == (
        ResultStatus.SUCCEEDED,
        12,
        64413,
    )
    assert (result.cost_usd, result.duration_api_ms, result.models) == (None, None, ())
    # line 26 has no usage: the sum of lines 3-25's (12 messages without an id)
    assert (result.input_tokens, result.output_tokens) == (0, 1537)
    assert (result.cache_read_tokens, result.cache_write_tokens) == (210694, 20758)


def test_amp_preview_names_amp_and_marks_the_failed_command() -> None:
    (session,) = preview_document(build_preview([corpus_file(AMP_DIR, AMP)]))["sessions"]
    assert (session["agent"], session["status"]) == ("Amp", "succeeded")
    assert [t["id"] for t in session["tools"] if t["status"] == "error"] == [FAILED_CAT]


def test_amp_calls_are_summarised_by_what_they_touch_and_outputs_count_the_lines_seen() -> None:
    session = Session(AMP_SESSION, SessionSettings())
    for record in read(corpus_file(AMP_DIR, AMP)):
        session.apply(record)
    calls = list(session.calls.values())
    shown = [(c.name, c.summary) for c in calls if c.name in ("skill", "apply_patch")]
    assert shown == [  # lines 3, 7, 11, 19: {"name"}, then three patches of one file each
        ("skill", "using-superpowers"),
        ("apply_patch", "notes.md"),
        ("apply_patch", "notes.md"),
        ("apply_patch", "count.sh"),
    ]
    # line 22: the output "1\n2\n3\n4\n5\n" is five lines; line 14's "./notes.md\n" one
    lines = {c.summary: (c.output_size, c.output_lines) for c in calls}
    assert (lines["bash count.sh"], lines["find . -maxdepth 1 -name 'note*'"]) == ((10, 5), (11, 1))


# --- Qwen Code -------------------------------------------------------------------------------


def test_qwen_stream_json_is_a_qwen_session_with_its_calls_denial_and_token_counts() -> None:
    records = read(QWEN_STREAM)
    assert {r.session_id for r in records} == {QWEN_SESSION}
    (started,) = only(records, SessionStarted)
    assert (started.agent, started.version, started.tools) == (
        "Qwen Code",
        "0.4.1",
        ("read_file", "run_shell_command", "edit", "task"),
    )
    assert [c.input["command"] for c in only(records, ToolCall)] == ["ls *.py", "rm -r build"]
    assert [r.call_id for r in only(records, ToolResult) if r.is_error] == ["call_rm"]
    assert len(only(records, Thinking)) == 1
    (result,) = only(records, SessionResult)
    assert (result.status, result.num_turns, result.cost_usd) == (ResultStatus.SUCCEEDED, 3, None)
    assert (result.input_tokens, result.output_tokens, result.cache_read_tokens) == (3600, 120, 800)
    assert [d.tool_name for d in result.permission_denials] == ["run_shell_command"]


def test_qwen_json_output_is_one_array_claimed_and_read_as_the_lines_it_holds() -> None:
    (value,) = [orjson.loads(raw) for raw in QWEN_JSON.read_bytes().splitlines() if raw.strip()]
    assert is_message_array(value) and detect(value)
    assert detect_family(value) is claude_stream.FORMAT
    records = read(QWEN_JSON)
    assert {r.line for r in records} == {1}
    assert [type(r).__name__ for r in records] == [
        "SessionStarted",
        "UserText",
        "Thinking",
        "ToolCall",
        "ToolResult",
        "SessionResult",
    ]
    assert only(records, UserText)[0].text.startswith("How many Python files")


def test_a_qwen_error_result_gives_the_message_of_its_error_object() -> None:
    (result,) = only(read(QWEN_JSON), SessionResult)
    assert (result.status, result.subtype, result.error) == (
        ResultStatus.FAILED,
        "error_during_execution",
        "Model stream ended with an empty response",
    )
    assert (result.input_tokens, result.output_tokens, result.cost_usd) == (1200, 40, None)


@pytest.mark.parametrize(
    "value",
    [
        [],
        [{"type": "system", "subtype": "init", "session_id": "s"}],  # no tool list
        [{"role": "user", "content": "hi"}],
        [{"type": "user", "session_id": "s", "message": {"content": "hi"}}],
    ],
    ids=["empty", "init-without-tools", "openai-messages", "not-opening-with-init"],
)
def test_an_array_is_claimed_only_when_it_opens_with_an_init_listing_the_tools(
    value: object,
) -> None:
    assert not detect(value)
    assert Parser("src").parse(value, 1) is None


def test_a_message_of_the_array_that_is_not_understood_is_a_warning_not_a_loss() -> None:
    value = [init("q1", qwen_code_version="0.4.1"), 7, {"type": "user", "message": {}}]
    records = Parser("src").parse(value, 1) or []
    assert [type(r).__name__ for r in records] == ["SessionStarted", "Notice", "Ignored"]
    (warning,) = only(records, Notice)
    assert (warning.kind, warning.level, warning.session_id) == ("unknown_message", "warning", "q1")
