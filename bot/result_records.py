"""The records of how a session, or a turn of it, ends: the session's result (with its
status and the permissions it was denied), a turn's end, the agent's exit. Records like those
of ``bot.records`` (see there why each writes its ``__init__`` out)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from mypy_extensions import mypyc_attr

from bot.records import Origin, Record


class ResultStatus(StrEnum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    STOPPED = "stopped"  # someone stopped it (Ctrl-C, a SIGTERM): neither done nor failed


@dataclass(frozen=True, slots=True)
class PermissionDenial:
    tool_name: str
    call_id: str | None = None
    summary: str | None = None

    def __reduce__(self) -> tuple[type[PermissionDenial], tuple[str, str | None, str | None]]:
        # Pickled by its fields: compiled (mypyc), a frozen class cannot be unpickled by setattr.
        return (PermissionDenial, (self.tool_name, self.call_id, self.summary))


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class SessionResult(Record):
    status: ResultStatus = ResultStatus.SUCCEEDED
    subtype: str | None = None  # e.g. "success", "error_max_turns", or whatever the log said
    text: str | None = None
    error: str | None = None
    duration_ms: int | None = None
    duration_api_ms: int | None = None
    num_turns: int | None = None
    cost_usd: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None
    premium_requests: int | None = None  # GitHub Copilot bills requests, not tokens
    models: tuple[str, ...] = ()
    permission_denials: tuple[PermissionDenial, ...] = ()
    errors: tuple[str, ...] = ()

    def __init__(
        self,
        origin: Origin,
        status: ResultStatus = ResultStatus.SUCCEEDED,
        subtype: str | None = None,
        text: str | None = None,
        error: str | None = None,
        duration_ms: int | None = None,
        duration_api_ms: int | None = None,
        num_turns: int | None = None,
        cost_usd: float | None = None,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        cache_read_tokens: int | None = None,
        cache_write_tokens: int | None = None,
        reasoning_tokens: int | None = None,
        premium_requests: int | None = None,
        models: tuple[str, ...] = (),
        permission_denials: tuple[PermissionDenial, ...] = (),
        errors: tuple[str, ...] = (),
    ) -> None:
        self.origin = origin
        self.status = status
        self.subtype = subtype
        self.text = text
        self.error = error
        self.duration_ms = duration_ms
        self.duration_api_ms = duration_api_ms
        self.num_turns = num_turns
        self.cost_usd = cost_usd
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.cache_read_tokens = cache_read_tokens
        self.cache_write_tokens = cache_write_tokens
        self.reasoning_tokens = reasoning_tokens
        self.premium_requests = premium_requests
        self.models = models
        self.permission_denials = permission_denials
        self.errors = errors


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class TurnEnded(Record):
    """The agent ended its turn: it answered and waits for the user. Not the session's end (the
    user may write again, and then the session runs again): the session shows that it waits.

    A format whose log has no result record emits it where the log itself says a turn ended
    (Claude Code transcripts: ``system/turn_duration``, ``stop_hook_summary``, an assistant
    message with ``stop_reason: end_turn``, the user's interruption). Only for the session's
    own turn: never with ``parent_call`` or ``subagent`` (a subagent's turn is not the
    session's). ``duration_ms``: the turn's length, where the log gives it. (A ``Notice`` of
    kind ``interrupted``, the user stopping the agent, ends its turn as well.)"""

    duration_ms: int | None = None

    def __init__(self, origin: Origin, duration_ms: int | None = None) -> None:
        self.origin = origin
        self.duration_ms = duration_ms


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class AgentExited(Record):
    """The agent's process ended (``slacktail run``): made by the follower, not by a format,
    for each session that process wrote, once its output ended. ``code``: its exit status
    (``None`` when a signal killed it); ``signal``: the signal that ended it ("SIGINT"), where
    one did: the one that killed it, or the one slacktail received and passed on to it."""

    code: int | None = None
    signal: str | None = None

    def __init__(self, origin: Origin, code: int | None = None, signal: str | None = None) -> None:
        self.origin = origin
        self.code = code
        self.signal = signal
