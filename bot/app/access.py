"""Who may use slacktail's controls: nobody unless allowed (deny by default). People are
allowed by their user id (``--allow-user``), or as members of the channel the click came from
(``--allow-channel-members``: ``conversations.members``, kept for ``members_ttl_s`` seconds)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection

MEMBERS_TTL_S = 60.0

Members = Callable[[str], Collection[str]]  # a channel's id -> the user ids of its members


class Access:
    """Whether a person may act on a control, in a channel."""

    def __init__(
        self,
        users: Collection[str] = (),
        *,
        members: Members | None = None,
        members_ttl_s: float = MEMBERS_TTL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.users = frozenset(users)
        self.members = members  # None: channel members are not allowed as such
        self.members_ttl_s = members_ttl_s
        self.clock = clock
        self._known: dict[str, tuple[float, frozenset[str]]] = {}
        self._lock = threading.Lock()

    @property
    def anyone_allowed(self) -> bool:
        """Whether anybody at all may act (else the controls are refused to everyone)."""
        return bool(self.users) or self.members is not None

    def allows(self, user: str, channel: str) -> bool:
        if user in self.users:
            return True
        if self.members is None or not channel:
            return False
        return user in self._members_of(channel)

    def _members_of(self, channel: str) -> frozenset[str]:
        now = self.clock()
        with self._lock:
            known = self._known.get(channel)
        if known is not None and now - known[0] < self.members_ttl_s:
            return known[1]
        assert self.members is not None
        members = frozenset(self.members(channel))
        with self._lock:
            self._known[channel] = (now, members)
        return members
