"""Events of the app (controls): connected, failed, clicks refused or answered."""

from __future__ import annotations

from dataclasses import dataclass

from bot.events.event import Event


@dataclass(frozen=True, slots=True)
class AppConnected(Event):
    """The app receives the controls' clicks, by ``transport`` (``socket_mode``, or ``http``
    at ``url``)."""

    name = "app_connected"
    transport: str
    url: str | None = None


@dataclass(frozen=True, slots=True)
class AppFailed(Event):
    """The app could not start or stopped receiving clicks; posting goes on, without controls."""

    name = "app_failed"
    error: str


@dataclass(frozen=True, slots=True)
class ClickRefused(Event):
    """A click on a control was refused (``why``: not allowed, not a control's value, ...) and
    its person told so."""

    name = "click_refused"
    action: str
    user: str
    why: str


@dataclass(frozen=True, slots=True)
class ClickAnswered(Event):
    """A click on a control reached the process that follows its session (or none did):
    ``done`` whether it was carried out, ``said`` what its person was told."""

    name = "click_answered"
    action: str
    session: str
    user: str
    done: bool
    said: str | None = None


@dataclass(frozen=True, slots=True)
class AgentSignalled(Event):
    """Stop (asked ``by`` a person) sent ``signal`` to the agent of ``slacktail run``."""

    name = "agent_signalled"
    agent: str
    signal: str
    by: str
