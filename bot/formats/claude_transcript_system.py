"""Claude Code transcript lines of type ``system`` (and seed-001's ``compact_system``), read for
``claude_transcript``'s parser, and the notices it makes:

- compact_boundary → a Compaction(trigger, pre_tokens) that waits for the ``isCompactSummary``
  line after it; local_command → Notice("command"); stop_hook_summary → Notice("hook") if a hook
  failed, else Ignored, then TurnEnded; turn_duration → TurnEnded(duration_ms); a seed-001
  tool_result, or an error answering a seed-001 tool_use → its ToolResult; others →
  Notice(subtype) (an error's at level error), meta lines → Ignored;
- compact_system: conversation_compacted → Compaction; conversation_restored → Notice.
"""

from __future__ import annotations

from typing import Any

from bot.formats.claude_transcript_links import (
    SeedCalls,
    command_output,
    compaction_of,
    hook_problem,
    slash_command,
    system_text,
)
from bot.records import Compaction, Ignored, Notice, Origin, Record, ToolResult
from bot.result_records import TurnEnded
from bot.values import as_int

Out = list[Record]


def system_records(
    obj: dict[str, Any], origin: Origin, sidechain: bool, seed_calls: SeedCalls, out: Out
) -> Compaction | None:
    """The records of a ``system`` line, added to ``out``; a compact_boundary's Compaction is
    returned instead, to wait for its summary on the next line (else None)."""
    subtype, text = obj.get("subtype"), system_text(obj)
    failed = bool(obj.get("isError")) or subtype == "error"
    if subtype == "compact_boundary":
        trigger, tokens = compaction_of(obj)
        return Compaction(
            origin,
            trigger=trigger,
            pre_tokens=tokens,
        )
    if subtype == "local_command":
        said = slash_command(text) or command_output(text)
        out.append(command_notice(text if said is None else said, origin))
    elif subtype == "stop_hook_summary":
        if (problem := hook_problem(obj)) is None:
            out.append(ignored(origin, "hook"))
        else:
            out.append(notice(origin, "hook", problem, "warning"))
        end_turn(origin, sidechain, out)  # Claude Code runs its Stop hooks as a turn ends
    elif subtype == "turn_duration" and not sidechain:
        out.append(TurnEnded(origin, duration_ms=as_int(obj.get("durationMs"))))
    elif subtype == "tool_result" or (failed and seed_calls.is_waiting(obj.get("parentUuid"))):
        call_id = seed_calls.answered(obj.get("parentUuid"))
        out.append(
            ToolResult(
                origin,
                call_id=call_id,
                output=text,
                is_error=failed,
            )
        )
    elif failed:
        out.append(notice(origin, str(subtype or "error"), text, "error"))
    elif obj.get("isMeta") or subtype in ("meta", "turn_duration"):
        out.append(ignored(origin, str(subtype or "meta")))
    else:
        level = obj.get("level")
        level = level if level in ("error", "warning") else "info"
        out.append(notice(origin, str(subtype or "system"), text, level))
    return None


def compact_system_records(obj: dict[str, Any], origin: Origin, out: Out) -> None:
    """seed-001's ``compact_system`` lines."""
    operation = obj.get("message")
    if operation == "conversation_compacted":
        out.append(Compaction(origin))
    elif operation == "conversation_restored":
        out.append(notice(origin, "restored", "The conversation was restored."))
    else:  # conversation_compacting, conversation_restoring
        out.append(ignored(origin, str(operation or "compact_system")))


def end_turn(origin: Origin, sidechain: bool, out: Out) -> None:
    """The agent's turn ended, if the line is the session's own (not a subagent's)."""
    if not sidechain and origin.parent_call is None:
        out.append(TurnEnded(origin))


def command_notice(text: str, origin: Origin) -> Record:
    return notice(origin, "command", text) if text else ignored(origin, "command")


def notice(origin: Origin, kind: str, text: str, level: str = "info") -> Notice:
    return Notice(origin, kind=kind, text=text, level=level)


def ignored(origin: Origin, kind: str) -> Ignored:
    return Ignored(origin, kind=kind)
