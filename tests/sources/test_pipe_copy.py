"""The redacted copy of a pipe's lines: each line appended as read, redacted, at the number it
had; removed when closed, or by the next run when the run that made it is gone."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import orjson

from bot.outputs import position_of, read_output
from bot.redaction import Redactor
from bot.sources.lines import Line
from bot.sources.pipe_copy import PipeCopy, redacted_line, remove_left_behind

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def a_copy(folder: Path) -> PipeCopy:
    return PipeCopy(folder, "my agent", Redactor(), now=lambda: datetime(2026, 11, 24, tzinfo=UTC))


def test_lines_are_copied_redacted_each_at_its_number(tmp_path: Path) -> None:
    copy = a_copy(tmp_path / "spool")
    secret = orjson.dumps({"text": f"token {SECRET} here"})
    first = copy.copy(Line(1, 10, b'{"a": 1}'))
    third = copy.copy(Line(3, 99, secret))  # line 2 was too long: not copied
    assert first is not None and third is not None
    assert copy.path.name == f"copy-my-agent-20261124T000000000000Z-{os.getpid()}.jsonl"
    assert copy.path.read_bytes() == b'{"a": 1}\n\n' + third.data + b"\n"
    assert SECRET.encode() not in copy.path.read_bytes()
    assert orjson.loads(third.data) == {"text": "token [redacted:github-token] here"}
    assert (first.number, first.offset) == (1, 9)
    assert (third.number, third.offset) == (3, 10 + len(third.data) + 1)
    copy.close()
    assert not copy.path.exists()


def test_a_position_in_the_copy_reads_the_output_again(tmp_path: Path) -> None:
    copy = a_copy(tmp_path)
    content = [{"type": "tool_result", "tool_use_id": "t1", "content": f"a\nb {SECRET}"}]
    message = {"role": "user", "content": content}
    line = orjson.dumps({"type": "user", "session_id": "s", "message": message})
    copied = copy.copy(Line(1, len(line) + 1, line))
    assert copied is not None
    text = read_output(position_of(str(copy.path), copied, False), "t1", "claude-stream-json",
                       Redactor())  # fmt: skip
    assert text == "a\nb [redacted:github-token]"


def test_a_copy_left_by_a_run_that_is_gone_is_removed(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, check=True, text=True).stdout.strip()  # fmt: skip
    left = tmp_path / f"copy-agent-20261124T000000000000Z-{gone}.jsonl"
    alive = tmp_path / f"copy-agent-20261124T000000000000Z-{os.getpid()}.jsonl"
    other = tmp_path / "stdin-20261124T000000000000Z-1.jsonl"  # a stdin spool: not a copy
    for path in (left, alive, other):
        path.write_bytes(b"{}\n")
    remove_left_behind(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([alive.name, other.name])


def test_a_json_line_stays_json_when_redacting_its_text_would_break_it() -> None:
    redactor = Redactor(extra_patterns=["tok_[^ ]+"])  # it takes the closing quote as well
    assert not redactor.redact('{"a": "tok_abcdefgh"}').endswith('"}')
    line = redacted_line(redactor, b'{"a": "tok_abcdefgh"}')
    assert orjson.loads(line) == {"a": "[redacted:custom]"}
    too_deep = b"[" * 300 + b'"tok_abcdefgh"' + b"]" * 300
    assert redacted_line(redactor, too_deep) == b""
    assert redacted_line(redactor, b"not json tok_abcdefgh") == b"not json [redacted:custom]"
