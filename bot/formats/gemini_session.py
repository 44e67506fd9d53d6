"""Format: Gemini CLI session files (``~/.gemini/tmp/<project hash>/chats/session-*``).

Two shapes, one family:

- 2025: one JSON document per session, rewritten in place (read whole, as one value):
  ``{sessionId, projectHash, startTime, lastUpdated, messages: [...]}``;
- 2026: an append-only JSON Lines journal: a header ``{sessionId, projectHash, startTime,
  lastUpdated, kind}``, one line per message (a message written again as it grows repeats its
  ``id``), ``{"$set": {...}}`` metadata patches and ``{"$rewindTo": id}``.

Mapping:

- the header (or the document) → SessionStarted (agent "Gemini CLI", the model of its first
  answer); a message read before any header (a file followed from its middle, or a lone
  message) starts a session named after the source;
- a header of another ``sessionId`` → a warning Notice: two runs whose ids share the 8
  characters the file is named after write one file, and their messages, which carry no
  session id, cannot be told apart (they stay in the first session's thread);
- ``user`` → UserText (``displayContent`` when given: what the person typed); ``info`` /
  ``warning`` / ``error`` → Notice at that level;
- ``gemini`` → Thinking per thought, AssistantText, and per tool call ToolCall (see
  ``gemini_tools``) then, once it has finished, its ToolResult;
- a message written again adds only what is new (kept per message id, bounded): new thoughts,
  text that extends what was said, new calls, results of calls that have since finished;
- ``$set`` → Ignored, but for ``messages`` (a checkpoint: read as messages written again) and
  ``summary`` (the session's title); ``$rewindTo`` → Notice;
- a turn's end → TurnEnded, once per message: the file writes no mark of it, so it is read from
  the message that ends the turn (gemini-cli ``geminiChat.ts``, ``useGeminiStream.ts``): a
  ``gemini`` message whose text (``content``, the model's answer as a string) is not blank and
  that has no tool call, or one whose tool calls were all cancelled (but for ``update_topic``,
  which the user cannot decline: the CLI then sends the model nothing, its turn is over). A
  message is written before the calls it asks for ran (they are added once they end), so a
  followed file can show an answer that says "I will run X" as a turn's end while X runs;
  its calls, once written, make the session run again.

No result record: a session file simply stops; its session waits for the user when its last
turn ended, else its outcome is unknown.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bot.formats.common import remember, text_of, to_utc
from bot.formats.gemini_tools import PENDING, call_records, call_result
from bot.formats.log_format import LogFormat
from bot.formats.parser import LineParser
from bot.records import (
    AssistantText,
    Ignored,
    Notice,
    Origin,
    Record,
    SessionStarted,
    SubagentLink,
    Thinking,
    UserText,
)
from bot.result_records import TurnEnded
from bot.values import text_or_none

FAMILY = "gemini-session"
AGENT = "Gemini CLI"

# Tuples, not sets: membership by equality never fails on an unhashable JSON value.
_NOTICE_TYPES: Final = ("info", "warning", "error")
_LINE_TYPES: Final = ("user", "info", "warning", "error")
_MAX_MESSAGES: Final = 2048  # messages remembered, to add only what a rewrite adds
_MAX_SESSIONS: Final = 64
_TOPIC_TOOL: Final = "update_topic"  # a call the user cannot decline (its turn goes on)
_CANCELLED: Final = "cancelled"
_ANSWERED: Final = 1  # a message's turn end said: by its answer (SeenMessage.ended)
_CANCELLED_CALLS: Final = 2  # by its calls, all cancelled
_REWIND: Final = "The user went back to an earlier message; the conversation goes on from there."
_SHARED: Final = (
    "Another Gemini CLI session ({}) writes to this session file too: the file is named after "
    "the first 8 characters of the session id, which both share. Messages carry no session "
    "id, so from here on both sessions' messages are shown in this thread."
)

Out = list[Record]


def detect(obj: object) -> bool:
    """A header or a whole document (``sessionId`` with ``projectHash``: a Claude transcript
    line has no ``projectHash``), a ``$set`` / ``$rewindTo`` line, or a message: ``id``,
    ``timestamp`` and ``type`` ``gemini`` (or another type with a list of parts, as the
    journal writes a prompt; a string prompt is the backend family's row shape)."""
    if not isinstance(obj, dict):
        return False
    if isinstance(obj.get("sessionId"), str) and isinstance(obj.get("projectHash"), str):
        return True
    if "$set" in obj or "$rewindTo" in obj:
        return len(obj) == 1
    if not isinstance(obj.get("id"), str) or not isinstance(obj.get("timestamp"), str):
        return False
    kind = obj.get("type")
    if kind == "gemini":
        return "content" in obj
    return kind in _LINE_TYPES and isinstance(obj.get("content"), list)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class SeenMessage:
    """What was already said of one message: its text, its thoughts, of each tool call
    whether its call (1) or also its result (2) was said, and whether the turn's end was said
    (0: not, ``_ANSWERED``, ``_CANCELLED_CALLS``)."""

    def __init__(self) -> None:
        self.text = ""
        self.thoughts = 0
        self.calls: dict[str, int] = {}
        self.ended = 0


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Parser(LineParser):
    """Keeps the session the file's first header named, the sessions started (with the model
    and title last said), other sessions' headers already noticed, and what each message
    already said."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._session = source  # until a header names it
        self._header: str | None = None  # the session id of the file's first header
        self._model: str | None = None  # the model last said of the session
        self._title: str | None = None  # the title last said of the session
        self._started: OrderedDict[str, None] = OrderedDict()
        self._others: OrderedDict[str, None] = OrderedDict()  # other sessions' headers seen
        self._messages: OrderedDict[str, SeenMessage] = OrderedDict()

    def parse(self, obj: Any, line: int) -> list[Record] | None:
        if not isinstance(obj, dict):
            return None
        out: Out = []
        if isinstance(obj.get("sessionId"), str) and "projectHash" in obj:
            self._head(obj, line, out)
        elif "$set" in obj:
            self._patch(obj.get("$set"), line, out)
        elif "$rewindTo" in obj:
            out.append(Notice(Origin(self._session, None, line), kind="rewind", text=_REWIND))
        elif isinstance(obj.get("id"), str):
            self._message(obj, line, out)
        else:
            return None
        if not out:
            out.append(Ignored(Origin(self._session, None, line), kind="nothing new"))
        return out

    def finish(self) -> list[Record]:
        return []

    # -- the session -----------------------------------------------------------------------

    def _head(self, obj: dict[str, Any], line: int, out: Out) -> None:
        session: str = obj["sessionId"]
        origin = Origin(self._session, to_utc(obj.get("startTime")), line)
        messages = obj.get("messages")
        messages = messages if isinstance(messages, list) else []
        if self._header is None or session == self._header:
            self._header = session
            if session != self._session:
                self._session, self._model, self._title = session, None, None
                origin = Origin(session, origin.timestamp, line)
            self._start(origin, _first_model(messages), text_or_none(obj.get("summary")), out)
        elif session not in self._others:
            remember(self._others, session, None, _MAX_SESSIONS)
            text = _SHARED.format(session)
            out.append(Notice(origin, kind="shared_file", text=text, level="warning"))
        for message in messages:
            if isinstance(message, dict) and isinstance(message.get("id"), str):
                self._message(message, line, out)

    def _start(self, origin: Origin, model: str | None, title: str | None, out: Out) -> None:
        """The session's start, once; later, only to say its model or title changed."""
        session = origin.session_id
        known = model in (None, self._model) and title in (None, self._title)
        if known and session in self._started:
            return
        remember(self._started, session, None, _MAX_SESSIONS)
        self._model, self._title = model or self._model, title or self._title
        out.append(SessionStarted(origin, agent=AGENT, model=model, title=title))

    def _patch(self, patch: object, line: int, out: Out) -> None:
        if not isinstance(patch, dict):
            out.append(Notice(Origin(self._session, None, line), kind="$set", text=str(patch)))
            return
        origin = Origin(self._session, to_utc(patch.get("lastUpdated")), line)
        messages = patch.get("messages")
        for message in messages if isinstance(messages, list) else []:
            if isinstance(message, dict) and isinstance(message.get("id"), str):
                self._message(message, line, out)
        title = text_or_none(patch.get("summary"))
        if title is not None:
            self._start(origin, None, title, out)
        if not out:
            out.append(Ignored(origin, kind="$set"))

    # -- messages --------------------------------------------------------------------------

    def _message(self, message: dict[str, Any], line: int, out: Out) -> None:
        message_id: str = message["id"]
        origin = Origin(self._session, to_utc(message.get("timestamp")), line)
        kind = message.get("type")
        model = text_or_none(message.get("model")) if kind == "gemini" else None
        if self._session not in self._started or (model and model != self._model):
            self._start(origin, model, None, out)
        seen = self._messages.get(message_id)
        if seen is None:
            seen = SeenMessage()
            remember(self._messages, message_id, seen, _MAX_MESSAGES)
        if kind == "gemini":
            self._thoughts(message.get("thoughts"), seen, origin, out)
            self._answer(text_of(message.get("content")), message_id, seen, origin, out)
            self._calls(message, seen, origin, out)
            _turn_end(message, seen, origin, out)
        elif kind == "user":
            shown = message.get("displayContent") or message.get("content")
            text = text_of(shown)
            if not seen.text and text.strip():
                seen.text = text
                out.append(UserText(origin, text=text))
        else:
            self._notice(message, kind, seen, origin, out)

    def _answer(
        self, text: str, message_id: str, seen: SeenMessage, origin: Origin, out: Out
    ) -> None:
        """The answer's text, or what extends the text already said; a text rewritten
        otherwise (masked, synced from the history) was said once."""
        said = seen.text
        if text == said or not text.strip() or (said and not text.startswith(said)):
            return
        seen.text = text
        if said:
            out.append(
                AssistantText(origin, text=text[len(said) :], delta=True, message_id=message_id)
            )
        else:
            out.append(AssistantText(origin, text=text, message_id=message_id))

    def _thoughts(self, thoughts: object, seen: SeenMessage, origin: Origin, out: Out) -> None:
        if not isinstance(thoughts, list):
            return
        for thought in thoughts[seen.thoughts :]:
            text = _thought_text(thought)
            if text:
                out.append(Thinking(origin, text=text))
        seen.thoughts = max(seen.thoughts, len(thoughts))

    def _calls(self, message: dict[str, Any], seen: SeenMessage, origin: Origin, out: Out) -> None:
        calls = message.get("toolCalls")
        if not isinstance(calls, list):
            return
        for index, call in enumerate(calls):
            if not isinstance(call, dict):
                continue
            call_id = text_or_none(call.get("id")) or f"{message['id']}:{index}"
            name = text_or_none(call.get("name")) or ""
            stage = seen.calls.get(call_id, 0)
            if stage == 0:
                out.extend(call_records(origin, call_id, name, call.get("args")))
                agent = text_or_none(call.get("agentId"))
                if agent is not None:
                    out.append(SubagentLink(origin, agent_id=agent, call_id=call_id))
                stage = 1
            if stage == 1 and call.get("status") not in PENDING:
                out.append(call_result(call, origin, call_id, name))
                stage = 2
            seen.calls[call_id] = stage

    def _notice(
        self, message: dict[str, Any], kind: object, seen: SeenMessage, origin: Origin, out: Out
    ) -> None:
        """An ``info``/``warning``/``error`` message, or one of a type newer than this module."""
        if seen.text:
            return
        text = text_of(message.get("content")) or text_of(message.get("displayContent"))
        seen.text = text or " "
        name = kind if isinstance(kind, str) and kind else "message"
        level = name if name in _NOTICE_TYPES else "info"
        out.append(Notice(origin, kind=name, text=text[:3000], level=level))


def _turn_end(message: dict[str, Any], seen: SeenMessage, origin: Origin, out: Out) -> None:
    """A ``gemini`` message that ends its turn (see the module doc): TurnEnded, once."""
    given = message.get("toolCalls")
    calls = [call for call in given if isinstance(call, dict)] if isinstance(given, list) else []
    if not calls:
        content = message.get("content")
        if seen.ended == 0 and isinstance(content, str) and content.strip():
            seen.ended = _ANSWERED
            out.append(TurnEnded(origin))
    elif seen.ended != _CANCELLED_CALLS and _all_cancelled(calls):
        seen.ended = _CANCELLED_CALLS
        out.append(TurnEnded(origin))


def _all_cancelled(calls: list[dict[str, Any]]) -> bool:
    """Whether the user cancelled every call of a message (``update_topic`` aside, unless it
    is the only one)."""
    declinable = [call for call in calls if call.get("name") != _TOPIC_TOOL] or calls
    return all(call.get("status") == _CANCELLED for call in declinable)


def _first_model(messages: list[Any]) -> str | None:
    for message in messages:
        if isinstance(message, dict) and message.get("type") == "gemini":
            model = text_or_none(message.get("model"))
            if model is not None:
                return model
    return None


def _thought_text(thought: object) -> str:
    """A thought summary: ``subject: description``."""
    if not isinstance(thought, dict):
        return text_of(thought)
    subject, description = (
        text_or_none(thought.get("subject")),
        text_or_none(thought.get("description")),
    )
    if subject and description:
        return f"{subject}: {description}"
    return subject or description or ""


FORMAT: Final[LogFormat] = LogFormat(
    name=FAMILY,
    agent=AGENT,
    detect=detect,
    parser=Parser,
    reports_result=False,
    produced_by="Gemini CLI's session files (`~/.gemini/tmp/<hash>/chats/session-*.json[l]`)",
)
