"""Approve / Deny, the control: a click decides a request on the desk once (through a bolt app
over Socket Mode, or called directly); a second click, a late one, or one naming another
session is answered and not applied."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.app.approvals import approvals
from bot.app.approvals import approvals_in as desk_in
from bot.app.desk import ALLOW, TIMEOUT, Desk
from bot.app.desk import DENY as DENIED
from bot.app.running import controls_for
from bot.controls import APPROVE, DENY, Click
from bot.localslack import LocalSlack
from tests.conftest import FakeClock

from .approval_helpers import (
    TOKEN,
    append,
    approvals_in,
    ask,
    bolt_app,
    follow,
    init,
    shown_outcome,
    tool_use,
    turn,
)


@pytest.fixture
def slack() -> Iterator[LocalSlack]:
    with LocalSlack(token=TOKEN, rate_limits=False) as server:
        yield server


def click(action_id: str, session: str, request_id: str, user: str = "U0LOCALUSR") -> Click:
    return Click(action_id, session, {"request": request_id}, user, "C1", "1.1")


def test_a_click_on_approve_through_bolt_decides_it_and_the_message_shows_who(
    slack: LocalSlack, tmp_path: Path
) -> None:
    log = tmp_path / "agent.jsonl"
    append(log, init("s-1"), tool_use("s-1", "toolu_1", "Bash", {"command": "make deploy"}))
    follower = follow(slack, log, tmp_path)
    desk = Desk.open(tmp_path)
    request_id = ask(desk, "toolu_1")
    turn(follower)
    (shown,) = approvals_in(slack, "s-1")
    with bolt_app(slack, approvals(desk)):
        slack.click(slack.channel_id(), shown["ts"], APPROVE)
        assert slack.wait_for(lambda: bool(slack.ephemerals()))
    decided = desk.get(request_id)
    assert decided is not None and (decided.decision, decided.decided_by) == (ALLOW, "U0LOCALUSR")
    assert "You approved Bash." in slack.ephemerals()[0]["text"]
    turn(follower)
    (shown,) = approvals_in(slack, "s-1")
    outcome = shown_outcome(shown)
    assert outcome is not None and outcome.startswith("✅ Approved by <@U0LOCALUSR> at ")
    assert not [b for b in shown["blocks"] if b["type"] == "actions"]


def test_a_click_on_deny_denies_it(tmp_path: Path) -> None:
    desk = Desk.open(tmp_path)
    request_id = ask(desk, "toolu_1")
    desk.place(request_id, "s-1")
    outcome = approvals(desk)(click(DENY, "s-1", request_id))
    assert outcome.done and outcome.said == "You denied Bash."
    decided = desk.get(request_id)
    assert decided is not None and decided.decision == DENIED


def test_a_second_click_is_answered_and_not_applied(tmp_path: Path) -> None:
    desk = Desk.open(tmp_path)
    request_id = ask(desk, "toolu_1")
    desk.place(request_id, "s-1")
    control = approvals(desk)
    assert control(click(APPROVE, "s-1", request_id)).done
    second = control(click(DENY, "s-1", request_id, user="U0LOCALALX"))
    assert not second.done
    assert second.said == "Already decided: approved by <@U0LOCALUSR>."
    decided = desk.get(request_id)
    assert decided is not None and (decided.decision, decided.decided_by) == (ALLOW, "U0LOCALUSR")


def test_a_click_after_the_timeout_is_answered_too_late(tmp_path: Path) -> None:
    clock = FakeClock()
    desk = Desk.open(tmp_path, clock)
    request_id = ask(desk, "toolu_1", timeout_s=60)
    desk.place(request_id, "s-1")
    clock.advance(61)
    outcome = approvals(desk)(click(APPROVE, "s-1", request_id))
    assert not outcome.done and outcome.said == "Too late: this request timed out (denied)."
    decided = desk.get(request_id)
    assert decided is not None and decided.decision == TIMEOUT


def test_a_click_naming_another_session_or_an_unknown_request_does_nothing(
    tmp_path: Path,
) -> None:
    desk = Desk.open(tmp_path)
    request_id = ask(desk, "toolu_1")
    desk.place(request_id, "s-1")
    control = approvals(desk)
    assert not control(click(APPROVE, "s-2", request_id)).done
    assert not control(click(APPROVE, "s-1", "no-such-request")).done
    waiting = desk.get(request_id)
    assert waiting is not None and waiting.decision is None


def test_the_apps_approve_and_deny_decide_on_the_desk_of_its_state_directory(
    tmp_path: Path,
) -> None:
    controls = controls_for(approvals=desk_in(tmp_path / "state"))
    desk = Desk.open(tmp_path / "state")
    first, second = ask(desk, "toolu_1"), ask(desk, "toolu_2")
    desk.place(first, "s-1")
    desk.place(second, "s-1")
    assert controls[APPROVE](click(APPROVE, "s-1", first)).done
    assert controls[DENY](click(DENY, "s-1", second)).done
    decisions = [desk.get(first), desk.get(second)]
    assert [d.decision for d in decisions if d is not None] == [ALLOW, DENIED]


def test_a_desk_that_cannot_be_opened_is_answered_not_raised(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    outcome = desk_in(tmp_path / "file")(click(APPROVE, "s-1", "r1"))
    assert not outcome.done and outcome.said is not None
    assert outcome.said.startswith("Permission requests cannot be read here")
