"""What Claude Code's stream-json says besides the conversation: its ``system`` lines (hooks,
tasks, compaction, status, permission changes) and the other top-level types (permission
prompts, rate limits, plumbing), as notices and ignored rows; and the small text helpers the
stream parser shares with them.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

from bot.records import Compaction, Ignored, Notice, Origin, Record
from bot.result_records import PermissionDenial
from bot.values import as_int, clip, dict_or_empty, text_or_none

# System subtypes and top-level types a channel reader never wants: ticks and plumbing.
_NOISY_SUBTYPES: Final = frozenset(
    {"hook_started", "hook_progress", "task_progress", "task_updated", "thinking_tokens"}
    | {"background_tasks_changed"}
)
_QUIET_TYPES: Final = frozenset(
    {"control_request", "control_response", "control_cancel_request", "keep_alive"}
    | {"tool_progress"}
)
_SUMMARY_SKIPS: Final = frozenset(
    {"type", "subtype", "session_id", "uuid", "timestamp", "parent_tool_use_id"}
)
_INPUT_SUMMARY_KEYS: Final = (
    "command",
    "file_path",
    "path",
    "pattern",
    "url",
    "query",
    "description",
)


Line = dict[str, Any]


def system_record(obj: Line, origin: Origin) -> Record:
    """A ``system`` line other than ``init``."""
    subtype = obj.get("subtype")
    if subtype == "compact_boundary":
        return _compaction(obj, origin)
    if subtype == "status":
        return _status(obj, origin)
    name = subtype if isinstance(subtype, str) and subtype else "system"
    if name in _NOISY_SUBTYPES:
        return ignored(origin, name)
    text, level = _system_text(name, obj)
    return notice(origin, name, clip(text), level)


def _compaction(obj: Line, origin: Origin) -> Compaction:
    meta = dict_or_empty(obj.get("compact_metadata") or obj.get("compactMetadata"))
    pre_tokens = meta.get("pre_tokens", meta.get("preTokens"))
    return Compaction(
        origin,
        trigger=text_or_none(meta.get("trigger")),
        pre_tokens=as_int(pre_tokens),
    )


def _status(obj: Line, origin: Origin) -> Record:
    """Compaction starting or failing and permission-mode changes; other ticks are hidden."""
    failure = text_or_none(obj.get("compact_error"))
    if failure:
        return notice(origin, "status", f"Compaction failed: {failure}", "warning")
    if obj.get("status") == "compacting":
        return notice(origin, "status", "Compacting the conversation")
    mode = text_or_none(obj.get("permissionMode"))
    if mode:
        return notice(origin, "status", f"Permission mode: {mode}")
    return ignored(origin, "status")


def _system_text(name: str, obj: Line) -> tuple[str, str]:
    """A short readable text for a system subtype, and its level."""
    if name == "hook_response":
        return _hook_text(obj)
    if name.startswith("task_"):  # task_started has no status yet; task_notification has one
        status = text_or_none(obj.get("status")) or "started"
        what = text_or_none(obj.get("summary")) or text_or_none(obj.get("description"))
        what = what or obj.get("task_id")
        level = "warning" if status in ("failed", "stopped") else "info"
        return f"Task {status}: {what or 'a background task'}", level
    if name == "permission_denied":
        said = text_or_none(obj.get("message"))
        return said or f"Permission denied: {obj.get('tool_name')}", "warning"
    return summary(name, obj), _level_of(name)


def _hook_text(obj: Line) -> tuple[str, str]:
    name = text_or_none(obj.get("hook_name")) or text_or_none(obj.get("hook_event")) or "hook"
    code = as_int(obj.get("exit_code"))
    failed = obj.get("outcome") not in (None, "success") or code not in (None, 0)
    text = f"Hook {name} failed (exit {code})" if failed else f"Hook {name} ran"
    said = text_or_none(obj.get("stderr") if failed else None) or text_or_none(obj.get("output"))
    return (f"{text}: {said.strip()}" if said else text), ("warning" if failed else "info")


def other_type(kind: str, obj: Line, origin: Origin) -> list[Record] | None:
    """Permission prompts and rate-limit warnings; plumbing is hidden. Another type is a notice
    when the line names its session, else not this format."""
    request = obj.get("request")
    if isinstance(request, dict) and request.get("subtype") == "can_use_tool":
        tool = text_or_none(request.get("tool_name")) or "a tool"
        detail = _input_summary(request.get("input"))
        text = f"Waiting for permission to use {tool}" + (f": {detail}" if detail else "")
        return [notice(origin, "permission_request", clip(text), "warning")]
    limits = obj.get("rate_limit_info")
    allowed = isinstance(limits, dict) and limits.get("status") == "allowed"
    if allowed or kind in _QUIET_TYPES:
        return [ignored(origin, kind)]
    if "session_id" not in obj:
        return None
    level = "warning" if limits is not None else _level_of(kind)
    return [notice(origin, kind, summary(kind, obj), level)]


def denials(value: object) -> tuple[PermissionDenial, ...]:
    """A result's ``permission_denials``."""
    if not isinstance(value, list):
        return ()
    return tuple(
        PermissionDenial(
            tool_name=str(denial.get("tool_name") or ""),
            call_id=text_or_none(denial.get("tool_use_id")),
            summary=_input_summary(denial.get("tool_input")),
        )
        for denial in value
        if isinstance(denial, dict)
    )


def _input_summary(tool_input: object) -> str | None:
    """A tool input in a few words: its command, path, pattern... or its JSON, clipped."""
    if isinstance(tool_input, dict):
        for key in _INPUT_SUMMARY_KEYS:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                return clip(value, 120)
        return clip(orjson.dumps(tool_input).decode(), 120) if tool_input else None
    return clip(tool_input, 120) if isinstance(tool_input, str) and tool_input else None


def summary(name: str, obj: Line) -> str:
    """``name: key=value, ...`` from a line's plain fields (one level of nesting)."""
    parts: list[str] = []
    for key, value in obj.items():
        if key in _SUMMARY_SKIPS:
            continue
        if isinstance(value, dict):
            parts.extend(f"{k}={v}" for k, v in value.items() if _is_plain(v))
        elif _is_plain(value):
            parts.append(f"{key}={value}")
    return clip(f"{name}: {', '.join(parts)}" if parts else name)


def _is_plain(value: object) -> bool:
    return isinstance(value, (str, int, float)) and value != ""


def _level_of(name: str) -> str:
    return "warning" if ("error" in name or "fail" in name or "retry" in name) else "info"


def notice(origin: Origin, kind: str, text: str, level: str = "info") -> Notice:
    return Notice(origin, kind=kind, text=text, level=level)


def ignored(origin: Origin, kind: str) -> Ignored:
    return Ignored(origin, kind=kind)
