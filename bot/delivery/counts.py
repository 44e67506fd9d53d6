"""What delivery counted: posts, updates, reactions, rate limits, retries, fallbacks, calls
given up, threads started again (read by the metrics)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Counts:
    posts: int = 0
    updates: int = 0
    reactions: int = 0
    rate_limited: int = 0
    retries: int = 0
    fallbacks: int = 0
    gave_up: int = 0  # calls whose retries ran out (Slack unreachable or answering 5xx)
    restarts: int = 0  # threads started again because their root was deleted


def added(counts: Counts, **more: int) -> Counts:
    return Counts(**{name: getattr(counts, name) + more.get(name, 0) for name in Counts.__slots__})
