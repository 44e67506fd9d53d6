"""The items of a session's thread, in the order a reader sees them.

Each item becomes one Slack message with a stable key; an item is created once and then only
changes in place (a text batch grows, a tool group's calls change state), so that a message
posted for it can be updated rather than posted again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.records import SessionResult

TEXT_CAP = 9000  # what a text message can show; the rest is counted, not kept
USER_TEXT_CAP = 2900
NOTICE_CAP = 1000


@dataclass(slots=True)
class TextBatch:
    """Consecutive assistant text, joined."""

    key: str
    text: str = ""
    size: int = 0  # the whole text's length, kept or not

    def add(self, text: str, delta: bool) -> None:
        joiner = "" if delta or not self.text else "\n\n"
        self.size += len(joiner) + len(text)
        room = TEXT_CAP - len(self.text)
        if room > 0:
            self.text += (joiner + text)[:room]

    @property
    def is_full(self) -> bool:
        return len(self.text) >= TEXT_CAP


@dataclass(slots=True)
class ToolGroup:
    """Consecutive tool calls (their ids), shown as one message."""

    key: str
    call_ids: list[str] = field(default_factory=list)


@dataclass(slots=True)
class UserTurn:
    key: str
    text: str
    size: int


@dataclass(slots=True)
class NoticeItem:
    key: str
    kind: str
    text: str
    level: str = "info"


@dataclass(slots=True)
class DelegationItem:
    key: str
    call_id: str


@dataclass(slots=True)
class TodoItem:
    key: str = "todos"


@dataclass(slots=True)
class ResultItem:
    key: str
    result: SessionResult


ThreadItem = TextBatch | ToolGroup | UserTurn | NoticeItem | DelegationItem | TodoItem | ResultItem
