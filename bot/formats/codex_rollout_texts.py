"""Codex rollout texts: what the user, the agent and its reasoning said, read once.

A rollout says most texts twice: as a response item (``message`` of role user or assistant,
``reasoning`` with its summary parts) and as an event message (``user_message``,
``agent_message``, ``agent_reasoning``), in either order and not always both (trimmed files keep
only the events; a newer thread's "paginated" history only the items). A text is shown the first
time either side says it; the other side saying the same text is an echo (Ignored). The same side
saying it again (an agent answering "done" twice) is a new text.

Codex also writes user-role messages for the model that are not from the user (its "contextual"
messages: environment context, instructions, skills, sub-agent notifications...): Ignored. An
IDE extension's wrapper (open tabs, then ``## My request for Codex:``) is cut to the request.
Developer messages are Ignored.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.common import remember
from bot.records import AssistantText, Ignored, Notice, Origin, Record, Thinking, UserText

ITEM: Final = "item"  # said by a response item
EVENT: Final = "event"  # said by an event message
ANSWER: Final = "answer"  # said by a turn's end (``task_complete.last_agent_message``)
_REMEMBERED: Final = 48  # texts remembered (a text's echo comes within a few lines)
_PREAMBLES: Final = (
    "<environment_context>", "<user_instructions>", "<turn_aborted>", "<context_update>",
    "<subagent_notification>", "<tool_context>", "<reasoning_context>", "<pinned_notes>",
    "<user_shell_command>", "<skill>", "<instructions>", "# agents.md instructions",
)  # fmt: skip
_REQUEST: Final = "## My request for Codex:"
_IMAGE: Final = "[image]"

Out = list[Record]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Texts:
    """The texts of one rollout, each read once (see the module doc)."""

    def __init__(self) -> None:
        # kind and text → the sides that said it since it was last shown
        self._said: OrderedDict[str, tuple[str, ...]] = OrderedDict()

    def message(self, payload: dict[str, Any], origin: Origin, out: Out) -> None:
        role = payload.get("role")
        text = content_text(payload.get("content"))
        if role == "user":
            self.user(text, ITEM, origin, out)
        elif role == "assistant":
            self.assistant(text, ITEM, origin, out)
        else:
            out.append(Ignored(origin, kind=f"{role or 'unknown'} message"))

    def reasoning(self, payload: dict[str, Any], origin: Origin, out: Out) -> None:
        """A Thinking per summary part (an ``agent_reasoning`` event says each part alone)."""
        before = len(out)
        summary = payload.get("summary")
        for part in summary if isinstance(summary, list) else ():
            text = part.get("text") if isinstance(part, dict) else part
            if isinstance(text, str):
                self.thinking(text, ITEM, origin, out)
        if len(out) == before:
            out.append(Ignored(origin, kind="reasoning"))

    def agent_message(self, payload: dict[str, Any], origin: Origin, out: Out) -> None:
        """A message between agents (a sub-agent's report to its parent): a notice."""
        author, recipient = payload.get("author"), payload.get("recipient")
        text = content_text(payload.get("content")) or "(encrypted)"
        out.append(Notice(origin, kind="agent message", text=f"{author} → {recipient}: {text}"))

    def event(self, kind: str, payload: dict[str, Any], origin: Origin, out: Out) -> None:
        """``user_message``, ``agent_message`` or ``agent_reasoning``."""
        text = payload.get("message")
        if not isinstance(text, str):
            text = payload.get("text")
        text = text if isinstance(text, str) else ""
        if kind == "user_message":
            images = payload.get("images")
            if isinstance(images, list) and images:  # as the item says them: a part each
                text = "\n".join([text, *[_IMAGE] * len(images)]).strip()
            self.user(text, EVENT, origin, out)
        elif kind == "agent_message":
            self.assistant(text, EVENT, origin, out)
        else:
            self.thinking(text, EVENT, origin, out)

    def user(self, text: str, side: str, origin: Origin, out: Out) -> None:
        if is_preamble(text):
            out.append(Ignored(origin, kind="context"))
            return
        start = text.find(_REQUEST)
        if start >= 0:
            text = text[start + len(_REQUEST) :].strip()
        if self._new("user", side, text):
            out.append(UserText(origin, text=text))
        else:
            out.append(Ignored(origin, kind="user_message"))

    def assistant(self, text: str, side: str, origin: Origin, out: Out) -> None:
        if self._new("assistant", side, text):
            out.append(AssistantText(origin, text=text))
        else:
            out.append(Ignored(origin, kind="agent_message"))

    def final_answer(self, text: str, origin: Origin, out: Out) -> None:
        """A turn's final answer as its end says it: shown only when no message said it."""
        if self._new("assistant", ANSWER, text):
            out.append(AssistantText(origin, text=text))

    def thinking(self, text: str, side: str, origin: Origin, out: Out) -> None:
        if self._new("thinking", side, text):
            out.append(Thinking(origin, text=text))
        else:
            out.append(Ignored(origin, kind="agent_reasoning"))

    def _new(self, kind: str, side: str, text: str) -> bool:
        """Whether ``text`` is to be shown: not blank, and not the other side's echo."""
        stripped = text.strip()
        if not stripped:
            return False
        if _IMAGE in stripped:  # an image's place may differ between the two sides
            stripped = "\n".join(sorted(stripped.split("\n")))
        key = f"{kind}:{stripped}"
        sides = self._said.get(key)
        if sides is not None and side not in sides:
            self._said[key] = (*sides, side)
            return False
        remember(self._said, key, (side,), _REMEMBERED)
        return True


def content_text(content: object) -> str:
    """The text parts of a message (input_text, output_text, text), joined."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for part in content if isinstance(content, list) else ():
        if isinstance(part, dict):
            text = part.get("text")
            if isinstance(text, str):
                parts.append(text)
            elif part.get("type") in ("input_image", "image"):
                parts.append(_IMAGE)
    return "\n".join(parts)


def is_preamble(text: str) -> bool:
    """A user-role message Codex wrote for the model (one of its contextual messages)."""
    return text.lstrip()[:32].lower().startswith(_PREAMBLES)
