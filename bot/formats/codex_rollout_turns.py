"""How a Codex rollout's turns end: is the rollout one ``codex exec`` run, whose result is the
session's, or an interactive thread, whose turns end one after another (see ``codex_rollout``);
the tokens the thread used, in all and per turn; a run's result."""

from __future__ import annotations

from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.records import Origin
from bot.result_records import ResultStatus, SessionResult
from bot.values import as_int, text_or_empty

_USAGE_KEYS: Final = ("input_tokens", "cached_input_tokens", "output_tokens",
                      "reasoning_output_tokens")  # fmt: skip
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
    """The thread's token usage: each ``last_token_usage`` added (a ``token_count`` repeated as
    it was is not), or ``total_token_usage`` where it says more (cumulative from 0.4x on; a 0.40
    rollout wrote each request's usage there). Input, cached input, output, reasoning."""

    def __init__(self) -> None:
        self.sums = [0, 0, 0, 0]
        self.totals = [0, 0, 0, 0]
        self.given = [False, False, False, False]  # which figures the log ever reported
        self._last: object = None
        self._turn_began = [0, 0, 0, 0]  # the figures when the current turn began

    def add(self, info: object) -> None:
        if not isinstance(info, dict) or info == self._last:
            return
        self._last = info
        last, total = info.get("last_token_usage"), info.get("total_token_usage")
        for index, key in enumerate(_USAGE_KEYS):
            if isinstance(last, dict) and (count := as_int(last.get(key))) is not None:
                self.sums[index] += count
                self.given[index] = True
            if isinstance(total, dict) and (count := as_int(total.get(key))) is not None:
                self.totals[index] = count
                self.given[index] = True

    def figures(self) -> list[int | None]:
        """Input not cached, cached input, output, reasoning; None for a figure never given."""
        found: list[int | None] = []
        for index in range(4):
            given = self.given[index]
            found.append(max(self.sums[index], self.totals[index]) if given else None)
        fresh, cached = found[0], found[1]
        if fresh is not None and cached is not None:
            found[0] = max(fresh - cached, 0)  # OpenAI's input counts the cached input too
        return found

    def turn(self) -> list[int | None]:
        """The figures of the turn that ends now (since the last one ended), as ``figures``;
        the next turn counts from here."""
        found = self.figures()
        began, self._turn_began = self._turn_began, [figure or 0 for figure in found]
        return [None if figure is None else max(figure - began[index], 0)
                for index, figure in enumerate(found)]  # fmt: skip


def run_result(
    aborted: bool,
    reason: str,
    payload: dict[str, Any],
    tokens: Tokens,
    model: str | None,
    origin: Origin,
) -> SessionResult:
    """The result of a ``codex exec`` run: ``task_complete`` (succeeded, its last message, its
    time, the run's tokens: since the last run ended, as the session sums its results) or
    ``turn_aborted`` (failed, "aborted")."""
    text = None if aborted else text_or_empty(payload.get("last_agent_message")) or None
    fresh, cached, output, reasoning = tokens.turn()
    return SessionResult(
        origin,
        status=ResultStatus.FAILED if aborted else ResultStatus.SUCCEEDED,
        subtype="aborted" if aborted else "task_complete",
        text=text,
        error=f"The turn was aborted ({reason})." if aborted else None,
        duration_ms=as_int(payload.get("duration_ms")),
        input_tokens=fresh,
        output_tokens=output,
        cache_read_tokens=cached,
        reasoning_tokens=reasoning,
        models=(model,) if model else (),
    )

