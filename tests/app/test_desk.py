import stat
import threading
from pathlib import Path

from bot.app.desk import ALLOW, DENY, TIMEOUT, Desk
from tests.conftest import FakeClock


def desk_in(tmp_path: Path, clock: FakeClock) -> Desk:
    return Desk.open(tmp_path / "state", clock)


def test_a_request_waits_undecided_with_its_deadline(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    desk = desk_in(tmp_path, clock)
    request = desk.ask("Bash", "rm -rf build", tool_use_id="toolu_1", hint="/w", timeout_s=300)
    assert (request.decision, request.session, request.deadline) == (None, None, 1300.0)
    assert desk.get(request.id) == request
    assert stat.S_IMODE((tmp_path / "state" / "approvals.db").stat().st_mode) == 0o600


def test_the_first_decision_stands_and_a_second_is_refused(tmp_path: Path) -> None:
    desk = desk_in(tmp_path, FakeClock())
    request = desk.ask("Bash", "ls", tool_use_id=None, hint=None, timeout_s=60)
    assert desk.decide(request.id, ALLOW, by="U1")
    assert not desk.decide(request.id, DENY, by="U2")
    assert not desk.decide(request.id, TIMEOUT)
    decided = desk.get(request.id)
    assert decided is not None and (decided.decision, decided.decided_by) == (ALLOW, "U1")


def test_a_persons_decision_after_the_deadline_is_refused_and_the_request_times_out(
    tmp_path: Path,
) -> None:
    clock = FakeClock()
    desk = desk_in(tmp_path, clock)
    request = desk.ask("Bash", "ls", tool_use_id=None, hint=None, timeout_s=60)
    clock.advance(60)
    assert not desk.decide(request.id, ALLOW, by="U1")
    assert desk.expire() == 1
    timed_out = desk.get(request.id)
    assert timed_out is not None and timed_out.decision == TIMEOUT and timed_out.decided_by is None


def test_only_the_first_follower_places_a_request(tmp_path: Path) -> None:
    desk = desk_in(tmp_path, FakeClock())
    request = desk.ask("Bash", "ls", tool_use_id=None, hint=None, timeout_s=60)
    assert desk.place(request.id, "s-1")
    assert not desk.place(request.id, "s-2")
    placed = desk.get(request.id)
    assert placed is not None and placed.session == "s-1"


def test_changes_are_read_in_order_since_the_last_one_seen(tmp_path: Path) -> None:
    desk = desk_in(tmp_path, FakeClock())
    first = desk.ask("Bash", "ls", tool_use_id=None, hint=None, timeout_s=60)
    second = desk.ask("Read", "a.py", tool_use_id=None, hint=None, timeout_s=60)
    seen = desk.changed_since(0)
    assert [r.id for r in seen] == [first.id, second.id]
    desk.decide(first.id, DENY, by="U1")
    (changed,) = desk.changed_since(seen[-1].seq)
    assert (changed.id, changed.decision) == (first.id, DENY)


def test_two_processes_share_the_desk_through_the_state_directory(tmp_path: Path) -> None:
    clock = FakeClock()
    server, follower = desk_in(tmp_path, clock), desk_in(tmp_path, clock)
    request = server.ask("Bash", "ls", tool_use_id=None, hint=None, timeout_s=60)
    assert follower.decide(request.id, ALLOW, by="U1")
    decided = server.get(request.id)
    assert decided is not None and decided.decision == ALLOW


def test_concurrent_clicks_decide_a_request_once(tmp_path: Path) -> None:
    desk = desk_in(tmp_path, FakeClock())
    request = desk.ask("Bash", "ls", tool_use_id=None, hint=None, timeout_s=60)
    applied: list[bool] = []
    clicks = [threading.Thread(target=lambda u=u: applied.append(desk.decide(request.id, ALLOW,
                                                                             by=u)))
              for u in ("U1", "U2", "U3", "U4")]  # fmt: skip
    for click in clicks:
        click.start()
    for click in clicks:
        click.join()
    assert sorted(applied) == [False, False, False, True]


def test_decided_requests_older_than_a_day_are_forgotten(tmp_path: Path) -> None:
    clock = FakeClock()
    desk = desk_in(tmp_path, clock)
    old = desk.ask("Bash", "ls", tool_use_id=None, hint=None, timeout_s=60)
    waiting = desk.ask("Bash", "pwd", tool_use_id=None, hint=None, timeout_s=10**6)
    desk.decide(old.id, DENY, by="U1")
    clock.advance(86401)
    desk.ask("Read", "x", tool_use_id=None, hint=None, timeout_s=60)
    assert desk.get(old.id) is None and desk.get(waiting.id) is not None
