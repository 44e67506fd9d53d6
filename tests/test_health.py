"""The health server answers real HTTP on 127.0.0.1: /healthz, /metrics, and nothing else."""

from __future__ import annotations

import http.client
import socket
from collections.abc import Iterator

import orjson
import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from bot.errors import UsageError
from bot.health import HealthServer, Heartbeat
from bot.metrics import HealthReport
from tests.conftest import FakeClock


class Reports:
    """The report the server reads: replaced by the test between requests."""

    def __init__(self, report: HealthReport) -> None:
        self.current = report

    def __call__(self) -> HealthReport:
        return self.current


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def reports(clock: FakeClock) -> Reports:
    return Reports(HealthReport(turned_at=clock.now))


@pytest.fixture
def server(reports: Reports, clock: FakeClock) -> Iterator[HealthServer]:
    with HealthServer(0, report=reports, clock=clock, stall_after_s=30.0) as health:
        yield health


def get(server: HealthServer, path: str, accept: str = "") -> tuple[int, str, bytes]:
    connection = http.client.HTTPConnection(server.host, server.port, timeout=5)
    try:
        connection.request("GET", path, headers={"Accept": accept} if accept else {})
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type") or "", response.read()
    finally:
        connection.close()


def samples(body: bytes) -> dict[str, float]:
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(body.decode())
        for sample in family.samples
    }


def test_port_zero_binds_a_free_port_on_loopback(server: HealthServer) -> None:
    assert server.port > 0
    assert server.url == f"http://127.0.0.1:{server.port}"


def test_healthz_is_200_ok_with_the_counters_while_all_is_well(
    server: HealthServer, reports: Reports, clock: FakeClock
) -> None:
    reports.current = HealthReport(turned_at=clock.now, messages_posted=4, sessions=2)
    status, content_type, body = get(server, "/healthz")
    document = orjson.loads(body)
    assert (status, content_type) == (200, "application/json")
    assert document["status"] == "ok"
    assert (document["messages_posted"], document["sessions"]) == (4, 2)


def test_healthz_is_503_with_the_reason_when_delivery_stopped(
    server: HealthServer, reports: Reports, clock: FakeClock
) -> None:
    reports.current = HealthReport(turned_at=clock.now, delivery_stopped="invalid_auth")
    status, _, body = get(server, "/healthz")
    assert status == 503
    assert orjson.loads(body)["status"] == "delivery stopped: invalid_auth"


def test_healthz_is_503_when_the_follower_loop_has_not_turned_for_too_long(
    server: HealthServer, clock: FakeClock
) -> None:
    clock.advance(30.0)
    assert get(server, "/healthz")[0] == 200
    clock.advance(1.0)
    status, _, body = get(server, "/healthz")
    assert status == 503
    assert "has not turned for 31 s" in orjson.loads(body)["status"]


def test_metrics_are_prometheus_text_with_the_reports_values(
    server: HealthServer, reports: Reports, clock: FakeClock
) -> None:
    reports.current = HealthReport(
        turned_at=clock.now - 2.5, lines_read=120, records_read=110, unparsed_lines=3,
        long_lines=1, sessions=2, messages_posted=9, messages_updated=40, reactions=2,
        rate_limited=5, retries=7, pending=4, lag_s=12.5,
    )  # fmt: skip
    status, content_type, body = get(server, "/metrics")
    values = samples(body)
    assert status == 200 and content_type.startswith("text/plain")
    assert values["slacktail_lines_read_total"] == 120
    assert values["slacktail_unparsed_lines_total"] == 3
    assert values["slacktail_messages_posted_total"] == 9
    assert values["slacktail_messages_updated_total"] == 40
    assert values["slacktail_rate_limited_total"] == 5
    assert values["slacktail_retries_total"] == 7
    assert values["slacktail_pending_changes"] == 4
    assert values["slacktail_lag_seconds"] == 12.5
    assert values["slacktail_seconds_since_loop_turn"] == 2.5
    assert values["slacktail_healthy"] == 1


def test_every_scrape_reads_the_live_report(
    server: HealthServer, reports: Reports, clock: FakeClock
) -> None:
    assert samples(get(server, "/metrics")[2])["slacktail_messages_posted_total"] == 0
    reports.current = HealthReport(turned_at=clock.now, messages_posted=3, delivery_stopped="x")
    values = samples(get(server, "/metrics")[2])
    assert (values["slacktail_messages_posted_total"], values["slacktail_healthy"]) == (3, 0)


def test_metrics_come_as_openmetrics_when_the_scraper_asks(server: HealthServer) -> None:
    _, content_type, body = get(server, "/metrics", accept="application/openmetrics-text")
    assert content_type.startswith("application/openmetrics-text")
    assert body.endswith(b"# EOF\n")


def test_metrics_live_in_the_servers_own_registry_not_the_default_one(
    server: HealthServer, reports: Reports, clock: FakeClock
) -> None:
    with HealthServer(0, report=reports, clock=clock) as second:  # no clash between two servers
        assert samples(get(second, "/metrics")[2])["slacktail_healthy"] == 1
    assert REGISTRY.get_sample_value("slacktail_messages_posted_total") is None


def test_an_unknown_path_is_404(server: HealthServer) -> None:
    assert get(server, "/")[0] == 404
    assert get(server, "/healthz/extra")[0] == 404


def test_no_token_from_the_environment_ever_appears(
    server: HealthServer, reports: Reports, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = "xoxb-1234567890-secret-token-value"
    monkeypatch.setenv("SLACK_BOT_TOKEN", token)
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-1-secret-app-token")
    reports.current = HealthReport(turned_at=clock.now, delivery_stopped="invalid_auth")
    for path in ("/healthz", "/metrics", "/nothing"):
        body = get(server, path)[2]
        assert b"xoxb-" not in body and b"xapp-" not in body and b"secret" not in body


def test_close_stops_the_server(reports: Reports, clock: FakeClock) -> None:
    health = HealthServer(0, report=reports, clock=clock)
    assert get(health, "/healthz")[0] == 200
    health.close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((health.host, health.port), timeout=5).close()


def test_a_port_in_use_is_a_usage_error(server: HealthServer, reports: Reports) -> None:
    with pytest.raises(UsageError, match=f"health port 127.0.0.1:{server.port}"):
        HealthServer(server.port, report=reports)


def test_a_heartbeat_serves_the_latest_beat_and_a_stop_keeps_its_counters(
    clock: FakeClock,
) -> None:
    heartbeat = Heartbeat(clock)
    assert heartbeat() == HealthReport(turned_at=clock.now)
    heartbeat.beat(HealthReport(turned_at=clock.now + 1, messages_posted=2))
    heartbeat.stopped("channel_not_found")
    assert heartbeat() == HealthReport(
        turned_at=clock.now + 1, messages_posted=2, delivery_stopped="channel_not_found"
    )
