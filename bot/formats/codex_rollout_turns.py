"""How a Codex rollout's turns end: is the rollout one ``codex exec`` run, whose result is the
session's, or an interactive thread, whose turns end one after another (see ``codex_rollout``);
what each of its ``token_count``s spent, and each turn; a run's result."""

from __future__ import annotations

from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.common import uncached_input
from bot.formats.running_totals import Counts, ProcessTotals
from bot.records import Origin, Usage
from bot.result_records import ResultStatus, SessionResult
from bot.values import as_int, text_or_empty

_EXEC_SOURCE: Final = "exec"
_EXEC_ORIGINATOR: Final = "codex_exec"


def is_exec_run(source: object, originator: str) -> bool:
    """Whether a rollout records one ``codex exec`` run: its ``session_meta.source`` is "exec"
    (codex-rs ``SessionSource``: cli, vscode, exec, mcp, a custom name, or a sub-agent), or, in
    the builds that wrote no ``source``, its ``originator`` is "codex_exec"."""
    if source is None:
        return originator == _EXEC_ORIGINATOR
    return source == _EXEC_SOURCE


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Tokens:
    """What each ``token_count`` says the thread spent since the one before, and the turn's sum.

    ``total_token_usage`` is the thread's running total in its process (codex-rs
    ``TokenUsageInfo::append_last_usage`` adds each request's ``last_token_usage`` to it): a
    count's own share is its difference from the one before, as ``ProcessTotals`` reckons a
    Claude result's (a total below the one before is another process's, taken as said: the 0.40
    rollout of the corpus starts again from its last request after the user's second prompt).
    A count repeated as it was is no new spending; one with no total gives its request's own
    ``last_token_usage``. OpenAI's input counts the cached input too: the Usage's input is the
    part not cached."""

    def __init__(self) -> None:
        self._totals = ProcessTotals()
        self._last: object = None
        self._turn: list[int | None] = [None, None, None, None]  # as ``turn`` gives them

    def add(self, info: object, origin: Origin) -> Usage | None:
        """The spending a ``token_count``'s ``info`` says, or ``None`` when it says none new."""
        if not isinstance(info, dict) or info == self._last:
            return None
        self._last = info
        total, last = info.get("total_token_usage"), info.get("last_token_usage")
        if isinstance(total, dict):
            counts = self._totals.own("thread", (None, _counts(total)))[1]
        elif isinstance(last, dict):
            counts = _counts(last)
        else:
            return None
        given, output, cached, reasoning = counts
        if all(count is None or count == 0 for count in counts):
            return None
        fresh = uncached_input(given, cached)
        turn = self._turn
        for index, count in enumerate((fresh, cached, output, reasoning)):
            if count is not None:
                turn[index] = count + (turn[index] or 0)
        return Usage(origin, input_tokens=fresh, output_tokens=output, cache_read_tokens=cached,
                     reasoning_tokens=reasoning)  # fmt: skip

    def turn(self) -> list[int | None]:
        """The turn that ends now: input not cached, cached input, output, reasoning (None for
        a figure it never gave); the next turn counts from here."""
        found, self._turn = self._turn, [None, None, None, None]
        return found


def _counts(usage: dict[str, Any]) -> Counts:
    """Input (cached included), output, cached input, reasoning: ``ProcessTotals``' slots."""
    return (as_int(usage.get("input_tokens")), as_int(usage.get("output_tokens")),
            as_int(usage.get("cached_input_tokens")),
            as_int(usage.get("reasoning_output_tokens")))  # fmt: skip


def run_result(
    aborted: bool,
    reason: str,
    payload: dict[str, Any],
    tokens: Tokens,
    model: str | None,
    origin: Origin,
) -> SessionResult:
    """The result of a ``codex exec`` run: ``task_complete`` (succeeded, its last message, its
    time) or ``turn_aborted`` (failed, "aborted"). Its tokens are its ``token_count``s' (each a
    Usage): it gives none of its own, and the session shows the run's on it."""
    text = None if aborted else text_or_empty(payload.get("last_agent_message")) or None
    tokens.turn()  # the next run counts from here
    return SessionResult(
        origin,
        status=ResultStatus.FAILED if aborted else ResultStatus.SUCCEEDED,
        subtype="aborted" if aborted else "task_complete",
        text=text,
        error=f"The turn was aborted ({reason})." if aborted else None,
        duration_ms=as_int(payload.get("duration_ms")),
        models=(model,) if model else (),
    )
