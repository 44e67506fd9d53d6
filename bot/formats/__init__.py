"""Log formats: one module per family, each mapping parsed JSON lines into ``bot.records``.

Each format module registers one ``LogFormat`` value, ``FORMAT`` (see ``log_format.py``): its
name, its agent, its detector, its parser, whether it reports a session's result. Its parser is
a per-source ``LineParser`` (it may keep state across lines: the current session id, pending
deltas, which run belongs to which delegation) whose ``parse(obj, line)`` maps one value into
records (``None`` means "not mine": the reader counts it as unparsed) and ``finish()`` flushes
at end of input. Each line's records are made from one ``Origin`` built for it.

Parsers are pure: no I/O, no clock.
"""

from __future__ import annotations

from bot.formats import (
    agno,
    antigravity,
    backend,
    claude_stream,
    claude_transcript,
    codex_exec,
    codex_rollout,
    cursor_stream,
    gemini_session,
    gemini_stream,
    kimi_wire,
    openai_messages,
    opencode,
    pi_events,
    pi_session,
)
from bot.formats.log_format import LogFormat, Parser

# Detection order. Detectors are exclusive (a test checks every corpus value against every
# family), so the order only decides which of two formats is tried first.
FORMATS: tuple[LogFormat, ...] = (
    claude_stream.FORMAT,
    claude_transcript.FORMAT,
    agno.FORMAT,
    backend.FORMAT,
    openai_messages.FORMAT,
    codex_exec.FORMAT,
    antigravity.FORMAT,
    kimi_wire.FORMAT,
    cursor_stream.FORMAT,
    gemini_stream.FORMAT,
    gemini_session.FORMAT,
    codex_rollout.FORMAT,
    opencode.FORMAT,
    pi_events.FORMAT,
    pi_session.FORMAT,
)
FAMILIES: dict[str, LogFormat] = {log_format.name: log_format for log_format in FORMATS}


def detect_family(obj: object) -> LogFormat | None:
    """The format that claims ``obj``, or ``None``."""
    for log_format in FORMATS:
        if log_format.detect(obj):
            return log_format
    return None


__all__ = ["FAMILIES", "FORMATS", "LogFormat", "Parser", "detect_family"]
