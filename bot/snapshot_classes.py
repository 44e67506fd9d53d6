"""The classes a snapshot of the core may hold (``bot.snapshot``), each with the fields it is
written as, in order: the snapshot's schema, explicit and reviewed.

Change an entry (a class gains, loses or renames a field, a class is added) and bump
``SCHEMA``: a checkpoint of the old schema is then dropped, and its sources read again from
their start (the messages already sent are updated in place). ``tests/test_snapshot.py`` checks
every entry against its class's source, and fails until ``SCHEMA`` and ``SCHEMA_DIGEST`` are
updated with it: a new field cannot be forgotten.

``FIELDS``: made without its constructor, each field set (mutable classes; compiled, a class
can be made so only if it is ``mypyc_attr(allow_interpreted_subclasses=True)`` or
``serializable=True``, else its ``__new__`` calls ``__init__``). ``BUILT``: a frozen class, made
by its constructor from its fields in order. ``ENUM``: an enum, written as its value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bot.formats.agno import Parser as agno_Parser
from bot.formats.agno_runs import Run, RunBook, _Delegation
from bot.formats.antigravity import Parser as antigravity_Parser
from bot.formats.antigravity_steps import ToolSteps
from bot.formats.backend import Parser as backend_Parser
from bot.formats.claude_stream import Parser as claude_stream_Parser
from bot.formats.claude_stream_usage import RunUsage
from bot.formats.claude_transcript import Parser as claude_transcript_Parser
from bot.formats.claude_transcript_links import Rewinds, SeedCalls, SubagentLinks
from bot.formats.codex_exec import Parser as codex_exec_Parser
from bot.formats.codex_exec_legacy import LegacyStream
from bot.formats.codex_rollout import Parser as codex_rollout_Parser
from bot.formats.codex_rollout_texts import Texts
from bot.formats.codex_rollout_tools import Calls
from bot.formats.codex_rollout_turns import Tokens
from bot.formats.cursor_stream import Parser as cursor_stream_Parser
from bot.formats.gemini_session import Parser as gemini_session_Parser
from bot.formats.gemini_session import SeenMessage
from bot.formats.gemini_stream import Parser as gemini_stream_Parser
from bot.formats.kimi_wire import Parser as kimi_wire_Parser
from bot.formats.kimi_wire_types import TurnTokens
from bot.formats.openai_documents import ToolOutcome
from bot.formats.openai_messages import Parser as openai_messages_Parser
from bot.formats.openai_messages_calls import SessionCalls
from bot.formats.opencode import Parser as opencode_Parser
from bot.formats.opencode import _Steps
from bot.formats.pi_events import Parser as pi_events_Parser
from bot.formats.pi_messages import Usage as pi_messages_Usage
from bot.formats.pi_session import Parser as pi_session_Parser
from bot.formats.reader import ReaderStats, SourceReader
from bot.formats.running_totals import ProcessTotals
from bot.records import (
    AssistantText,
    Compaction,
    Delegation,
    Ignored,
    Notice,
    Origin,
    SessionStarted,
    SubagentLink,
    Thinking,
    Todo,
    TodoUpdate,
    ToolCall,
    ToolResult,
    Unparsed,
    Usage,
    UserText,
)
from bot.result_records import (
    AgentExited,
    PermissionDenial,
    ResultStatus,
    SessionResult,
    TurnEnded,
)
from bot.session.book import SessionBook
from bot.session.ends import SessionStatus
from bot.session.settings import SessionSettings
from bot.session.significance import Significance, Verbosity
from bot.session.state import Session, SessionInfo
from bot.session.thread import (
    DelegationItem,
    Narration,
    NoticeItem,
    ResultItem,
    TextBatch,
    TodoItem,
    ToolGroup,
    UserTurn,
)
from bot.session.tool_calls import OutputPosition, ToolCallState, ToolStatus

FIELDS: Final = "fields"
BUILT: Final = "built"
ENUM: Final = "enum"


@dataclass(frozen=True, slots=True)
class Entry:
    tag: str  # the class's name in a snapshot
    cls: type
    kind: str  # FIELDS, BUILT or ENUM
    fields: tuple[str, ...] = ()


SCHEMA: Final = 8  # bump with any change below (see the module's docstring)
SCHEMA_DIGEST: Final = "841a854f94fa54e8"  # (tests/test_snapshot.py says the new one)

CLASSES: Final[tuple[Entry, ...]] = (
    Entry("ResultStatus", ResultStatus, ENUM),
    Entry("Origin", Origin, FIELDS, (
        "session_id", "timestamp", "line", "parent_call", "subagent", "uid",
    )),
    Entry("SessionStarted", SessionStarted, FIELDS, (
        "origin", "agent", "model", "cwd", "version", "tools", "title",
    )),
    Entry("UserText", UserText, FIELDS, ("origin", "text")),
    Entry("AssistantText", AssistantText, FIELDS, ("origin", "text", "delta", "message_id")),
    Entry("Thinking", Thinking, FIELDS, ("origin", "text")),
    Entry("ToolCall", ToolCall, FIELDS, ("origin", "call_id", "name", "input", "raw_input")),
    Entry("ToolResult", ToolResult, FIELDS, (
        "origin", "call_id", "output", "is_error", "interrupted", "name",
    )),
    Entry("Todo", Todo, FIELDS, ("content", "status", "active_form", "priority")),
    Entry("TodoUpdate", TodoUpdate, FIELDS, ("origin", "todos", "call_id")),
    Entry("Delegation", Delegation, FIELDS, ("origin", "call_id", "member", "task")),
    Entry("SubagentLink", SubagentLink, FIELDS, ("origin", "agent_id", "call_id")),
    Entry("Compaction", Compaction, FIELDS, ("origin", "trigger", "pre_tokens", "summary")),
    Entry("Notice", Notice, FIELDS, ("origin", "kind", "text", "level")),
    Entry("Usage", Usage, FIELDS, (
        "origin", "cost_usd", "input_tokens", "output_tokens", "cache_read_tokens",
        "cache_write_tokens", "reasoning_tokens",
    )),
    Entry("PermissionDenial", PermissionDenial, BUILT, ("tool_name", "call_id", "summary")),
    Entry("SessionResult", SessionResult, FIELDS, (
        "origin", "status", "subtype", "text", "error", "duration_ms", "duration_api_ms",
        "num_turns", "cost_usd", "input_tokens", "output_tokens", "cache_read_tokens",
        "cache_write_tokens", "reasoning_tokens", "premium_requests", "models",
        "permission_denials", "errors",
    )),
    Entry("TurnEnded", TurnEnded, FIELDS, ("origin", "duration_ms")),
    Entry("AgentExited", AgentExited, FIELDS, ("origin", "code", "signal")),
    Entry("Ignored", Ignored, FIELDS, ("origin", "kind")),
    Entry("Unparsed", Unparsed, FIELDS, ("origin", "reason", "excerpt")),
    Entry("ReaderStats", ReaderStats, FIELDS, ("lines", "records", "unparsed")),
    Entry("SourceReader", SourceReader, FIELDS, (
        "source", "repeatable", "stats", "family", "_parser", "_pending", "_detect_window",
        "first_line", "encoding", "_forced", "_finished", "_reported",
    )),
    Entry("SessionBook", SessionBook, FIELDS, (
        "settings", "sessions", "records", "unparsed", "hidden", "late", "_last", "_recent",
        "_released", "repeated", "_uids", "_origin", "_repeated",
    )),
    Entry("Significance", Significance, ENUM),
    Entry("Verbosity", Verbosity, ENUM),
    Entry("SessionStatus", SessionStatus, ENUM),
    Entry("SessionSettings", SessionSettings, BUILT, (
        "verbosity", "orphan_after_s", "tools_per_group", "idle_after_s", "stop_button",
        "controls",
    )),
    Entry("SessionInfo", SessionInfo, FIELDS, (
        "agent", "model", "cwd", "version", "title", "prompt",
    )),
    Entry("Session", Session, FIELDS, (
        "session_id", "settings", "info", "started", "status", "first_at", "last_at",
        "timed", "last_seen", "calls", "tally", "open_calls", "items", "todo_at", "todos",
        "result", "spent", "run_spent", "exit", "closed", "compactions", "dropped_results",
        "counts", "_links", "_held", "_keys", "last_said", "results", "_threshold", "early",
        "said", "last_outputs", "preambles", "_changed", "_all_changed",
    )),
    Entry("TextBatch", TextBatch, FIELDS, ("key", "size", "_pieces", "_kept")),
    Entry("Narration", Narration, FIELDS, ("text",)),
    Entry("ToolGroup", ToolGroup, FIELDS, ("key", "entries", "calls", "at")),
    Entry("UserTurn", UserTurn, FIELDS, ("key", "text", "size")),
    Entry("NoticeItem", NoticeItem, FIELDS, ("key", "kind", "text", "level")),
    Entry("DelegationItem", DelegationItem, FIELDS, ("key", "call_id")),
    Entry("TodoItem", TodoItem, FIELDS, ("key",)),
    Entry("ResultItem", ResultItem, FIELDS, ("key", "result", "repeats_text", "exit")),
    Entry("ToolStatus", ToolStatus, ENUM),
    Entry("ToolCallState", ToolCallState, FIELDS, (
        "id", "name", "summary", "status", "parent", "started_at", "ended_at", "output",
        "output_size", "output_lines", "delegate", "item", "child_ids", "output_at",
    )),
    Entry("OutputPosition", OutputPosition, FIELDS, (
        "path", "line", "end", "size", "digest", "document",
    )),
    Entry("agno.Parser", agno_Parser, FIELDS, (
        "source", "book", "_runs", "_session", "_raw_time", "_time",
    )),
    Entry("Run", Run, FIELDS, (
        "run_id", "session_id", "top", "parent_call", "subagent", "model", "streamed",
        "thought", "thinking", "thinking_at", "failed_call", "unnamed", "unnamed_count",
    )),
    Entry("_Delegation", _Delegation, FIELDS, ("call_id", "member", "parent_run", "child_run")),
    Entry("RunBook", RunBook, FIELDS, ("runs", "_delegations", "_child_calls")),
    Entry("antigravity.Parser", antigravity_Parser, FIELDS, (
        "source", "_session", "_started", "_model", "_steps", "_last", "_answered",
    )),
    Entry("ToolSteps", ToolSteps, FIELDS, ("_calls", "_steps", "last_step")),
    Entry("backend.Parser", backend_Parser, FIELDS, ("source", "_last_session", "_started")),
    Entry("claude_stream.Parser", claude_stream_Parser, FIELDS, (
        "source", "_session", "_agent", "_usage", "_totals", "_unnamed",
    )),
    Entry("RunUsage", RunUsage, FIELDS, ("_messages", "_sums", "_given")),
    Entry("ProcessTotals", ProcessTotals, FIELDS, ("_session", "_last")),
    Entry("claude_transcript.Parser", claude_transcript_Parser, FIELDS, (
        "source", "_session", "_started", "_models", "_title", "_sidechain", "_links",
        "_compaction", "_rewinds", "_seed_calls",
    )),
    Entry("SubagentLinks", SubagentLinks, FIELDS, (
        "_call_of_line", "_call_of_agent", "_waiting", "_unplaced",
    )),
    Entry("SeedCalls", SeedCalls, FIELDS, ("_waiting",)),
    Entry("Rewinds", Rewinds, FIELDS, ("_parents",)),
    Entry("codex_exec.Parser", codex_exec_Parser, FIELDS, (
        "source", "_session", "_started", "_thread_id", "_run", "_usage", "_answer",
        "_final", "_calls", "_plans", "_line", "_legacy", "_legacy_runs",
    )),
    Entry("LegacyStream", LegacyStream, FIELDS, (
        "agent", "_open", "_tokens", "_error", "_prompt",
    )),
    Entry("codex_rollout.Parser", codex_rollout_Parser, FIELDS, (
        "source", "_session", "_subagent", "_named", "_started", "_agent", "_cwd",
        "_version", "_model", "_results", "_exec", "_turn_events", "_texts", "_tokens",
        "_calls",
    )),
    Entry("Texts", Texts, FIELDS, ("_said",)),
    Entry("Calls", Calls, FIELDS, ("_open", "_answered", "_failed")),
    Entry("Tokens", Tokens, FIELDS, ("_totals", "_last", "_turn")),
    Entry("cursor_stream.Parser", cursor_stream_Parser, FIELDS, (
        "source", "_session", "_thinking", "_thinking_at", "_thinking_line", "_segment",
        "_turn", "_calls", "_said_first", "_said_last", "_said_count", "_said_length",
    )),
    Entry("SeenMessage", SeenMessage, FIELDS, ("text", "thoughts", "calls", "ended")),
    Entry("gemini_session.Parser", gemini_session_Parser, FIELDS, (
        "source", "_session", "_header", "_model", "_title", "_started", "_others",
        "_messages",
    )),
    Entry("gemini_stream.Parser", gemini_stream_Parser, FIELDS, (
        "source", "_session", "_names", "_answered", "_last_error", "_started",
    )),
    Entry("kimi_wire.Parser", kimi_wire_Parser, FIELDS, (
        "source", "_session", "_started", "_has_model", "_prompt", "_usage",
    )),
    Entry("kimi_wire_types.TurnTokens", TurnTokens, FIELDS, (
        "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
        "models",
    )),
    Entry("ToolOutcome", ToolOutcome, FIELDS, ("output", "is_error", "name", "call_id")),
    Entry("_Session", SessionCalls, FIELDS, ("session_id", "waiting", "used", "counter")),
    Entry("openai_messages.Parser", openai_messages_Parser, FIELDS, (
        "source", "_single", "_sessions",
    )),
    Entry("_Steps", _Steps, FIELDS, ("first_at", "steps", "last_text", "ended")),
    Entry("opencode.Parser", opencode_Parser, FIELDS, ("source", "_sessions")),
    Entry("pi_events.Parser", pi_events_Parser, FIELDS, (
        "source", "_session", "_started", "_ended", "_model", "_usage", "_last", "_calls",
        "_answered",
    )),
    Entry("pi_messages.Usage", pi_messages_Usage, FIELDS, (
        "cost", "input", "output", "cache_read", "cache_write", "models",
    )),
    Entry("pi_session.Parser", pi_session_Parser, FIELDS, ("source", "_session", "_model")),
)
