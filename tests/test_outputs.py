"""A tool's whole output read again from its log: the session keeps where each shown result was
read (never the text), and reading that place again gives the whole output, redacted; a file
rotated or rewritten since says so instead."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path

import orjson

from bot.checkpoints import CoreState
from bot.logs import EventLog
from bot.outputs import Changed, LineRead, keep_position, read_output
from bot.reading import Reading
from bot.records import Origin, ToolCall, ToolResult
from bot.redaction import Redactor
from bot.retiring import Retired
from bot.session import Session, SessionBook
from bot.session.tool_calls import OutputPosition
from bot.sources.document import DocumentFollower, DocumentOptions
from bot.sources.file_options import FileOptions
from bot.sources.follow import FileFollower
from bot.sources.lines import Line
from bot.sources.source import Source
from bot.sources.spool import StdinSpool

SID = "sess-full"
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
NOW = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)


def _line(obj: dict[str, object]) -> bytes:
    return orjson.dumps(obj) + b"\n"


def long_output(lines: int = 400) -> str:
    """An output of ``lines`` numbered lines, a secret on line 7."""
    rows = [f"row {n:04d} " + "x" * 60 for n in range(1, lines + 1)]
    rows[6] = f"token={SECRET}"
    return "\n".join(rows)


def claude_stream(output: str, call: str = "toolu_01", short: str = "ok") -> bytes:
    """A Claude Code stream: a Bash call with ``output``, an Echo call with ``short``."""

    def use(call_id: str, command: str) -> bytes:
        content = [{"type": "tool_use", "id": call_id, "name": "Bash",
                    "input": {"command": command}}]  # fmt: skip
        return _line({"type": "assistant", "session_id": SID,
                      "message": {"id": f"m-{call_id}", "content": content}})  # fmt: skip

    def result(call_id: str, text: str) -> bytes:
        content = [{"type": "tool_result", "tool_use_id": call_id, "content": text}]
        return _line({"type": "user", "session_id": SID,
                      "message": {"role": "user", "content": content}})  # fmt: skip

    return (
        _line({"type": "system", "subtype": "init", "session_id": SID, "cwd": "/w", "model": "m"})
        + use(call, "cat big.log") + result(call, output)
        + use("toolu_02", "echo ok") + result("toolu_02", short)
    )  # fmt: skip


def read_into_book(source: Source, book: SessionBook | None = None) -> CoreState:
    core = CoreState(book or SessionBook())
    log = EventLog(None)
    retired = Retired(None, log, time.monotonic, lambda: NOW)
    reading = Reading(core, retired, log=log, redactor=Redactor())
    reading.add_source(source)
    while not source.closed:
        reading.read(NOW)
    reading.read(NOW)
    return core


def position(core: CoreState, call: str) -> OutputPosition | None:
    return core.book.sessions[SID].calls[call].output_at


def followed(path: Path) -> FileFollower:
    return FileFollower(path, FileOptions(stop_at_end=True))


def test_a_shown_result_keeps_its_file_line_and_not_its_text(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    log.write_bytes(claude_stream(long_output()))
    at = position(read_into_book(followed(log)), "toolu_01")
    assert at is not None
    assert (at.path, at.line, at.document) == (str(log), 3, False)
    lines = log.read_bytes().split(b"\n")
    assert at.end == sum(len(line) + 1 for line in lines[:3])
    assert at.size == len(lines[2])
    assert not hasattr(at, "output")


def test_the_whole_output_is_read_again_redacted(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    output = long_output()
    log.write_bytes(claude_stream(output))
    at = position(read_into_book(followed(log)), "toolu_01")
    assert at is not None
    text = read_output(at, "toolu_01", "claude-stream-json", Redactor())
    assert isinstance(text, str)
    assert SECRET not in text and "[redacted:github-token]" in text
    assert text.split("\n")[-1] == output.split("\n")[-1]
    assert text.count("\n") == 399


def test_a_line_written_in_crlf_is_found_again(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    log.write_bytes(claude_stream("a\nb\nc").replace(b"\n", b"\r\n"))
    at = position(read_into_book(followed(log)), "toolu_01")
    assert at is not None
    assert read_output(at, "toolu_01", "claude-stream-json", Redactor()) == "a\nb\nc"


def test_a_rotated_file_says_the_log_changed(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    log.write_bytes(claude_stream(long_output()))
    at = position(read_into_book(followed(log)), "toolu_01")
    assert at is not None
    os.rename(log, tmp_path / "run.jsonl.1")
    log.write_bytes(claude_stream("another run", call="toolu_09"))
    said = read_output(at, "toolu_01", "claude-stream-json", Redactor())
    assert isinstance(said, Changed) and "changed" in said.why


def test_a_removed_file_says_it_cannot_be_read_again(tmp_path: Path) -> None:
    log = tmp_path / "run.jsonl"
    log.write_bytes(claude_stream(long_output()))
    at = position(read_into_book(followed(log)), "toolu_01")
    assert at is not None
    log.unlink()
    said = read_output(at, "toolu_01", "claude-stream-json", Redactor())
    assert isinstance(said, Changed) and "cannot be read again" in said.why


def test_a_document_keeps_a_document_position(tmp_path: Path) -> None:
    fixture = Path(__file__).parent / "fixtures" / "qwen_output_json.json"
    path = tmp_path / "out.json"
    path.write_bytes(fixture.read_bytes())
    core = read_into_book(DocumentFollower(path, DocumentOptions(stop_at_end=True)))
    kept = [(sid, call) for sid, session in core.book.sessions.items()
            for call in session.calls.values() if call.output_at is not None]  # fmt: skip
    for sid, call in kept:
        assert call.output_at is not None and call.output_at.document
        text = read_output(call.output_at, call.id, core.families[sid], Redactor())
        assert isinstance(text, str) and len(text) == call.output_size
    assert kept
    said = read_output(kept[0][1].output_at, "no-such-call", "claude-stream-json", Redactor())
    assert isinstance(said, Changed) and "no longer holds" in said.why


def test_standard_input_is_read_again_from_its_spool(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    with open(read_end, "rb") as stream:
        spool = StdinSpool(stream, tmp_path / "spool")
        os.write(write_end, claude_stream(long_output()))
        os.close(write_end)
        core = read_into_book(spool)
        assert spool.join(timeout=5)
        spool.close()
    at = position(core, "toolu_01")
    assert at is not None and at.path == str(spool.path)
    text = read_output(at, "toolu_01", "claude-stream-json", Redactor())
    assert isinstance(text, str) and text.count("\n") == 399


def test_a_result_applied_with_a_later_line_keeps_no_position(tmp_path: Path) -> None:
    session = Session(SID)
    session.apply(ToolCall(Origin(SID, NOW, 2), call_id="c1", name="Bash", input={}))
    result = ToolResult(Origin(SID, NOW, 3), call_id="c1", output="a\nb")
    session.apply(result)
    later = Line(9, 500, b"{}")
    keep_position(session, result, LineRead(str(tmp_path / "x.jsonl"), later))
    assert session.calls["c1"].output_at is None
    keep_position(session, result, LineRead(str(tmp_path / "x.jsonl"), Line(3, 100, b"{}")))
    assert session.calls["c1"].output_at is not None
