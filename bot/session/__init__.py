"""The session stage: records in, per-session state out. Pure and deterministic."""

from __future__ import annotations

from bot.session.book import SessionBook
from bot.session.ends import SessionStatus
from bot.session.settings import SessionSettings
from bot.session.significance import Significance, Verbosity, classify
from bot.session.state import Session
from bot.session.tool_calls import ToolCallState, ToolStatus

__all__ = [
    "Session",
    "SessionBook",
    "SessionSettings",
    "SessionStatus",
    "Significance",
    "ToolCallState",
    "ToolStatus",
    "Verbosity",
    "classify",
]
