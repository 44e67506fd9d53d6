"""Format: pi-session — pi's session files (``~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl``).

A ``session`` header, then one entry a line, ``{type, timestamp (ISO), …}``: tree-linked by
``id``/``parentId`` since version 2, a flat list in version 1 (whose header has no ``version``
and names the model: ``provider``, ``modelId``, ``thinkingLevel``). The header is pi's
``--mode json`` first line too: neither family claims it, the entry after it decides. Line →
records:

- ``session`` → SessionStarted (its ``id`` names the session; the model of a version 1 header);
- ``message`` → the message's records (``pi_messages``); an assistant message that stopped on
  an error → also Notice (api_error), one that was aborted → also Notice (interrupted: the
  user stopped the agent, which ends its turn); one of a model not seen before →
  SessionStarted naming it (the root shows the model in use);
- an assistant message with no tool call, or one that stopped on an error, → also TurnEnded:
  pi's agent loop (``packages/agent/src/agent-loop.ts``) goes on only to run a message's tool
  calls, and stops on an error (pi may retry an overloaded provider: its next message moves
  the session on again);
- ``model_change`` → Notice (and SessionStarted naming a model not seen before);
  ``compaction`` → Compaction; ``branch_summary`` → Notice; ``custom_message`` → Notice when
  shown; ``session_info`` → SessionStarted with its name as title; ``thinking_level_change``,
  ``custom``, ``label`` → Ignored; another type → Notice.

A session file has no result: it simply stops (its session waits for the user once a turn
ended). A file whose header is not read (followed from its middle) takes the source's name as
its session id.
"""

from __future__ import annotations

from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.common import text_of, to_utc, type_of
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.formats.pi_messages import (
    AGENT,
    FAILED_STOPS,
    is_message,
    message_records,
    model_of,
    stop_text,
)
from bot.records import Compaction, Ignored, Notice, Origin, Record, SessionStarted, ToolCall
from bot.result_records import TurnEnded
from bot.values import as_int, clip, text_or_none

FAMILY = "pi-session"

# Tuples, not sets: membership by equality never fails on an unhashable JSON value.
_QUIET: Final = ("thinking_level_change", "custom", "label")
_SESSION_KEYS: Final = ("sessionID", "session_id", "sessionId")

Line = dict[str, Any]


def detect(obj: object) -> bool:
    """An entry of a pi session file: an ISO ``timestamp``, no session key of another family,
    and one of its entry types in the shape pi writes it (a pi message, a model change...).
    The ``session`` header is not claimed: pi's ``--mode json`` begins with it too."""
    if not isinstance(obj, dict) or not isinstance(obj.get("timestamp"), str):
        return False
    if any(key in obj for key in _SESSION_KEYS):
        return False
    kind = obj.get("type")
    if kind == "message":
        return is_message(obj.get("message"))
    if kind == "model_change":
        return "modelId" in obj
    if kind == "thinking_level_change":
        return "thinkingLevel" in obj
    if kind == "compaction":
        return "tokensBefore" in obj and "summary" in obj
    if kind == "branch_summary":
        return "fromId" in obj
    if kind == "custom" or kind == "custom_message":
        return "customType" in obj
    if kind == "label":
        return "targetId" in obj
    return kind == "session_info" and "parentId" in obj


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    """Keeps the session id (from the header) and the model last announced."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._session = source
        self._model: str | None = None

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        kind = type_of(obj)
        if kind is None:
            return None
        if kind == "session":
            return self._header(obj, line)
        origin = Origin(self._session, to_utc(obj.get("timestamp")), line)
        if kind == "message":
            message = obj.get("message")
            if not isinstance(message, dict) or not is_message(message):
                return None
            return self._message(message, origin)
        if kind == "model_change":
            return self._model_change(obj, origin)
        return [_entry(kind, obj, origin)]

    def _header(self, obj: Line, line: int) -> list[Record] | None:
        given = obj.get("id")
        if not isinstance(given, str) or not given:
            return None
        self._session = given
        self._model = text_or_none(obj.get("modelId"))
        origin = Origin(given, to_utc(obj.get("timestamp")), line)
        cwd = text_or_none(obj.get("cwd"))
        return [SessionStarted(origin, agent=AGENT, model=self._model, cwd=cwd)]

    def _model_change(self, obj: Line, origin: Origin) -> list[Record]:
        """The user chose a model: said, and shown as the session's model from now on."""
        model, provider = text_or_none(obj.get("modelId")), text_or_none(obj.get("provider"))
        named = f"{model} ({provider})" if model and provider else model or provider or "?"
        out: list[Record] = [Notice(origin, kind="model", text=f"Model: {named}")]
        if model is not None and model != self._model:
            self._model = model
            out.insert(0, SessionStarted(origin, agent=AGENT, model=model))
        return out

    def _message(self, message: Line, origin: Origin) -> list[Record]:
        out: list[Record] = []
        if message.get("role") == "assistant":
            model = model_of(message)
            if model is not None and model != self._model:
                self._model = model
                out.append(SessionStarted(origin, agent=AGENT, model=model))
        first = len(out)
        message_records(message, origin, out)
        if message.get("role") != "assistant":
            return out or [Ignored(origin, kind="empty message")]
        stop = message.get("stopReason")
        if stop in FAILED_STOPS:
            kind, level = ("api_error", "error") if stop == "error" else ("interrupted", "warning")
            out.append(Notice(origin, kind=kind, text=stop_text(message), level=level))
        if stop == "error" or (stop != "aborted" and not _has_call(out, first)):
            out.append(TurnEnded(origin))  # the agent stopped: it waits for the user
        return out


def _entry(kind: str, obj: Line, origin: Origin) -> Record:
    """An entry that is not a message."""
    if kind in _QUIET:
        return Ignored(origin, kind=kind)
    if kind == "compaction":
        return Compaction(
            origin,
            trigger="extension" if obj.get("fromHook") is True else None,
            pre_tokens=as_int(obj.get("tokensBefore")),
            summary=text_or_none(obj.get("summary")),
        )
    if kind == "branch_summary":
        summary = text_of(obj.get("summary"))
        return Notice(origin, kind="branch", text=clip(f"Back from a branch: {summary}"))
    if kind == "custom_message":
        text = text_of(obj.get("content"))
        name = text_or_none(obj.get("customType")) or kind
        if obj.get("display") is False or not text.strip():
            return Ignored(origin, kind=name)
        return Notice(origin, kind=name, text=clip(text))
    if kind == "session_info":
        return SessionStarted(origin, agent=AGENT, title=text_or_none(obj.get("name")))
    return Notice(origin, kind=kind, text=kind.replace("_", " ").capitalize())


def _has_call(out: list[Record], first: int) -> bool:
    """Whether the records from ``first`` on hold a tool call."""
    return any(type(record) is ToolCall for record in out[first:])


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=False,
    produced_by="pi's session files (`~/.pi/agent/sessions/`)",
)
