"""slacktail's own token, at debug log level with a Slack that fails: it appears nowhere in
what slacktail prints, in its files, in its settings' repr, nor in a traceback."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import commands
from bot.cli import main
from bot.config import load_settings
from bot.events import Connected
from bot.localslack import Faults, LocalSlack
from bot.logs import EventLog, with_logging
from tests.conftest import FIXTURES, ROOT, wait_until

OWN_TOKEN = "xoxb-1234567890123-1234567890123-OwnTokenOfSlacktail0042"
LOG = FIXTURES / "preview_mentions.jsonl"


@pytest.fixture(autouse=True)
def _logging_restored() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def _env(slack: LocalSlack, home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "SLACK_BOT_TOKEN": OWN_TOKEN,
        "SLACK_API_URL": slack.base_url,
        "HOME": str(home),
        "XDG_STATE_HOME": str(home / "state"),
        "PYTHONPATH": str(ROOT),
    }


def _command() -> list[str]:
    return [sys.executable, "-m", "bot.cli", "follow", "--once", "--debug",
            "--channel", "agents", str(LOG)]  # fmt: skip


def _run(slack: LocalSlack, home: Path) -> subprocess.CompletedProcess[str]:
    """``slacktail follow --once --debug`` in its own process, with its own home and state."""
    return subprocess.run(_command(), env=_env(slack, home), capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip


def _files_holding(root: Path, secret: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_a_rejected_token_is_never_printed_at_debug_level(tmp_path: Path) -> None:
    with LocalSlack(token="xoxb-another-workspaces-token") as slack:  # answers invalid_auth
        done = _run(slack, tmp_path)
    assert done.returncode == 3
    assert "invalid_auth" in done.stderr
    assert "Sending a request" in done.stderr  # slack_sdk's debug lines were written
    assert OWN_TOKEN not in done.stdout + done.stderr
    assert _files_holding(tmp_path, OWN_TOKEN) == []


def test_a_failing_slack_never_gets_the_token_printed(tmp_path: Path) -> None:
    faults = Faults()
    faults.configure(error_rate=1.0)  # every call answers HTTP 500: start-up is tried again
    with LocalSlack(token=OWN_TOKEN, faults=faults) as slack:
        process = subprocess.Popen(_command(), env=_env(slack, tmp_path), text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        try:
            assert wait_until(lambda: faults.injected["5xx"] >= 2, timeout=30)
        finally:
            process.terminate()
            out, err = process.communicate(timeout=30)
    assert "HTTP 500" in err and '"slack_unavailable"' in err
    assert OWN_TOKEN not in out + err
    assert _files_holding(tmp_path, OWN_TOKEN) == []


def test_the_settings_repr_never_shows_the_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", OWN_TOKEN)
    settings = load_settings({})
    assert OWN_TOKEN not in repr(settings) + str(settings) + str(settings.model_dump())


def test_an_unexpected_error_prints_its_traceback_without_the_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", OWN_TOKEN)

    def broken(*args: object, **kwargs: object) -> int:
        raise RuntimeError(f"boom while using {OWN_TOKEN[:-2] + 'XY'} and {OWN_TOKEN}")

    monkeypatch.setattr(commands, "follow", broken)
    assert main(["follow", "--once", "--channel", "agents", str(LOG)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: boom" in err
    assert OWN_TOKEN not in err and OWN_TOKEN[:24] not in err


def test_slack_sdk_debug_lines_and_events_are_redacted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", OWN_TOKEN)
    log = EventLog(sys.stderr)
    with_logging(load_settings({"log_level": "debug"}), log)
    logging.getLogger("slack_sdk.web.base_client").debug(
        "Received - headers: %s, body: %s", {"Authorization": f"Bearer {OWN_TOKEN}"},
        '{"ok": false, "token": "' + OWN_TOKEN + '"}',
    )  # fmt: skip
    log.event(Connected(channel=f"token {OWN_TOKEN}", bot_user="U1"))
    err = capsys.readouterr().err
    assert "Received - headers" in err and '"event":"connected"' in err
    assert OWN_TOKEN not in err
