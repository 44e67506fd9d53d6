"""What was sent to Slack: each session's thread, each message's ts and the digest of the
payload last sent, the reaction on each root. In memory here; the durable store (SQLite)
keeps the same facts across restarts."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import orjson


def digest(payload: dict[str, Any]) -> str:
    """A stable fingerprint of a payload: equal payloads, equal digests."""
    canonical = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(canonical, digest_size=16).hexdigest()


@dataclass(slots=True)
class Sent:
    ts: str
    digest: str


@dataclass
class Ledger:
    messages: dict[tuple[str, str], Sent] = field(default_factory=dict)  # (session, key) -> sent
    reactions: dict[str, str] = field(default_factory=dict)  # session -> reaction on its root

    def thread_of(self, session_id: str) -> str | None:
        root = self.messages.get((session_id, "root"))
        return root.ts if root is not None else None

    def sent(self, session_id: str, key: str) -> Sent | None:
        return self.messages.get((session_id, key))

    def record(self, session_id: str, key: str, ts: str, payload_digest: str) -> None:
        self.messages[(session_id, key)] = Sent(ts, payload_digest)

    def forget(self, session_id: str, key: str) -> None:
        self.messages.pop((session_id, key), None)
