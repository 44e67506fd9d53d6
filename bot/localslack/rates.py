"""Slack's rate limits, answered as Slack does: HTTP 429, `{"ok": false, "error": "ratelimited"}`
and a `Retry-After` header in whole seconds.

Limits are per method per workspace (Slack's rule: "per API method per app per workspace"), and
narrower where Slack says so: chat.postMessage per channel, assistant.threads.setStatus per
thread. Numbers (docs.slack.dev, "Rate limits", and each method's page):

| method | limit | model |
|---|---|---|
| chat.postMessage | about 1 per second per channel, short bursts | token bucket, 1/s, burst 3 |
| chat.update, chat.delete | Tier 3, 50+ per minute, workspace-wide | 50 in any 60 s |
| reactions.add / remove / get | Tier 3 | 50 in any 60 s, per method |
| conversations.history / replies / info | Tier 3 | 50 in any 60 s, per method |
| conversations.list | Tier 2, 20+ per minute | 20 in any 60 s |
| auth.test | Tier 4 (100+ per minute) | 100 in any 60 s |
| assistant.threads.setStatus | 60 per minute per thread (shared/SLACK_FACTS.md) | 60 in any 60 s |
| views.open / push / update / publish, chat.postEphemeral | Tier 4 | 100 in any 60 s, per method |
| apps.connections.open | Tier 1, 1+ per minute, small bursts | token bucket, 1/min, burst 5 |
| agents.sessions.setStatus / rename | Tier 3 | 50 in any 60 s, per method |
| chat.startStream / stopStream, chat.appendStream | Tier 2, Tier 4 | 20 / 100 in any 60 s |

Slack's workspace-wide cap on posting is undocumented and not modelled. `scale` speeds every
limit up (10 = ten times the rate); the clock is a callable so tests move time themselves.
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass

Clock = Callable[[], float]

POST_PER_SECOND = 1.0
POST_BURST = 3
TIER_1_BURST = 5
TIER_2 = 20
TIER_3 = 50
TIER_4 = 100
SET_STATUS_PER_MINUTE = 60


@dataclass(frozen=True)
class Rule:
    """`limit` calls per `seconds`; a token bucket of size `burst` when `burst` is set, else a
    sliding window. `scope` narrows the key: "workspace", "channel" or "thread"."""

    limit: float
    seconds: float
    scope: str = "workspace"
    burst: int | None = None


RULES: dict[str, Rule] = {
    "chat.postMessage": Rule(POST_PER_SECOND, 1.0, scope="channel", burst=POST_BURST),
    "chat.update": Rule(TIER_3, 60.0),
    "chat.delete": Rule(TIER_3, 60.0),
    "reactions.add": Rule(TIER_3, 60.0),
    "reactions.remove": Rule(TIER_3, 60.0),
    "reactions.get": Rule(TIER_3, 60.0),
    "conversations.history": Rule(TIER_3, 60.0),
    "conversations.replies": Rule(TIER_3, 60.0),
    "conversations.info": Rule(TIER_3, 60.0),
    "conversations.list": Rule(TIER_2, 60.0),
    "auth.test": Rule(TIER_4, 60.0),
    "assistant.threads.setStatus": Rule(SET_STATUS_PER_MINUTE, 60.0, scope="thread"),
    "views.open": Rule(TIER_4, 60.0),
    "views.push": Rule(TIER_4, 60.0),
    "views.update": Rule(TIER_4, 60.0),
    "views.publish": Rule(TIER_4, 60.0),
    "chat.postEphemeral": Rule(TIER_4, 60.0),
    "apps.connections.open": Rule(1, 60.0, burst=TIER_1_BURST),
    "agents.sessions.setStatus": Rule(TIER_3, 60.0),
    "agents.sessions.rename": Rule(TIER_3, 60.0),
    "chat.startStream": Rule(TIER_2, 60.0),
    "chat.appendStream": Rule(TIER_4, 60.0),
    "chat.stopStream": Rule(TIER_2, 60.0),
}


class _Bucket:
    """A token bucket: `rate` tokens a second, at most `size`."""

    def __init__(self, rate: float, size: int, now: float) -> None:
        self.rate, self.size = rate, float(size)
        self.tokens, self.at = float(size), now

    def take(self, now: float) -> float:
        self.tokens = min(self.size, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate


class _Window:
    """At most `limit` calls in any `seconds`-long window."""

    def __init__(self, limit: int, seconds: float) -> None:
        self.limit, self.seconds = limit, seconds
        self.calls: deque[float] = deque()

    def take(self, now: float) -> float:
        while self.calls and self.calls[0] <= now - self.seconds:
            self.calls.popleft()
        if len(self.calls) < self.limit:
            self.calls.append(now)
            return 0.0
        return self.calls[0] + self.seconds - now


class RateLimiter:
    """Decides, per call, whether Slack would answer 429 and with which Retry-After."""

    def __init__(
        self, *, clock: Clock = time.monotonic, enabled: bool = True, scale: float = 1.0
    ) -> None:
        if scale <= 0:
            raise ValueError("scale must be positive")
        self._clock = clock
        self._lock = threading.Lock()
        self.enabled = enabled
        self.scale = scale
        self._limits: dict[tuple[str, str], _Bucket | _Window] = {}
        self.refused: Counter[str] = Counter()

    def configure(self, *, enabled: bool | None = None, scale: float | None = None) -> None:
        """Switch limits on or off, or change their speed (which starts every limit afresh)."""
        with self._lock:
            if enabled is not None:
                self.enabled = enabled
            if scale is not None:
                if scale <= 0:
                    raise ValueError("scale must be positive")
                self.scale = scale
                self._limits.clear()

    def reset(self) -> None:
        """Forget every call made and every 429 counted."""
        with self._lock:
            self._limits.clear()
            self.refused.clear()

    def check(self, method: str, *, channel: str = "", thread: str = "") -> int | None:
        """Count one call; None if it may go through, else the Retry-After (whole seconds)."""
        rule = RULES.get(method)
        with self._lock:
            if not self.enabled or rule is None:
                return None
            key = {"channel": channel, "thread": f"{channel}:{thread}"}.get(rule.scope, "")
            limit = self._limits.get((method, key))
            if limit is None:
                limit = self._new(rule)
                self._limits[(method, key)] = limit
            wait = limit.take(self._clock())
            if wait <= 0:
                return None
            self.refused[method] += 1
            return max(1, math.ceil(wait))

    def _new(self, rule: Rule) -> _Bucket | _Window:
        if rule.burst is not None:
            return _Bucket(rule.limit / rule.seconds * self.scale, rule.burst, self._clock())
        return _Window(int(rule.limit), rule.seconds / self.scale)

    def refused_counts(self) -> Counter[str]:
        """429s answered so far, per method."""
        with self._lock:
            return Counter(self.refused)

    @property
    def refused_total(self) -> int:
        with self._lock:
            return sum(self.refused.values())
