"""Slack's rate limits, kept on our side so that Slack never has to answer 429.

A token bucket per budget: posts per channel (about one a second, Slack's own guidance),
``chat.update`` shared by every session of the workspace (Tier 3: 50 a minute), reactions
(Tier 3, a budget of their own). A 429's ``Retry-After`` pauses the bucket it hit. Time is
given (``now``, monotonic seconds), never read here.
"""

from __future__ import annotations

from dataclasses import dataclass

POSTS_PER_SECOND = 1.0
UPDATES_PER_MINUTE = 48.0  # Tier 3 is "50+": stay under it
REACTIONS_PER_MINUTE = 48.0


@dataclass(slots=True)
class Bucket:
    """``rate`` tokens a second, at most ``burst`` saved up."""

    rate: float
    burst: float
    tokens: float = 0.0
    updated: float | None = None
    paused_until: float = 0.0

    def _refill(self, now: float) -> None:
        if self.updated is None:
            self.tokens, self.updated = self.burst, now
            return
        self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
        self.updated = now

    def wait(self, now: float) -> float:
        """Seconds until a call may go (0: now)."""
        self._refill(now)
        paused = max(0.0, self.paused_until - now)
        short = max(0.0, 1.0 - self.tokens) / self.rate
        return max(paused, short)

    def take(self, now: float) -> None:
        self._refill(now)
        self.tokens -= 1.0

    def pause(self, now: float, seconds: float) -> None:
        """Slack said ``Retry-After: seconds``: nothing goes before then, and the bucket
        starts again empty."""
        self.paused_until = max(self.paused_until, now + seconds)
        self.tokens = 0.0
        self.updated = now + seconds


class Pacing:
    """The budgets of one workspace. ``scale`` > 1 runs them faster (tests, a local Slack
    with scaled limits)."""

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale
        self.posts: dict[str, Bucket] = {}
        # A burst of one: within any minute at most 1 + 48 calls, under a window of 50.
        self.updates = Bucket(UPDATES_PER_MINUTE / 60 * scale, burst=1)
        self.reactions = Bucket(REACTIONS_PER_MINUTE / 60 * scale, burst=1)

    def for_posts(self, channel: str) -> Bucket:
        bucket = self.posts.get(channel)
        if bucket is None:
            bucket = self.posts[channel] = Bucket(POSTS_PER_SECOND * self.scale, burst=1)
        return bucket

    def all(self) -> list[Bucket]:
        return [*self.posts.values(), self.updates, self.reactions]
