"""What was sent to Slack: each session's thread, each message's ts and the digest of the
payload last sent, the reaction on each root, and the posts whose outcome is not known yet.

``Ledger`` keeps them in memory; ``bot.store.StoredLedger`` writes each change through to the
state database as it happens, so a restart knows what the channel already shows.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import orjson


def digest(payload: dict[str, Any]) -> bytes:
    """A stable fingerprint of a payload: equal payloads, equal digests (16 bytes, kept as
    they are: the ledger holds one for every message sent)."""
    canonical = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(canonical, digest_size=16).digest()


@dataclass(slots=True)
class Sent:
    ts: str
    digest: bytes


@dataclass
class Ledger:
    # Each session's thread: message key -> what was sent (one dict a session, so a thread is
    # forgotten or looked through without reading the others')
    threads: dict[str, dict[str, Sent]] = field(default_factory=dict)
    reactions: dict[str, str] = field(default_factory=dict)  # session -> reaction on its root
    posting: set[tuple[str, str]] = field(default_factory=set)  # posts of unknown outcome
    look_before_posting: bool = False  # the channel may hold posts this ledger does not know

    def thread_of(self, session_id: str) -> str | None:
        root = self.sent(session_id, "root")
        return root.ts if root is not None else None

    def sent(self, session_id: str, key: str) -> Sent | None:
        thread = self.threads.get(session_id)
        return None if thread is None else thread.get(key)

    def in_doubt(self, session_id: str, key: str) -> bool:
        """Whether a post of this message may have been stored without our knowing its ts."""
        return self.look_before_posting or (session_id, key) in self.posting

    def begin_post(self, session_id: str, key: str) -> None:
        """A post is about to be sent: until ``record``, its outcome is unknown."""
        self.posting.add((session_id, key))

    def record(self, session_id: str, key: str, ts: str, payload_digest: bytes) -> None:
        self.threads.setdefault(session_id, {})[key] = Sent(ts, payload_digest)
        self.posting.discard((session_id, key))

    def forget(self, session_id: str, key: str) -> None:
        thread = self.threads.get(session_id)
        if thread is not None:
            thread.pop(key, None)

    def forget_thread(self, session_id: str) -> None:
        """Forget everything sent of a session's thread (its root was deleted): it is posted
        again from its root."""
        self.threads.pop(session_id, None)
        self.posting = {entry for entry in self.posting if entry[0] != session_id}
        self.reactions.pop(session_id, None)

    def reaction_of(self, session_id: str) -> str | None:
        return self.reactions.get(session_id)

    def set_reaction(self, session_id: str, name: str) -> None:
        self.reactions[session_id] = name
