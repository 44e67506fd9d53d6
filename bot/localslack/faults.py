"""Fault injection: the ways Slack (or the network to it) misbehaves, on demand, for tests.

- `error_rate`: that share of calls answers HTTP 5xx before anything is done (seeded random);
- `ratelimit_bursts`: the next N calls of a method answer 429 with `Retry-After`;
- `delay`: answers come late (the call is done first, then the answer waits);
- `drop_after_store`: the next N calls of a method are done (a post is stored) and the
  connection is then closed with no answer: the case that makes a naive client post twice.

Configurable when the server is made, at run time through `LocalSlack.faults`, and over HTTP
with `POST /_admin/faults` (a JSON object with the fields of `configure`).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Decision:
    """What to do to one call before it is handled."""

    status: int | None = None  # answer this HTTP status instead (5xx or 429)
    retry_after: int = 1
    delay: float = 0.0  # seconds to hold the answer back


class Faults:
    """The faults in force; thread-safe. Everything is off until configured."""

    def __init__(self, *, seed: int = 0) -> None:
        self._lock = threading.Lock()
        self._seed = seed
        self.reset()

    def reset(self) -> None:
        with self._lock:
            self._random = random.Random(self._seed)
            self.error_rate = 0.0
            self.error_status = 500
            self.error_methods: frozenset[str] | None = None
            self.ratelimit_bursts: dict[str, int] = {}
            self.retry_after = 1
            self.delay = 0.0
            self.delay_methods: frozenset[str] | None = None
            self.drop_after_store: dict[str, int] = {}
            self.injected: dict[str, int] = {"5xx": 0, "429": 0, "delay": 0, "drop": 0}

    def configure(
        self,
        *,
        seed: int | None = None,
        error_rate: float | None = None,
        error_status: int | None = None,
        error_methods: Collection[str] | None = None,
        ratelimit_bursts: Mapping[str, int] | None = None,
        retry_after: int | None = None,
        delay: float | None = None,
        delay_methods: Collection[str] | None = None,
        drop_after_store: Mapping[str, int] | None = None,
    ) -> None:
        """Change the faults named; the others stay as they are. Bursts and drops add up."""
        if error_rate is not None and not 0.0 <= error_rate <= 1.0:
            raise ValueError("error_rate must be between 0 and 1")
        if error_status is not None and not 500 <= error_status <= 599:
            raise ValueError("error_status must be a 5xx status")
        if delay is not None and delay < 0:
            raise ValueError("delay must not be negative")
        if retry_after is not None and retry_after < 1:
            raise ValueError("retry_after must be at least 1 second")
        with self._lock:
            if seed is not None:
                self._seed = seed
                self._random = random.Random(seed)
            if error_rate is not None:
                self.error_rate = error_rate
            if error_status is not None:
                self.error_status = error_status
            if error_methods is not None:
                self.error_methods = frozenset(error_methods) or None
            for method, count in (ratelimit_bursts or {}).items():
                self.ratelimit_bursts[method] = self.ratelimit_bursts.get(method, 0) + count
            if retry_after is not None:
                self.retry_after = retry_after
            if delay is not None:
                self.delay = delay
            if delay_methods is not None:
                self.delay_methods = frozenset(delay_methods) or None
            for method, count in (drop_after_store or {}).items():
                self.drop_after_store[method] = self.drop_after_store.get(method, 0) + count

    def configure_from_json(self, body: Any) -> None:
        """`configure` from a decoded `POST /_admin/faults` body; ValueError if it is malformed."""
        if not isinstance(body, dict):
            raise ValueError("the body must be a JSON object")
        known: dict[str, type | tuple[type, ...]] = {
            "seed": int,
            "error_rate": (int, float),
            "error_status": int,
            "error_methods": list,
            "ratelimit_bursts": dict,
            "retry_after": int,
            "delay": (int, float),
            "delay_methods": list,
            "drop_after_store": dict,
        }
        for key, value in body.items():
            kind = known.get(key)
            if kind is None:
                raise ValueError(f"unknown fault: {key}")
            if isinstance(value, bool) or not isinstance(value, kind):
                raise ValueError(f"{key} has the wrong type")
        for key in ("ratelimit_bursts", "drop_after_store"):
            counts = body.get(key, {})
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in counts.values()):
                raise ValueError(f"{key} must map method names to counts")
        self.configure(**body)

    def decide(self, method: str) -> Decision:
        """The faults for one call of `method`, before it is handled (consuming a 429 burst)."""
        with self._lock:
            delay = 0.0
            if self.delay > 0 and (self.delay_methods is None or method in self.delay_methods):
                delay = self.delay
                self.injected["delay"] += 1
            if self.ratelimit_bursts.get(method, 0) > 0:
                self.ratelimit_bursts[method] -= 1
                self.injected["429"] += 1
                return Decision(status=429, retry_after=self.retry_after, delay=delay)
            targeted = self.error_methods is None or method in self.error_methods
            if self.error_rate > 0 and targeted and self._random.random() < self.error_rate:
                self.injected["5xx"] += 1
                return Decision(status=self.error_status, delay=delay)
            return Decision(delay=delay)

    def take_drop(self, method: str) -> bool:
        """Whether to close the connection, unanswered, after this successful call of `method`
        (consuming one of the drops asked for)."""
        with self._lock:
            if self.drop_after_store.get(method, 0) <= 0:
                return False
            self.drop_after_store[method] -= 1
            self.injected["drop"] += 1
            return True

    def state(self) -> dict[str, Any]:
        """The faults in force, as JSON (for `GET /_admin/faults`)."""
        with self._lock:
            return {
                "error_rate": self.error_rate,
                "error_status": self.error_status,
                "error_methods": sorted(self.error_methods or []),
                "ratelimit_bursts": dict(self.ratelimit_bursts),
                "retry_after": self.retry_after,
                "delay": self.delay,
                "delay_methods": sorted(self.delay_methods or []),
                "drop_after_store": dict(self.drop_after_store),
                "injected": dict(self.injected),
            }
