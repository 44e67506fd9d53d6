"""Events of Slack and delivery: connected, unavailable, rate limited, delivered, stopped."""

from __future__ import annotations

from dataclasses import dataclass

from bot.events.event import Event


@dataclass(frozen=True, slots=True)
class Connected(Event):
    """Slack answered at start-up: the token is the bot user ``bot_user``'s, the channel found."""

    name = "connected"
    channel: str
    bot_user: str


@dataclass(frozen=True, slots=True)
class SlackUnavailable(Event):
    """A call's retries ran out (Slack unreachable, or answering 5xx): nothing is sent for
    ``retry_in_s`` seconds; ``call``: the start-up call waited for, ``waiting``: the changes
    kept to send once it answers."""

    name = "slack_unavailable"
    error: str
    retry_in_s: float
    call: str | None = None
    waiting: int | None = None


@dataclass(frozen=True, slots=True)
class SlackBack(Event):
    """Slack answers again, after ``after_s`` seconds away."""

    name = "slack_back"
    after_s: float
    waiting: int


@dataclass(frozen=True, slots=True)
class RateLimited(Event):
    """Slack asked to slow down (429): that budget pauses ``retry_after`` seconds."""

    name = "rate_limited"
    method: str
    retry_after: float


@dataclass(frozen=True, slots=True)
class Retry(Event):
    """A call failed (5xx, a lost connection) and is tried again after ``after_s`` seconds."""

    name = "retry"
    after_s: float


@dataclass(frozen=True, slots=True)
class FallbackPayload(Event):
    """Slack refused a message's payload: a smaller one, its text alone, is sent instead."""

    name = "fallback_payload"
    session: str
    key: str
    error: str


@dataclass(frozen=True, slots=True)
class MessageDeleted(Event):
    """A message of a thread was deleted in Slack: it is posted again."""

    name = "message_deleted"
    session: str
    key: str


@dataclass(frozen=True, slots=True)
class ThreadRestarted(Event):
    """A session's root was deleted in Slack: its thread starts again, replies posted anew."""

    name = "thread_restarted"
    session: str
    reason: str


@dataclass(frozen=True, slots=True)
class DeliveryStopped(Event):
    """Delivery stopped for good (a revoked token, a channel gone); the state is kept."""

    name = "delivery_stopped"
    error: str


@dataclass(frozen=True, slots=True)
class SurfaceOff(Event):
    """Slack refused one of the app's surfaces (the status under threads, agent sessions, the
    App Home): a scope missing, not allowed for this app; it is off for the rest of the run."""

    name = "surface_off"
    surface: str
    error: str


@dataclass(frozen=True, slots=True)
class Delivered(Event):
    """The final delivery sent everything: the run's totals."""

    name = "delivered"
    sessions: int
    records: int
    unparsed: int
    posts: int
    updates: int
    rate_limited: int
    retries: int
    waiting: int


@dataclass(frozen=True, slots=True)
class DeliveryIncomplete(Delivered):
    """The final delivery stopped before all was sent (a stop, a deadline): the run's totals,
    ``waiting`` the changes not sent."""

    name = "delivery_incomplete"


@dataclass(frozen=True, slots=True)
class PostingStopped(Event):
    """Under ``run``, slacktail failed while the agent runs: posting stops, the agent goes on."""

    name = "posting_stopped"
    error: str
    agent: str


@dataclass(frozen=True, slots=True)
class AgentExited(Event):
    """``run``'s agent exited with ``code``, slacktail's own exit code."""

    name = "agent_exited"
    code: int
