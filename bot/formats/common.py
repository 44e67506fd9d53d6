"""Small pure helpers shared by the format modules: timestamps, text of content blocks."""

from __future__ import annotations

from collections import OrderedDict
from datetime import UTC, datetime
from typing import Any, Final, TypeVar

import orjson

from bot.records import Notice, Origin, Todo, Usage
from bot.values import TOO_DEEP, as_int, json_text, text_or_none

V = TypeVar("V")

_EPOCH_MS_THRESHOLD: Final = 1e11  # a number above this is milliseconds, not seconds
# The constructors and the zone, looked up once: compiled, ``datetime.fromisoformat(...)`` would
# look the method up on the class at every timestamp, and ``UTC`` the module's globals.
_from_iso: Final = datetime.fromisoformat
_from_unix: Final = datetime.fromtimestamp
_UTC: Final = UTC


def to_utc(value: object) -> datetime | None:
    """An aware UTC datetime from an ISO 8601 string or unix seconds/milliseconds; else None."""
    if isinstance(value, str):  # the usual case first
        return _from_iso_text(value) if value else None
    if isinstance(value, float):  # unboxed: compared and divided as a C double
        return _from_seconds(value / 1000.0 if value > _EPOCH_MS_THRESHOLD else value)
    if isinstance(value, int) and type(value) is not bool:
        seconds = value / 1000.0 if value > _EPOCH_MS_THRESHOLD else float(value)
        return _from_seconds(seconds)
    return None


def _from_iso_text(value: str) -> datetime | None:
    try:
        parsed: datetime = _from_iso(value)
    except ValueError:
        return None
    zone = parsed.tzinfo
    if zone is None:
        return parsed.replace(tzinfo=_UTC)
    if zone is _UTC:
        return parsed
    try:
        return parsed.astimezone(_UTC)
    except OverflowError:  # year 1 or 9999 with an offset: not a time any log means
        return None


def _from_seconds(seconds: float) -> datetime | None:
    try:
        return _from_unix(seconds, _UTC)  # positional: cheaper than tz=UTC
    except (OverflowError, OSError, ValueError):
        return None


def text_of(content: object) -> str:
    """The readable text of a message/tool-result ``content``: a string, or a list of blocks
    (``text`` blocks joined, images and other blocks as a short placeholder)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []  # the blocks' texts that are not empty
        for block in content:
            part = ""
            if isinstance(block, str):
                part = block
            elif isinstance(block, dict):
                kind = block.get("type")
                if kind == "text" or (kind is None and "text" in block):
                    part = str(block.get("text") or "")
                elif kind == "image":
                    part = "[image]"
                elif kind == "tool_reference":
                    part = str(block.get("tool_name") or "")
                elif kind is not None:
                    part = f"[{kind}]"
            if part:
                parts.append(part)
        return "\n".join(parts)
    if isinstance(content, dict):
        if "text" in content and isinstance(content["text"], str):
            return content["text"]
        return json_text(content)
    return str(content)


def loads_maybe(value: object) -> Any:
    """``value`` parsed as JSON when it is a JSON string of an object or array; else ``value``."""
    if isinstance(value, (str, bytes)):
        stripped = value.strip()
        if stripped[:1] in ("{", "[", b"{", b"["):
            try:
                return orjson.loads(stripped)
            except orjson.JSONDecodeError:
                return value
    return value


def api_error_text(text: str) -> str:
    """An error's ``text``, or when it is the API's error envelope as JSON (``{"type": "error",
    "status": 400, "error": {"message": …}}``), its inner message and the HTTP status."""
    envelope = loads_maybe(text)
    inner = envelope.get("error") if isinstance(envelope, dict) else None
    message = inner.get("message") if isinstance(inner, dict) else None
    if not isinstance(message, str) or not message.strip():
        return text
    status = as_int(envelope.get("status")) if isinstance(envelope, dict) else None
    return message if status is None else f"{message} (HTTP {status})"


def mcp_name(server: str, tool: str) -> str:
    """An MCP tool's call named as Claude names it, ``mcp__server__tool`` (a message shows it
    as ``server › tool``: ``session.tool_calls.shown_name``); the tool alone with no server."""
    return f"mcp__{server}__{tool}" if server and tool else tool or server


def type_of(obj: object) -> str | None:
    """The ``type`` of a JSON object line, or None when ``obj`` is not an object or its ``type``
    is not a string (a line no typed-event parser can read)."""
    if not isinstance(obj, dict):
        return None
    kind = obj.get("type")
    return kind if isinstance(kind, str) else None


_MAX_DEPTH: Final = 64


def within_depth(value: Any) -> Any:
    """``value`` as it is when orjson can write it (at most a few hundred levels deep), else
    with whatever is nested deeper than ``_MAX_DEPTH`` levels replaced by ``TOO_DEEP``: kept
    state must stay something a checkpoint can hold."""
    try:
        orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS, default=str)
        return value
    except TypeError:
        return _capped(value, 0)


def _capped(value: Any, depth: int) -> Any:
    if not isinstance(value, (dict, list)):
        return value
    if depth >= _MAX_DEPTH:
        return TOO_DEEP
    if isinstance(value, list):
        return [_capped(item, depth + 1) for item in value]
    return {key: _capped(item, depth + 1) for key, item in value.items()}


def todos_of(items: object) -> tuple[Todo, ...]:
    """A TodoWrite list: current items (content/status/activeForm) or old ones (id/priority).
    Anything that is not a list of objects gives no todos."""
    if not isinstance(items, list):
        return ()
    todos: list[Todo] = []  # a loop, not a generator expression: compiled, no generator object
    for item in items:
        if isinstance(item, dict):
            todos.append(
                Todo(  # positional (content, status, active_form, priority): half the cost
                    str(item.get("content") or ""),
                    str(item.get("status") or "pending"),
                    text_or_none(item.get("activeForm")),
                    text_or_none(item.get("priority")),
                )
            )
    return tuple(todos)


def remember(table: OrderedDict[str, V], key: str, value: V, cap: int) -> None:
    """``table[key] = value``, forgetting the oldest entry once the table holds more than
    ``cap``: the bounded memory of a parser. An ``OrderedDict``, because a plain dict whose
    oldest entry is deleted again and again must skip every deleted slot to find the next one
    (6 µs an eviction at 50,000 entries, and growing), where an ``OrderedDict`` unlinks it
    (0.4 µs): a long-running follower would otherwise slow down as it goes."""
    table[key] = value
    if len(table) > cap:
        table.popitem(last=False)


def add_count(total: int | None, value: object) -> int | None:
    """``total`` plus a count a log gives (tokens of one step): a value that is not a number
    leaves the total as it is, and a total nothing was added to stays unknown (``None``)."""
    number = as_int(value)
    if number is None:
        return total
    return number if total is None else total + number


TURN: Final = "turn"  # the kind of the notice that says how a turn of a session went


def uncached_input(given: int | None, cached: int | None) -> int | None:
    """The input tokens not read from the cache, where a log's input counts the cached input
    too (OpenAI's, Gemini's ``input_tokens``): the input less the cache, as it is when either
    is not given."""
    if given is None or cached is None:
        return given
    return max(given - cached, 0)


def usage_or_none(usage: Usage) -> Usage | None:
    """``usage``, or ``None`` when it gives no figure at all (a step that said nothing)."""
    figures = (usage.cost_usd, usage.input_tokens, usage.output_tokens, usage.cache_read_tokens,
               usage.cache_write_tokens, usage.reasoning_tokens)  # fmt: skip
    return None if all(figure is None for figure in figures) else usage


def turn_notice(
    origin: Origin,
    said: str,
    duration_ms: int | None,
    input_tokens: int | None,
    output_tokens: int | None,
    cache_read_tokens: int | None = None,
    reasoning_tokens: int | None = None,
    level: str = "info",
) -> Notice:
    """How a turn of an interactive session went, where its log says it (its time, its
    tokens): a ``turn`` notice in the thread, ``said`` first ("Completed · 12.5s · 1,200 in /
    80 out tokens"): in and out where given (a reported 0 too), the cached and reasoning parts
    where given and not 0."""
    parts = [said]
    if duration_ms is not None:
        parts.append(_seconds(duration_ms / 1000))
    tokens: list[str] = []
    if input_tokens is not None:
        tokens.append(f"{input_tokens:,} in")
    if output_tokens is not None:
        tokens.append(f"{output_tokens:,} out")
    if cache_read_tokens:
        tokens.append(f"{cache_read_tokens:,} cached")
    if reasoning_tokens:
        tokens.append(f"{reasoning_tokens:,} reasoning")
    if tokens:
        parts.append(" / ".join(tokens) + " tokens")
    return Notice(origin, kind=TURN, text=" · ".join(parts), level=level)


def _seconds(seconds: float) -> str:
    """``12.5s``, ``3m 05s``, ``2h 10m``."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    whole = int(seconds)
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m"
