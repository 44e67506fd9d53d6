"""Approve / Deny: the control that records a person's decision on a permission request.

The click reached the process that owns the session (the app's part); the decision goes to the
desk, where the waiting `slacktail approvals` server reads it and answers the agent, and the
follower shows it on the request's message. A request already decided, or whose time ran out,
is answered so, and nothing is applied twice.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.app.desk import ALLOW, TIMEOUT, Desk
from bot.app.desk import DENY as DENIED
from bot.controls import APPROVE, DENY, Click, Control, Outcome

_DECISIONS = {APPROVE: ALLOW, DENY: DENIED}
_SAID = {ALLOW: "approved", DENIED: "denied", TIMEOUT: "timed out (denied)"}


def approvals(desk: Desk) -> Control:
    """The control for APPROVE and DENY clicks, deciding requests on ``desk``."""

    def decide(click: Click) -> Outcome:
        return decide_request(desk, click)

    return decide


def decide_request(desk: Desk, click: Click) -> Outcome:
    decision = _DECISIONS.get(click.action_id)
    request_id = click.fields.get("request")
    request = None if request_id is None else desk.get(request_id)
    if decision is None or request is None or request.session != click.session:
        return Outcome(False, "This permission request is not known here.")
    if request.decision is None and desk.decide(request.id, decision, by=click.user):
        return Outcome(True, f"You {_SAID[decision]} {request.tool}.")
    if request.decision is None and desk.clock() >= request.deadline:
        desk.expire()
    final = desk.get(request.id)
    outcome = final.decision if final is not None else None
    if outcome == TIMEOUT:
        return Outcome(False, f"Too late: this request {_SAID[TIMEOUT]}.")
    by = f" by <@{final.decided_by}>" if final is not None and final.decided_by else ""
    return Outcome(False, f"Already decided: {_SAID.get(outcome or '', 'decided')}{by}.")


def approvals_in(state_dir: Path) -> Control:
    """The control for APPROVE and DENY clicks on the desk in ``state_dir``, opened at the first
    click (a process that is never clicked never opens it)."""
    opened: list[Desk] = []

    def decide(click: Click) -> Outcome:
        if not opened:
            try:
                opened.append(Desk.open(state_dir))
            except (OSError, sqlite3.Error) as error:
                return Outcome(False, f"Permission requests cannot be read here: {error}")
        return decide_request(opened[0], click)

    return decide
