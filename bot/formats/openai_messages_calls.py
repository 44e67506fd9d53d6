"""One OpenAI-messages session's tool calls still waiting for a result, and the call ids it has
used: the ids calls and results go by (see ``openai_messages``'s docstring), in bounded state."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Final

from mypy_extensions import mypyc_attr

MAX_WAITING: Final = 512
MAX_IDS: Final = 4096


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class SessionCalls:
    """One session's tool calls still waiting for a result, and the call ids it has used."""

    __slots__ = ("counter", "session_id", "used", "waiting")

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        # call id -> (id as logged, tool name)
        self.waiting: OrderedDict[str, tuple[str, str]] = OrderedDict()
        self.used: OrderedDict[str, int] = OrderedDict()  # id as logged -> how many calls used it
        self.counter = 0

    def open_call(self, logged_id: str, name: str) -> str:
        """The id a new call goes by: as logged, ``id#n`` when reused, made up when absent."""
        self.counter += 1
        if not logged_id:
            call_id = f"{self.session_id}/call-{self.counter}"
        else:
            seen = self.used.get(logged_id, 0)
            self.used[logged_id] = seen + 1
            trim(self.used, MAX_IDS)
            call_id = logged_id if seen == 0 else f"{logged_id}#{seen + 1}"
        self.waiting[call_id] = (logged_id, name)
        trim(self.waiting, MAX_WAITING)
        return call_id

    def close_call(self, logged_id: str, name: str | None) -> str:
        """The id of the call a result answers (see the module docstring)."""
        if logged_id:
            for call_id, (logged, _) in self.waiting.items():
                if logged == logged_id:
                    del self.waiting[call_id]
                    return call_id
            if logged_id in self.used:
                return logged_id
        for call_id, (_, call_name) in self.waiting.items():
            if name is None or call_name == name:
                del self.waiting[call_id]
                return call_id
        if logged_id:
            return logged_id
        self.counter += 1
        return f"{self.session_id}/result-{self.counter}"


def trim(table: OrderedDict[str, Any], limit: int) -> None:
    """Forget the oldest entry of ``table`` past ``limit`` entries (bounded parser state; an
    ``OrderedDict``: see ``common.remember``)."""
    if len(table) > limit:
        table.popitem(last=False)
