"""The Full output control: a click on a tool call's Full output button opens a modal with the
call's whole output, read again from its log (``bot.outputs``), redacted, paged; Previous and
Next in the modal turn its pages (``views.update``). Nothing of the output is kept in memory:
every page is read again from the log.

``full_output(find, client, redactor)`` builds the control; ``find(session, call)`` gives what
the process that owns the session knows of that call (``calls_in(core)``: its sessions).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from blocks.full_output import changed_view, full_output_view, reading_view
from bot.checkpoints import CoreState
from bot.controls import Click, Control, Outcome, button_value
from bot.outputs import Changed, read_output
from bot.redaction import Redactor
from bot.session import Session
from bot.session.tool_calls import OutputPosition, shown_name

log = logging.getLogger(__name__)

GONE = "This tool call's output is no longer known here: its session was let go."
NO_TRIGGER = "The full output cannot be opened from here (the click brought no trigger)."


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What the modal needs of a call: its name and summary, its log's format and where its
    result was read."""

    name: str
    summary: str
    family: str
    at: OutputPosition


Find = Callable[[str, str], ToolOutput | None]


def calls_in(core: CoreState, archived: Callable[[str], Session | None] | None = None) -> Find:
    """``find`` over the sessions of ``core`` (the process's own), and those it retired to the
    store when ``archived`` is given (``Checkpoints.unarchive``, read there, not brought back):
    positions are part of the sessions' state, so they are in the store with them."""

    def find(session_id: str, call_id: str) -> ToolOutput | None:
        session = core.book.sessions.get(session_id)
        if session is None and archived is not None:
            session = archived(session_id)
        call = session.calls.get(call_id) if session is not None else None
        if call is None or call.output_at is None:
            return None
        family = core.families.get(session_id, "")
        return ToolOutput(shown_name(call.name), call.summary, family, call.output_at)

    return find


def full_output(find: Find, client: WebClient, redactor: Redactor) -> Control:
    """The Full output control: opens (or, from its Previous / Next, updates) the modal."""

    def control(click: Click) -> Outcome:
        return _show(click, find, client, redactor)

    return control


def _show(click: Click, find: Find, client: WebClient, redactor: Redactor) -> Outcome:
    call_id = click.fields.get("call", "")
    found = find(click.session, call_id) if call_id else None
    if found is None:
        return Outcome(False, GONE)
    if click.view_id is None and click.trigger_id is None:
        return Outcome(False, NO_TRIGGER)
    try:
        # Opened at once (a trigger lasts 3 s; a log read again may take longer), then filled.
        view_id = click.view_id or _open(client, str(click.trigger_id), found)
        text: str | Changed = Changed("its log's format is not known here")
        if found.family:
            text = read_output(found.at, call_id, found.family, redactor)
        client.views_update(view_id=view_id, view=_view(click, found, call_id, text))
    except SlackApiError as error:
        said = error.response.get("error")
        log.debug("full output of %s not shown: %s", call_id, said)  # the Outcome says it
        return Outcome(False, f"The full output could not be shown ({said}).")
    if isinstance(text, Changed):
        return Outcome(False, f"The full output cannot be shown: {text.why}.")
    return Outcome(True)


def _open(client: WebClient, trigger_id: str, found: ToolOutput) -> str:
    """The modal opened, saying the output is being read; its view id."""
    opened = client.views_open(trigger_id=trigger_id, view=reading_view(found.name, found.summary))
    return str(opened["view"]["id"])


def _view(click: Click, found: ToolOutput, call_id: str, text: str | Changed) -> dict[str, Any]:
    if isinstance(text, Changed):
        return changed_view(found.name, found.summary, text.why)
    session = click.session

    def page_value(page: int) -> str:
        # the channel: a click in a modal has none of its own, and who may act depends on it
        return button_value(session, call=call_id, page=str(page), channel=click.channel)

    return full_output_view(found.name, found.summary, text, _page(click), page_value)


def _page(click: Click) -> int:
    page = click.fields.get("page", "0")
    return int(page) if page.isdigit() and len(page) < 7 else 0
