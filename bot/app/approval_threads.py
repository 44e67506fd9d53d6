"""The follower's side of approvals: each permission request on the desk shown in the thread
of the session that asked, and shown again when it is decided.

Which session asked: Claude Code gives its permission tool the ``tool_use_id`` of the call it
asks about, and its stream-json has written that call (the assistant message holding the
``tool_use``) before it asks; so the session whose calls hold that id is the one. A request
without one (or whose call this follower has not read after ``MATCH_WAIT_S``) goes to the one
running session whose working directory is the asker's, else to the only running session.
A request no session of this follower can take stays on the desk for another follower (or for
its own timeout). The first follower to place a request shows it (``Desk.place``).

Called once per turn of the follower's loop: one indexed read of the desk when it exists (and a
write only when a request's time ran out), nothing at all before.
"""

from __future__ import annotations

import sqlite3
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from blocks.approval import ApprovalView, approval_message
from bot.app.desk import DB_NAME, Desk, Request
from bot.controls import button_value
from bot.delivery import Delivery
from bot.redaction import Redactor
from bot.session import SessionBook, SessionStatus

MATCH_WAIT_S: Final = 2.0  # how long a request waits for its tool call to be read


class ApprovalThreads:
    """Shows the desk's requests (in ``state_dir``) in the threads of ``book``'s sessions."""

    def __init__(
        self, state_dir: Path, clock: Callable[[], float] = time.time,
        redactor: Redactor | None = None,
    ) -> None:  # fmt: skip
        self.path = state_dir / DB_NAME
        self.clock = clock
        self.redactor = redactor or Redactor()  # the follower's: its own patterns too
        self.desk: Desk | None = None
        self._seq = 0
        self._waiting: dict[str, Request] = {}  # not shown yet: their session is not known
        self._deadlines: dict[str, float] = {}  # of the requests still undecided
        self.failed: str | None = None  # what the last turn could not do, said once

    def turn(self, book: SessionBook, delivery: Delivery) -> None:
        """Show what changed on the desk since the last turn. A desk that cannot be read (a
        lock held too long, a full disk) is said once and tried again next turn: following
        goes on."""
        try:
            self._turn(book, delivery)
        except (OSError, sqlite3.Error) as error:
            said = f"slacktail: approvals: {self.path}: {error}"
            if said != self.failed:
                print(said, file=sys.stderr)
            self.failed = said
        else:
            self.failed = None

    def _turn(self, book: SessionBook, delivery: Delivery) -> None:
        desk = self._open()
        if desk is None:
            return
        if self._deadlines and min(self._deadlines.values()) <= self.clock():
            desk.expire()  # their askers may be gone: no one else would say they timed out
        for request in desk.changed_since(self._seq):
            self._seq = max(self._seq, request.seq)
            self._waiting[request.id] = request
            if request.decision is None:
                self._deadlines[request.id] = request.deadline
            else:
                self._deadlines.pop(request.id, None)
        for request in list(self._waiting.values()):
            session = request.session or self._place(desk, request, book)
            if session is None and request.decision is None:
                continue  # not ours yet: its call may still come
            del self._waiting[request.id]
            if session is not None and session in book.sessions:
                value = button_value(session, request=request.id)
                view = view_of(request, self.redactor)
                delivery.want(session, [approval_message(view, value)])

    def _open(self) -> Desk | None:
        if self.desk is None and self.path.exists():
            self.desk = Desk(self.path, self.clock)
        return self.desk

    def _place(self, desk: Desk, request: Request, book: SessionBook) -> str | None:
        session = session_for(request, book, waited=self.clock() - request.created)
        if session is None or not desk.place(request.id, session):
            return None
        return session


def session_for(request: Request, book: SessionBook, *, waited: float) -> str | None:
    """The session of ``book`` that asked (see the module's docstring), or None."""
    if request.tool_use_id is not None:
        for session_id, session in book.sessions.items():
            if request.tool_use_id in session.calls:
                return session_id
        if waited < MATCH_WAIT_S:
            return None
    running = [s for s in book.sessions.values() if s.status == SessionStatus.RUNNING]
    here = [s for s in running if request.hint is not None and s.info.cwd == request.hint]
    for candidates in (here, running):
        if len(candidates) == 1:
            return candidates[0].session_id
    return None


def view_of(request: Request, redactor: Redactor) -> ApprovalView:
    """What the request's message shows; its summary redacted again with the follower's
    patterns (the server knows only the rule table)."""
    decided_at = request.decided_at
    return ApprovalView(
        request.id, request.tool, redactor.redact(request.summary), request.timeout_s,
        request.decision, request.decided_by,
        None if decided_at is None else datetime.fromtimestamp(decided_at, UTC),
    )  # fmt: skip
