"""The event log: one JSON line per event, its time and name first; nothing without a stream;
redacted. Python's logging is for debug diagnostics only: a happening is reported once, as an
event, never through both."""

from __future__ import annotations

import ast
import io

import orjson

from bot import events
from bot.logs import EventLog
from bot.redaction import Redactor
from tests.conftest import ROOT

LOGGING_LEVELS = {"info", "warning", "error", "exception", "critical"}


def test_an_event_is_one_line_its_time_and_name_first_then_its_fields() -> None:
    stream = io.StringIO()
    EventLog(stream).event(events.Rotated("a.jsonl", offset=120, size=40))
    line = stream.getvalue()
    assert line.endswith("\n") and line.count("\n") == 1
    written = orjson.loads(line)
    assert list(written) == ["at", "event", "source", "offset", "size"]
    assert isinstance(written["at"], float) and written["at"] > 1_700_000_000  # a time
    assert written["event"] == "rotated" and written["offset"] == 120


def test_without_a_stream_nothing_is_written() -> None:
    EventLog(None).event(events.Retry(after_s=1.0))  # no stream, no error


def test_every_line_is_redacted() -> None:
    stream = io.StringIO()
    secret = "xoxb-1234567890123-1234567890123-SomeoneElsesTokenValue"
    EventLog(stream, Redactor()).event(events.DeliveryStopped(f"refused {secret}"))
    assert secret not in stream.getvalue() and '"event":"delivery_stopped"' in stream.getvalue()


def calls_at(level_names: set[str], tree: ast.AST) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in level_names
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in ("log", "logger", "logging")
    ]


def test_slacktails_own_modules_log_through_python_logging_only_at_debug_level() -> None:
    """What a person should hear of is an event (bot.events); the local Slack, a server of its
    own, logs as a server does."""
    found = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        if "localslack" in path.parts:
            continue
        tree = ast.parse(path.read_text(), str(path))
        found += [f"{path.relative_to(ROOT)}:{line}" for line in calls_at(LOGGING_LEVELS, tree)]
    assert found == []


def test_the_check_finds_a_warning_logged() -> None:
    tree = ast.parse("log.warning('x')\nlog.debug('y')\n")
    assert calls_at(LOGGING_LEVELS, tree) == [1]
