"""A message as a session's thread wants it, waiting to be sent, and when an update of it may
go: a running session's root waits, and yields to the thread's own messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ROOT_WAIT_S = 15.0  # a running session's changed root waits at least this long for its update
ROOT_YIELD_S = 60.0  # ...and yields to other messages' changes up to this much younger


@dataclass(slots=True)
class Wanted:
    session_id: str
    key: str
    payload: dict[str, Any]
    digest: bytes
    final: bool
    order: int
    since: float  # when this change began to wait (clock seconds)
    in_doubt: bool = False  # a post was tried and may have been stored: look before posting


def due_of(wanted: Wanted) -> tuple[float, float]:
    """When an update may go, and the time it ranks by (the older, the sooner it goes)."""
    if wanted.key == "root" and not wanted.final:
        return wanted.since + ROOT_WAIT_S, wanted.since + ROOT_YIELD_S
    return wanted.since, wanted.since
