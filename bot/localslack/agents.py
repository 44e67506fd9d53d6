"""Slack's agent surfaces that slack_sdk 3.47 calls: agent sessions (`agents.sessions.setStatus`,
`agents.sessions.rename`) and streamed messages (`chat.startStream`, `appendStream`,
`stopStream`).

Sessions (docs.slack.dev, "Agent sessions", "agent_session_stopped"): one per thread; a status
of `processing`, `active`, `suspended` or `closed` (else `invalid_status`); `thread_ts` required
in a channel (`thread_ts_required`); the title (1-200 characters) and initiator are taken when the
session is made only. While a session is `processing`, its thread shows Slack's own Stop button;
a click sends the app `agent_session_stopped` (`channel`, `thread_ts`, `user`, `event_ts`,
`streaming_message_ts`: the app's streams in that thread, which Slack stops). The status does not
change by itself: the app moves it on.

Streams ("chat.startStream"): a message from the app that grows. In a channel the recipient is
required (`missing_recipient_user_id`, `missing_recipient_team_id`); each `markdown_text` is at
most 12,000 characters; chunks add text (`markdown_text`), tasks (`task_update`, by id), a plan's
title (`plan_update`) or blocks (`blocks`). A stream that is stopped, by the app or by a person's
Stop, or left without text for `STREAM_IDLE_S` (Slack: "a few minutes", not documented more
closely) answers `message_not_in_streaming_state` (`stopped_by_user` after a Stop). Here the
message's text is the text streamed so far, and its blocks a markdown block of that text, the
tasks (task cards, or one plan with `task_display_mode: plan`) and the blocks sent.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.localslack.api_arguments import (
    blocks_arg,
    metadata_arg,
    missing_arg,
    refuse_invalid_blocks,
    text_arg,
)
from bot.localslack.limits import MARKDOWN_MAX
from bot.localslack.model import JSON, PEOPLE, SlackError, is_ts
from bot.localslack.workspace import Workspace

SESSION_STATUSES = ("processing", "active", "suspended", "closed")
SESSION_TITLE_MAX = 200
STREAM_IDLE_S = 300.0
Listener = Callable[[JSON], None]


@dataclass
class Session:
    status: str
    title: str
    initiator: str | None


@dataclass
class Stream:
    channel: str
    ts: str
    thread_ts: str
    display: str  # "timeline" or "plan"
    last: float  # when text last came (monotonic)
    text: str = ""
    plan_title: str = ""
    tasks: dict[str, JSON] = field(default_factory=dict)
    blocks: list[JSON] = field(default_factory=list)
    stopped: str | None = None  # why it no longer streams: "app" or "user"


class Agents:
    """Agent sessions and streams, as `name -> handler` methods for `Api.methods`; thread-safe."""

    def __init__(self, workspace: Workspace, clock: Callable[[], float] = time.monotonic) -> None:
        self.workspace = workspace
        self._clock = clock
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []
        self.reset()
        self.methods: dict[str, Callable[[dict[str, Any]], JSON]] = {
            "agents.sessions.setStatus": self.sessions_set_status,
            "agents.sessions.rename": self.sessions_rename,
            "chat.startStream": self.start_stream,
            "chat.appendStream": self.append_stream,
            "chat.stopStream": self.stop_stream,
        }

    def reset(self) -> None:
        with self._lock:
            self._sessions: dict[tuple[str, str], Session] = {}
            self._streams: dict[tuple[str, str], Stream] = {}

    def subscribe(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.append(listener)

    # -- sessions -------------------------------------------------------------------------

    def sessions_set_status(self, params: dict[str, Any]) -> JSON:
        channel, thread_ts = self._thread(params)
        status = text_arg(params, "status")
        if status is None:
            raise missing_arg("status")
        if status not in SESSION_STATUSES:
            raise SlackError("invalid_status")
        initiator = text_arg(params, "initiator_user_id")
        if initiator is not None and initiator not in PEOPLE:
            raise SlackError("user_not_found")
        title = _title(params, required=False)
        with self._lock:
            session = self._sessions.get((channel, thread_ts))
            if session is None:
                session = Session(status, title or "", initiator)
                self._sessions[(channel, thread_ts)] = session
            session.status = status
            answer = {"ok": True, "status": status, "agent_status": status, "title": session.title}
        self._emit({"kind": "agent_session", "channel": channel, "ts": thread_ts})
        return answer

    def sessions_rename(self, params: dict[str, Any]) -> JSON:
        channel, thread_ts = self._thread(params)
        title = _title(params, required=True)
        with self._lock:
            session = self._sessions.get((channel, thread_ts))
            if session is None:
                raise SlackError("session_not_found")
            session.title = title or ""
        self._emit({"kind": "agent_session", "channel": channel, "ts": thread_ts})
        return {"ok": True}

    def _thread(self, params: dict[str, Any]) -> tuple[str, str]:
        channel = self.workspace.channel_id(text_arg(params, "channel_id") or "")
        thread_ts = text_arg(params, "thread_ts")
        if not thread_ts:
            raise SlackError("thread_ts_required")
        if not is_ts(thread_ts):
            raise SlackError("invalid_arguments")
        return channel, thread_ts

    def session(self, channel: str, thread_ts: str) -> JSON | None:
        """A thread's agent session (`status`, `title`, `initiator`), if it has one."""
        with self._lock:
            session = self._sessions.get((channel, thread_ts))
            if session is None:
                return None
            return {
                "status": session.status,
                "title": session.title,
                "initiator": session.initiator,
            }

    def sessions(self) -> dict[str, dict[str, JSON]]:
        """Every session, by channel then thread ts (for the page)."""
        with self._lock:
            found: dict[str, dict[str, JSON]] = {}
            for (channel, ts), s in self._sessions.items():
                found.setdefault(channel, {})[ts] = {"status": s.status, "title": s.title}
            return found

    def stop_clicked(self, channel: str, thread_ts: str) -> JSON:
        """A person clicked the session's Stop: its streams stop; the event's body (without
        `user` and `event_ts`, which the caller adds)."""
        with self._lock:
            session = self._sessions.get((channel, thread_ts))
            if session is None or session.status != "processing":
                raise SlackError("not_processing")
            stopped = []
            for stream in self._streams.values():
                if (
                    stream.thread_ts == thread_ts
                    and stream.channel == channel
                    and not stream.stopped
                ):
                    stream.stopped = "user"
                    stopped.append(stream.ts)
        return {"type": "agent_session_stopped", "channel": channel, "thread_ts": thread_ts,
                "streaming_message_ts": stopped}  # fmt: skip

    # -- streams --------------------------------------------------------------------------

    def start_stream(self, params: dict[str, Any]) -> JSON:
        channel = self.workspace.channel_id(text_arg(params, "channel") or "")
        thread_ts = text_arg(params, "thread_ts")
        if not thread_ts:
            raise missing_arg("thread_ts")
        if channel.startswith("C"):
            if not text_arg(params, "recipient_user_id"):
                raise SlackError("missing_recipient_user_id")
            if not text_arg(params, "recipient_team_id"):
                raise SlackError("missing_recipient_team_id")
        display = text_arg(params, "task_display_mode") or "timeline"
        if display not in ("timeline", "plan"):
            raise SlackError("invalid_arguments")
        stream = Stream(channel, "", thread_ts, display, self._clock())
        _take(stream, params)
        text, blocks = _content(stream)
        message = self.workspace.post(channel, text=text, blocks=blocks, thread_ts=thread_ts)
        stream.ts = str(message["ts"])
        with self._lock:
            self._streams[(channel, stream.ts)] = stream
        return {"ok": True, "channel": channel, "ts": stream.ts}

    def append_stream(self, params: dict[str, Any]) -> JSON:
        stream = self._streaming(params)
        if text_arg(params, "markdown_text") is None and not params.get("chunks"):
            raise missing_arg("markdown_text")
        _take(stream, params)
        stream.last = self._clock()
        text, blocks = _content(stream)
        self.workspace.update(stream.channel, stream.ts, text=text, blocks=blocks)
        return {"ok": True, "channel": stream.channel, "ts": stream.ts}

    def stop_stream(self, params: dict[str, Any]) -> JSON:
        stream = self._streaming(params)
        _take(stream, params)
        final = blocks_arg(params)
        refuse_invalid_blocks(final)
        stream.blocks.extend(final or [])
        stream.stopped = "app"
        text, blocks = _content(stream)
        message = self.workspace.update(
            stream.channel, stream.ts, text=text, blocks=blocks, metadata=metadata_arg(params)
        )
        return {"ok": True, "channel": stream.channel, "ts": stream.ts, "message": message}

    def _streaming(self, params: dict[str, Any]) -> Stream:
        channel = self.workspace.channel_id(text_arg(params, "channel") or "")
        ts = text_arg(params, "ts") or ""
        with self._lock:
            stream = self._streams.get((channel, ts))
        if stream is None:
            self.workspace.message(channel, ts)  # message_not_found for an unknown ts
            raise SlackError("message_not_in_streaming_state")
        if stream.stopped == "user":
            raise SlackError("stopped_by_user")
        if stream.stopped or self._clock() - stream.last > STREAM_IDLE_S:
            raise SlackError("message_not_in_streaming_state")
        return stream

    def streaming(self) -> list[tuple[str, str]]:
        """(channel, ts) of the messages still streaming."""
        with self._lock:
            now = self._clock()
            return [
                (s.channel, s.ts)
                for s in self._streams.values()
                if not s.stopped and now - s.last <= STREAM_IDLE_S
            ]

    def _emit(self, event: JSON) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(event)


def _title(params: dict[str, Any], *, required: bool) -> str | None:
    title = text_arg(params, "title")
    if title is None and required:
        raise missing_arg("title")
    if title is not None and not 1 <= len(title) <= SESSION_TITLE_MAX:
        raise SlackError("invalid_arguments")
    return title


def _take(stream: Stream, params: dict[str, Any]) -> None:
    """Add a call's `markdown_text` and chunks to the stream (`invalid_chunks` if malformed)."""
    text = text_arg(params, "markdown_text")
    if text is not None:
        if len(text) > MARKDOWN_MAX:
            raise SlackError("msg_too_long")
        stream.text += text
    chunks = params.get("chunks") or []
    if not isinstance(chunks, list):
        raise SlackError("invalid_chunks")
    for chunk in chunks:
        _chunk(stream, chunk)


def _chunk(stream: Stream, chunk: Any) -> None:
    kind = chunk.get("type") if isinstance(chunk, dict) else None
    if kind == "markdown_text" and isinstance(chunk.get("text"), str):
        stream.text += chunk["text"]
    elif kind == "plan_update" and isinstance(chunk.get("title"), str):
        stream.plan_title = chunk["title"]
    elif kind == "task_update" and isinstance(chunk.get("id"), str):
        task = {"type": "task_card", "task_id": chunk["id"], "title": str(chunk.get("title", "")),
                "status": chunk.get("status", "pending")}  # fmt: skip
        for key in ("details", "output"):
            if isinstance(chunk.get(key), str):
                task[key] = _rich_text(chunk[key])
        if isinstance(chunk.get("sources"), list):
            task["sources"] = copy.deepcopy(chunk["sources"])
        stream.tasks[chunk["id"]] = task
    elif kind == "blocks" and isinstance(chunk.get("blocks"), list):
        refuse_invalid_blocks(chunk["blocks"])
        stream.blocks.extend(copy.deepcopy(chunk["blocks"]))
    else:
        raise SlackError("invalid_chunks")


def _rich_text(text: str) -> JSON:
    section = {"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}
    return {"type": "rich_text", "elements": [section]}


def _content(stream: Stream) -> tuple[str, list[JSON] | None]:
    """The message as it stands: its text and blocks."""
    blocks: list[JSON] = []
    if stream.text:
        blocks.append({"type": "markdown", "text": stream.text})
    tasks = list(stream.tasks.values())
    if tasks and stream.display == "plan":
        blocks.append({"type": "plan", "title": stream.plan_title or "Plan", "tasks": tasks})
    else:
        blocks.extend(tasks)
    blocks.extend(stream.blocks)
    return stream.text, blocks or None
