"""One structured line per notable event (JSON on stderr): never one per record, and never a
secret (nothing here is given a token; settings hold them as ``SecretStr``)."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

import orjson


class EventLog:
    """``event("posted", session=..., key=...)`` writes one JSON line; ``None`` stream: quiet."""

    def __init__(self, stream: TextIO | None = sys.stderr) -> None:
        self.stream = stream

    def event(self, name: str, **fields: Any) -> None:
        if self.stream is None:
            return
        line = {"at": round(time.time(), 3), "event": name, **fields}
        self.stream.write(orjson.dumps(line, default=str).decode() + "\n")
        self.stream.flush()
