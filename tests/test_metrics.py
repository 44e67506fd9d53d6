"""The verdict on a report, and the metrics made of it (no server: see test_health)."""

from __future__ import annotations

from pathlib import Path

from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from bot.delivery import Delivery, SlackApi
from bot.delivery.counts import Counts
from bot.follower import Follower
from bot.metrics import (
    COUNTERS,
    GAUGES,
    HealthReport,
    ReportMetrics,
    Verdict,
    metrics_registry,
    report_of,
)
from bot.reading import FollowCounts


def test_a_report_whose_loop_turned_just_now_is_healthy() -> None:
    verdict = Verdict.of(HealthReport(turned_at=100.0), now=100.5, stall_after_s=60.0)
    assert (verdict.healthy, verdict.reason, verdict.since_turn_s) == (True, "ok", 0.5)


def test_the_loop_may_be_quiet_up_to_the_limit_and_not_a_moment_longer() -> None:
    report = HealthReport(turned_at=100.0)
    assert Verdict.of(report, now=160.0, stall_after_s=60.0).healthy
    assert not Verdict.of(report, now=160.1, stall_after_s=60.0).healthy


def test_stopped_delivery_is_unhealthy_even_while_the_loop_turns() -> None:
    verdict = Verdict.of(HealthReport(turned_at=100.0, delivery_stopped="channel_not_found"), 100.0)
    assert not verdict.healthy
    assert verdict.reason == "delivery stopped: channel_not_found"


def test_the_document_has_the_counters_but_not_the_clock_reading() -> None:
    report = HealthReport(turned_at=1234.5, records_read=7, lag_s=1.5)
    document = Verdict.of(report, 1235.0).document(report)
    assert "turned_at" not in document
    assert (document["records_read"], document["lag_s"], document["since_turn_s"]) == (7, 1.5, 0.5)


def test_every_metric_names_a_field_of_the_report() -> None:
    fields = set(HealthReport.__dataclass_fields__)
    assert {field for _, field, _ in COUNTERS + GAUGES} <= fields


def test_counters_end_in_total_and_gauges_do_not() -> None:
    registry = metrics_registry(ReportMetrics(lambda: HealthReport(turned_at=0.0), lambda: 0.0))
    text = generate_latest(registry).decode()
    families = {family.name: family for family in text_string_to_metric_families(text)}
    for name, _, _ in COUNTERS:
        assert families[f"slacktail_{name}"].type == "counter"
        assert families[f"slacktail_{name}"].samples[0].name == f"slacktail_{name}_total"
    for name, _, _ in GAUGES:
        assert families[f"slacktail_{name}"].type == "gauge"


def test_a_followers_report_carries_its_read_and_delivery_counters() -> None:
    delivery = Delivery(SlackApi("xoxb-test", "http://127.0.0.1:9/"), "C0123456")
    follower = Follower([], delivery)
    follower.reading.counts = FollowCounts(lines=12, records=10, unparsed=2, long_lines=1)
    delivery.counts = Counts(posts=3, updates=8, reactions=1, rate_limited=4, retries=5)
    report = report_of(follower, turned_at=50.0, lag_s=2.0, stopped="token_revoked")
    assert report == HealthReport(
        turned_at=50.0, lines_read=12, records_read=10, unparsed_lines=2, long_lines=1,
        sessions=0, messages_posted=3, messages_updated=8, reactions=1, rate_limited=4,
        retries=5, pending=0, lag_s=2.0, delivery_stopped="token_revoked",
    )  # fmt: skip


def test_every_metric_is_in_the_readme_section_on_health() -> None:
    root = Path(__file__).resolve().parents[1]
    text = (root / "README.md").read_text()
    names = [f"slacktail_{name}_total" for name, _, _ in COUNTERS]
    names += [f"slacktail_{name}" for name, _, _ in GAUGES]
    names += ["slacktail_seconds_since_loop_turn", "slacktail_healthy"]
    assert [name for name in names if f"`{name}`" not in text] == []
