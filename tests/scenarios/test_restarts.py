"""Restarts: ``slacktail follow`` is killed with SIGKILL at random moments while its log grows
and the local Slack answers, and started again each time; the final channel equals that of a
run that was never interrupted: no message twice, no update missing."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.localslack import LocalSlack
from tests.conftest import corpus_file
from tests.scenarios.channel import seen

TOKEN = "xoxb-restarts-0123456789"
SCALE = 20.0  # the local Slack's rate limits and slacktail's pacing, 20 times faster
KILLS = 24
# Transcripts carry each record's time, so the final channel does not depend on when a line
# was read (a stream-json line has no time of its own: slacktail uses the time it read it).
LOG_FILES = [
    ("claude-transcript", "marot__spotter__tool_heavy.jsonl"),
    ("claude-transcript", "marot__spotter__short.jsonl"),
    ("claude-transcript", "daaain__claude-code-log__todowrite_examples.jsonl"),
    ("claude-transcript", "simonw__claude-code-transcripts__sample_session.jsonl"),
]


@pytest.fixture
def log_lines() -> list[bytes]:
    lines: list[bytes] = []
    for family, name in LOG_FILES:
        lines.extend(line + b"\n" for line in corpus_file(family, name).read_bytes().splitlines())
    return lines



class Sidecar:
    """``slacktail follow LOG`` as a separate process, as it runs next to an agent."""

    def __init__(self, slack: LocalSlack, log: Path, state: Path) -> None:
        self.log = log
        self.env = {
            **os.environ,
            "SLACK_BOT_TOKEN": TOKEN,
            "SLACKTAIL_SLACK_API_URL": slack.base_url,
            "SLACKTAIL_CHANNEL": "agents",
            "SLACKTAIL_STATE_DIR": str(state),
            "SLACKTAIL_RATE_SCALE": str(SCALE),
        }
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, *flags: str) -> subprocess.Popen[bytes]:
        command = [sys.executable, "-m", "bot.cli", "follow", str(self.log), *flags]
        self.process = subprocess.Popen(command, env=self.env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE)  # fmt: skip
        return self.process

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def run_to_end(self) -> None:
        """``follow --once``: read what is left, deliver the final state, exit."""
        process = self.start("--once")
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err.decode()



def grow(log: Path, lines: list[bytes], chunks: int) -> Iterator[None]:
    """Append the log's lines in ``chunks`` pieces (some cut mid-line), yielding after each."""
    data = b"".join(lines)
    rng = random.Random(11)
    cuts = [*sorted(rng.sample(range(1, len(data)), chunks - 1)), len(data)]
    start = 0
    with log.open("ab") as file:
        for cut in cuts:
            file.write(data[start:cut])
            file.flush()
            start = cut
            yield


def test_sigkill_at_random_moments_leaves_the_channel_as_an_uninterrupted_run(
    tmp_path: Path, log_lines: list[bytes]
) -> None:
    with LocalSlack(token=TOKEN, scale=SCALE) as calm:
        sidecar = Sidecar(calm, tmp_path / "calm.jsonl", tmp_path / "calm-state")
        sidecar.start()
        pace = random.Random(2026)
        for _ in grow(sidecar.log, log_lines, KILLS):
            time.sleep(pace.uniform(0.05, 0.3))  # the log grows while the sidecar works
        sidecar.process.send_signal(signal.SIGTERM)  # type: ignore[union-attr]
        sidecar.process.wait(timeout=60)  # type: ignore[union-attr]
        sidecar.run_to_end()
        expected = seen(calm)

    rng = random.Random(2026)
    with LocalSlack(token=TOKEN, scale=SCALE) as slack:
        sidecar = Sidecar(slack, tmp_path / "killed.jsonl", tmp_path / "killed-state")
        kills = 0
        for _ in grow(sidecar.log, log_lines, KILLS):
            sidecar.start()
            time.sleep(rng.uniform(0.2, 1.0))  # a random moment: starting, reading, posting
            sidecar.kill()
            kills += 1
        sidecar.run_to_end()
        assert kills >= 20
        assert seen(slack) == expected
        posts = [r for r in slack.requests if r.method == "chat.postMessage" and r.error is None]
        assert len(posts) == sum(len(thread) for thread in expected)  # nothing posted twice
