"""Values in a log never stop the reading: lines that are almost JSON are read, values nested
deeper than anything can walk are cut, odd times are no time, and a UTF-16 log is read."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from blocks.thread import thread_messages
from bot import snapshot
from bot.cli import main
from bot.formats.reader import SourceReader
from bot.lenient import from_utf16, lenient_json, utf16_by_bom
from bot.preview import build_preview
from bot.records import AssistantText, SessionStarted, ToolCall, Unparsed, UserText

INIT = b'{"type":"system","subtype":"init","session_id":"s","cwd":"/w","model":"m"}'


def assistant(content: str) -> bytes:
    return ('{"type":"assistant","session_id":"s","message":{"id":"m1","content":[' + content
            + "]}}").encode()  # fmt: skip


def tool_use(arguments: str) -> bytes:
    return assistant('{"type":"tool_use","id":"t1","name":"Bash","input":' + arguments + "}")


def nested(levels: int) -> str:
    return '{"command": "ls", "deep": ' + "[" * levels + "1" + "]" * levels + "}"


def write(tmp_path: Path, *lines: bytes, name: str = "log.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def shown(path: Path) -> str:
    """Every message of every session of ``path``, as JSON (what would be sent)."""
    preview = build_preview([path])
    messages = [m.payload() for s in preview.sessions() for m in thread_messages(s)]
    return orjson.dumps(messages).decode()  # raises if a message held what JSON cannot


@pytest.mark.parametrize("levels", [300, 600, 1000])
def test_a_tool_input_nested_hundreds_of_levels_deep_is_shown_not_raised(
    tmp_path: Path, levels: int
) -> None:
    path = write(tmp_path, INIT, tool_use(nested(levels)))
    assert "*Bash* `ls`" in shown(path)
    assert main(["preview", str(path)]) == 0


def test_an_unknown_line_nested_a_thousand_levels_deep_is_held_checkpointable() -> None:
    reader = SourceReader("x")
    assert reader.feed(("[" * 1000 + "]" * 1000).encode(), 1) == []  # held for detection
    restored = snapshot.loads(snapshot.dumps(reader))
    (unparsed,) = restored.finish()
    assert isinstance(unparsed, Unparsed)


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_a_time_at_the_ends_of_the_calendar_is_no_time_not_a_crash(
    tmp_path: Path, stamp: str
) -> None:
    stream = INIT[:-1] + f',"timestamp":"{stamp}"}}'.encode()
    transcript = orjson.dumps({"type": "user", "sessionId": "t", "uuid": "u1", "parentUuid": None,
                               "timestamp": stamp, "message": {"role": "user", "content": "hi"}})
    for name, line in (("a.jsonl", stream), ("b.jsonl", transcript)):
        records = SourceReader("x").feed(line, 1)
        assert records and all(record.timestamp is None for record in records)
        shown(write(tmp_path, line, name=name))


@pytest.mark.parametrize(
    ("value", "kept"),
    [("NaN", "NaN"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity"), ("1e400", "1e400")],
)
def test_numbers_json_does_not_allow_keep_the_line(tmp_path: Path, value: str, kept: str) -> None:
    line = tool_use('{"command": "echo", "n": ' + value + "}")
    path = write(tmp_path, INIT, line)
    reader = SourceReader("x")
    records = reader.feed(INIT, 1) + reader.feed(line, 2)
    (call,) = [r for r in records if isinstance(r, ToolCall)]
    assert call.input["n"] == kept
    assert reader.stats.unparsed == 0
    shown(path)


def test_a_lone_surrogate_escape_is_shown_as_a_replacement_character(tmp_path: Path) -> None:
    line = assistant('{"type":"text","text":"caf\\u00e9 \\ud83d broken"}')
    path = write(tmp_path, INIT, line)
    reader = SourceReader("x")
    records = reader.feed(INIT, 1) + reader.feed(line, 2)
    (said,) = [record for record in records if isinstance(record, AssistantText)]
    assert said.text == "café \ufffd broken"
    assert "\\ufffd" in shown(path) or "\ufffd" in shown(path)


def test_a_whole_document_with_nan_is_read_whole(tmp_path: Path) -> None:
    traj = {
        "history": [{"role": "system", "content": "You are an agent."},
                    {"role": "user", "content": "fix it"}],
        "info": {"exit_status": "submitted", "model_stats": {"instance_cost": 0.5}},
    }  # fmt: skip
    text = orjson.dumps(traj, option=orjson.OPT_INDENT_2).decode()
    text = text.replace('"instance_cost": 0.5', '"instance_cost": NaN')
    path = tmp_path / "run.traj"
    path.write_text(text)
    preview = build_preview([path])
    assert preview.unparsed == 0 and len(preview.sessions()) == 1
    shown(path)


def test_a_bom_in_the_middle_of_a_file_keeps_its_line(tmp_path: Path) -> None:
    line = b"\xef\xbb\xbf" + assistant('{"type":"text","text":"after the mark"}')
    path = write(tmp_path, INIT, line, assistant('{"type":"text","text":"and after"}'))
    assert "after the mark" in shown(path) and "and after" in shown(path)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_log_is_read(tmp_path: Path, encoding: str) -> None:
    text = (INIT + b"\r\n" + assistant('{"type":"text","text":"from windows \\u00e9"}')).decode()
    if encoding != "utf-16":  # a byte order mark of its own, as such tools write one
        text = "\ufeff" + text
    path = tmp_path / "log.jsonl"
    path.write_bytes((text + "\n").encode(encoding))
    preview = build_preview([path])
    assert preview.unparsed == 0
    assert "from windows é" in shown(path)


def test_utf16_lines_are_realigned_whichever_byte_order() -> None:
    assert utf16_by_bom(b"\xff\xfe{\x00") == "utf-16-le"
    assert utf16_by_bom(b"\xfe\xff\x00{") == "utf-16-be"
    assert utf16_by_bom(b"{}") is None
    assert from_utf16(b"\x00{\x00}\x00", "utf-16-le") == b"{}"  # the newline's high byte first
    assert from_utf16(b"\x00{\x00}\x00", "utf-16-be") == b"{}"  # ...or last


def test_what_is_not_json_at_all_is_still_refused() -> None:
    assert lenient_json("hello") is lenient_json("{") is lenient_json("[" * 2000 + "]" * 2000)
    assert isinstance(SourceReader("x").feed(b"hello", 1)[0], Unparsed)
    assert UserText and SessionStarted  # the record kinds these tests read


def test_a_byte_order_mark_alone_before_a_utf8_log_does_not_make_it_utf16() -> None:
    reader = SourceReader("x")
    assert isinstance(reader.feed(b"\xfe\xff", 1)[0], Unparsed)
    records = reader.feed(INIT[:-1] + b',"tools":["Bash"]}', 2)
    assert [type(record) for record in records] == [SessionStarted]
    assert reader.encoding is None
