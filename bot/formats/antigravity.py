"""Format: antigravity-transcript — Antigravity CLI (``agy``) conversation transcripts
(``~/.gemini/antigravity-cli/brain/<conversation>/.system_generated/logs/transcript.jsonl``).

One record a step: ``{step_index, source, type, status, created_at, content?, thinking?,
tool_calls?: [{name, args}], error?}``. No header, no session id (the conversation id is the
directory's name), no model field, no tokens, no end record. Record → records:

- the first record → also SessionStarted (session: the conversation id from the source's path,
  else the file's name; model: the ``<USER_SETTINGS_CHANGE>`` of the prompt);
- USER_INPUT → UserText (the ``<USER_REQUEST>`` body); a later model change → Notice("model");
- PLANNER_RESPONSE → Thinking (``thinking``), AssistantText (``content``), and a ToolCall per
  ``tool_calls[k]`` (id ``<step>:<k>``; every argument, a JSON text, decoded once;
  ``call_mcp_tool`` → ``mcp__Server__Tool`` with its ``Arguments`` as the input); one with content
  and no tool call is the answer: also TurnEnded (agy waits for the user);
- any other MODEL record, and an ERROR_MESSAGE about an invalid tool call, is a tool step: the
  ToolResult of the call it answers (``antigravity_steps``), failed when its status is FAILED, a
  command "failed with exit code", or the call was invalid; other ERROR_MESSAGEs → Notice;
- CONVERSATION_HISTORY, SYSTEM_MESSAGE → Ignored; any other type → Notice.

No SessionResult: nothing marks the end of a run, and a resumed conversation (``agy -p …
--conversation <id>``) goes on in the same file, so a transcript that stops has no outcome of
its own (``reports_result=False``), as a Claude Code transcript has: it waits for the user
after an answer, else its outcome is unknown.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any, Final

import orjson
from mypy_extensions import mypyc_attr

from bot.formats.antigravity_steps import ToolSteps
from bot.formats.claude_transcript_links import tag
from bot.formats.common import mcp_name, to_utc
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.records import (
    AssistantText,
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
from bot.values import json_text, text_or_empty

FAMILY = "antigravity-transcript"
AGENT = "Antigravity"

_SOURCES: Final = ("USER_EXPLICIT", "SYSTEM", "MODEL")
_QUIET_TYPES: Final = ("CONVERSATION_HISTORY", "SYSTEM_MESSAGE")
_LOG_DIRS: Final = (".system_generated", "logs")
_MCP_CALL: Final = "call_mcp_tool"
_INVALID_CALL: Final = "invalid tool call"
_COMMAND_FAILED: Final = "the command failed with exit code:"
_OUTPUT_HEADS: Final = ("output:", "stdout:", "stderr:")
_HEAD_CHARS: Final = 2000  # a command's head (times, exit code) is a few short lines
# "The user changed setting `Model Selection` from None to Gemini 3.5 Flash (High). Done."
_MODEL_CHANGE: Final = re.compile(r"`Model Selection` from .*? to (.+?)(?:\.(?:\s|$)|$)", re.M)

Out = list[Record]


def detect(obj: object) -> bool:
    """A transcript record: an integer ``step_index`` at the top level (Antigravity's
    stream-json nests it in ``step_update``), a ``type``, and one of the step sources."""
    if not isinstance(obj, dict):
        return False
    step = obj.get("step_index")
    if not isinstance(step, int) or isinstance(step, bool):
        return False
    return isinstance(obj.get("type"), str) and obj.get("source") in _SOURCES


def conversation_of(source: str) -> str:
    """The conversation id: the directory holding ``.system_generated/logs/<transcript>``, else
    the file's name without its extension."""
    path = PurePath(source)
    parts = path.parts
    if len(parts) >= 4 and parts[-3:-1] == _LOG_DIRS:
        return parts[-4]
    return path.stem or source


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    def __init__(self, source: str) -> None:
        self.source = source
        self._session = conversation_of(source)
        self._started = False
        self._model: str | None = None
        self._steps = ToolSteps()
        self._last: Origin | None = None  # the last record's origin
        self._answered = False  # the last record was an answer: the turn ended there

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        if not isinstance(obj, dict):
            return None
        step, kind = obj.get("step_index"), obj.get("type")
        if not isinstance(step, int) or isinstance(step, bool) or not isinstance(kind, str):
            return None
        origin = Origin(self._session, to_utc(obj.get("created_at")), line)
        self._last, self._answered = origin, False
        steps = self._steps
        steps.last_step = max(steps.last_step, step)
        out: Out = []
        if not self._started:
            self._started = True
            out.append(self._start(obj, kind, origin))
        if kind == "USER_INPUT":
            self._user_input(obj, origin, out)
        elif kind == "PLANNER_RESPONSE":
            self._planner_response(obj, step, origin, out)
        elif kind == "ERROR_MESSAGE" and not _invalid_call(obj):
            text = text_or_empty(obj.get("error")) or text_or_empty(obj.get("content")) or kind
            out.append(Notice(origin, kind="error", text=text, level="error"))
        elif kind == "ERROR_MESSAGE" or obj.get("source") == "MODEL":
            self._tool_step(obj, step, kind, origin, out)
        elif kind in _QUIET_TYPES:
            out.append(Ignored(origin, kind=kind))
        else:
            text = text_or_empty(obj.get("content")) or text_or_empty(obj.get("error")) or kind
            out.append(Notice(origin, kind=kind.lower(), text=text))
        return out

    def finish(self) -> list[Record]:
        """What the open calls and held steps become; when the transcript stops on an answer,
        its turn's end is said again after them (their results are not the agent at work)."""
        last = self._last
        if last is None:
            return []
        out = self._steps.left_over(last)
        if out and self._answered:
            out.append(TurnEnded(last))
        return out

    def _start(self, obj: dict[str, Any], kind: str, origin: Origin) -> SessionStarted:
        if kind == "USER_INPUT":
            self._model = _model_of(text_or_empty(obj.get("content")))
        return SessionStarted(origin, agent=AGENT, model=self._model)

    def _user_input(self, obj: dict[str, Any], origin: Origin, out: Out) -> None:
        content = text_or_empty(obj.get("content"))
        model = _model_of(content)
        if model is not None and model != self._model:
            self._model = model
            out.append(Notice(origin, kind="model", text=f"Model: {model}"))
        request = tag(content, "USER_REQUEST")
        text = content.strip() if request is None else request
        if text:
            out.append(UserText(origin, text=text))
        elif len(out) == 0:
            out.append(Ignored(origin, kind="empty USER_INPUT"))

    def _planner_response(self, obj: dict[str, Any], step: int, origin: Origin, out: Out) -> None:
        before = len(out)
        thinking = text_or_empty(obj.get("thinking"))
        if thinking and not thinking.isspace():
            out.append(Thinking(origin, text=thinking))
        content = text_or_empty(obj.get("content"))
        answered = bool(content) and not content.isspace()
        if answered:
            out.append(AssistantText(origin, text=content))
        calls = obj.get("tool_calls")
        if isinstance(calls, list) and calls:
            for k, call in enumerate(calls):
                call_id = f"{step}:{k}"
                out.append(_tool_call(call, call_id, origin))
                result = self._steps.called(call_id, step, k)
                if result is not None:
                    out.append(result)
        elif answered:  # the answer: the turn ends
            self._answered = True
            out.append(TurnEnded(origin))
        if len(out) == before:
            out.append(Ignored(origin, kind="empty PLANNER_RESPONSE"))

    def _tool_step(
        self, obj: dict[str, Any], step: int, kind: str, origin: Origin, out: Out
    ) -> None:
        error = text_or_empty(obj.get("error"))
        content = text_or_empty(obj.get("content"))
        output = error if error and not error.isspace() else content
        failed = obj.get("status") == "FAILED" or _invalid_call(obj) or _command_failed(content)
        result = ToolResult(origin, output=output, is_error=failed)
        answered = self._steps.answered(step, result, kind)
        if answered is not None:
            out.append(answered)


def _tool_call(call: object, call_id: str, origin: Origin) -> ToolCall:
    """One of a planner response's ``tool_calls``: ``{name, args}``, each argument a JSON text
    (``"CommandLine": "\\"ls -F\\""``) or, in ``transcript_full.jsonl``, a value as it is."""
    if not isinstance(call, dict):
        return ToolCall(origin, call_id=call_id, name="tool", raw_input=json_text(call))
    name = text_or_empty(call.get("name")) or "tool"
    raw = call.get("args")
    if not isinstance(raw, dict):
        given = None if raw is None else json_text(raw)
        return ToolCall(origin, call_id=call_id, name=name, raw_input=given)
    args = _decoded(raw)
    if name == _MCP_CALL:
        server, tool = args.get("ServerName"), args.get("ToolName")
        if isinstance(server, str) and server and isinstance(tool, str) and tool:
            inner = args.get("Arguments")
            if isinstance(inner, dict):
                return ToolCall(origin, call_id=call_id, name=mcp_name(server, tool), input=inner)
            rest = {key: value for key, value in args.items() if key not in _MCP_KEYS}
            return ToolCall(origin, call_id=call_id, name=mcp_name(server, tool), input=rest)
    return ToolCall(origin, call_id=call_id, name=name, input=args)


_MCP_KEYS: Final = ("ServerName", "ToolName")


def _decoded(args: dict[Any, Any]) -> dict[str, Any]:
    """Each argument decoded once from its JSON text; a value that is no JSON text stays."""
    out: dict[str, Any] = {}
    for key, value in args.items():
        if isinstance(value, str):
            try:
                out[str(key)] = orjson.loads(value)
            except orjson.JSONDecodeError:
                out[str(key)] = value
        else:
            out[str(key)] = value
    return out


def _invalid_call(obj: dict[str, Any]) -> bool:
    """An ERROR_MESSAGE that answers a tool call: agy could not run the call as the model wrote
    it. Other error messages (``RESOURCE_EXHAUSTED`` quota errors) belong to the turn."""
    if obj.get("type") != "ERROR_MESSAGE":
        return False
    for key in ("error", "content"):
        value = obj.get(key)
        if isinstance(value, str) and _INVALID_CALL in value.lower():
            return True
    return False


def _command_failed(content: str) -> bool:
    """A RUN_COMMAND's head (the lines before its ``Output:``) says the command failed; the same
    words inside the command's own output do not count."""
    for text in content[:_HEAD_CHARS].splitlines():
        head = text.strip().lower()
        if head in _OUTPUT_HEADS:
            return False
        if head.startswith(_COMMAND_FAILED):
            return True
    return False


def _model_of(content: str) -> str | None:
    settings = tag(content, "USER_SETTINGS_CHANGE")
    if settings is None:
        return None
    match = _MODEL_CHANGE.search(settings)
    return match.group(1).strip() if match is not None else None


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=False,
    produced_by="Antigravity CLI transcripts (`~/.gemini/antigravity-cli/brain/<conversation>/"
    ".system_generated/logs/transcript.jsonl`)",
)
