"""What the health endpoint tells: one snapshot of slacktail's counters (``HealthReport``), the
verdict on it (``Verdict``), and the Prometheus metrics made from it on each scrape.

Pure: no clock, no I/O. The snapshot holds numbers and a reason, never a token.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import CollectorRegistry

if TYPE_CHECKING:
    from bot.follower import Follower

STALL_AFTER_S = 60.0  # the follower's loop turns at least every few seconds: longer is a hang
PREFIX = "slacktail_"


@dataclass(frozen=True, slots=True)
class HealthReport:
    """slacktail's counters at one moment (each counter only grows over a process's life)."""

    turned_at: float  # clock seconds of the follower loop's latest turn
    lines_read: int = 0
    records_read: int = 0
    unparsed_lines: int = 0
    long_lines: int = 0
    sessions: int = 0
    messages_posted: int = 0
    messages_updated: int = 0
    reactions: int = 0
    rate_limited: int = 0  # Slack's 429 answers
    retries: int = 0
    payload_fallbacks: int = 0
    delivery_errors: int = 0
    pending: int = 0  # changes (messages and reactions) not yet delivered
    lag_s: float = 0.0  # age of the oldest change not yet delivered (0: none waits)
    delivery_stopped: str | None = None  # why delivery stopped for good (e.g. invalid_auth)


def report_of(
    follower: Follower, turned_at: float, *, lag_s: float = 0.0, stopped: str | None = None
) -> HealthReport:
    """The follower's counters now. Call it on the follower's own thread (between turns):
    the server's thread reads only the finished, frozen report."""
    read, sent = follower.counts, follower.delivery.counts
    return HealthReport(
        turned_at=turned_at, lines_read=read.lines, records_read=read.records,
        unparsed_lines=read.unparsed, long_lines=read.long_lines,
        sessions=len(follower.book.sessions), messages_posted=sent.posts,
        messages_updated=sent.updates, reactions=sent.reactions, rate_limited=sent.rate_limited,
        retries=sent.retries, payload_fallbacks=sent.fallbacks, delivery_errors=sent.gave_up,
        pending=follower.delivery.pending,
        lag_s=lag_s, delivery_stopped=stopped,
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Verdict:
    healthy: bool
    reason: str  # "ok", or what is wrong
    since_turn_s: float

    @classmethod
    def of(cls, report: HealthReport, now: float, stall_after_s: float = STALL_AFTER_S) -> Verdict:
        since_turn = max(0.0, now - report.turned_at)
        if report.delivery_stopped is not None:
            return cls(False, f"delivery stopped: {report.delivery_stopped}", since_turn)
        if since_turn > stall_after_s:
            stalled = f"the follower loop has not turned for {since_turn:.0f} s"
            return cls(False, stalled, since_turn)
        return cls(True, "ok", since_turn)

    def document(self, report: HealthReport) -> dict[str, Any]:
        """The /healthz body: the verdict and the counters behind it."""
        counts = asdict(report)
        del counts["turned_at"]
        return {"status": self.reason, "healthy": self.healthy,
                "since_turn_s": round(self.since_turn_s, 3), **counts}  # fmt: skip


# (name without prefix and suffix, HealthReport field, help text)
COUNTERS = (
    ("lines_read", "lines_read", "Lines read from the sources."),
    ("records_read", "records_read", "Records the formats made of those lines."),
    ("unparsed_lines", "unparsed_lines", "Lines no format could read."),
    ("long_lines", "long_lines", "Lines over the length limit, skipped."),
    ("messages_posted", "messages_posted", "Messages posted to Slack."),
    ("messages_updated", "messages_updated", "Messages updated in place."),
    ("reactions", "reactions", "Reactions set on session roots."),
    ("rate_limited", "rate_limited", "Calls Slack answered with 429 (rate limited)."),
    ("retries", "retries", "Calls tried again after a 5xx or a connection error."),
    ("payload_fallbacks", "payload_fallbacks", "Messages Slack refused, sent smaller."),
    ("delivery_errors", "delivery_errors", "Calls that failed after their retries."),
)
GAUGES = (
    ("sessions", "sessions", "Agent sessions open (kept in memory)."),
    ("pending_changes", "pending", "Changes (messages, reactions) not yet delivered."),
    ("lag_seconds", "lag_s", "Age of the oldest change not yet delivered."),
)


class ReportMetrics:
    """A Prometheus collector that reads a fresh report on every scrape."""

    def __init__(self, report: Callable[[], HealthReport], clock: Callable[[], float],
                 stall_after_s: float = STALL_AFTER_S) -> None:  # fmt: skip
        self.report, self.clock, self.stall_after_s = report, clock, stall_after_s

    def collect(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily]:
        report = self.report()
        verdict = Verdict.of(report, self.clock(), self.stall_after_s)
        for name, field, text in COUNTERS:
            yield CounterMetricFamily(PREFIX + name, text, value=getattr(report, field))
        for name, field, text in GAUGES:
            yield GaugeMetricFamily(PREFIX + name, text, value=getattr(report, field))
        yield GaugeMetricFamily(PREFIX + "seconds_since_loop_turn",
                                "Seconds since the follower loop last turned.",
                                value=verdict.since_turn_s)  # fmt: skip
        yield GaugeMetricFamily(PREFIX + "healthy", "1 when /healthz answers 200, else 0.",
                                value=float(verdict.healthy))  # fmt: skip


def metrics_registry(collector: ReportMetrics) -> CollectorRegistry:
    """A registry of its own (never the process-wide default one) holding ``collector``."""
    registry = CollectorRegistry()  # no auto-describe: no report is read until a scrape
    registry.register(collector)
    return registry
