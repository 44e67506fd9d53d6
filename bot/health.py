"""``--health-port``: a small HTTP server in a daemon thread for probes and Prometheus.

``GET /healthz``: 200 and a JSON document (``"status": "ok"`` and the counters) while slacktail
works; 503 with the reason when delivery has stopped for good (a bad token, a channel gone) or
the follower's loop has not turned for longer than ``stall_after_s``. ``GET /metrics``: the
counters in Prometheus's text format (OpenMetrics when the scraper asks for it), from a registry
of this server's own. Every request reads a fresh ``HealthReport``; nothing in it is a secret.
"""

from __future__ import annotations

import dataclasses
import socket
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

import orjson
from prometheus_client.exposition import choose_encoder

from bot.errors import UsageError
from bot.metrics import STALL_AFTER_S, HealthReport, ReportMetrics, Verdict, metrics_registry

JSON = "application/json"
POLL_S = 0.1  # how soon close() is noticed


class Heartbeat:
    """The latest report, handed from the follower's loop (``beat`` each turn) to the server's
    thread (``heartbeat()``): one reference, swapped whole, so no lock is needed."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._latest = HealthReport(turned_at=clock())

    def beat(self, report: HealthReport) -> None:
        self._latest = report

    def stopped(self, reason: str) -> None:
        """Delivery stopped for good (``reason``: e.g. Slack's error code)."""
        self._latest = dataclasses.replace(self._latest, delivery_stopped=reason)

    def __call__(self) -> HealthReport:
        return self._latest


class HealthServer:
    """Serves /healthz and /metrics on ``host:port`` (port 0: a free one, then ``.port``)
    until ``close()``."""

    def __init__(
        self,
        port: int,
        host: str = "127.0.0.1",
        *,
        report: Callable[[], HealthReport],
        clock: Callable[[], float] = time.monotonic,
        stall_after_s: float = STALL_AFTER_S,
    ) -> None:
        self.report, self.clock, self.stall_after_s = report, clock, stall_after_s
        self.registry = metrics_registry(ReportMetrics(report, clock, stall_after_s))
        kind = _HealthHttp6 if ":" in host else _HealthHttp
        try:
            self._http = kind((host, port), _Pages, self)
        except OSError as error:
            raise UsageError(f"health port {host}:{port}: {error.strerror or error}") from None
        self.host, self.port = host, int(self._http.server_address[1])
        self._thread = threading.Thread(
            target=self._http.serve_forever, args=(POLL_S,), name="slacktail-health", daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def healthz(self) -> tuple[HTTPStatus, bytes]:
        report = self.report()
        verdict = Verdict.of(report, self.clock(), self.stall_after_s)
        status = HTTPStatus.OK if verdict.healthy else HTTPStatus.SERVICE_UNAVAILABLE
        return status, orjson.dumps(verdict.document(report))

    def metrics(self, accept: str) -> tuple[bytes, str]:
        """The exposition of this server's registry, in the format ``accept`` asks for."""
        encode, content_type = choose_encoder(accept)
        return encode(self.registry), content_type

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join()

    def __enter__(self) -> HealthServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _HealthHttp(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], pages: type[_Pages], health: HealthServer):
        self.health = health
        super().__init__(address, pages)


class _HealthHttp6(_HealthHttp):
    address_family = socket.AF_INET6


class _Pages(BaseHTTPRequestHandler):
    server_version = "slacktail"

    def do_GET(self) -> None:  # http.server's name
        health = cast(_HealthHttp, self.server).health
        path = self.path.split("?", 1)[0]
        if path == "/healthz":
            status, body = health.healthz()
            self._send(status, body, JSON)
        elif path == "/metrics":
            body, content_type = health.metrics(self.headers.get("Accept", ""))
            self._send(HTTPStatus.OK, body, content_type)
        else:
            self._send(HTTPStatus.NOT_FOUND, b'{"error":"not found: /healthz, /metrics"}', JSON)

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Probes come every few seconds: they are not worth a line on stderr each."""
