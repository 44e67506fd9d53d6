"""What a Kimi Code ``wire.jsonl`` may hold: its record types (MoonshotAI/kimi-code
``packages/agent-core-v2/docs/wire-manifest.d.ts``, protocol 1.5), which of them a channel
reader never wants, and the token counts of ``usage.record``: each one's (the session's
``Usage``), and a turn's added up for its notice."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from bot.formats.common import usage_or_none
from bot.records import Origin, Usage
from bot.values import as_int, dict_or_empty

# Records a reader never wants: settings, bookkeeping, plans, modes, tasks, token counting.
QUIET_TYPES: Final = frozenset(
    {"config.update", "profile.bind", "metadata", "forked", "prompt.accepted"}
    | {"tools.set_active_tools", "tools.reset_active_tools", "tools.update_store"}
    | {"tools.register_user_tool", "tools.unregister_user_tool", "mcp.tools_discovered"}
    | {"permission.set_mode", "permission.record_approval_result", "runtime.set_binding"}
    | {"llm.request", "llm.tools_snapshot", "plugin.session_start", "context.undo"}
    | {"interaction.request", "interaction.resolved", "interruptionReminder.recorded"}
    | {"token_counting.measured", "token_counting.rebased", "token_counting.truncated"}
    | {"token_counting.turn_recorded", "staleGuard.cleared", "staleGuard.recorded"}
    | {"full_compaction.begin", "full_compaction.cancel", "full_compaction.complete"}
    | {"goal.create", "goal.update", "goal.clear", "cron.add", "cron.cursor", "cron.delete"}
    | {"plan_mode.enter", "plan_mode.exit", "plan_mode.cancel", "plan.revision"}
    | {"swarm_mode.enter", "swarm_mode.exit", "tower_mode.enter", "tower_mode.exit"}
    | {"task.started", "task.terminated", "task.waitDelivered"}
)
# Every record type of the protocol (the detector claims these only).
KNOWN_TYPES: Final = QUIET_TYPES | frozenset(
    {"context.append_loop_event", "context.append_message", "context.apply_compaction"}
    | {"context.clear", "turn.prompt", "turn.steer", "turn.cancel", "turn.ended"}
    | {"usage.record"}
)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class TurnTokens:
    """The tokens of the ``usage.record``s read since the last turn ended, all models together
    (each record is a model call's own count: Kimi adds them up the same way), and the models.
    A count no record gave stays ``None``."""

    def __init__(self) -> None:
        self.input_tokens: int | None = None
        self.output_tokens: int | None = None
        self.cache_read_tokens: int | None = None
        self.cache_write_tokens: int | None = None
        self.models: list[str] = []

    def add(self, usage: object, model: str | None) -> None:
        if model is not None and model not in self.models:
            self.models.append(model)
        if not isinstance(usage, dict):
            return
        self.input_tokens = _plus(self.input_tokens, usage.get("inputOther"))
        self.output_tokens = _plus(self.output_tokens, usage.get("output"))
        self.cache_read_tokens = _plus(self.cache_read_tokens, usage.get("inputCacheRead"))
        self.cache_write_tokens = _plus(self.cache_write_tokens, usage.get("inputCacheCreation"))


def _plus(total: int | None, value: object) -> int | None:
    count = as_int(value)
    if count is None:
        return total
    return count if total is None else total + count


def error_text(error: object) -> str | None:
    """A ``turn.ended`` error's message (``{code, message, cause?}``), with its code."""
    if isinstance(error, str):
        return error or None
    if not isinstance(error, dict):
        return None
    message, code = error.get("message"), error.get("code")
    text = message if isinstance(message, str) else ""
    if isinstance(code, str) and code:
        return f"{code}: {text}" if text else code
    return text or None


def record_usage(usage: object, origin: Origin) -> Usage | None:
    """One ``usage.record``'s own tokens as the session's Usage (Kimi gives no cost), ``None``
    when it gives no count. Each record is one model request's usage, whatever its
    ``usageScope`` ("turn": a turn's request, "session": another, e.g. a compaction's): Kimi
    adds them all up per model (upstream ``agent-core-v2/src/session/usage/
    usageAgentModel.ts``: ``record`` writes one per request, the total is their sum)."""
    given = dict_or_empty(usage)
    return usage_or_none(
        Usage(
            origin,
            input_tokens=as_int(given.get("inputOther")),
            output_tokens=as_int(given.get("output")),
            cache_read_tokens=as_int(given.get("inputCacheRead")),
            cache_write_tokens=as_int(given.get("inputCacheCreation")),
        )
    )
