"""Format: opencode-json — OpenCode's ``opencode run --format json``.

One JSON object a line, ``{type, timestamp (epoch ms), sessionID, …}``; there is no init line, so
no model, cwd or version. Line → records:

- the first line of a session id → also SessionStarted;
- ``text`` → AssistantText (a text part, sent whole once it ends); ``reasoning`` → Thinking;
- ``tool_use`` (sent only once the call has ended: there is no start event) → ToolCall then its
  ToolResult at once; failed when ``state.status`` is ``error`` or the exit code (``metadata.exit``
  in some versions, ``metadata.exitCode`` in others) is not 0; ``todowrite`` → also TodoUpdate;
  ``task`` → Delegation (the call itself) + SubagentLink to the child session
  (``metadata.sessionId``), whose own parts the stream never carries;
- ``step_start`` → Ignored; ``step_finish`` → Usage (the step's own cost and tokens: the
  session adds them up, and shows its run's on the run's result, which gives none of its own);
  ``reason: "stop"`` → also SessionResult(succeeded), another reason than ``tool-calls`` →
  also Notice;
- ``error`` → SessionResult(failed); ``done`` (newer versions, once the session is idle) →
  SessionResult(succeeded) if none came since the last step began, else Ignored (or a notice of
  the permissions it rejected);
- another type → Notice.

The stream is one run: ``opencode run`` sends one prompt and exits once the session is idle
(upstream ``packages/opencode/src/cli/cmd/run.ts``, which writes ``done {reason: "idle"}`` then;
``--format json`` is refused in its interactive mode). So its end is the session's result, not a
turn's end that waits for the user (no TurnEnded): a later ``opencode run --session`` is a new
run of the session. A stream can end with no result at all (a ``step_finish`` with no reason
and no ``done``), so the family does not report one for every session. Drift tolerated: parts
without ``id`` or ``sessionID`` (the line's own ``sessionID`` is used), ``tokens.total``
(ignored: the parts are summed).
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime, timedelta
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.common import remember, text_of, to_utc, todos_of, usage_or_none
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.records import (
    AssistantText,
    Delegation,
    Ignored,
    Notice,
    Origin,
    Record,
    SessionStarted,
    SubagentLink,
    Thinking,
    TodoUpdate,
    ToolCall,
    ToolResult,
    Usage,
)
from bot.result_records import PermissionDenial, ResultStatus, SessionResult
from bot.values import as_float, as_int, clip, dict_or_empty, json_text, text_or_none

FAMILY = "opencode-json"
AGENT = "OpenCode"

# Tuples, not sets: membership by equality never fails on an unhashable JSON value.
_PART_TYPES: Final = ("step_start", "step_finish", "text", "reasoning", "tool_use")
_ENDED: Final = ("completed", "error")
_MAX_SESSIONS: Final = 256
_ONE_MS: Final = timedelta(milliseconds=1)

Line = dict[str, Any]


def detect(obj: object) -> bool:
    """A line of ``opencode run --format json``: a ``sessionID`` (upper-case ``ID``: Claude's
    transcripts write ``sessionId``, its stream ``session_id``) and one of its own types, a part
    for the part types, the error for ``error``."""
    if not isinstance(obj, dict):
        return False
    session = obj.get("sessionID")
    if not isinstance(session, str) or not session:
        return False
    kind = obj.get("type")
    if kind in _PART_TYPES:
        return isinstance(obj.get("part"), dict)
    if kind == "error":
        return "error" in obj
    return kind == "done"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class _Steps:
    """One session's run: when it began, its steps, its last text, and whether it has ended
    since its last step began."""

    def __init__(self, first_at: datetime | None) -> None:
        self.first_at = first_at
        self.steps = 0
        self.last_text: str | None = None
        self.ended = False

    def result(
        self,
        origin: Origin,
        failed: bool,
        subtype: str | None,
        error: str | None,
        denials: tuple[PermissionDenial, ...] = (),
    ) -> SessionResult:
        """The run's result. Its cost and tokens are its steps' (each a Usage): it gives none
        of its own, and the session shows the steps' sum on it."""
        self.ended = True
        at, first = origin.timestamp, self.first_at
        duration = None if at is None or first is None else (at - first) // _ONE_MS
        result = SessionResult(
            origin,
            status=ResultStatus.FAILED if failed else ResultStatus.SUCCEEDED,
            subtype=subtype,
            text=self.last_text,
            error=error,
            duration_ms=duration,
            num_turns=self.steps or None,
            permission_denials=denials,
        )
        # A later result counts its steps and its time from this one: the session adds up
        # its results' durations and turns.
        self.steps = 0
        self.first_at = at if at is not None else first
        return result


def step_usage(part: Line, origin: Origin) -> Usage | None:
    """A finished step's own cost and tokens (each step reports its own: the session adds
    them up); ``None`` when it gives neither. ``tokens.total`` is not read."""
    cost = as_float(part.get("cost"))
    tokens = dict_or_empty(part.get("tokens"))
    cache = dict_or_empty(tokens.get("cache"))
    return usage_or_none(
        Usage(
            origin,
            cost_usd=cost,
            input_tokens=as_int(tokens.get("input")),
            output_tokens=as_int(tokens.get("output")),
            cache_read_tokens=as_int(cache.get("read")),
            cache_write_tokens=as_int(cache.get("write")),
            reasoning_tokens=as_int(tokens.get("reasoning")),
        )
    )


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    """Keeps each session's sums over its steps (a bounded number of sessions)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._sessions: OrderedDict[str, _Steps] = OrderedDict()

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        if not isinstance(obj, dict):
            return None
        kind = obj.get("type")
        session = obj.get("sessionID")
        if not isinstance(kind, str) or not isinstance(session, str) or not session:
            return None
        part = obj.get("part")
        if kind in _PART_TYPES and not isinstance(part, dict):
            return None
        origin = Origin(session, to_utc(obj.get("timestamp")), line)
        out: list[Record] = []
        steps = self._sessions.get(session)
        if steps is None:
            steps = _Steps(origin.timestamp)
            remember(self._sessions, session, steps, _MAX_SESSIONS)
            out.append(SessionStarted(origin, agent=AGENT))
        if isinstance(part, dict):
            _part(kind, part, steps, origin, out)
        elif kind == "error":
            out.append(_error(obj.get("error"), steps, origin))
        elif kind == "done":
            out.append(_done(obj, steps, origin))
        else:  # a type newer than this module
            out.append(Notice(origin, kind=kind, text=clip(f"{kind}: {json_text(obj)}")))
        return out


def _part(kind: str, part: Line, steps: _Steps, origin: Origin, out: list[Record]) -> None:
    if kind == "tool_use":
        _tool_use(part, origin, out)
    elif kind == "text":
        text = part.get("text")
        if isinstance(text, str) and text.strip():
            steps.last_text = text
            message_id = part.get("messageID")
            mid = message_id if isinstance(message_id, str) and message_id else None
            out.append(AssistantText(origin, text=text, message_id=mid))
        else:
            out.append(Ignored(origin, kind="empty text"))
    elif kind == "reasoning":
        text = part.get("text")
        if isinstance(text, str) and text.strip():
            out.append(Thinking(origin, text=text))
        else:
            out.append(Ignored(origin, kind="empty reasoning"))
    elif kind == "step_start":
        steps.ended = False
        out.append(Ignored(origin, kind=kind))
    else:
        _step_finish(part, steps, origin, out)


def _step_finish(part: Line, steps: _Steps, origin: Origin, out: list[Record]) -> None:
    steps.steps += 1
    usage = step_usage(part, origin)
    if usage is not None:
        out.append(usage)
    reason = part.get("reason")
    if reason == "stop":
        out.append(steps.result(origin, False, "stop", None))
    elif reason is None or reason == "tool-calls":  # the step ends, the session goes on
        if usage is None:
            out.append(Ignored(origin, kind="step_finish"))
    else:
        text = f"The model stopped: {reason}"
        out.append(Notice(origin, kind="step_finish", text=text, level="warning"))


def _tool_use(part: Line, origin: Origin, out: list[Record]) -> None:
    call = part.get("callID") or part.get("id")
    call_id = call if isinstance(call, str) else ""
    tool = part.get("tool")
    name = tool if isinstance(tool, str) else ""
    state = dict_or_empty(part.get("state"))
    given = state.get("input")
    arguments = given if isinstance(given, dict) else {}
    metadata = dict_or_empty(state.get("metadata"))
    if name == "task":
        out.append(_delegation(call_id, arguments, origin))
        child = metadata.get("sessionId")
        if isinstance(child, str) and child:
            out.append(SubagentLink(origin, agent_id=child, call_id=call_id))
    else:
        raw = given if isinstance(given, str) else None
        out.append(ToolCall(origin, call_id=call_id, name=name, input=arguments, raw_input=raw))
        todos = arguments.get("todos")
        if name == "todowrite" and isinstance(todos, list):
            out.append(TodoUpdate(origin, todos=todos_of(todos), call_id=call_id or None))
    status = state.get("status")
    if status in _ENDED:
        out.append(_tool_result(call_id, name, status, state, metadata, origin))


def _delegation(call_id: str, arguments: Line, origin: Origin) -> Delegation:
    member = arguments.get("subagent_type")
    task = arguments.get("description") or arguments.get("prompt")
    return Delegation(
        origin,
        call_id=call_id,
        member=member if isinstance(member, str) else "",
        task=task if isinstance(task, str) else "",
    )


def _tool_result(
    call_id: str, name: str, status: object, state: Line, metadata: Line, origin: Origin
) -> ToolResult:
    failed = status == "error"
    output = text_of(state.get("error") if failed else state.get("output"))
    exit_code = as_int(metadata.get("exit"))
    if exit_code is None:
        exit_code = as_int(metadata.get("exitCode"))
    return ToolResult(
        origin,
        call_id=call_id,
        output=output,
        is_error=failed or (exit_code is not None and exit_code != 0),
        name=name or None,
    )


def _error(error: object, steps: _Steps, origin: Origin) -> SessionResult:
    """The session failed: ``{name, data: {message, statusCode, …}}``, or a bare text."""
    details = dict_or_empty(error)
    name = details.get("name")
    subtype = name if isinstance(name, str) and name else None
    data = dict_or_empty(details.get("data"))
    message = data.get("message") or details.get("message")
    if isinstance(message, str) and message:
        text: str | None = message
    elif isinstance(error, str) and error:
        text = error
    else:
        text = subtype
    steps.last_text = None  # the answer so far is not the outcome of a failed session
    return steps.result(origin, True, subtype, clip(text) if text else None)


def _done(obj: Line, steps: _Steps, origin: Origin) -> Record:
    """The session went idle: its end, unless a result already said so."""
    rejected = obj.get("rejected")
    names = [n for n in rejected if isinstance(n, str)] if isinstance(rejected, list) else []
    if not steps.ended:
        denials = tuple([PermissionDenial(tool_name=name) for name in names])
        return steps.result(origin, False, text_or_none(obj.get("reason")) or "done", None, denials)
    if names:
        text = "Permissions rejected: " + ", ".join(names)
        return Notice(origin, kind="permission_denied", text=clip(text), level="warning")
    return Ignored(origin, kind="done")


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=False,
    produced_by="`opencode run --format json`",
)
