"""The one list of the follower's events: every event in it, once, under a name of its own, none
with a field that would overwrite a line's own ``at`` or ``event``; the README lists them as
they are."""

from __future__ import annotations

import re

import pytest

from bot import events
from bot.events import EVENTS, Event, events_table
from tests.conftest import ROOT

START, END = "<!-- events:", "<!-- end of events -->"


def every_event_class(base: type[Event] = Event) -> set[type[Event]]:
    found: set[type[Event]] = set()
    for sub in base.__subclasses__():
        found |= {sub, *every_event_class(sub)}
    return found


def test_every_event_is_in_the_list_once() -> None:
    # (a slotted dataclass is a class made anew: only the one the module names is the event)
    defined = {cls for cls in every_event_class() if getattr(events, cls.__name__, None) is cls}
    assert set(EVENTS) == defined
    assert len(EVENTS) == len(defined)


def test_every_event_has_a_name_of_its_own_in_snake_case_and_says_when_it_is_given() -> None:
    names = [event.name for event in EVENTS]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", name) for name in names), names
    assert all(event.__doc__ and event.__doc__.strip()[-1] == "." for event in EVENTS)


@pytest.mark.parametrize("reserved", ["at", "event"])
def test_an_event_cannot_have_a_field_that_overwrites_a_lines_own(reserved: str) -> None:
    with pytest.raises(TypeError, match=f"{reserved} is every line's own"):
        type("Clash", (Event,), {"__annotations__": {reserved: "str"}})


def test_an_events_fields_are_its_lines_fields_in_their_order() -> None:
    event = events.SessionStarted("s1", agent=None, source="a.jsonl")
    assert event.fields() == {"session": "s1", "agent": None, "source": "a.jsonl"}


def test_every_event_is_a_frozen_value() -> None:
    assert all(event.__dataclass_params__.frozen for event in EVENTS)  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        events.Retry(after_s=1.0).after_s = 2.0  # type: ignore[misc]


def test_the_readme_lists_every_event_with_its_fields() -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index(START) : readme.index(END)]
    table = [line for line in block.splitlines() if line.startswith("|")]
    assert table == events_table()
