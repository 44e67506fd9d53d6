"""The skeleton pipeline of ``benchmarks.floor``: the least any pipeline does per line
(``orjson.loads``, one field read, one slotted record built, one dispatch by type through a
dict, one state update). Kept in its own module so that the benchmark can also compile it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson


class _Record:
    """A slotted record with a written ``__init__`` (native code when compiled)."""

    __slots__ = ("kind", "line", "session_id", "text", "timestamp")

    def __init__(self, session_id: str, timestamp: Any, line: int, kind: Any, text: Any) -> None:
        self.session_id, self.timestamp, self.line = session_id, timestamp, line
        self.kind, self.text = kind, text


class _State:
    __slots__ = ("last", "seen")

    def __init__(self) -> None:
        self.last: _Record | None = None
        self.seen = 0


def _keep(state: _State, record: _Record) -> None:
    state.last = record
    state.seen += 1


_STEPS: dict[type, Callable[[_State, _Record], None]] = {_Record: _keep}


def skeleton(lines: list[bytes]) -> None:
    state = _State()
    loads, steps = orjson.loads, _STEPS
    for number, raw in enumerate(lines, 1):
        obj = loads(raw)
        get = obj.get if type(obj) is dict else {}.get
        record = _Record(get("session_id") or "", get("timestamp"), number, get("type"), None)
        steps[type(record)](state, record)
