"""Format: OpenAI Codex ``codex exec --json`` (Codex ≥0.44), and the legacy stream that the
same command wrote before (≤0.43: ``{"id", "msg"}`` events, see ``codex_exec_legacy``). A
legacy stream names no session: its session is named after the source (``source#2`` for the
second run appended to one file, each run starting with its configuration line).

One JSON object a line, ``type`` naming the event. No line has a timestamp, a model or a cost.

- ``thread.started {thread_id}``: the first line, and the only one naming the session (later
  lines carry no id) → SessionStarted. ``codex exec resume`` starts another run of the same
  thread with it: a new run numbers its items from ``item_0`` again, so the call ids of every
  run but the first get the run's number (``item_3@2``).
- ``turn.started`` → Ignored. ``turn.completed {usage}`` → SessionResult(succeeded), its text the
  turn's last agent message (its ``final_answer`` if it has one): ``usage`` is the thread's
  running total, so the turn's own tokens are the difference from the thread's previous
  ``turn.completed`` (its input less the cached input, which OpenAI's input counts too).
  ``turn.failed {error}`` → SessionResult(failed). A session of several turns
  (or resumed runs) has several results; the session keeps the last.
- ``item.started|updated|completed {item}`` → see ``codex_exec_items``; ``item.plan.delta
  {item_id, delta}`` → Ignored, the text held until its plan item completes (said by ``finish``
  if it never does).
- ``error {message}`` → Notice: ``Reconnecting... n/5`` retries at info, others as warnings (a
  turn that fails says so with ``turn.failed``). ``request_user_input {questions}`` →
  Notice(warning). Any other type → Notice.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.codex_exec_items import TOOL_ITEMS, other_item, tool_item
from bot.formats.codex_exec_legacy import (
    LegacyStream,
    Tokens,
    fresh,
    is_config,
    is_legacy,
    tokens_of,
)
from bot.formats.common import api_error_text, remember
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.records import AssistantText, Ignored, Notice, Origin, Record, SessionStarted
from bot.result_records import ResultStatus, SessionResult
from bot.values import clip, json_text

FAMILY = "codex-exec-json"
AGENT = "Codex"

Event = dict[str, Any]

_ITEM_PHASES: Final = ("started", "updated", "completed")
_RECONNECTING: Final = "Reconnecting"
_MAX_CALLS: Final = 4096
_MAX_PLANS: Final = 64


def detect(obj: object) -> bool:
    """A Codex event, by its name and the field that name requires, or a legacy line. The
    event names are dotted (``thread.started``, ``turn.*``, ``item.*``); the two plain ones
    (``error``, ``request_user_input``) only in Codex's exact shape."""
    if not isinstance(obj, dict):
        return False
    kind = obj.get("type")
    if not isinstance(kind, str):
        return "type" not in obj and is_legacy(obj)
    if kind.startswith("item."):
        if kind == "item.plan.delta":
            return isinstance(obj.get("item_id"), str) and isinstance(obj.get("delta"), str)
        item = obj.get("item")
        if kind[5:] not in _ITEM_PHASES or not isinstance(item, dict):
            return False
        return isinstance(item.get("id"), str) and isinstance(item.get("type"), str)
    if kind == "thread.started":
        return isinstance(obj.get("thread_id"), str)
    if kind == "turn.started":
        return len(obj) == 1
    if kind == "turn.completed":
        return isinstance(obj.get("usage"), dict)
    if kind == "turn.failed":
        return isinstance(obj.get("error"), dict)
    if kind == "error":
        return len(obj) == 2 and isinstance(obj.get("message"), str)
    if kind == "request_user_input":
        return isinstance(obj.get("call_id"), str) and isinstance(obj.get("questions"), list)
    return False


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    """Keeps the thread (lines name none), its running token total, the turn's answer, the tool
    calls said and not yet ended, and plan texts still streaming."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._session = source  # until a thread.started names it (a legacy stream never does)
        self._started = False
        self._thread_id: str | None = None
        self._run = 0
        self._usage: Tokens | None = None  # the thread's total at its last turn.completed
        self._answer: str | None = None
        self._final = False  # whether the answer is the turn's final_answer
        self._calls: OrderedDict[str, tuple[str, ...]] = OrderedDict()  # -> subagents linked
        self._plans: OrderedDict[str, str] = OrderedDict()
        self._line = 0
        self._legacy = LegacyStream(AGENT)
        self._legacy_runs = 1

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        if not isinstance(obj, dict):
            return None
        self._line = line
        kind = obj.get("type")
        if kind == "thread.started":
            return self._thread_started(obj, line)
        origin = Origin(self._session, None, line)
        if isinstance(kind, str):
            return self._begun(self._event(kind, obj, origin), origin)
        if "type" in obj:
            return None
        if self._started and is_config(obj):  # another run: another session (no resume then)
            self._legacy_runs += 1
            self._session, self._started = f"{self.source}#{self._legacy_runs}", False
            self._legacy = LegacyStream(AGENT)
            origin = Origin(self._session, None, line)
        return self._begun(self._legacy.read(obj, origin), origin)

    def finish(self) -> list[Record]:
        """A plan still streaming when the input ended: what came of it."""
        origin = Origin(self._session, None, self._line)
        out: list[Record] = [AssistantText(origin, text=text) for text in self._plans.values()]
        self._plans.clear()
        return out

    def _begun(self, records: list[Record] | None, origin: Origin) -> list[Record] | None:
        """``records``, after a SessionStarted if the session has none yet (a legacy stream, or
        a stream read from after its first line)."""
        if records is None or self._started:
            return records
        self._started = True
        if records and type(records[0]) is SessionStarted:
            return records
        return [SessionStarted(origin, agent=AGENT), *records]

    def _thread_started(self, obj: Event, line: int) -> list[Record]:
        thread = obj.get("thread_id")
        if isinstance(thread, str) and thread and thread != self._thread_id:
            self._thread_id = self._session = thread
            self._usage = None  # another thread: another running total
        self._run += 1
        self._started = True
        return [SessionStarted(Origin(self._session, None, line), agent=AGENT)]

    def _event(self, kind: str, obj: Event, origin: Origin) -> list[Record] | None:
        if kind.startswith("item."):
            return self._item_event(kind, obj, origin)
        if kind == "turn.completed":
            return [self._turn_completed(obj, origin)]
        if kind == "turn.started":
            self._answer, self._final = None, False
            return [Ignored(origin, kind=kind)]
        if kind == "turn.failed":
            self._answer, self._final = None, False
            error = _message(obj.get("error")) or "turn failed"
            return [SessionResult(origin, status=ResultStatus.FAILED, error=error)]
        if kind == "error":
            return [_error(obj, origin)]
        if kind == "request_user_input":
            return [_question(obj, origin)]
        rest = {key: value for key, value in obj.items() if key != "type"}
        return [Notice(origin, kind=kind, text=clip(f"Codex event {kind}: {json_text(rest)}"))]

    def _item_event(self, kind: str, obj: Event, origin: Origin) -> list[Record] | None:
        if kind == "item.plan.delta":
            return [self._plan_delta(obj, origin)]
        item, phase = obj.get("item"), kind[5:]
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            return None
        if phase not in _ITEM_PHASES:
            return [Notice(origin, kind=kind, text=clip(f"Codex event {kind}: {json_text(item)}"))]
        item_type, item_id = item["type"], str(item.get("id") or "")
        if item_type in TOOL_ITEMS:
            call_id = item_id if self._run < 2 else f"{item_id}@{self._run}"
            records, linked = tool_item(phase, item, call_id, self._calls.get(call_id), origin)
            if phase == "completed":
                self._calls.pop(call_id, None)
            else:
                remember(self._calls, call_id, linked, _MAX_CALLS)
            return records or [Ignored(origin, kind=f"{item_type} {phase}")]
        if phase == "completed" and item_type == "agent_message":
            self._answered(item)
        elif phase == "completed" and item_type == "plan":
            self._plans.pop(item_id, None)
        return [other_item(phase, item, origin)]

    def _answered(self, item: Event) -> None:
        text = item.get("text")
        if not isinstance(text, str) or not text:
            return
        if item.get("phase") == "final_answer":
            self._answer, self._final = text, True
        elif not self._final:
            self._answer = text

    def _plan_delta(self, obj: Event, origin: Origin) -> Record:
        item_id, delta = str(obj.get("item_id") or ""), obj.get("delta")
        if isinstance(delta, str):
            remember(self._plans, item_id, self._plans.get(item_id, "") + delta, _MAX_PLANS)
        return Ignored(origin, kind="plan delta")

    def _turn_completed(self, obj: Event, origin: Origin) -> SessionResult:
        total = tokens_of(obj.get("usage"))
        given, cached, output, reasoning = fresh(_since(total, self._usage))
        self._usage = total
        text = self._answer
        self._answer, self._final = None, False
        return SessionResult(
            origin,
            status=ResultStatus.SUCCEEDED,
            text=text,
            input_tokens=given,
            output_tokens=output,
            cache_read_tokens=cached,
            reasoning_tokens=reasoning,
        )


def _since(total: Tokens, before: Tokens | None) -> Tokens:
    """A turn's own tokens: the thread's total less its total at the turn before."""
    if before is None:
        return total
    return (_less(total[0], before[0]), _less(total[1], before[1]),
            _less(total[2], before[2]), _less(total[3], before[3]))  # fmt: skip


def _less(now: int | None, then: int | None) -> int | None:
    if now is None or then is None or then > now:  # a total that went down started again
        return now
    return now - then


def _error(obj: Event, origin: Origin) -> Notice:
    message = _message(obj.get("message"))
    if message.startswith(_RECONNECTING):
        return Notice(origin, kind="status", text=clip(message))  # a retry: low-key
    return Notice(origin, kind="error", text=clip(message), level="warning")


def _question(obj: Event, origin: Origin) -> Notice:
    questions = obj.get("questions")
    asked: list[str] = []
    for question in questions if isinstance(questions, list) else []:
        if isinstance(question, dict):
            asked.append(str(question.get("question") or question.get("header") or ""))
    text = "Codex asks for input: " + " / ".join([q for q in asked if q])
    return Notice(origin, kind="request_user_input", text=clip(text), level="warning")


def _message(value: object) -> str:
    """An error's text: ``{message}``, a string, or the JSON of whatever else it is; a text that
    is the API's JSON error envelope is said by its inner message (``api_error_text``)."""
    if isinstance(value, dict):
        message = value.get("message")
        return api_error_text(message) if isinstance(message, str) and message else json_text(value)
    if isinstance(value, str):
        return api_error_text(value)
    return "" if value is None else json_text(value)


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=True,
    produced_by="`codex exec --json`",
)
