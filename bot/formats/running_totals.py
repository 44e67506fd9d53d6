"""Running totals a log restates, turned into each report's own share: what a report adds to
the one before it in the same session (Claude Code's results, Codex rollouts' ``token_count``s)."""

from __future__ import annotations

from mypy_extensions import mypyc_attr

Counts = tuple[int | None, int | None, int | None, int | None]  # four token counts
Spent = tuple[float | None, Counts]  # a result's cost and its four token counts


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class ProcessTotals:
    """Claude Code's result says what its process has spent so far, not its run's share: one
    process serves every turn of an ``--input-format stream-json`` session, and each result
    restates the running total (anthropics/claude-code#83239). A result's own share is its
    difference from the result before it in the same session. A figure below the one before
    means another process (a run of its own, as ``claude -p`` runs each are): taken as said.
    Codex rollouts' ``token_count`` totals are reckoned the same way (``codex_rollout_turns``)."""

    def __init__(self) -> None:
        self._session = ""
        self._last: Spent | None = None

    def own(self, session: str, said: Spent) -> Spent:
        """The share of the result of ``session`` that says ``said``."""
        last = self._last if self._session == session else None
        self._session, self._last = session, said
        if last is None or not _grew(last, said):
            return said
        cost = None if said[0] is None else round(said[0] - (last[0] or 0.0), 9)
        counts = said[1]
        before = last[1]
        return cost, (
            _less(counts[0], before[0]),
            _less(counts[1], before[1]),
            _less(counts[2], before[2]),
            _less(counts[3], before[3]),
        )


def _grew(last: Spent, said: Spent) -> bool:
    """Whether no figure of ``said`` is below the same figure of ``last``."""
    if said[0] is not None and last[0] is not None and said[0] < last[0]:
        return False
    return all(
        now is None or then is None or now >= then
        for now, then in zip(said[1], last[1], strict=True)
    )


def _less(now: int | None, then: int | None) -> int | None:
    return None if now is None else now - (then or 0)
