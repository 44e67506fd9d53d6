"""Format: codex-rollout — OpenAI Codex session files,
``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``, of every CLI era (0.40 to 0.144).
Each line is ``{timestamp, type, payload}``; line → records:

- ``session_meta`` → SessionStarted (agent named by ``originator``, ``cwd``, ``cli_version``).
  A sub-agent's file (``source.subagent.thread_spawn.parent_thread_id``) is read into its
  parent's session: every record gets ``subagent`` = its own thread id, a SubagentLink with no
  call says so (the session holds its records until the parent's side names the spawn call),
  and it starts no session of its own. The first ``session_meta`` names the session (a forked
  file repeats its source's); without one, the session is the uuid of a ``rollout-…`` file
  name, else the source's name;
- ``turn_context`` → SessionStarted again when the model changes; ``task_started`` after a
  result → SessionStarted (a new turn of the session), else Ignored;
- ``response_item`` ``message``/``reasoning`` and ``event_msg`` ``user_message``/
  ``agent_message``/``agent_reasoning`` → UserText, AssistantText, Thinking, each text read once
  (see ``codex_rollout_texts``); tool calls and their outputs: see ``codex_rollout_tools``;
- ``token_count`` → Usage: what it says was spent since the count before (see
  ``codex_rollout_turns.Tokens``), Ignored when nothing (``info`` may be null, or repeated).
  How a turn's end reads depends on what the rollout records: one ``codex exec`` run
  (``session_meta.source`` "exec", or, in the builds that wrote no ``source``, ``originator``
  "codex_exec"), or an interactive thread (any other source: cli, vscode, mcp, a custom
  client; a file with no ``session_meta``, which Codex writes first in every rollout, is a
  fragment of one and read as one):

  - a run: ``task_complete`` → SessionResult(succeeded, last_agent_message, duration_ms, its
    model; no tokens: the session shows its run's Usage on it), ``turn_aborted`` →
    SessionResult(failed, subtype "aborted"); a ``task_started`` after a result starts the
    session again (``codex exec resume`` writes on in the same file); a session takes its last
    result;
  - a thread: ``task_complete`` → TurnEnded(duration_ms) after a Notice("turn") that says the
    turn's time and tokens (the thread shows it; the root's figures are the Usage's) and the
    final answer as AssistantText when no message said it; ``turn_aborted`` →
    Notice("interrupted"), which ends the turn and interrupts its open calls. Before 0.4x a
    rollout recorded no ``task_*`` event: until one is read, an assistant message that is
    not commentary (``phase``) ends the turn (a call after it moves the session on again);
  - a sub-agent's file: its turns are not the session's: ``task_complete`` → Ignored,
    ``turn_aborted`` → Notice("aborted");
- ``compacted`` → Compaction; ``error``/``warning``/``stream_error`` and a few others → Notice;
  events understood but never shown → Ignored; any other type → Notice.
"""

from __future__ import annotations

import re
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats import codex_rollout_tools as tools
from bot.formats.codex_rollout_texts import Texts
from bot.formats.codex_rollout_turns import Tokens, is_exec_run, run_result
from bot.formats.common import api_error_text, to_utc, turn_notice
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
    SubagentLink,
)
from bot.result_records import TurnEnded
from bot.values import as_int, text_or_empty

FAMILY = "codex-rollout"
AGENT = "Codex"

Out = list[Record]

_LINE_TYPES: Final = frozenset({"session_meta", "turn_context", "response_item", "event_msg",
                                 "compacted"})  # fmt: skip
# Newer line types that hold nothing a channel reader wants (context baselines, manifests).
# (An inter-agent communication's text is read from the ``agent_message`` item recorded for it.)
_QUIET_LINES: Final = frozenset({"world_state", "tool_manifest", "sampling_boundary",
                                 "inter_agent_communication",
                                 "inter_agent_communication_metadata"})  # fmt: skip
_FILE_NAME: Final = re.compile(
    r"rollout-.*?([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"
    r"\.jsonl$"
)
_AGENTS: Final = {
    "codex_exec": "Codex exec",
    "codex_cli_rs": "Codex CLI",
    "codex_vscode": "Codex (VS Code)",
}
_CALLS: Final = ("function_call", "custom_tool_call", "local_shell_call")
_FINISHED_CALLS: Final = ("web_search_call", "image_generation_call", "tool_search_call")
_OUTPUTS: Final = ("function_call_output", "custom_tool_call_output")
_QUIET_ITEMS: Final = frozenset({"ghost_snapshot", "compaction", "compaction_summary",
                                 "context_compaction"})  # fmt: skip
_QUIET_EVENTS: Final = frozenset({
    "agent_reasoning_raw_content", "context_compacted", "plan_update", "item_started",
    "item_completed", "exec_command_begin", "exec_command_end", "exec_command_output_delta",
    "web_search_begin", "web_search_end", "patch_apply_begin", "mcp_tool_call_begin",
    "collab_agent_spawn_begin", "collab_waiting_begin", "collab_close_begin",
    "collab_agent_interaction_begin", "collab_resume_begin", "turn_diff", "thread_name_updated",
    "thread_settings_applied", "hook_started", "session_configured", "shutdown_complete",
    "agent_message_delta", "agent_reasoning_delta", "agent_reasoning_section_break",
    "raw_response_item", "background_event", "mcp_startup_update", "mcp_startup_complete",
})  # fmt: skip
_NOTICES: Final = {  # event → (notice kind, level)
    "error": ("error", "error"),
    "warning": ("warning", "warning"),
    "stream_error": ("reconnecting", "info"),
    "model_reroute": ("model", "info"),
    "entered_review_mode": ("review", "info"),
    "exited_review_mode": ("review", "info"),
    "undo_completed": ("undo", "info"),
    "thread_rolled_back": ("rollback", "warning"),
    "hook_completed": ("hook", "info"),
    "deprecation_notice": ("deprecation", "info"),
}
_COLLAB_ENDS: Final = ("collab_waiting_end", "collab_agent_interaction_end", "collab_close_end",
                       "collab_resume_end")  # fmt: skip
_COMMENTARY: Final = "commentary"  # an assistant message's phase before its final answer


def detect(obj: object) -> bool:
    """A rollout line: ``type`` one of the rollout's own line types, ``payload`` an object. No
    other family's values have a ``payload`` (the legacy ``exec --json`` lines are ``{id, msg}``,
    its config and prompt lines have neither)."""
    return (
        isinstance(obj, dict)
        and isinstance(kind := obj.get("type"), str)
        and (kind in _LINE_TYPES or kind in _QUIET_LINES)
        and isinstance(obj.get("payload"), dict)
    )


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    def __init__(self, source: str) -> None:
        self.source = source
        found = _FILE_NAME.search(source)
        self._session = found.group(1) if found is not None else source
        self._subagent: str | None = None  # this file's thread, when it is a sub-agent's
        self._named = False  # a session_meta named the session
        self._started = False
        self._agent = AGENT
        self._cwd: str | None = None
        self._version: str | None = None
        self._model: str | None = None
        self._results = 0  # results since the last SessionStarted
        self._exec = False  # one ``codex exec`` run, as its session_meta says (module doc)
        self._turn_events = False  # a task_started or task_complete was read (0.4x on)
        self._texts = Texts()
        self._tokens = Tokens()
        self._calls = tools.Calls()

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        if not isinstance(obj, dict):
            return None
        kind, payload = obj.get("type"), obj.get("payload")
        if not isinstance(kind, str) or not isinstance(payload, dict):
            return None
        origin = Origin(self._session, to_utc(obj.get("timestamp")), line, None, self._subagent)
        out: Out = []
        if kind == "session_meta":
            return self._session_meta(payload, origin, out)
        if not self._started and self._subagent is None and kind != "turn_context":
            self._start(origin, out)
        if kind == "response_item":
            self._item(payload, origin, out)
        elif kind == "event_msg":
            self._event(payload, origin, out)
        elif kind == "turn_context":
            self._turn_context(payload, origin, out)
        elif kind == "compacted":
            out.append(Compaction(origin, summary=text_or_empty(payload.get("message")) or None))
        elif kind in _QUIET_LINES:
            out.append(Ignored(origin, kind=kind))
        else:
            out.append(_notice(origin, kind, f"Codex wrote a line of type {kind}."))
        return out

    # -- the session ----------------------------------------------------------------------

    def _session_meta(self, payload: dict[str, Any], origin: Origin, out: Out) -> Out:
        thread = text_or_empty(payload.get("id")) or text_or_empty(payload.get("session_id"))
        if self._named or not thread:  # a forked file repeats its source's session_meta
            out.append(Ignored(origin, kind="session_meta"))
            return out
        self._named = True
        self._cwd = text_or_empty(payload.get("cwd")) or self._cwd
        self._version = text_or_empty(payload.get("cli_version")) or self._version
        originator = text_or_empty(payload.get("originator"))
        self._agent = _agent_name(originator)
        self._exec = is_exec_run(payload.get("source"), originator)
        parent = _parent_thread(payload)
        if parent:
            self._session, self._subagent = parent, thread
            origin = Origin(parent, origin.timestamp, origin.line, None, thread)
            out.append(SubagentLink(origin, agent_id=thread, call_id=""))
            return out
        self._session = thread
        origin = Origin(thread, origin.timestamp, origin.line)
        self._start(origin, out)
        return out

    def _start(self, origin: Origin, out: Out) -> None:
        self._started, self._results = True, 0
        out.append(SessionStarted(origin, agent=self._agent, model=self._model, cwd=self._cwd,
                                  version=self._version))  # fmt: skip

    def _turn_context(self, payload: dict[str, Any], origin: Origin, out: Out) -> None:
        model = text_or_empty(payload.get("model"))
        self._cwd = text_or_empty(payload.get("cwd")) or self._cwd
        changed = bool(model) and model != self._model
        self._model = model or self._model
        if self._subagent is None and (changed or not self._started):
            self._start(origin, out)  # the model is announced, or changed
        else:
            out.append(Ignored(origin, kind="turn_context"))

    # -- response items -------------------------------------------------------------------

    def _item(self, payload: dict[str, Any], origin: Origin, out: Out) -> None:
        kind = payload.get("type")
        if kind == "message":
            self._texts.message(payload, origin, out)
            if payload.get("role") == "assistant":
                self._answered(payload, origin, out)
        elif kind == "reasoning":
            self._texts.reasoning(payload, origin, out)
        elif kind in _CALLS:
            self._call(kind, payload, origin, out)
        elif kind in _OUTPUTS:
            tools.call_output(payload, origin, self._calls, out)
        elif kind in _FINISHED_CALLS:
            tools.finished_call(str(kind), payload, origin, self._calls, out)
        elif kind == "tool_search_output":
            tools.tool_search_output(payload, origin, self._calls, out)
        elif kind == "agent_message":
            self._texts.agent_message(payload, origin, out)
        elif isinstance(kind, str) and kind in _QUIET_ITEMS:
            out.append(Ignored(origin, kind=kind))
        else:
            out.append(_notice(origin, str(kind), f"Codex recorded an item of type {kind}."))

    def _call(self, kind: object, payload: dict[str, Any], origin: Origin, out: Out) -> None:
        calls = self._calls
        if kind == "function_call":
            tools.function_call(payload, origin, calls, out)
        elif kind == "custom_tool_call":
            tools.custom_tool_call(payload, origin, calls, out)
        else:
            tools.local_shell_call(payload, origin, calls, out)

    # -- events ---------------------------------------------------------------------------

    def _event(self, payload: dict[str, Any], origin: Origin, out: Out) -> None:
        kind = payload.get("type")
        if not isinstance(kind, str):
            out.append(_notice(origin, "event", "Codex wrote an event with no type."))
        elif kind == "token_count":
            spent = self._tokens.add(payload.get("info"), origin)
            out.append(Ignored(origin, kind=kind) if spent is None else spent)
        elif kind in ("user_message", "agent_message", "agent_reasoning"):
            self._texts.event(kind, payload, origin, out)
            if kind == "agent_message":
                self._answered(payload, origin, out)
        elif kind in ("task_started", "turn_started"):
            self._turn_started(origin, out)
        elif kind in ("task_complete", "turn_complete", "turn_aborted"):
            self._result(kind, payload, origin, out)
        elif kind in _QUIET_EVENTS:
            out.append(Ignored(origin, kind=kind))
        else:
            self._tool_event(kind, payload, origin, out)

    def _tool_event(self, kind: str, payload: dict[str, Any], origin: Origin, out: Out) -> None:
        calls = self._calls
        if kind == "mcp_tool_call_end":
            tools.mcp_call_end(payload, origin, calls, out)
        elif kind == "collab_agent_spawn_end":
            tools.spawn_end(payload, origin, calls, out)
        elif kind in _COLLAB_ENDS:
            if calls.is_open(text_or_empty(payload.get("call_id"))):
                tools.collab_end(payload, origin, calls, out)
            else:
                out.append(Ignored(origin, kind=kind))
        elif kind == "patch_apply_end":
            call_id = text_or_empty(payload.get("call_id"))
            if payload.get("success") is False and calls.is_open(call_id):
                calls.patch_failed(call_id)
            out.append(Ignored(origin, kind=kind))  # its call's output says the same
        else:
            notice_kind, level = _NOTICES.get(kind, (kind, "info"))
            text = api_error_text(text_or_empty(payload.get("message")))
            text = text or _event_text(kind, payload)
            out.append(_notice(origin, notice_kind, text, level))

    def _answered(self, payload: dict[str, Any], origin: Origin, out: Out) -> None:
        """An assistant message of a rollout that records no turn events (before 0.4x): its
        answer ends the turn, unless it is commentary (said on the way) or empty."""
        if self._turn_events or self._exec or self._subagent is not None:
            return
        said = out[-1] if out else None
        if isinstance(said, AssistantText) and payload.get("phase") != _COMMENTARY:
            out.append(TurnEnded(origin))

    def _turn_started(self, origin: Origin, out: Out) -> None:
        self._turn_events = True
        if self._results and self._subagent is None:
            self._start(origin, out)  # a new run of a session that had a result
        else:
            out.append(Ignored(origin, kind="task_started"))

    def _result(self, kind: str, payload: dict[str, Any], origin: Origin, out: Out) -> None:
        self._turn_events = True
        aborted = kind == "turn_aborted"
        reason = text_or_empty(payload.get("reason")) or "no reason given"
        if self._subagent is not None:  # a sub-agent's turn is not the session's
            text = f"The sub-agent's turn was aborted ({reason})."
            out.append(_notice(origin, "aborted", text, "warning") if aborted else
                       Ignored(origin, kind=kind))  # fmt: skip
        elif self._exec:
            self._results += 1
            out.append(run_result(aborted, reason, payload, self._tokens, self._model, origin))
        elif aborted:  # the user stopped the turn: it ends, its open calls interrupted
            out.append(_notice(origin, "interrupted", f"The turn was aborted ({reason}).",
                               "warning"))  # fmt: skip
        else:
            self._turn_ended(payload, origin, out)

    def _turn_ended(self, payload: dict[str, Any], origin: Origin, out: Out) -> None:
        """A turn of an interactive thread ended: its final answer (when no message said it),
        its time and tokens said, then the end itself."""
        answer = text_or_empty(payload.get("last_agent_message"))
        if answer.strip():
            self._texts.final_answer(answer, origin, out)
        duration = as_int(payload.get("duration_ms"))
        fresh, cached, output, reasoning = self._tokens.turn()
        out.append(turn_notice(origin, "Completed", duration, fresh, output, cached, reasoning))
        out.append(TurnEnded(origin, duration_ms=duration))


# -- small helpers ---------------------------------------------------------------------------


def _parent_thread(payload: dict[str, Any]) -> str:
    """The thread that spawned this one (``source.subagent.thread_spawn.parent_thread_id``)."""
    source = payload.get("source")
    subagent = source.get("subagent") if isinstance(source, dict) else None
    spawn = subagent.get("thread_spawn") if isinstance(subagent, dict) else None
    if isinstance(spawn, dict):
        return text_or_empty(spawn.get("parent_thread_id"))
    if payload.get("thread_source") == "subagent":
        return text_or_empty(payload.get("parent_thread_id"))
    return ""


def _agent_name(originator: str) -> str:
    if not originator:
        return AGENT
    known = _AGENTS.get(originator)
    if known is not None:
        return known
    return originator if originator.lower().startswith("codex") else f"{AGENT} ({originator})"


def _event_text(kind: str, payload: dict[str, Any]) -> str:
    if kind == "model_reroute":
        return f"Model rerouted from {payload.get('from_model')} to {payload.get('to_model')}."
    return f"Codex event {kind}."


def _notice(origin: Origin, kind: str, text: str, level: str = "info") -> Notice:
    return Notice(origin, kind=kind, text=text, level=level)


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=False,
    produced_by="Codex session files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`)",
)
