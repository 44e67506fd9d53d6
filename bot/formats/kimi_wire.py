"""Format: kimi-wire — Kimi Code's session files
(``~/.kimi-code/sessions/wd_<slug>_<hash>/<sessionId>/agents/<agent>/wire.jsonl``).

A ``metadata`` line ``{protocol_version, created_at, app_version}``, then flat records
``{type, …, time}`` (epoch milliseconds). No session id inside (it is the ``<sessionId>``
directory) and no end of the session: the wire is the journal of an interactive session (the
user writes, Kimi answers, the user writes again: ``kimi --continue`` resumes it), whose turns
end with ``turn.ended`` (upstream MoonshotAI/kimi-code ``turnOps.ts``; the corpus sample has
none). Record → records:

- ``metadata`` (or the first record) → SessionStarted (agent "Kimi Code", version), with no
  time: the session's times are its records' (``created_at`` is the journal's own); a
  ``config.update`` or ``profile.bind`` naming a model or a cwd, and the first ``usage.record``
  when no model is known, → SessionStarted again (hidden: it completes the session's details);
- ``turn.prompt``, ``turn.steer`` → UserText (a prompt Kimi made itself, e.g. a cron job's, →
  Notice("prompt"));
- ``context.append_loop_event``: ``content.part`` text → AssistantText, think → Thinking;
  ``tool.call`` → ToolCall; ``tool.result`` → ToolResult (``isError``); ``step.*`` → Ignored;
- ``context.append_message``: the user prompt's copy (and injected context) → Ignored; a user
  message no ``turn.prompt`` said → UserText; an assistant message → AssistantText;
- ``usage.record`` → Usage (one model request's own tokens: the session adds them up, as
  Kimi does; Ignored when it gives none), its tokens also added up and said by the next
  ``turn.ended`` → Notice("turn": completed, or failed with its error, cancelled,
  blocked; its time and tokens) then TurnEnded: the session waits for the user (a turn is not
  the session's end, so no SessionResult);
- ``turn.cancel`` → Notice("interrupted"); ``context.apply_compaction`` → Compaction;
  ``context.clear`` → Notice; other known types → Ignored; unknown types → Notice.

A sub-agent writes its own ``agents/<agentId>/wire.jsonl``: read alone, it is its own session,
``<sessionId>/<agentId>`` (which call started it is not said in the file).
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.common import loads_maybe, text_of, to_utc, turn_notice
from bot.formats.kimi_wire_types import (
    KNOWN_TYPES,
    QUIET_TYPES,
    TurnTokens,
    error_text,
    record_usage,
)
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.records import (
    AssistantText,
    Compaction,
    Ignored,
    Notice,
    Origin,
    Record,
    SessionStarted,
    Thinking,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.result_records import TurnEnded
from bot.values import as_int, text_or_none

FAMILY = "kimi-wire"
AGENT = "Kimi Code"

_MAIN_AGENT: Final = "main"
_USER_ORIGIN: Final = "user"
# How a turn ended (``turn.ended.reason``) → what its notice says first, and at which level.
_TURN_ENDS: Final = {
    "completed": ("Completed", "info"),
    "failed": ("Failed", "error"),
    "cancelled": ("Cancelled", "warning"),
    "blocked": ("Blocked", "warning"),
}

Out = list[Record]


def detect(obj: object) -> bool:
    """A wire record: the ``metadata`` line with its ``protocol_version``, or a record of one of
    Kimi's own types (dotted names such as ``context.append_loop_event``) with an epoch ``time``.
    Codex's ``thread.started`` and ``turn.completed`` have no ``time``, opencode's ``time`` is an
    object."""
    if not isinstance(obj, dict):
        return False
    kind = obj.get("type")
    if kind == "metadata":
        return isinstance(obj.get("protocol_version"), str)
    return isinstance(kind, str) and kind in KNOWN_TYPES and _is_epoch(obj.get("time"))


def session_of(source: str) -> str:
    """``<sessionId>`` of ``…/<sessionId>/agents/main/wire.jsonl``; ``<sessionId>/<agentId>`` of a
    sub-agent's ``agents/<agentId>/wire.jsonl``; else the file's name without its extension."""
    path = PurePath(source)
    parts = path.parts
    if len(parts) >= 4 and parts[-3] == "agents":
        session, agent = parts[-4], parts[-2]
        return session if agent == _MAIN_AGENT else f"{session}/{agent}"
    return path.stem or source


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    def __init__(self, source: str) -> None:
        self.source = source
        self._session = session_of(source)
        self._started = False
        self._has_model = False
        self._prompt = ""  # the last prompt's text, to know its copy in context.append_message
        self._usage = TurnTokens()

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        if not isinstance(obj, dict):
            return None
        kind = obj.get("type")
        if not isinstance(kind, str) or not ("time" in obj or kind == "metadata"):
            return None
        # The metadata line's ``created_at`` is when the journal was made (``wireService.seal``:
        # before the session's first record, by however long it sat idle) or re-made (a journal
        # migrated on resume gets a new metadata line): not a time of the session's work.
        origin = Origin(self._session, to_utc(obj.get("time")), line)
        out: Out = []
        if not self._started:
            self._started = True
            version = obj.get("app_version") if kind == "metadata" else None
            out.append(SessionStarted(origin, agent=AGENT, version=text_or_none(version)))
        if kind == "context.append_loop_event":
            _loop_event(obj.get("event"), origin, out)
        elif kind == "turn.prompt" or kind == "turn.steer":
            self._prompt_given(obj, origin, out)
        elif kind == "context.append_message":
            self._message(obj.get("message"), origin, out)
        elif kind == "usage.record":
            self._usage_record(obj, origin, out)
        elif kind == "turn.ended":
            self._turn_ended(obj, origin, out)
        elif kind == "config.update" or kind == "profile.bind":
            self._settings(obj, kind, origin, out)
        elif kind == "metadata":
            if not out:
                out.append(Ignored(origin, kind=kind))
        else:
            out.append(_other(obj, kind, origin))
        return out

    def finish(self) -> list[Record]:
        return []

    def _settings(self, obj: dict[str, Any], kind: str, origin: Origin, out: Out) -> None:
        model = text_or_none(obj.get("modelAlias"))
        cwd = text_or_none(obj.get("cwd"))
        disclosure = obj.get("environmentDisclosure")
        if cwd is None and isinstance(disclosure, dict):
            cwd = text_or_none(disclosure.get("cwd"))
        if model is None and cwd is None:
            out.append(Ignored(origin, kind=kind))
            return
        self._has_model = self._has_model or model is not None
        out.append(SessionStarted(origin, agent=AGENT, model=model, cwd=cwd))

    def _prompt_given(self, obj: dict[str, Any], origin: Origin, out: Out) -> None:
        text = text_of(obj.get("input")).strip()
        said = obj.get("origin")
        by = said.get("kind") if isinstance(said, dict) else said
        if by is None or by == _USER_ORIGIN:
            self._prompt = text
            out.append(UserText(origin, text=text) if text else Ignored(origin, kind="prompt"))
        else:
            out.append(Notice(origin, kind="prompt", text=f"{by}: {text}" if text else str(by)))

    def _message(self, message: object, origin: Origin, out: Out) -> None:
        if not isinstance(message, dict):
            out.append(Ignored(origin, kind="message"))
            return
        role, text = message.get("role"), text_of(message.get("content")).strip()
        said = message.get("origin")
        by = said.get("kind") if isinstance(said, dict) else said
        if not text or (role == "user" and (text == self._prompt or by not in (None, "user"))):
            out.append(Ignored(origin, kind=f"{role} message"))
        elif role == "user":
            self._prompt = text
            out.append(UserText(origin, text=text))
        elif role == "assistant":
            out.append(AssistantText(origin, text=text))
        else:
            out.append(Ignored(origin, kind=f"{role} message"))

    def _usage_record(self, obj: dict[str, Any], origin: Origin, out: Out) -> None:
        model = text_or_none(obj.get("model"))
        self._usage.add(obj.get("usage"), model)
        if model is not None and not self._has_model:
            self._has_model = True
            out.append(SessionStarted(origin, agent=AGENT, model=model))
        spent = record_usage(obj.get("usage"), origin)
        if spent is not None:
            out.append(spent)
        elif not out:
            out.append(Ignored(origin, kind="usage.record"))

    def _turn_ended(self, obj: dict[str, Any], origin: Origin, out: Out) -> None:
        """A turn ended: how (its notice, with the turn's time and tokens), then the end."""
        reason = text_or_none(obj.get("reason"))
        said, level = _TURN_ENDS.get(reason or "", (f"Ended ({reason or 'no reason given'})",
                                                    "warning"))  # fmt: skip
        error = error_text(obj.get("error"))
        if error is not None:
            said = f"{said}: {error}"
        usage, self._usage = self._usage, TurnTokens()
        duration = as_int(obj.get("durationMs"))
        out.append(turn_notice(origin, said, duration, usage.input_tokens, usage.output_tokens,
                               usage.cache_read_tokens, None, level))  # fmt: skip
        out.append(TurnEnded(origin, duration_ms=duration))


def _loop_event(event: object, origin: Origin, out: Out) -> None:
    """One event of the agent's loop (upstream ``loopEventFold.ts``)."""
    kind = event.get("type") if isinstance(event, dict) else None
    if not isinstance(event, dict) or not isinstance(kind, str):
        out.append(Notice(origin, kind="kimi", text="A loop event of no type."))
    elif kind == "tool.call":
        out.append(_tool_call(event, origin))
    elif kind == "tool.result":
        out.append(_tool_result(event, origin))
    elif kind == "content.part":
        _content_part(event.get("part"), origin, out)
    elif kind == "step.begin" or kind == "step.end":
        out.append(Ignored(origin, kind=kind))
    else:
        out.append(Notice(origin, kind="kimi", text=f"A loop event of an unknown type: {kind}"))


def _tool_call(event: dict[str, Any], origin: Origin) -> ToolCall:
    call_id = text_or_none(event.get("toolCallId")) or str(event.get("uuid") or "")
    name = text_or_none(event.get("name")) or "tool"
    raw = event.get("args")
    args = loads_maybe(raw) if isinstance(raw, str) else raw
    given = args if isinstance(args, dict) else None
    raw_input = raw if isinstance(raw, str) and given is None else None
    return ToolCall(origin, call_id=call_id, name=name, input=given, raw_input=raw_input)


def _tool_result(event: dict[str, Any], origin: Origin) -> ToolResult:
    call_id = text_or_none(event.get("toolCallId")) or str(event.get("parentUuid") or "")
    result = event.get("result")
    if not isinstance(result, dict):
        return ToolResult(origin, call_id=call_id, output=text_of(result))
    output = result.get("output")
    text = output if isinstance(output, str) else text_of(output)
    return ToolResult(origin, call_id=call_id, output=text, is_error=result.get("isError") is True)


def _content_part(part: object, origin: Origin, out: Out) -> None:
    kind = part.get("type") if isinstance(part, dict) else None
    if kind == "text" and isinstance(part, dict):
        text = part.get("text")
        if isinstance(text, str) and text and not text.isspace():
            out.append(AssistantText(origin, text=text))
            return
    elif kind == "think" and isinstance(part, dict):
        think = part.get("think")
        if isinstance(think, str) and think and not think.isspace():
            out.append(Thinking(origin, text=think))
            return
    out.append(Ignored(origin, kind=f"content.part {kind or ''}".strip()))


def _other(obj: dict[str, Any], kind: str, origin: Origin) -> Record:
    """A record of no turn's text or tool: compaction, cancellation, settings, bookkeeping."""
    if kind == "context.apply_compaction":
        summary = obj.get("summary")
        text = summary if isinstance(summary, str) else text_of(obj.get("contextSummary"))
        before = as_int(obj.get("tokensBefore"))
        return Compaction(origin, pre_tokens=before, summary=text.strip() or None)
    if kind == "turn.cancel":
        if obj.get("target") == "queued":
            return Ignored(origin, kind=kind)
        return Notice(origin, kind="interrupted", text="The turn was cancelled.", level="warning")
    if kind == "context.clear":
        return Notice(origin, kind="clear", text="The context was cleared.")
    if kind in QUIET_TYPES:
        return Ignored(origin, kind=kind)
    return Notice(origin, kind="kimi", text=f"A record of an unknown type: {kind}")


def _is_epoch(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=False,
    produced_by="Kimi Code session files (`~/.kimi-code/sessions/<workdir>/<session>/agents/"
    "main/wire.jsonl`)",
)
