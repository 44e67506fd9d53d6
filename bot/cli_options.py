"""The command line's options shared by its commands (Slack, the app, redaction, a folder's
pattern) and the types of their values, checked as they are parsed (a family, a speed, a
duration, a port). Like ``bot.cli``, it imports nothing but argument parsing until a value is
checked."""

from __future__ import annotations

import argparse

VERBOSITIES = ("quiet", "normal", "verbose")  # bot.session.Verbosity's values
LOG_LEVELS = ("debug", "info", "warning", "error")  # bot.logs.LEVELS, lowest first
FORMAT_HELP = "skip format detection: read the log as this family (see README: Log formats)"


def pattern_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pattern", action="append", dest="patterns", metavar="GLOB",
                        help="under a folder, the files this glob (relative to it) names, "
                        "instead of the agents' session files; repeatable")  # fmt: skip


def slack_options(parser: argparse.ArgumentParser) -> None:
    """Settings flags; each overrides its SLACKTAIL_* variable and the settings file. There
    is no flag for a token: SLACK_BOT_TOKEN comes from the environment only."""
    parser.add_argument("--channel", metavar="NAME",
                        help="channel name or id (default: SLACKTAIL_CHANNEL)")  # fmt: skip
    parser.add_argument("--thread-ts", metavar="TS", help="post into this existing thread")
    parser.add_argument("--broadcast-result", action="store_true", default=None,
                        help="also send each session's result to the channel")  # fmt: skip
    parser.add_argument("--no-thread-status", action="store_false", default=None,
                        dest="thread_status",
                        help="do not show under a thread what its session is doing")  # fmt: skip
    parser.add_argument("--agent-sessions", action="store_true", default=None,
                        help="the app is declared an agent: agent sessions, Slack's Stop")
    parser.add_argument("--plan-blocks", action="store_true", default=None,
                        help="show the todo list as a plan of task cards")  # fmt: skip
    parser.add_argument("--format", type=family, metavar="FAMILY", help=FORMAT_HELP)
    parser.add_argument("--verbosity", choices=VERBOSITIES,
                        help="what to show (default: normal)")  # fmt: skip
    parser.add_argument("--slack-api-url", metavar="URL",
                        help="the Web API base URL (SLACK_API_URL)")  # fmt: skip
    parser.add_argument("--config", metavar="FILE", help="a TOML settings file (SLACKTAIL_CONFIG)")
    parser.add_argument("--state-dir", metavar="DIR",
                        help="where positions and sent messages are kept across restarts "
                        "(default: $XDG_STATE_HOME/slacktail)")  # fmt: skip
    parser.add_argument("--health-port", type=port, metavar="PORT",
                        help="serve /healthz and Prometheus /metrics on this port")  # fmt: skip
    parser.add_argument("--idle-after", metavar="DURATION",
                        help="show a running session whose log is quiet this long as idle: "
                        "seconds, or 90s, 10m, 1h (default 10m; SLACKTAIL_IDLE_AFTER)")  # fmt: skip
    app_options(parser)
    redaction_options(parser)


def app_options(parser: argparse.ArgumentParser) -> None:
    """Who may use the controls, and how the app receives clicks (its secrets: environment)."""
    parser.add_argument("--allow-user", action="append", dest="allow_users", metavar="USER_ID",
                        help="this Slack user may use the controls (Stop...); repeatable "
                        "(SLACKTAIL_ALLOW_USERS, comma-separated)")  # fmt: skip
    parser.add_argument("--allow-channel-members", action="store_true", default=None,
                        help="the channel's members may use the controls")  # fmt: skip
    parser.add_argument("--http-port", type=port, metavar="PORT",
                        help="receive the app's requests by HTTP on this port, verified with "
                        "SLACK_SIGNING_SECRET (default: Socket Mode with SLACK_APP_TOKEN; "
                        "SLACKTAIL_HTTP_PORT)")  # fmt: skip
    parser.add_argument("--http-host", metavar="ADDRESS",
                        help="the address --http-port listens on (default 127.0.0.1: behind a "
                        "proxy or tunnel; SLACKTAIL_HTTP_HOST)")  # fmt: skip


def redaction_options(parser: argparse.ArgumentParser) -> None:
    """Redaction and logging flags (SLACKTAIL_REDACT_PATTERNS, _REDACT_ALLOWLIST as JSON
    lists, SLACKTAIL_LOG_LEVEL)."""
    parser.add_argument("--redact-pattern", action="append", dest="redact_patterns",
                        metavar="[NAME::]REGEX", help="also redact what this matches")  # fmt: skip
    parser.add_argument("--redact-allow", action="append", dest="redact_allowlist",
                        metavar="TEXT|re:REGEX", help="never redact this")  # fmt: skip
    parser.add_argument("--log-level", choices=LOG_LEVELS)
    parser.add_argument("--debug", action="store_const", const="debug", dest="log_level",
                        help="log at debug level (secrets are still redacted)")  # fmt: skip


def family(name: str) -> str:
    """A ``--format`` value: a registered family (the registry is imported only to check)."""
    from bot.formats import FAMILIES

    if name not in FAMILIES:
        raise argparse.ArgumentTypeError(f"{name!r} is not a log family; one of: "
                                         + ", ".join(sorted(FAMILIES)))  # fmt: skip
    return name


def speed(text: str) -> float:
    try:
        speed = float(text)
    except ValueError:
        speed = 0.0
    if not 0 < speed < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: a positive number, e.g. 5 for 5 times faster")
    return speed


def duration(text: str) -> float:
    from bot.config import seconds_of

    seconds = seconds_of(text)
    if not isinstance(seconds, float) or seconds <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a duration such as 90s or 5m")
    return seconds


def port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: a port number, 0 to 65535")
    return int(text)
