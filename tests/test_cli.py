"""The command line as a new user meets it: a help that answers at once and says what each
command takes, secrets refused on the command line without a word of them, and one line (not
a traceback) for each mistake."""

from __future__ import annotations

import gc
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import bot.preview
from bot.cli import main
from bot.cli_options import LOG_LEVELS, VERBOSITIES
from bot.config import Settings
from bot.logs import LEVELS
from bot.session import Verbosity
from tests.conftest import FIXTURES, ROOT

LOG = str(FIXTURES / "preview_mentions.jsonl")
SECRET = "xoxb-1111111111-2222222222-abcdefghijklmnopqrstuvwx"
HEAVY = ("slack_sdk", "pydantic", "pydantic_settings", "bot.localslack", "bot.formats")


def _imported_by(*args: str) -> set[str]:
    """The modules of HEAVY that running slacktail with ``args`` imported."""
    script = ("import sys\nfrom bot.cli import main\ntry:\n    main(sys.argv[1:])\n"
              "except SystemExit:\n    pass\n"
              f"print(*(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True,
                          timeout=60, check=True, cwd=ROOT)  # fmt: skip
    return set(done.stderr.split())


@pytest.mark.parametrize("args", [["--help"], ["follow", "--help"], ["preview", "--help"]])
def test_help_imports_neither_slack_sdk_nor_pydantic_nor_the_local_slack(args: list[str]) -> None:
    assert _imported_by(*args) == set()


def test_preview_imports_neither_slack_sdk_nor_pydantic_without_a_setting_given() -> None:
    assert _imported_by("preview", "--json", LOG) == {"bot.formats"}


def test_preview_leaves_the_garbage_collector_as_it_found_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = gc.get_threshold()
    assert main(["preview", "--json", LOG]) == 0
    assert (gc.get_threshold(), gc.get_freeze_count()) == (before, 0)
    assert capsys.readouterr().out.startswith("{")


def test_the_choices_written_out_in_the_cli_are_the_codes() -> None:
    assert tuple(v.value for v in Verbosity) == VERBOSITIES
    assert tuple(sorted(LEVELS, key=LEVELS.__getitem__)) == LOG_LEVELS


def test_follow_help_says_it_takes_folders_globs_and_standard_input(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["follow", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "a folder (the agents' session files below it, or --pattern's)" in out
    assert "a glob such as '~/.claude/projects/*/*.jsonl'" in out
    assert "- for standard input" in out
    assert "--replay-speed N" in out


def test_the_version_says_which_core_runs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.startswith("slacktail 0.")


def test_an_unknown_format_is_one_line_naming_the_families(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["preview", "--format", "klingon", LOG]) == 2
    err = capsys.readouterr().err
    assert "'klingon' is not a log family; one of: agno, antigravity-transcript," in err


@pytest.mark.parametrize(
    ("args", "variable"),
    [
        (["follow", f"--slack-bot-token={SECRET}", LOG], "SLACK_BOT_TOKEN"),
        (["follow", "--slack-bot-token", SECRET, LOG], "SLACK_BOT_TOKEN"),
        (["follow", LOG, "--token", SECRET], "SLACK_BOT_TOKEN"),
        (["follow", "--slack_bot_token", SECRET], "SLACK_BOT_TOKEN"),
        (["run", f"--slack-app-token={SECRET}", "--", "claude"], "SLACK_APP_TOKEN"),
        (["run", "--slack-signing-secret", SECRET, "--", "claude"], "SLACK_SIGNING_SECRET"),
        (["preview", f"--token={SECRET}", LOG], "SLACK_BOT_TOKEN"),
    ],
)
def test_a_secret_on_the_command_line_is_refused_and_never_echoed(
    args: list[str], variable: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert f"use the {variable} environment variable" in err
    assert err.count("\n") == 1 and out == ""
    assert SECRET not in err and SECRET[10:] not in err


def test_an_argument_error_never_echoes_a_token(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["follow", "--format", SECRET, LOG]) == 2
    err = capsys.readouterr().err
    assert "is not a log family" in err and SECRET not in err


def test_a_token_given_as_a_file_is_not_echoed_either(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preview", SECRET]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and SECRET not in err


def test_ctrl_c_in_preview_is_one_line_and_exit_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(bot.preview, "build_preview", interrupted)
    assert main(["preview", LOG]) == 130
    assert capsys.readouterr().err == "slacktail: interrupted\n"


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_a_bad_port_is_one_line(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["local-slack", "--port", port])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"{port!r}: a port number, 0 to 65535" in err and "Traceback" not in err


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield int(taken.getsockname()[1])


def test_a_busy_local_slack_port_is_one_line(
    taken_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["local-slack", "--port", str(taken_port)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"cannot listen on 127.0.0.1:{taken_port}: Address already in use" in err


def test_a_busy_port_for_the_embedded_local_slack_is_one_line(
    taken_port: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    monkeypatch.setenv("SLACKTAIL_LOCAL_SLACK_PORT", str(taken_port))
    assert main(["follow", "--once", LOG]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"the local Slack cannot listen on 127.0.0.1:{taken_port}: Address already" in err


def test_a_busy_health_port_is_said_before_the_local_slack_starts(
    taken_port: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    assert main(["follow", "--once", "--health-port", str(taken_port), LOG]) == 2
    err = capsys.readouterr().err
    assert err == f"slacktail: error: health port 127.0.0.1:{taken_port}: Address already in use\n"


def test_a_missing_agent_is_said_before_the_local_slack_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    assert main(["run", "--", "no-such-agent-xyz", "-p", "hi"]) == 2
    assert capsys.readouterr().err == "slacktail: error: no-such-agent-xyz: command not found\n"


def test_a_bad_setting_is_said_before_the_local_slack_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    monkeypatch.setenv("SLACKTAIL_RATE_SCALE", "fast")
    assert main(["follow", "--once", LOG]) == 2
    err = capsys.readouterr().err
    assert err.startswith("slacktail: error: invalid setting rate_scale") and err.count("\n") == 1


@pytest.mark.parametrize("speed", ["0", "-2", "fast", "inf"])
def test_a_replay_speed_must_be_a_positive_number(
    speed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["follow", "--replay-speed", speed, LOG]) == 2
    assert "a positive number, e.g. 5 for 5 times faster" in capsys.readouterr().err


def test_the_readme_quickstart_replays_the_example_it_ships() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "slacktail follow --replay-speed 5 examples/claude-session.jsonl" in readme
    assert Path(ROOT / "examples" / "claude-session.jsonl").is_file()


def test_allow_user_is_repeatable_and_takes_comma_separated_ids(
    follow_settings: Callable[[list[str]], Settings],
) -> None:
    allowed = ["--allow-user", "U1", "--allow-user", "U2, U3,", "x.log"]
    assert follow_settings(allowed).allow_users == ("U1", "U2", "U3")
    assert follow_settings(["x.log"]).allow_users == ()  # none given: the setting's default
