"""The root's Stop button: shown while a session of ``slacktail run`` runs, with the app."""

from __future__ import annotations

from blocks.limits import check_message
from blocks.root import root_message
from bot.controls import STOP, read_value
from bot.records import Origin, SessionStarted
from bot.result_records import AgentExited
from bot.session import Session, SessionSettings


def session(*, stop_button: bool, ended: bool = False) -> Session:
    started = Session("s1", SessionSettings(stop_button=stop_button))
    started.apply(SessionStarted(Origin("s1", None, 1), agent="Claude Code"))
    if ended:
        started.apply(AgentExited(Origin("s1", None, 2), signal="SIGINT"))
    return started


def buttons(shown: Session) -> list[dict[str, object]]:
    payload = root_message(shown).payload()
    assert check_message(payload) == []
    return [element for block in payload["blocks"] if block["type"] == "actions"
            for element in block["elements"]]  # fmt: skip


def test_a_running_session_with_a_stop_has_a_stop_button_naming_it() -> None:
    (button,) = buttons(session(stop_button=True))
    assert button["action_id"] == STOP
    assert read_value(str(button["value"])) == ("s1", {})


def test_a_session_without_a_stop_has_no_button() -> None:
    assert buttons(session(stop_button=False)) == []


def test_an_ended_session_has_no_stop_button() -> None:
    assert buttons(session(stop_button=True, ended=True)) == []


def test_the_stop_setting_survives_a_checkpoint() -> None:
    from bot import snapshot

    assert snapshot.loads(snapshot.dumps(SessionSettings(stop_button=True))).stop_button
