"""Format: claude-transcript — Claude Code's session files (``~/.claude/projects/<p>/<s>.jsonl``,
a subagent's ``<s>/subagents/agent-<id>.jsonl``) and the seed-001 variant. Line → records:

- first line with a ``uuid`` of a new ``sessionId`` → also SessionStarted (title: the last
  ``summary`` read before it); ``summary``, ``file-history-snapshot``, ``queue-operation``,
  unknown line types → Ignored(type);
- assistant: its model, when new for the session → SessionStarted again (its details only);
  text → AssistantText (blank skipped), thinking → Thinking, tool_use → ToolCall
  (+ TodoUpdate for TodoWrite); an API error → Notice("api_error") (synthetic "No response
  requested." → Ignored);
- user: a person's text → UserText ("/name args" for ``<command-name>``); what Claude Code
  wrote itself (``isMeta``, a sidechain's prompt, a task notification…: see
  ``claude_user_text``) → Notice, Compaction or Ignored; command
  output → Notice("command"); "[Request interrupted by user…]" → Notice("interrupted"); a second
  prompt under one parent → Notice("rewind") first; tool_result → ToolResult (``interrupted``
  when the user interrupted or rejected the call);
- system (and seed-001's compact_system): see ``claude_transcript_system``; a compaction is
  merged with the ``isCompactSummary`` line after it; an assistant message with ``stop_reason:
  end_turn`` → also TurnEnded (a turn's end only on the session's own lines, never a subagent's);
- progress: agent_progress → SubagentLink (once per agent) plus the subagent's tool calls and
  results it embeds (not its text: tool records are idempotent by call id if the subagent's own
  file is followed too); other progress → Ignored(data.type);
- sidechain lines carry ``subagent`` and ``parent_call`` (see ``claude_transcript_links``); an
  agent first seen with no call known (its own file, read before its parent's) → SubagentLink
  with no ``call_id`` first: the session holds its records until a link names the call; a
  compaction summariser's file (agent ``acompact-*``) → one Compaction, the rest Ignored;
- seed-001 (``message`` a string): tool_use → ToolCall(call_id=uuid), answered by a system line.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.claude_transcript_links import (
    MAX_WAITING,
    Rewinds,
    SeedCalls,
    SubagentLinks,
    command_output,
    shown,
    slash_command,
    summary_of,
    texts,
    was_interrupted,
)
from bot.formats.claude_transcript_system import (
    command_notice,
    compact_system_records,
    end_turn,
    ignored,
    notice,
    system_records,
)
from bot.formats.claude_user_text import (
    harness_record,
    meta_record,
    person_text,
    subagent_prompt,
)
from bot.formats.common import loads_maybe, remember, text_of, to_utc, todos_of
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.records import (
    AssistantText,
    Compaction,
    Origin,
    Record,
    SessionStarted,
    SubagentLink,
    Thinking,
    TodoUpdate,
    ToolCall,
    ToolResult,
    UserText,
)
from bot.values import blank, text_or_none

FAMILY = "claude-transcript"
AGENT = "Claude Code"

Out = list[Record]

# tuples, not sets: a malformed line's "type" may be unhashable
_OWN_TYPES: Final = ("file-history-snapshot", "queue-operation", "summary", "compact_system")
_TASK_TOOLS: Final = ("Task", "Agent")
_TOOL_USES: Final = ("tool_use", "server_tool_use", "mcp_tool_use")
_REWIND: Final = "The user went back to an earlier message; the conversation branches from there."


def detect(obj: object) -> bool:
    """camelCase ``sessionId``/``parentUuid``/``leafUuid`` or one of the transcript's own line
    types; stream-json lines have a snake-case ``session_id`` and none of these."""
    if not isinstance(obj, dict):
        return False
    if "projectHash" in obj:  # a Gemini CLI session file's header (or whole document)
        return False
    return (
        "sessionId" in obj
        or "parentUuid" in obj
        or "leafUuid" in obj
        or obj.get("type") in _OWN_TYPES
    )


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    def __init__(self, source: str) -> None:
        self.source = source
        self._session = ""
        self._started: OrderedDict[str, None] = OrderedDict()  # sessions already announced
        self._models: OrderedDict[str, str] = OrderedDict()  # the model each session last named
        self._title: str | None = None
        self._sidechain = False  # whether the line being read is a subagent's
        self._links = SubagentLinks()
        self._compaction: Compaction | None = None  # a compact_boundary awaiting its summary
        self._rewinds = Rewinds()
        self._seed_calls = SeedCalls()

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        if not detect(obj):
            return None
        kind = obj.get("type")
        out: Out = []
        pending, self._compaction = self._compaction, None
        if pending is not None:
            if kind == "user" and obj.get("isCompactSummary"):
                return [replace(pending, summary=summary_of(obj.get("message")))]
            out.append(pending)
        self._line(obj, kind, line, out)
        return out

    def finish(self) -> list[Record]:
        pending, self._compaction = self._compaction, None
        return [] if pending is None else [pending]

    def _line(self, obj: dict[str, Any], kind: object, line: int, out: Out) -> None:
        session = obj.get("sessionId")
        if session and isinstance(session, str):
            self._session = session
        else:
            session = self._session
        parent = subagent = None
        sidechain = self._sidechain = obj.get("isSidechain") is True
        if sidechain:
            parent, subagent = self._links.sidechain_call(obj), text_or_none(obj.get("agentId"))
        at = to_utc(obj.get("timestamp"))
        uid = obj.get("uuid")
        origin = Origin(session, at, line, parent, subagent, uid if type(uid) is str else None)
        if session and session not in self._started and "uuid" in obj:
            out.append(self._start(obj, origin))
        if parent is not None and subagent is not None and self._links.link_agent(subagent, parent):
            out.append(SubagentLink(origin, agent_id=subagent, call_id=parent))
        elif parent is None and subagent is not None and self._links.unplaced(subagent):
            # Its call is not known yet: the session holds its records until a link names it.
            out.append(SubagentLink(origin, agent_id=subagent, call_id=""))
        before = len(out)
        if not self._handle(kind, obj, origin, out):
            out.append(ignored(origin, str(kind or "unknown")))
        if len(out) == before and self._compaction is None:
            out.append(ignored(origin, "empty"))

    def _handle(self, kind: object, obj: dict[str, Any], origin: Origin, out: Out) -> bool:
        """Reads a line of a type this format knows, by its ``type``; False for another type.
        An ``if`` chain, not a table of bound methods: compiled, these are direct calls."""
        if kind == "assistant":
            self._assistant(obj, origin, out)
        elif kind == "user":
            self._user(obj, origin, out)
        elif kind == "progress":
            self._progress(obj, origin, out)
        elif kind == "system":
            compaction = system_records(obj, origin, self._sidechain, self._seed_calls, out)
            if compaction is not None:
                self._compaction = compaction
        elif kind == "summary":
            self._summary(obj, origin, out)
        elif kind == "compact_system":
            compact_system_records(obj, origin, out)
        else:
            return False
        return True

    def _start(self, obj: dict[str, Any], origin: Origin) -> SessionStarted:
        session = origin.session_id
        remember(self._started, session, None, MAX_WAITING)
        title, self._title = self._title, None
        cwd, version = text_or_none(obj.get("cwd")), text_or_none(obj.get("version"))
        return SessionStarted(origin, agent=AGENT, cwd=cwd, version=version, title=title)

    def _summary(self, obj: dict[str, Any], origin: Origin, out: Out) -> None:
        self._title = text_or_none(obj.get("summary")) or self._title
        out.append(ignored(origin, "summary"))

    # -- assistant ------------------------------------------------------------------------

    def _assistant(self, obj: dict[str, Any], origin: Origin, out: Out) -> None:
        subagent = origin.subagent
        message = obj.get("message")
        if not isinstance(message, dict):
            self._seed_assistant(obj, origin, out)
            return
        content = message.get("content")
        if obj.get("isApiErrorMessage") or message.get("model") == "<synthetic>":
            text = text_of(content)
            if not obj.get("isApiErrorMessage") and text.strip() == "No response requested.":
                out.append(ignored(origin, "synthetic"))
            else:
                out.append(notice(origin, "api_error", text, "error"))
        elif subagent is not None and subagent.startswith("acompact"):  # a compaction run
            if texts(content).strip():
                out.append(Compaction(origin, summary=summary_of(message)))
        else:
            model = message.get("model")
            if not self._sidechain and isinstance(model, str) and model:
                self._model(model, origin, out)
            mid = message.get("id")
            self._blocks(content, mid if isinstance(mid, str) else None, origin, out, False)
            if message.get("stop_reason") == "end_turn":
                end_turn(origin, self._sidechain, out)

    def _model(self, model: str, origin: Origin, out: Out) -> None:
        """The session's model, said by its assistant messages: said again (a start that only
        completes the session's details) when it is new."""
        if self._models.get(origin.session_id) != model:
            remember(self._models, origin.session_id, model, MAX_WAITING)
            out.append(SessionStarted(origin, agent=AGENT, model=model))

    def _blocks(
        self, content: object, mid: str | None, origin: Origin, out: Out, tools_only: bool
    ) -> None:
        if isinstance(content, str) and not blank(content) and not tools_only:
            out.append(AssistantText(origin, text=content, message_id=mid))
        if not isinstance(content, list):
            return
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind in _TOOL_USES:
                self._tool_call(block, origin, out)
            elif tools_only:
                continue
            elif kind == "text" and shown(text := block.get("text")):
                out.append(AssistantText(origin, text=text, message_id=mid))
            elif kind == "thinking" and shown(text := block.get("thinking")):
                out.append(Thinking(origin, text=text))

    def _tool_call(self, block: dict[str, Any], origin: Origin, out: Out) -> None:
        parent = origin.parent_call
        call_id, name = str(block.get("id") or ""), str(block.get("name") or "")
        raw = block.get("input")
        parsed = loads_maybe(raw) if isinstance(raw, str) else raw
        given = parsed if isinstance(parsed, dict) else {}
        raw_input = raw if isinstance(raw, str) and not given else None
        out.append(ToolCall(origin, call_id=call_id, name=name, input=given, raw_input=raw_input))
        if name in _TASK_TOOLS and not self._sidechain and parent is None:
            self._links.task_called(call_id, given.get("prompt"))
        elif name == "TodoWrite" and isinstance(todos := given.get("todos"), list):
            out.append(TodoUpdate(origin, todos=todos_of(todos), call_id=call_id))

    # -- user -----------------------------------------------------------------------------

    def _user(self, obj: dict[str, Any], origin: Origin, out: Out) -> None:
        subagent = origin.subagent
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else message
        if obj.get("isMeta"):
            out.append(meta_record(text_of(content), origin))
        elif subagent is not None and subagent.startswith("acompact"):
            out.append(ignored(origin, "compact_prompt"))
        elif obj.get("isCompactSummary"):
            out.append(Compaction(origin, summary=summary_of(message)))
        elif not isinstance(content, list):
            self._user_text(obj, text_of(content), origin, out)
        else:
            said = []
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    self._tool_result(obj, block, origin, out)
                else:
                    said.append(block)
            if said:
                self._user_text(obj, text_of(said), origin, out)

    def _user_text(self, obj: dict[str, Any], text: str, origin: Origin, out: Out) -> None:
        start = text[:1]
        if start == "[" and text.startswith("[Request interrupted by user"):
            out.append(notice(origin, "interrupted", text, "warning"))
        elif start == "<" and (command := slash_command(text)) is not None:
            out.append(UserText(origin, text=command))
        elif start == "<" and (output := command_output(text)) is not None:
            out.append(command_notice(output, origin))
        elif blank(text):
            return
        elif self._sidechain:  # the parent agent's words to its subagent, not a person's
            out.append(subagent_prompt(text, origin))
        elif (injected := harness_record(text, origin)) is not None:
            out.append(injected)
        else:
            previous = obj.get("parentUuid")
            if isinstance(previous, str) and self._rewinds.is_rewind(previous):
                out.append(notice(origin, "rewind", _REWIND))
            out.append(UserText(origin, text=person_text(text)))

    def _tool_result(
        self, obj: dict[str, Any], block: dict[str, Any], origin: Origin, out: Out
    ) -> None:
        call_id = str(block.get("tool_use_id") or "")
        content = block.get("content")
        output = content if isinstance(content, str) else text_of(content)
        failed = bool(block.get("is_error"))
        result = obj.get("toolUseResult")
        agent = result.get("agentId") if isinstance(result, dict) else None
        if agent is None and not self._sidechain:
            agent = obj.get("agentId")  # 2.0.x put the Task's agent on its result line
        if isinstance(agent, str) and agent and self._links.link_agent(agent, call_id):
            out.append(SubagentLink(origin, agent_id=agent, call_id=call_id))
        if failed:
            self._links.task_failed(call_id)
        stopped = was_interrupted(output, result)
        out.append(
            ToolResult(origin, call_id=call_id, output=output, is_error=failed, interrupted=stopped)
        )

    # -- system and progress ---------------------------------------------------------------

    def _progress(self, obj: dict[str, Any], origin: Origin, out: Out) -> None:
        data = obj.get("data")
        kind = data.get("type") if isinstance(data, dict) else None
        if kind != "agent_progress" or not isinstance(data, dict):
            out.append(ignored(origin, str(kind or "progress")))
            return
        before = len(out)
        call, agent = text_or_none(obj.get("parentToolUseID")), text_or_none(data.get("agentId"))
        if call and agent and self._links.link_agent(agent, call):
            out.append(SubagentLink(origin, agent_id=agent, call_id=call))
        inner = data.get("message")
        if isinstance(inner, dict) and isinstance(message := inner.get("message"), dict):
            inner_at = to_utc(inner.get("timestamp")) or origin.timestamp
            inner_origin = Origin(origin.session_id, inner_at, origin.line, call, agent)
            self._embedded_tools(inner, message, inner_origin, out)
        if len(out) == before:
            out.append(ignored(origin, "agent_progress"))

    def _embedded_tools(
        self, inner: dict[str, Any], message: dict[str, Any], origin: Origin, out: Out
    ) -> None:
        """The tool calls and results of a subagent's message embedded in ``agent_progress``."""
        content = message.get("content")
        if inner.get("type") == "assistant":
            self._blocks(content, text_or_none(message.get("id")), origin, out, tools_only=True)
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    self._tool_result(inner, block, origin, out)

    # -- the seed-001 variant ---------------------------------------------------------------

    def _seed_assistant(self, obj: dict[str, Any], origin: Origin, out: Out) -> None:
        subtype, text = obj.get("subtype"), text_of(obj.get("message"))
        if subtype == "tool_use":
            call_id = str(obj.get("uuid") or "")
            block = {"id": call_id, "name": obj.get("toolName"), "input": obj.get("toolArguments")}
            self._tool_call(block, origin, out)
            self._seed_calls.called(call_id)
        elif subtype == "thinking":
            out.append(Thinking(origin, text=text))
        elif subtype in ("command", "error"):
            level = "error" if subtype == "error" else "info"
            out.append(notice(origin, str(subtype), text, level))
        elif not blank(text):
            out.append(AssistantText(origin, text=text))

FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=False,
    produced_by="Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`)",
)
