"""slacktail as a sidecar: a separate process following a log with ``--health-port``; its
``/healthz`` and ``/metrics`` tell what it did, never its token; SIGTERM ends it cleanly."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from bot.localslack import LocalSlack
from tests.conftest import FIXTURES, wait_until

TOKEN = "xoxb-sidecar-5555-abcdefabcdef"
LOG = FIXTURES / "preview_mentions.jsonl"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except OSError:
        return 0, ""



def metric(text: str, name: str) -> float:
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                return float(sample.value)
    raise KeyError(name)


def test_health_and_metrics_tell_what_the_sidecar_did_and_sigterm_ends_it(
    tmp_path: Path,
) -> None:
    port = free_port()
    lines = len(LOG.read_bytes().splitlines())
    with LocalSlack(token=TOKEN, scale=40) as slack:
        env = {**os.environ, "SLACK_BOT_TOKEN": TOKEN, "SLACKTAIL_SLACK_API_URL": slack.base_url,
               "SLACKTAIL_CHANNEL": "agents", "SLACKTAIL_STATE_DIR": str(tmp_path / "state"),
               "SLACKTAIL_RATE_SCALE": "40", "SLACKTAIL_HEALTH_PORT": str(port)}  # fmt: skip
        process = subprocess.Popen([sys.executable, "-m", "bot.cli", "follow", str(LOG)],
                                   env=env, stderr=subprocess.PIPE)  # fmt: skip
        try:
            base = f"http://127.0.0.1:{port}"

            def delivered() -> bool:
                status, text = fetch(base + "/metrics")
                return status == 200 and metric(text, "slacktail_pending_changes") == 0 and (
                    metric(text, "slacktail_lines_read_total") == lines)  # fmt: skip

            assert wait_until(delivered), "the sidecar read the log and delivered it"
            status, health = fetch(base + "/healthz")
            assert status == 200 and '"ok"' in health
            _, text = fetch(base + "/metrics")
            assert metric(text, "slacktail_messages_posted_total") >= 2
            assert TOKEN not in text and TOKEN not in health
            assert len(slack.channel_messages()) == 1
        finally:
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err.decode()
    assert TOKEN.encode() not in err
