"""What a Claude Code transcript line refers to: the Task call behind a subagent's line, the tool
call a seed-001 result answers, the earlier prompt a rewind branches from; and the conventions
Claude Code writes inside lines (slash-command tags, interruption markers, todos, summaries).

**Subagents.** A sidechain line (``isSidechain: true``) belongs to the Task (or Agent) call given
by the first of these that answers:

1. its ``agentId`` is linked to a call: an ``agent_progress`` line named the call
   (``parentToolUseID``), or the Task's result carried ``toolUseResult.agentId``. The newest link
   wins, so a resumed agent follows the call that resumed it;
2. its ``parentUuid`` is a sidechain line already placed: the same call as its parent;
3. it starts a chain (its parent is null or unknown): its user prompt equals a waiting Task call's
   ``input.prompt`` (the old layout, where parallel Tasks' subagents write into the main file);
   failing that, the one Task call of the file no chain has claimed, if there is exactly one.

Otherwise the call is unknown (``None``). Every map is capped, the oldest entries dropped first.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.common import remember, text_of
from bot.values import as_int, text_or_none

MAX_LINES = 50_000  # sidechain line uuid -> call
MAX_AGENTS = 4_096  # agent id -> call
MAX_TASKS = 256  # Task calls waiting for their chain
MAX_WAITING = 10_000  # prompt parents (rewinds), seed-001 calls awaiting a result
SUMMARY_CHARS = 500

_INTERRUPTIONS: Final = (
    "[Request interrupted by user",
    "The user doesn't want to proceed with this tool",
)
_REJECTIONS: Final = ("User rejected", "[Request interrupted")
_OUTPUT_TAGS: Final = ("local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class SubagentLinks:
    """The parser's memory of Task calls, subagents and sidechain chains (see the module doc)."""

    def __init__(self) -> None:
        self._call_of_line: OrderedDict[str, str | None] = OrderedDict()
        self._call_of_agent: OrderedDict[str, str] = OrderedDict()
        # Task call id -> its prompt, until a chain claims it
        self._waiting: OrderedDict[str, str] = OrderedDict()
        self._unplaced: OrderedDict[str, None] = OrderedDict()  # agents seen with no call known

    def task_called(self, call_id: str, prompt: object) -> None:
        """A Task call started in the session itself; its subagent's chain may follow."""
        text = prompt.strip() if isinstance(prompt, str) else ""
        remember(self._waiting, call_id, text, MAX_TASKS)

    def task_failed(self, call_id: str) -> None:
        """A call's result was an error: if it was a Task, no subagent ran for it."""
        self._waiting.pop(call_id, None)

    def link_agent(self, agent_id: str, call_id: str) -> bool:
        """Subagent ``agent_id`` runs for ``call_id``. True when this is news."""
        if self._call_of_agent.get(agent_id) == call_id:
            return False
        remember(self._call_of_agent, agent_id, call_id, MAX_AGENTS)
        return True

    def unplaced(self, agent_id: str) -> bool:
        """True the first time subagent ``agent_id`` is seen with no call known for it (its own
        file, read before its parent's names the call): its records are to wait for that call.
        A compaction run (``acompact-*``) runs for no call."""
        if agent_id in self._call_of_agent or agent_id in self._unplaced:
            return False
        remember(self._unplaced, agent_id, None, MAX_AGENTS)
        return not agent_id.startswith("acompact")

    def sidechain_call(self, obj: dict[str, Any]) -> str | None:
        """The Task call a sidechain line belongs to, or ``None`` when the data does not say."""
        agent = obj.get("agentId")
        call = self._call_of_agent.get(agent) if isinstance(agent, str) else None
        if call is not None:
            self._waiting.pop(call, None)
        else:
            parent = obj.get("parentUuid")
            if isinstance(parent, str) and parent in self._call_of_line:
                call = self._call_of_line[parent]
            elif self._waiting:  # (the prompt is read only when a call may claim it)
                call = self._claim(_prompt_of(obj))
        uuid = obj.get("uuid")
        if isinstance(uuid, str):
            remember(self._call_of_line, uuid, call, MAX_LINES)
        return call

    def _claim(self, prompt: str) -> str | None:
        """The waiting Task call a new chain with this prompt belongs to."""
        if prompt:
            for call_id, wanted in self._waiting.items():
                if wanted == prompt:
                    del self._waiting[call_id]
                    return call_id
        if len(self._waiting) == 1:
            return self._waiting.popitem()[0]
        return None


def _prompt_of(obj: dict[str, Any]) -> str:
    """The user prompt a chain's first line carries (``""`` for any other line)."""
    if obj.get("type") != "user":
        return ""
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else message
    return text_of(content).strip() if content else ""


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class SeedCalls:
    """seed-001: a ``system/tool_result`` answers the ``tool_use`` line its ``parentUuid`` names,
    or else the oldest one not answered yet."""

    def __init__(self) -> None:
        self._waiting: OrderedDict[str, None] = OrderedDict()

    def called(self, call_id: str) -> None:
        remember(self._waiting, call_id, None, MAX_WAITING)

    def is_waiting(self, parent: object) -> bool:
        return isinstance(parent, str) and parent in self._waiting

    def answered(self, parent: object) -> str:
        if isinstance(parent, str) and parent in self._waiting:
            call_id = parent
        elif self._waiting:
            call_id = next(iter(self._waiting))
        else:
            return str(parent or "")
        del self._waiting[call_id]
        return call_id


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Rewinds:
    """A user prompt whose parent already had a prompt starts a new branch (the user rewound)."""

    def __init__(self) -> None:
        self._parents: OrderedDict[str, None] = OrderedDict()

    def is_rewind(self, parent: str) -> bool:
        seen = parent in self._parents
        remember(self._parents, parent, None, MAX_WAITING)
        return seen


# -- conventions inside a line ---------------------------------------------------------------


def shown(text: object) -> bool:
    """Whether ``text`` is a string with something to show."""
    return isinstance(text, str) and bool(text) and not text.isspace()


def texts(content: object) -> str:
    """Only the text blocks of a message's content (no placeholders for other blocks)."""
    if not isinstance(content, list):
        return text_of(content)
    return "\n".join(b["text"] for b in content if isinstance(b, dict) and shown(b.get("text")))


def summary_of(message: object) -> str:
    """A compaction summary's ``<summary>`` part (or all of it), cut to ~500 characters."""
    text = texts(message.get("content")) if isinstance(message, dict) else text_of(message)
    text = tag(text, "summary") or text.strip()
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1].rstrip() + "…"


def was_interrupted(output: str, result: object) -> bool:
    """Whether the user stopped a tool call: interrupted it while it ran, or rejected it."""
    if isinstance(result, dict) and result.get("interrupted") is True:
        return True
    if isinstance(result, str) and result.startswith(_REJECTIONS):
        return True
    return output.startswith(_INTERRUPTIONS)


def tag(text: str, name: str) -> str | None:
    """The body of ``<name>…</name>`` in ``text`` (to the end when unclosed), or None."""
    start = text.find(f"<{name}>")
    if start < 0:
        return None
    start += len(name) + 2
    end = text.find(f"</{name}>", start)
    return (text[start:] if end < 0 else text[start:end]).strip()


def slash_command(text: str) -> str | None:
    """``/name args`` of a slash-command message, ``! cmd`` of a bash-mode input, else None."""
    name = tag(text, "command-name")
    if name is not None:
        args = tag(text, "command-args")
        return f"{name} {args}" if args else name
    bash = tag(text, "bash-input")
    return None if bash is None else f"! {bash}"


def command_output(text: str) -> str | None:
    """What a local command printed (ANSI colours removed), or None if ``text`` is not that."""
    parts = [body for name in _OUTPUT_TAGS if (body := tag(text, name))]
    if not parts and not any(f"<{name}>" in text for name in _OUTPUT_TAGS):
        return None
    return _ANSI.sub("", "\n".join(parts))


def system_text(obj: dict[str, Any]) -> str:
    """A system line's text: ``content`` (real lines), ``message`` (seed-001), ``error``."""
    for key in ("content", "message", "error"):
        value = obj.get(key)
        if isinstance(value, dict) and isinstance(value.get("message"), str):
            return str(value["message"])
        if value is not None:
            return text_of(value)
    return ""


def compaction_of(obj: dict[str, Any]) -> tuple[str | None, int | None]:
    """A compact_boundary's trigger ("auto"/"manual") and the token count before it."""
    meta = obj.get("compactMetadata") or obj.get("compact_metadata")
    if not isinstance(meta, dict):
        return None, None
    return text_or_none(meta.get("trigger")), as_int(meta.get("preTokens", meta.get("pre_tokens")))


def hook_problem(obj: dict[str, Any]) -> str | None:
    """What went wrong in a stop_hook_summary (hook errors, a stopped agent), or None."""
    errors = obj.get("hookErrors")
    if isinstance(errors, list) and errors:
        return "\n".join(e if isinstance(e, str) else text_of(e) for e in errors)
    if obj.get("preventedContinuation"):
        return str(obj.get("stopReason") or "A stop hook prevented the agent from continuing.")
    return None
