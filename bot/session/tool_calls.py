"""A tool call's state as the session tracks it, and the one-line summary of its arguments."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.common import json_text, one_clean_line

SUMMARY_LIMIT: Final = 200
# How much of a result is kept: what a message shows of it, and a little more.
PREVIEW_LIMIT: Final = 600  # an error (shown as a code block)
OK_PREVIEW_LIMIT: Final = 200  # a success (shown as one line of 160 characters)
ANSWER_LIMIT: Final = 3000  # a delegated member's answer (shown as text)


class ToolStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    OK = "ok"
    ERROR = "error"
    INTERRUPTED = "interrupted"
    ORPHANED = "orphaned"

    @property
    def is_open(self) -> bool:
        return self in OPEN_STATUSES


OPEN_STATUSES: Final = frozenset({ToolStatus.PENDING, ToolStatus.RUNNING, ToolStatus.ORPHANED})


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class ToolCallState:
    """What a message shows of one tool call: never the whole output. (``__init__`` is
    written out: compiled, it is native code, where the one ``dataclass`` makes is not.)"""

    id: str
    name: str
    summary: str
    status: ToolStatus = ToolStatus.RUNNING
    parent: str | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    output: str = ""  # a preview: what a message shows of the output, not all of it
    output_size: int = 0  # the whole output's length
    output_lines: int = 0
    delegate: str | None = None  # the member a delegation went to
    shown: bool = False  # the call has a place in the thread (a tool group, a delegation)
    child_ids: list[str] | None = None  # a subagent's calls (most calls have none)

    def __init__(
        self,
        id: str,
        name: str,
        summary: str,
        status: ToolStatus = ToolStatus.RUNNING,
        parent: str | None = None,
        started_at: datetime | None = None,
        ended_at: datetime | None = None,
        output: str = "",
        output_size: int = 0,
        output_lines: int = 0,
        delegate: str | None = None,
        shown: bool = False,
        child_ids: list[str] | None = None,
    ) -> None:
        self.id, self.name, self.summary, self.status = id, name, summary, status
        self.parent, self.started_at, self.ended_at = parent, started_at, ended_at
        self.output, self.output_size, self.output_lines = output, output_size, output_lines
        self.delegate, self.shown, self.child_ids = delegate, shown, child_ids

    @property
    def children(self) -> list[str]:
        return self.child_ids or []

    def add_child(self, call_id: str) -> None:
        if self.child_ids is None:
            self.child_ids = []
        self.child_ids.append(call_id)

    @property
    def duration_s(self) -> float | None:
        """How long the call took by the log's times; ``None`` when they do not tell: a time
        missing, or no time between start and end (times logged to the second, or a call and
        its result on one line), or an end before the start."""
        if self.started_at is None or self.ended_at is None:
            return None
        seconds = (self.ended_at - self.started_at).total_seconds()
        return seconds if seconds > 0.0 else None


def _clip(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """``text`` on one line (white space runs made one space), cut to ``limit``. A long text
    is read only as far as the cut needs: the collapsed start of a text is the start of the
    collapsed text (twice the limit is usually enough; more when it is mostly white space)."""
    reach = 2 * limit
    while len(text) > reach:
        start = " ".join(text[:reach].split())
        if len(start) > limit:
            return start[: limit - 1] + "…"
        reach *= 2
    if not one_clean_line(text):
        text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_str(args: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value and not value.isspace():  # strip() would copy
            return value
    return None


def _mcp_summary(name: str, args: Mapping[str, Any]) -> str:
    parts = name.split("__", 2)
    server, tool = (parts[1], parts[2]) if len(parts) == 3 else (name, "")
    detail = _generic_summary(args)
    head = f"{server} › {tool}" if tool else server
    return f"{head}: {detail}" if detail else head


# The arguments a summary of an unknown tool shows, the first found in this order.
_PREFERRED_KEYS: Final = (
    "command", "cmd", "file_path", "filePath", "path", "notebook_path", "pattern", "url", "query",
    "description", "prompt", "task", "code", "text", "content",
)  # fmt: skip


def _generic_summary(args: Mapping[str, Any]) -> str:
    preferred = _first_str(args, _PREFERRED_KEYS)
    if preferred is not None:
        return preferred
    if not args:
        return ""
    return json_text(dict(args))


def _path_with_detail(args: Mapping[str, Any]) -> str:
    path = _first_str(args, ("file_path", "filePath", "notebook_path", "path")) or ""
    edits = args.get("edits")
    if isinstance(edits, list) and edits:
        return f"{path} ({len(edits)} edits)"
    offset, limit = args.get("offset"), args.get("limit")
    if isinstance(offset, int) or isinstance(limit, int):
        start = offset if isinstance(offset, int) else 1
        end = f"{start + limit}" if isinstance(limit, int) else ""
        return f"{path}:{start}-{end}"
    return path


def _search_summary(args: Mapping[str, Any]) -> str:
    pattern = _first_str(args, ("pattern", "query")) or ""
    where = _first_str(args, ("path", "glob", "type"))
    return f"{pattern} in {where}" if where else pattern


def _task_summary(args: Mapping[str, Any]) -> str:
    what = _first_str(args, ("description", "prompt", "task")) or ""
    kind = _first_str(args, ("subagent_type",))
    return f"{kind}: {what}" if kind else what


def _todo_summary(args: Mapping[str, Any]) -> str:
    """``5 todos, 2 done · Running the tests``: the list's progress and what is in hand
    (the raw JSON of a todo list says little in one line, and costs its whole dump)."""
    items = args.get("todos")
    if not isinstance(items, list):
        return ""
    done = 0
    now = ""
    for item in items:
        if not isinstance(item, dict):
            continue
        status = item.get("status")
        if status == "completed":
            done += 1
        elif status == "in_progress" and not now:
            now = _first_str(item, ("activeForm", "content")) or ""
    head = f"{len(items)} todo{'' if len(items) == 1 else 's'}, {done} done"
    return f"{head} · {now}" if now else head


def _field(*names: str) -> Callable[[Mapping[str, Any]], str]:
    keys = names
    def summary(args: Mapping[str, Any]) -> str:
        return _first_str(args, keys) or ""

    return summary


_BY_NAME: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "bash": _field("command", "cmd"),
    "read": _path_with_detail,
    "edit": _path_with_detail,
    "multiedit": _path_with_detail,
    "write": _path_with_detail,
    "notebookedit": _path_with_detail,
    "grep": _search_summary,
    "glob": _search_summary,
    "webfetch": _field("url"),
    "websearch": _field("query"),
    "task": _task_summary,
    "agent": _task_summary,
    "bashoutput": _field("bash_id", "shell_id"),
    "killbash": _field("shell_id", "bash_id"),
    "killshell": _field("shell_id", "bash_id"),
    "skill": _field("skill", "command"),
    "slashcommand": _field("command"),
    "todowrite": _todo_summary,
}


def describe_call(name: str, args: Mapping[str, Any], raw_input: str | None = None) -> str:
    """A one-line summary of a call's arguments that fits the tool: the Bash command, the file
    path for Read/Edit/Write, the pattern for Grep/Glob, the URL, the query, a subagent's task,
    an MCP tool's server and name. Arguments that were not valid JSON are shown raw."""
    if raw_input is not None and not args:
        return _clip(raw_input)
    if name.startswith("mcp__"):
        return _clip(_mcp_summary(name, args))
    summarize = _BY_NAME.get(name.lower())
    text = summarize(args) if summarize is not None else _generic_summary(args)
    return _clip(text or _generic_summary(args))


def output_preview(output: str, limit: int = PREVIEW_LIMIT) -> tuple[str, int, int]:
    """(the first ``limit`` characters, whole length, line count) of a tool's output."""
    size = len(output)
    lines = output.count("\n") + 1 if output else 0
    return (output if size <= limit else output[:limit]), size, lines
