"""The preview of every corpus file: statuses, tools, message limits, and the command itself,
which reads a pipe (waiting for its writer, saying so) and a line over the limit in bounded
memory."""

from __future__ import annotations

import io
import os
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest

import bot.preview
from blocks.limits import check_message
from blocks.thread import thread_messages
from bot.cli import main
from bot.formats.reader import SourceReader
from bot.preview import (
    CHUNK_BYTES,
    build_preview,
    expected_results,
    preview_document,
    preview_text,
    write_document,
)
from bot.session import SessionBook, SessionSettings, SessionStatus, Verbosity
from bot.sources.files import read_bytes, split_lines
from tests.conftest import CORPUS_MISSING, FIXTURES, corpus_file, corpus_files
from tests.unread import corpus_cases

ALL_FILES = corpus_files()
needs_corpus = pytest.mark.skipif(not ALL_FILES, reason=CORPUS_MISSING)


def _ids(paths: list[Path]) -> list[str]:
    return [path.name for path in paths]


@needs_corpus
@pytest.mark.parametrize("verbosity", list(Verbosity))
@pytest.mark.parametrize("path", corpus_cases(ALL_FILES, "limits"))
def test_every_message_of_every_corpus_file_is_within_slacks_limits(
    path: Path, verbosity: Verbosity
) -> None:
    preview = build_preview([path], settings=SessionSettings(verbosity=verbosity))
    assert preview.book.sessions, "every corpus file holds at least one session"
    for session in preview.sessions():
        for message in thread_messages(session):
            assert check_message(message.payload()) == [], (session.session_id, message.key)


@needs_corpus
@pytest.mark.parametrize("path", corpus_cases(ALL_FILES, "unparsed"))
def test_every_corpus_file_previews_with_no_unparsed_line(path: Path) -> None:
    document = preview_document(build_preview([path]))
    assert document["stats"]["unparsed"] == 0
    assert document["stats"]["records"] > 0


@needs_corpus
@pytest.mark.parametrize("path", ALL_FILES, ids=_ids(ALL_FILES))
def test_every_message_key_is_unique_and_the_root_comes_first(path: Path) -> None:
    for session in build_preview([path]).sessions():
        keys = [message.key for message in thread_messages(session)]
        assert keys[0] == "root"
        assert len(keys) == len(set(keys))


@needs_corpus
@pytest.mark.parametrize("path", ALL_FILES, ids=_ids(ALL_FILES))
def test_untrusted_text_never_becomes_a_mention(path: Path) -> None:
    for session in build_preview([path]).sessions():
        for message in thread_messages(session):
            raw = orjson.dumps(message.payload()).decode()
            for mention in ("<!channel", "<!here", "<!everyone", "<@U", "<#C", "<!subteam"):
                assert mention not in raw


def _statuses(family: str, name: str) -> dict[str, str]:
    document = preview_document(build_preview([corpus_file(family, name)]))
    return {s["session_id"]: s["status"] for s in document["sessions"]}


def test_two_sessions_in_one_stream_end_each_with_its_own_status() -> None:
    statuses = _statuses("claude-stream-json", "banteg__takopi__claude_streamjson_session.jsonl")
    assert statuses == {
        "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa": "succeeded",
        "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb": "failed",
    }


def test_api_error_result_fails_the_session() -> None:
    statuses = _statuses("claude-stream-json", "banteg__takopi__claude_code_api_error.jsonl")
    assert list(statuses.values()) == ["failed"]


def test_transcript_without_a_result_has_an_unknown_outcome() -> None:
    name = "DRMacIver__claude-reliability__coverage-test-fix_transcript.jsonl"
    statuses = _statuses("claude-transcript", name)  # its last turn's end is not written
    assert list(statuses.values()) == ["unknown"]


def test_a_transcript_whose_last_turn_ended_waits_for_the_user() -> None:
    statuses = _statuses("claude-transcript", "marot__spotter__short.jsonl")  # interrupted
    assert list(statuses.values()) == ["waiting"]


def test_subagent_calls_in_the_preview_name_the_task_that_started_them() -> None:
    name = "ariel-frischer__claude-clean__claude-stream-json-simple.jsonl"
    path = corpus_file("claude-stream-json", name)
    (session,) = preview_document(build_preview([path]))["sessions"]
    tasks = {tool["id"] for tool in session["tools"] if tool["name"] == "Task"}
    children = [tool for tool in session["tools"] if tool["parent"] is not None]
    assert len(tasks) == 2
    assert len(children) == 13
    assert {tool["parent"] for tool in children} == tasks


def test_preview_json_matches_the_documented_shape(capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus_file("claude-stream-json", "banteg__takopi__claude_code_permission_denied.jsonl")
    assert main(["preview", "--json", str(path)]) == 0
    document = orjson.loads(capsys.readouterr().out)
    assert set(document) == {"sessions", "stats"}
    assert set(document["stats"]) == {"records", "unparsed", "hidden"}
    (session,) = document["sessions"]
    assert set(session) == {"session_id", "agent", "status", "tools", "messages"}
    assert session["agent"] == "Claude Code"
    assert session["status"] == "succeeded"
    assert [tool["status"] for tool in session["tools"]] == ["error"]
    assert set(session["tools"][0]) == {"id", "name", "status", "parent"}
    assert session["messages"][0]["key"] == "root"
    assert all(set(m) == {"key", "text", "blocks"} for m in session["messages"])


def test_preview_json_names_an_mcp_call_as_its_log_does_and_its_message_by_server_and_tool(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = corpus_file("codex-exec-json", "banteg__takopi__codex_exec_json_all_formats.jsonl")
    assert main(["preview", "--json", str(path)]) == 0
    (session,) = orjson.loads(capsys.readouterr().out)["sessions"]
    names = [tool["name"] for tool in session["tools"]]
    assert names.count("mcp__github__search_issues") == 2 and not any("›" in n for n in names)
    shown = orjson.dumps(session["messages"]).decode()
    assert shown.count("*github › search_issues*") == 2 and "mcp__" not in shown


STREAM = FIXTURES / "claude_stream_seed002.jsonl"
TRANSCRIPT = FIXTURES / "claude_transcript_seed001.jsonl"


@pytest.mark.parametrize(
    "paths", [[], [STREAM], [STREAM, TRANSCRIPT]], ids=["no session", "one", "two sessions"]
)
@pytest.mark.parametrize("chunk_bytes", [1, 2000, CHUNK_BYTES])
def test_the_json_written_in_pieces_is_the_whole_document_indented(
    paths: list[Path], chunk_bytes: int
) -> None:
    preview = build_preview(paths)
    pieces: list[bytes] = []
    write_document(preview, pieces.append, chunk_bytes)
    whole = orjson.dumps(preview_document(preview), option=orjson.OPT_INDENT_2) + b"\n"
    assert b"".join(pieces) == whole
    assert all(len(piece) >= chunk_bytes for piece in pieces[:-1])  # none but the last short


@pytest.mark.parametrize("tools_at_once", [1, 4])
def test_the_json_of_a_sessions_tool_calls_made_a_few_at_a_time_is_the_whole_documents(
    tools_at_once: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot.preview, "TOOLS_AT_ONCE", tools_at_once)
    preview = build_preview([STREAM, TRANSCRIPT])
    assert max(len(session.calls) for session in preview.sessions()) > tools_at_once
    pieces: list[bytes] = []
    write_document(preview, pieces.append, 1)
    whole = orjson.dumps(preview_document(preview), option=orjson.OPT_INDENT_2) + b"\n"
    assert b"".join(pieces) == whole


def test_the_json_of_a_session_without_tool_calls_is_the_whole_documents(tmp_path: Path) -> None:
    said = STREAM.read_bytes().splitlines()[:2]  # its start, and a text: no tool call
    (tmp_path / "said.jsonl").write_bytes(b"\n".join(said) + b"\n")
    preview = build_preview([tmp_path / "said.jsonl"])
    assert [len(session.calls) for session in preview.sessions()] == [0]
    pieces: list[bytes] = []
    write_document(preview, pieces.append, 1)
    whole = orjson.dumps(preview_document(preview), option=orjson.OPT_INDENT_2) + b"\n"
    assert b"".join(pieces) == whole


def test_preview_text_shows_the_thread_readably(capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus_file("claude-stream-json", "banteg__takopi__claude_code_all_events.jsonl")
    assert main(["preview", str(path)]) == 0
    out = capsys.readouterr().out
    assert "🤖 Claude Code" in out
    assert "✅ Glob `**/*.py`" in out  # in the working directory
    assert "Session succeeded" in out
    assert "&lt;" not in out  # the terminal shows text, not Slack's escapes


def test_missing_file_is_a_one_line_error_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["preview", str(tmp_path / "absent.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file" in err


def test_a_folder_previews_the_session_files_follow_would_find_in_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "projects" / "webshop"
    project.mkdir(parents=True)
    (project / "one.jsonl").write_bytes((FIXTURES / "preview_mentions.jsonl").read_bytes())
    (project / "two.jsonl").write_bytes((FIXTURES / "claude_stream_seed002.jsonl").read_bytes())
    (project / "settings.json").write_text('{"theme": "dark"}')  # not a session file
    assert main(["preview", "--json", str(tmp_path / "projects")]) == 0
    out, err = capsys.readouterr()
    document = orjson.loads(out)
    expected = build_preview([project / "one.jsonl", project / "two.jsonl"])
    assert [s["session_id"] for s in document["sessions"]] == list(expected.book.sessions)
    assert document["stats"]["unparsed"] == 0 and err == ""


def test_a_glob_previews_what_it_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.jsonl").write_bytes((FIXTURES / "preview_mentions.jsonl").read_bytes())
    (tmp_path / "b.log").write_bytes(b"not a log\n")
    monkeypatch.chdir(tmp_path)
    assert main(["preview", "--json", "*.jsonl"]) == 0
    (session,) = orjson.loads(capsys.readouterr().out)["sessions"]
    assert session["session_id"] == "mention-test"


def test_standard_input_previews_as_a_file_does(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = FIXTURES / "preview_mentions.jsonl"
    assert main(["preview", "--json", str(path)]) == 0
    from_file = capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    assert main(["preview", "--json", "-"]) == 0
    assert capsys.readouterr().out == from_file


def test_a_folder_without_session_files_is_one_line_naming_what_was_looked_for_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "settings.json").write_text("{}")
    assert main(["preview", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{tmp_path}: no log files (looked for {tmp_path}/**/*.jsonl, " in err


def test_a_file_of_garbage_previews_as_nothing_says_so_in_one_line_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "junk.log"
    log.write_bytes(b"not json\n{\"unknown\": 1}\n\xff\xfe\n")
    assert main(["preview", "--json", str(log)]) == 2
    out, err = capsys.readouterr()
    document = orjson.loads(out)
    assert document == {"sessions": [], "stats": {"records": 3, "unparsed": 3, "hidden": 0}}
    assert err.count("\n") == 1
    assert f"{log}: not a log slacktail reads (its first line: not JSON: \"not json\")" in err
    assert "--format, one of: claude-stream-json, claude-transcript" in err


def test_mentions_in_agent_text_show_as_literal_text() -> None:
    path = FIXTURES / "preview_mentions.jsonl"
    (session,) = build_preview([path]).sessions()
    raw = orjson.dumps([m.payload() for m in thread_messages(session)]).decode()
    assert "&lt;!channel&gt;" in raw and "<!channel>" not in raw
    assert "&lt;@U024BE7LH&gt;" in raw


READ = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def _books(path: Path) -> tuple[SessionBook, SessionBook]:
    """The file's sessions twice: as followed into the channel (each line read a second after
    the last, as a live log is) and as previewed (no read times)."""
    reader = SourceReader(str(path))
    channel, preview = SessionBook(), SessionBook()
    families: dict[str, str] = {}
    lines = split_lines(read_bytes(path))
    batches = [(reader.feed(line, number), number) for number, line in lines]
    batches.append((reader.finish(), len(batches) + 1))
    for records, number in batches:
        for record in records:
            channel.apply(record, READ + timedelta(seconds=number))
            session = preview.apply(record)
            if session is not None:
                families.setdefault(session.session_id, reader.family or "")
    channel.close(expected_results(families))
    preview.close(expected_results(families))
    return channel, preview


@needs_corpus
@pytest.mark.parametrize("path", ALL_FILES, ids=_ids(ALL_FILES))
def test_the_channel_shows_the_figures_the_preview_shows(path: Path) -> None:
    channel, preview = _books(path)
    last_read = READ + timedelta(days=1)
    for session_id, followed in channel.sessions.items():
        messages = [(m.key, m.blocks) for m in thread_messages(followed, last_read)]
        expected = [(m.key, m.blocks) for m in thread_messages(preview.sessions[session_id])]
        if followed.status is SessionStatus.RUNNING:  # a running root shows the time so far
            messages, expected = messages[1:], expected[1:]
        assert messages == expected, session_id


def test_a_swe_agent_root_shows_no_cost_or_tokens_the_trajectory_did_not_count() -> None:
    name = "SWE-agent__SWE-agent__marshmallow-code__marshmallow-1867.function_calling.traj"
    (session,) = build_preview([corpus_file("openai-messages", name)]).sessions()
    root, *_, result = thread_messages(session)
    assert root.blocks[-1]["elements"][0]["text"] == "✅ *Succeeded* · 11 tool calls"
    text = orjson.dumps(result.payload()).decode()
    assert "*Turns*\\n11" in text
    assert "$" not in text and "Tokens" not in text


def test_preview_text_shows_no_duration_for_a_log_without_times() -> None:
    name = "SWE-agent__SWE-agent__marshmallow-code__marshmallow-1867.function_calling.traj"
    text = preview_text(build_preview([corpus_file("openai-messages", name)]))
    assert "✅ bash `python reproduce.py`\n" in text
    assert " · 0.0s" not in text and "$0.0000" not in text and "0 tokens" not in text


def test_a_named_pipe_is_waited_for_saying_so_once_then_previewed(tmp_path: Path) -> None:
    fifo = tmp_path / "agent.pipe"
    os.mkfifo(fifo)
    told: list[str] = []

    def tell(text: str) -> None:
        told.append(text)
        data = (FIXTURES / "preview_mentions.jsonl").read_bytes()
        threading.Thread(target=fifo.write_bytes, args=(data,), daemon=True).start()

    preview = build_preview([fifo], tell=tell)
    assert [session.session_id for session in preview.sessions()] == ["mention-test"]
    assert told == [f"{fifo}: waiting for a program to write to this pipe (Ctrl-C to stop)"]


def test_a_line_over_the_limit_is_said_counted_as_unparsed_and_the_rest_previewed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SLACKTAIL_MAX_LINE_BYTES", "1024")
    lines = (FIXTURES / "preview_mentions.jsonl").read_bytes().splitlines(keepends=True)
    log = tmp_path / "agent.jsonl"
    log.write_bytes(lines[0] + b'{"huge": "' + b"x" * 300_000 + b'"}\n' + b"".join(lines[1:]))
    assert main(["preview", "--json", str(log)]) == 0
    out, err = capsys.readouterr()
    document = orjson.loads(out)
    assert [session["status"] for session in document["sessions"]] == ["succeeded"]
    assert document["stats"]["unparsed"] == 1
    assert err == (
        f"slacktail: warning: {log}: line 2 is over the limit of 1,024 bytes "
        "(SLACKTAIL_MAX_LINE_BYTES): skipping it to its end\n"
    )


def test_the_line_limit_from_the_environment_is_validated_by_the_settings(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SLACKTAIL_MAX_LINE_BYTES", "12")
    assert main(["preview", "--json", str(FIXTURES / "preview_mentions.jsonl")]) == 2
    assert "invalid setting max_line_bytes" in capsys.readouterr().err


def test_the_line_limit_comes_from_the_settings_file_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "slacktail.toml"
    config.write_text("max_line_bytes = 1024\n")
    monkeypatch.setenv("SLACKTAIL_CONFIG", str(config))
    log = tmp_path / "agent.jsonl"
    log.write_bytes(b'{"huge": "' + b"x" * 2000 + b'"}\n')
    assert main(["preview", str(log)]) == 2
    assert "over the limit of 1,024 bytes" in capsys.readouterr().err


def test_a_log_of_only_a_line_over_the_limit_says_that_not_that_it_is_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SLACKTAIL_MAX_LINE_BYTES", "1024")
    log = tmp_path / "zeros.log"
    log.write_bytes(b"\0" * 100_000)  # as ``head -c 100000 /dev/zero`` gives it
    assert main(["preview", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.endswith("slacktail: nothing to read: its lines are over the limit\n")


def test_the_readme_examples_final_answer_is_shown_once_by_its_result() -> None:
    example = Path(__file__).parents[1] / "examples" / "claude-session.jsonl"
    (session,) = build_preview([example]).sessions()
    answer = "now sums `Decimal` prices, so the result no longer depends on item order"
    assert [m.key for m in thread_messages(session) if answer in str(m.payload())] == ["result"]


def test_a_transcripts_root_names_its_model_and_what_it_was_asked() -> None:
    (session,) = build_preview(
        [corpus_file("claude-transcript", "marot__spotter__subagent.jsonl")]
    ).sessions()
    root = orjson.dumps(thread_messages(session)[0].payload()).decode()
    assert "claude-opus-4-6" in root and "haiku" not in root
    assert "> /handgemacht:create-beads websearch to learn how to fastest setup credo" in root


def example_preview(verbosity: Verbosity = Verbosity.NORMAL) -> str:
    example = Path(__file__).parents[1] / "examples" / "claude-session.jsonl"
    return preview_text(build_preview([example], settings=SessionSettings(verbosity=verbosity)))


def test_preview_text_shows_mrkdwn_without_its_marks_and_no_escape_codes() -> None:
    text = example_preview()
    assert "  ✅ Succeeded · 9 tool calls" in text and "*Succeeded*" not in text
    assert "✅ Reproduce the flaky test" in text and "~" not in text
    assert "✅ Read `webshop/cart.py:35-55`" in text  # code keeps its marks
    assert "\x1b[" not in text


def test_preview_text_on_a_terminal_shows_mrkdwn_in_terminal_styles() -> None:
    example = Path(__file__).parents[1] / "examples" / "claude-session.jsonl"
    text = preview_text(build_preview([example]), styles=True)
    assert "✅ \x1b[1mSucceeded\x1b[22m · 9 tool calls" in text
    assert "✅ \x1b[9mReproduce the flaky test\x1b[29m" in text
    assert "✅ \x1b[1mRead\x1b[22m \x1b[36mwebshop/cart.py:35-55\x1b[39m" in text
    assert "\x1b[36mF...................\x1b[39m" in text and "```" not in text
    assert "*Succeeded*" not in text and "*Read*" not in text


def test_the_cli_styles_its_preview_only_for_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    example = Path(__file__).parents[1] / "examples" / "claude-session.jsonl"
    assert main(["preview", str(example)]) == 0
    assert "\x1b[" not in capsys.readouterr().out
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    assert main(["preview", str(example)]) == 0
    assert "\x1b[1mSucceeded\x1b[22m" in capsys.readouterr().out


def test_the_count_of_records_not_shown_is_what_the_verbosity_leaves_out() -> None:
    said = {v: example_preview(v).rsplit("\n", 1)[-1] for v in Verbosity}
    assert said[Verbosity.VERBOSE].endswith("· 2 not shown at verbosity verbose")
    assert said[Verbosity.NORMAL].endswith("· 2 not shown at verbosity normal")
    assert said[Verbosity.QUIET].endswith("· 24 not shown at verbosity quiet")
