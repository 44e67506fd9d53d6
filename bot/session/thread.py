"""The items of a session's thread, in the order a reader sees them.

Each item becomes one Slack message with a stable key; an item is created once and then only
changes in place (a text batch grows, a tool group's calls change state), so that a message
posted for it can be updated rather than posted again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from mypy_extensions import mypyc_attr

from bot.caps import TEXT_CAP
from bot.result_records import AgentExited, SessionResult

NARRATION_ENTRIES: Final = 12


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class TextBatch:
    """Consecutive assistant text, joined. The pieces are kept apart until the text is read:
    a streamed answer arrives in hundreds of small deltas, and appending each to one string
    would copy the whole text every time."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.size = 0  # the whole text's length, kept or not
        self._pieces: list[str] = []
        self._kept = 0  # the length of the text kept (at most TEXT_CAP)

    def add(self, text: str, delta: bool) -> None:
        joiner = "" if delta or not self._kept else "\n\n"
        self.size += len(joiner) + len(text)
        room = TEXT_CAP - self._kept
        if room > 0:
            piece = (joiner + text)[:room] if joiner else text[:room]
            self._pieces.append(piece)
            self._kept += len(piece)

    @property
    def text(self) -> str:
        """The text kept, joined (once: the pieces are replaced by their join)."""
        pieces = self._pieces
        if len(pieces) != 1:
            joined = "".join(pieces)
            self._pieces = [joined] if joined else []
            return joined
        return pieces[0]

    @property
    def is_full(self) -> bool:
        return self._kept >= TEXT_CAP

    def __repr__(self) -> str:
        return f"TextBatch(key={self.key!r}, text={self.text!r}, size={self.size})"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class Narration:
    """A short remark of the agent's between its tool calls ("Now let me run the tests.")."""

    text: str

    def __init__(self, text: str) -> None:
        self.text = text


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class ToolGroup:
    """Consecutive tool calls (their ids), with the agent's short remarks between them in
    order, shown as one message: a session of many small steps stays a few messages."""

    key: str
    entries: list[str | Narration] = field(default_factory=list)
    calls: int = 0
    # Its index in the thread. Each of its calls keeps this very int, not one of its own: in
    # the pure build that is 2.2 MB of a 100,000-call session (benchmarks/PERFORMANCE.md).
    at: int = -1

    def __init__(
        self, key: str, entries: list[str | Narration] | None = None, calls: int = 0, at: int = -1
    ) -> None:
        self.key, self.entries, self.calls = key, [] if entries is None else entries, calls
        self.at = at

    @property
    def call_ids(self) -> list[str]:
        return [entry for entry in self.entries if isinstance(entry, str)]

    def add_call(self, call_id: str) -> None:
        self.entries.append(call_id)
        self.calls += 1

    def add_remark(self, text: str, limit: int) -> bool:
        """Take a short remark; False when it does not fit (too long, or it would make the
        remark before it too long)."""
        last = self.entries[-1] if self.entries else None
        if isinstance(last, Narration):
            if len(last.text) + 2 + len(text) > limit:
                return False
            last.text += "\n\n" + text
            return True
        if len(text) > limit or len(self.entries) >= 2 * NARRATION_ENTRIES:
            return False
        self.entries.append(Narration(text))
        return True

    def take_remark(self, text: str) -> bool:
        """Take ``text`` out of the group's last remark when that remark ends with it (the
        final answer, shown by the result message instead); False when it does not."""
        for index in range(len(self.entries) - 1, -1, -1):
            entry = self.entries[index]
            if not isinstance(entry, Narration):
                continue
            if entry.text == text:
                del self.entries[index]
                return True
            if entry.text.endswith("\n\n" + text):
                entry.text = entry.text[: -len(text) - 2]
                return True
            return False
        return False


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True)
class UserTurn:
    key: str
    text: str
    size: int


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True, init=False)
class NoticeItem:
    key: str
    kind: str
    text: str
    level: str = "info"

    def __init__(self, key: str, kind: str, text: str, level: str = "info") -> None:
        self.key, self.kind, self.text, self.level = key, kind, text, level


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True)
class DelegationItem:
    key: str
    call_id: str


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True)
class TodoItem:
    key: str = "todos"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
@dataclass(slots=True)
class ResultItem:
    key: str
    result: SessionResult
    repeats_text: bool = False  # its text is the assistant text just shown: don't repeat it
    exit: AgentExited | None = None  # the agent's exit, when the session ended on it


ThreadItem = TextBatch | ToolGroup | UserTurn | NoticeItem | DelegationItem | TodoItem | ResultItem
