"""The contract between the app (``bot.app``) and its controls, at the bottom of the pipeline:
the messages the core builds carry the controls' buttons (``button_value``), and the app reads
them back.

A control's button carries its `action_id` (one of `ACTIONS`) and a short value naming the
session it acts on (`button_value`): ids, never content (Slack caps a value at 2,000 characters).
The app turns a click into a `Click` once it is acknowledged, allowed and reached the process
that owns the session; the control carries it out and returns an `Outcome`, which the app shows
on the message the click came from and writes to the structured log.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

import orjson

STOP: Final = "slacktail_stop"
FULL_OUTPUT: Final = "slacktail_full_output"
APPROVE: Final = "slacktail_approve"
DENY: Final = "slacktail_deny"
# The page turns in the Full output modal (a view's buttons need action ids of their own):
# clicks of the Full output control too, with the page in their value.
FULL_OUTPUT_PREVIOUS: Final = "slacktail_full_output_previous"
FULL_OUTPUT_NEXT: Final = "slacktail_full_output_next"
ACTIONS: Final = (STOP, FULL_OUTPUT, FULL_OUTPUT_PREVIOUS, FULL_OUTPUT_NEXT, APPROVE, DENY)
VALUE_LIMIT: Final = 2000


@dataclass(frozen=True)
class Click:
    """A person's click on one of slacktail's controls, allowed and reaching its owner."""

    action_id: str
    session: str
    fields: Mapping[str, str]
    user: str
    channel: str
    message_ts: str
    trigger_id: str | None = None
    view_id: str | None = None  # a click in a view (a modal's page turn): the view it is in


@dataclass(frozen=True)
class Outcome:
    """What came of a click: `said` is told to the person who clicked (ephemeral) when set;
    `done` says whether anything was carried out (False: refused, stale, failed)."""

    done: bool
    said: str | None = None


Control = Callable[[Click], Outcome]


def button_value(session: str, **fields: str) -> str:
    """The value of a control's button: the session and the control's own ids."""
    value = orjson.dumps({"session": session, **fields}).decode()
    if len(value) > VALUE_LIMIT:
        raise ValueError(f"a button value of {len(value)} characters (Slack takes {VALUE_LIMIT})")
    return value


def read_value(value: str) -> tuple[str, dict[str, str]] | None:
    """The session and fields of a button's value; None when it is not one of ours."""
    try:
        data = orjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("session"), str):
        return None
    session = data.pop("session")
    if not all(isinstance(v, str) for v in data.values()):
        return None
    return session, data
