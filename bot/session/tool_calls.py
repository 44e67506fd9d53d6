"""A tool call's state as the session tracks it, the one-line summary of its arguments, and the
readable start of its result."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.caps import PREVIEW_LIMIT, SUMMARY_LIMIT
from bot.values import first_and_more, json_text, line_count, one_clean_line, patch_files


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
@dataclass(slots=True)
class OutputPosition:
    """Where a tool call's result was read, to read its whole output again (the session keeps
    this, never the text): the source's absolute ``path``, the ``line``'s number, the byte
    offset just after it (``end``), its ``size`` in bytes (without its newline) and a
    ``digest`` of its bytes. A JSON document read whole (``document``) is its line 1."""

    path: str
    line: int
    end: int
    size: int
    digest: str
    document: bool = False


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
    # The index of the thread item that shows the call (a tool group, a delegation's own
    # item); -1 while it has no place in the thread
    item: int = -1
    child_ids: list[str] | None = None  # a subagent's calls (most calls have none)
    # Where its result was read, for a call whose output a message shows (set by the reading)
    output_at: OutputPosition | None = field(default=None, init=False)

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
        item: int = -1,
        child_ids: list[str] | None = None,
    ) -> None:
        self.id, self.name, self.summary, self.status = id, name, summary, status
        self.parent, self.started_at, self.ended_at = parent, started_at, ended_at
        self.output, self.output_size, self.output_lines = output, output_size, output_lines
        self.delegate, self.item, self.child_ids = delegate, item, child_ids
        self.output_at = None

    @property
    def shown(self) -> bool:
        """Whether the call has a place in the thread."""
        return self.item >= 0

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


def output_is_markdown(call: ToolCallState) -> bool:
    """Whether the call's output is Markdown written for a reader rather than a command's
    output: an agent's answer (a delegation's, a call its subagent's calls run under, a call of
    the tool that starts a subagent: Claude's and Amp's ``Task``, Claude's ``Agent``), or the
    card of Gemini's ``update_topic``."""
    return call.delegate is not None or bool(call.child_ids) or call.name.lower() in _MARKDOWN_TOOLS


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


def _first_str(
    args: Mapping[str, Any], keys: tuple[str, ...], cwd: str | None = None
) -> str | None:
    """The first of ``keys`` holding text; a path argument relative to ``cwd`` when given."""
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value:
            if cwd and key in _PATH_KEYS:
                value = relative_path(value, cwd)
            if not value.isspace():  # strip() would copy
                return value
    return None


def mcp_tool(name: str) -> tuple[str, str] | None:
    """(server, tool) of an MCP tool's call, named ``mcp__server__tool`` as Claude names it
    (and each format names the MCP calls of its log: ``formats.common.mcp_name``); else None."""
    if not name.startswith(_MCP_PREFIX):
        return None
    parts = name.split("__", 2)
    return (parts[1], parts[2]) if len(parts) == 3 and parts[1] and parts[2] else None


def shown_name(name: str) -> str:
    """A call's name as a message shows it: an MCP tool's as ``server › tool``."""
    mcp = mcp_tool(name)
    return name if mcp is None else f"{mcp[0]} › {mcp[1]}"


def _mcp_summary(tool: str, args: Mapping[str, Any], cwd: str | None) -> str:
    """An MCP call's arguments by the rules of other tools: its tool's own summary, else an
    unknown tool's."""
    summarize = _BY_NAME.get(tool.lower())
    text = summarize(args, cwd) if summarize is not None else ""
    return text or _generic_summary(args, cwd)


# The arguments a summary of an unknown tool shows, the first found in this order.
# Each agent's name for the one argument that says what a call does, the likeliest first.
_PREFERRED_KEYS: Final = (
    "command", "cmd", "CommandLine", "file_path", "filePath", "path", "absolute_path",
    "AbsolutePath", "dir_path", "DirectoryPath", "notebook_path", "pattern", "url", "query",
    "description", "prompt", "task", "code", "text", "content",
)  # fmt: skip


def _generic_summary(args: Mapping[str, Any], cwd: str | None) -> str:
    """An unknown tool's arguments: the one that says what the call does, else its first text
    argument (``find_file missing_colon.py``, not ``{"file_name":"missing_colon.py"}``), else
    its first list of texts, else its JSON."""
    preferred = _first_str(args, _PREFERRED_KEYS, cwd)
    if preferred is not None:
        return preferred
    for value in args.values():
        if isinstance(value, str) and value and not value.isspace():
            return value
    for value in args.values():  # a list of texts: Codex's wait_agent's ids
        if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
            return ", ".join(value)
    if not args:
        return ""
    return json_text(dict(_relative_paths(args, cwd) if cwd else args))


def _path_with_detail(args: Mapping[str, Any], cwd: str | None) -> str:
    path = _first_str(args, ("file_path", "filePath", "notebook_path", "path"), cwd) or ""
    edits = args.get("edits")
    if isinstance(edits, list) and edits:
        return f"{path} ({len(edits)} edits)"
    offset, limit = args.get("offset"), args.get("limit")
    if isinstance(offset, int) or isinstance(limit, int):
        start = offset if isinstance(offset, int) else 1
        end = f"{start + limit}" if isinstance(limit, int) else ""
        return f"{path}:{start}-{end}"
    return path


def _search_summary(args: Mapping[str, Any], cwd: str | None) -> str:
    pattern = _first_str(args, ("pattern", "query")) or ""
    where = _first_str(args, ("path", "glob", "type"), cwd)
    return f"{pattern} in {where}" if where and where != "." else pattern


def _task_summary(args: Mapping[str, Any], cwd: str | None) -> str:
    what = _first_str(args, ("description", "prompt", "task")) or ""
    kind = _first_str(args, ("subagent_type",))
    return f"{kind}: {what}" if kind else what


def _todo_summary(args: Mapping[str, Any], cwd: str | None) -> str:
    """``5 todos, 2 done · Running the tests``: the list's progress and what is in hand
    (the raw JSON of a todo list says little in one line, and costs its whole dump)."""
    return _progress(args.get("todos"), "todo", ("activeForm", "content"))


def _plan_summary(args: Mapping[str, Any], cwd: str | None) -> str:
    """Codex's plan (``update_plan``) as a todo list: ``4 steps, 1 done · Add the tests``."""
    return _progress(args.get("plan"), "step", ("step",))


def _progress(items: object, noun: str, text_keys: tuple[str, ...]) -> str:
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
            now = _first_str(item, text_keys) or ""
    head = f"{len(items)} {noun}{'' if len(items) == 1 else 's'}, {done} done"
    return f"{head} · {now}" if now else head


def _question_summary(args: Mapping[str, Any], cwd: str | None) -> str:
    """The first question asked of the user (``AskUserQuestion``), and how many more."""
    questions = args.get("questions")
    if not isinstance(questions, list) or not questions or not isinstance(questions[0], dict):
        return ""
    first = _first_str(questions[0], ("question", "header")) or ""
    more = len(questions) - 1
    return f"{first} (+{more} more)" if first and more else first


def _patch_summary(args: Mapping[str, Any], cwd: str | None) -> str:
    """``a.py (+1 more)``: the files a patch touches, relative to ``cwd``: from its text
    (Amp's ``patchText``, Codex's ``input`` or ``patch``), else its list of changes (Codex
    ``file_change``: ``{changes: [{path, kind}]}``), else its ``path`` (a rollout's patch, said
    so already); the patch text itself when it names no file."""
    patch = _first_str(args, ("patchText", "patch", "input"))
    changes = args.get("changes")
    listed = changes if isinstance(changes, list) else []
    paths = [c.get("path") for c in listed if isinstance(c, dict)]
    files = patch_files(patch) if patch else [p for p in paths if isinstance(p, str) and p]
    shown = first_and_more([relative_path(f, cwd) for f in files] if cwd else files)
    return shown or _first_str(args, ("path",), cwd) or patch or ""


def _field(*names: str) -> Callable[[Mapping[str, Any], str | None], str]:
    keys = names
    def summary(args: Mapping[str, Any], cwd: str | None) -> str:
        return _first_str(args, keys) or ""

    return summary


# Each takes the call's arguments and the working directory (for the paths it shows).
_BY_NAME: dict[str, Callable[[Mapping[str, Any], str | None], str]] = {
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
    "skill": _field("skill", "command", "name"),
    "slashcommand": _field("command"),
    "todowrite": _todo_summary,
    "update_plan": _plan_summary,  # Codex's
    "askuserquestion": _question_summary,
    "apply_patch": _patch_summary,
    "update_topic": _field("title", "summary"),  # Gemini's; its intent and summary are long
}


def describe_call(
    name: str, args: Mapping[str, Any], raw_input: str | None = None, cwd: str | None = None
) -> str:
    """A one-line summary of a call's arguments that fits the tool: the Bash command, the file
    path for Read/Edit/Write, the pattern for Grep/Glob, the URL, the query, a subagent's task,
    the question asked, an unknown or MCP tool's first text argument. Arguments that were not
    valid JSON are shown raw. A path below the session's working directory ``cwd`` is shown
    relative to it (a command is shown as it was run)."""
    if raw_input is not None and not args:
        return _clip(raw_input)
    mcp = mcp_tool(name)
    if mcp is not None:  # its name (``shown_name``) says its server and tool
        return _clip(_mcp_summary(mcp[1], args, cwd))
    summarize = _BY_NAME.get(name.lower())
    text = summarize(args, cwd) if summarize is not None else _generic_summary(args, cwd)
    return _clip(text or _generic_summary(args, cwd))


def output_preview(output: str, limit: int = PREVIEW_LIMIT) -> tuple[str, int, int]:
    """(the first ``limit`` characters, whole length, line count) of a tool's output."""
    size = len(output)
    lines = line_count(output)
    return (output if size <= limit else output[:limit]), size, lines


_MCP_PREFIX: Final = "mcp__"
# The tools whose output is Markdown: an agent's answer, Gemini's topic card
_MARKDOWN_TOOLS: Final = frozenset({"task", "agent", "update_topic"})
# The path arguments shown relative to the working directory (camelCase: opencode's).
_PATH_KEYS: Final = (
    "file_path", "path", "notebook_path", "absolute_path", "dir_path", "filePath", "AbsolutePath",
    "DirectoryPath",
)
# A result that only says the call did what it was asked ("The file /x has been updated").
_ECHO: Final = re.compile(
    r"The file \S.* has been (?:updated|created)|File created successfully at|"
    r"File (?:written|updated|edited) successfully|Success(?:fully|\. Updated) |"
    r"Applied \d+ edits? to "
)
_NUMBERED: Final = re.compile(r" *\d+(?:→|\t)")  # `cat -n` (Read) line numbers: "     1→"
_NUMBERED_LINES: Final = re.compile(r"^ *\d+(?:→|\t)", re.M)
_REMINDER: Final = re.compile(r"\s*<system-reminder>.*?(?:</system-reminder>|\Z)", re.S)


def result_preview(
    output: str, limit: int, failed: bool, cwd: str | None = None, preamble: Lines = ()
) -> tuple[str, int, int]:
    """``output_preview`` of the readable output: none for a success that only repeats its call
    (size 0), lines without their ``cat -n`` numbers, no reminder meant for the model, not the
    ``preamble`` its tool prints before every output (``past_preamble``), paths below ``cwd``
    relative to it."""
    if not failed and _ECHO.match(output):
        return "", 0, 0
    size = len(output)
    lines = line_count(output)
    head = output if size <= 4 * limit else output[: 4 * limit]  # what cleaning leaves to show
    if _NUMBERED.match(head):
        head = _NUMBERED_LINES.sub("", head)
    if "<system-reminder>" in head:
        head = _REMINDER.sub("", head).rstrip()
    if preamble:
        head = past_preamble(head, preamble)
    if cwd and (base := _base(cwd)):
        head = head.replace(base + "/", "").replace(base + "\\", "")
    return head[:limit], size, lines


Lines = tuple[str, ...]
PREAMBLE_LINES: Final = 4  # at most this many of an output's first lines are taken for a preamble
_PREAMBLE_READ: Final = 2000  # characters of an output read for its first lines


def leading_lines(output: str) -> Lines:
    """The first lines of ``output``: ``PREAMBLE_LINES`` and one more (what follows a preamble
    of that length), read from its first ``_PREAMBLE_READ`` characters."""
    return tuple(output[:_PREAMBLE_READ].split("\n", PREAMBLE_LINES + 1)[: PREAMBLE_LINES + 1])


def shared_preamble(one: Lines, other: Lines) -> Lines:
    """The lines, none blank, that two outputs begin with, when a line that differs follows
    them in both (outputs the same throughout say nothing of where a preamble would end)."""
    shared = 0
    for mine, theirs in zip(one, other, strict=False):
        if mine != theirs or not mine.strip():
            break
        shared += 1
    differs = shared < min(len(one), len(other)) and one[shared] != other[shared]
    return one[:shared] if differs else ()


def past_preamble(output: str, preamble: Lines) -> str:
    """``output`` without the ``preamble`` lines it begins with, when something follows them
    (an output that is only the preamble is shown as it is)."""
    start = "\n".join(preamble) + "\n"
    if output.startswith(start) and output[len(start) :].strip():
        return output[len(start) :]
    return output


def one_line_start(text: str, limit: int) -> str:
    """What a line of ``limit`` characters made of ``text`` needs of it (a successful call's
    message shows its output so: ``blocks.tools.result_note``): ``text`` with its white space
    runs made one space, and only ``limit + 2`` characters of that kept. The line made of this
    start is the one made of the whole, and is cut exactly when that one is: whether the line
    is longer than ``limit`` shows past the limit, and the one character more is for a space
    (a line is trimmed). Text with a control or format character (a terminal escape, a
    carriage return) is kept as it is: cleaning it is the message's."""
    if not text.replace("\n", " ").replace("\t", " ").isprintable():
        return text
    return " ".join(text.split())[: limit + 2]


def relative_path(path: str, cwd: str) -> str:
    """``path`` relative to the working directory ``cwd`` when it lies below it (``.`` for
    ``cwd`` itself), else as given. Either separator (Windows paths)."""
    base = _base(cwd)
    if not base or not path.startswith(base):
        return path
    rest = path[len(base) :]
    if not rest:
        return "."
    if rest[0] != "/" and rest[0] != "\\":
        return path  # another directory whose name starts alike
    return rest.lstrip("/\\") or "."


def _base(cwd: str) -> str:
    """``cwd`` without its trailing separators ("" for a root, below which is everything)."""
    return cwd.rstrip("/\\")


def _relative_paths(args: Mapping[str, Any], cwd: str) -> Mapping[str, Any]:
    """``args`` with its path arguments relative to ``cwd`` (a copy only when one changes)."""
    changed: dict[str, Any] | None = None
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value:
            shown = relative_path(value, cwd)
            if shown != value:
                changed = dict(args) if changed is None else changed
                changed[key] = shown
    return args if changed is None else changed
