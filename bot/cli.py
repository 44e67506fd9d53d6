"""slacktail's command line.

``slacktail --help`` must answer at once: this module imports nothing but the standard library's
argument parsing. Each command imports what it needs when it runs (the settings' pydantic, the
formats, slack_sdk and the local Slack cost half a second together).
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from bot import __version__
from bot.cli_options import (
    FORMAT_HELP,
    VERBOSITIES,
    duration,
    family,
    pattern_option,
    slack_options,
    speed,
)
from bot.secret_flags import refusal

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.logs import EventLog

INTERRUPTED = 130  # a shell's code for a command stopped by Ctrl-C

PATH_HELP = (
    "a log file; a folder (the agents' session files below it, or --pattern's); a glob such as "
    "'~/.claude/projects/*/*.jsonl' (quoted); or - for standard input"
)
EPILOG = """\
With no SLACK_BOT_TOKEN in the environment, follow and run post to a local Slack that
slacktail starts on 127.0.0.1 and prints the address of. Examples:

  slacktail follow --replay-speed 5 examples/claude-session.jsonl
  claude -p "fix the test" --output-format stream-json --verbose | slacktail follow -
  slacktail follow ~/.claude/projects
  slacktail preview --json agent.jsonl

Each command has its own --help."""


class _BadArguments(Exception):
    """The command line could not be parsed: said by ``main``, never echoing a secret."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser
        self.message = message


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors come back to ``main`` (argparse would print the
    arguments it could not place, a token given as a flag among them)."""

    def error(self, message: str) -> NoReturn:
        raise _BadArguments(self, message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="slacktail", description="Post what AI agents are doing to Slack.", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    subcommands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    preview = subcommands.add_parser(
        "preview", help="no Slack at all: print the threads a log becomes, as they finally look"
    )
    preview.add_argument("files", nargs="+", metavar="PATH", help=PATH_HELP)
    preview.add_argument("--json", action="store_true", help="print one JSON document")
    preview.add_argument("--format", type=family, metavar="FAMILY", help=FORMAT_HELP)
    preview.add_argument("--verbosity", choices=VERBOSITIES, default="normal",
                         help="what to show (default: normal)")  # fmt: skip
    pattern_option(preview)
    follow = subcommands.add_parser(
        "follow", help="keep the Slack threads of a log's sessions current as it is written"
    )
    follow.add_argument("path", metavar="PATH", help=PATH_HELP)
    follow.add_argument("--once", action="store_true",
                        help="read what is there, deliver the final state and stop (a local "
                        "Slack it started stays up until Ctrl-C, on a terminal)")  # fmt: skip
    follow.add_argument("--replay-speed", type=speed, metavar="N",
                        help="replay a finished log at N times the pace it was written, from "
                        "its own timestamps (lines without one are read as they come)")  # fmt: skip
    follow.add_argument("--since", metavar="DURATION|TIME",
                        help="post only sessions active since then: 90m, 12h, 7d, or a date "
                        "and time such as 2026-11-01 (older ones are read, not posted; "
                        "SLACKTAIL_SINCE)")  # fmt: skip
    pattern_option(follow)
    slack_options(follow)
    run = subcommands.add_parser(
        "run", help="run an agent, show its output, and post what it does to Slack"
    )
    slack_options(run)
    run.add_argument("agent", nargs=argparse.REMAINDER, metavar="-- CMD ARGS...",
                     help="the agent's command line, after --")  # fmt: skip
    approvals = subcommands.add_parser(
        "approvals", help="the MCP server Claude Code asks for permission "
        "(--permission-prompt-tool): each request is answered from the session's thread"
    )  # fmt: skip
    approvals.add_argument("--approval-timeout", type=duration, metavar="DURATION",
                           help="deny when no one answers within this long: 90s, 5m "
                           "(default: SLACKTAIL_APPROVAL_TIMEOUT, else 5m)")  # fmt: skip
    approvals.add_argument("--state-dir", metavar="DIR",
                           help="where requests are kept, shared with the follower (default: "
                           "SLACKTAIL_STATE_DIR, else $XDG_STATE_HOME/slacktail)")  # fmt: skip
    subcommands.add_parser("local-slack", add_help=False,
                           help="run the local Slack alone (see local-slack --help)")  # fmt: skip
    return parser


class _Version(argparse.Action):
    """``--version``: which core runs is asked only then (asking imports the core)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any, **__: Any) -> None:
        from bot.build import description

        print(f"slacktail {__version__} ({description()})")
        parser.exit()


def _settings(args: argparse.Namespace) -> Settings:
    from pathlib import Path

    from bot.config import load_settings

    flags = {
        "channel": args.channel,
        "thread_ts": args.thread_ts,
        "broadcast_result": args.broadcast_result,
        "thread_status": args.thread_status,
        "agent_sessions": args.agent_sessions,
        "plan_blocks": args.plan_blocks,
        "format": args.format,
        "verbosity": args.verbosity,
        "slack_api_url": args.slack_api_url,
        "state_dir": args.state_dir,
        "health_port": args.health_port,
        "idle_after": args.idle_after,
        "allow_users": _users(args.allow_users),
        "allow_channel_members": args.allow_channel_members,
        "http_port": args.http_port,
        "http_host": args.http_host,
        "redact_patterns": args.redact_patterns,
        "redact_allowlist": args.redact_allowlist,
        "log_level": args.log_level,
        "patterns": getattr(args, "patterns", None),  # follow only
        "since": getattr(args, "since", None),  # follow only
    }
    config = args.config or os.environ.get("SLACKTAIL_CONFIG") or None
    return load_settings(flags, Path(config) if config else None)


def _users(given: list[str] | None) -> tuple[str, ...] | None:
    """``--allow-user`` values, each maybe comma-separated."""
    if given is None:
        return None
    return tuple(user.strip() for value in given for user in value.split(",") if user.strip())


def _preview(args: argparse.Namespace) -> int:
    from bot.errors import FormatError
    from bot.preview import build_preview, preview_paths, preview_text, write_document
    from bot.session import SessionSettings, Verbosity

    settings = SessionSettings(verbosity=Verbosity(args.verbosity))
    paths = preview_paths(args.files, args.patterns or ())
    preview = build_preview(paths, family=args.format, settings=settings,
                            max_line_bytes=_max_line_bytes())  # fmt: skip
    if args.json:
        write_document(preview, sys.stdout.buffer.write)
    else:
        sys.stdout.write(preview_text(preview, styles=sys.stdout.isatty()) + "\n")
    for said in preview.not_understood:
        print(f"slacktail: {said}", file=sys.stderr)
    if preview.read == 0:  # nothing at all could be read: say so with a failing exit
        if not preview.not_understood:
            what = "the input is empty" if not preview.records else "its lines are over the limit"
            print(f"slacktail: nothing to read: {what}", file=sys.stderr)
        return FormatError.exit_code
    return 0


def _max_line_bytes() -> int:
    """The one setting preview reads (SLACKTAIL_MAX_LINE_BYTES), validated by the settings when
    the environment or a settings file may give it; else its default, without importing the
    settings' pydantic (120 ms of start-up)."""
    from pathlib import Path

    from bot.sources.lines import DEFAULT_MAX_LINE_BYTES

    config = os.environ.get("SLACKTAIL_CONFIG") or None
    named = any(name.upper() == "SLACKTAIL_MAX_LINE_BYTES" for name in os.environ)
    if config is None and not named:
        return DEFAULT_MAX_LINE_BYTES
    from bot.config import load_settings

    return load_settings({}, Path(config) if config else None).max_line_bytes


def _approvals(args: argparse.Namespace) -> int:
    """The MCP server over stdio; no Slack token needed (the follower posts)."""
    from pathlib import Path

    from bot.app.approval_server import DEFAULT_TIMEOUT_S, NoMcp, serve
    from bot.store import default_state_dir

    timeout_s = args.approval_timeout
    if timeout_s is None:
        try:
            timeout_s = duration(os.environ.get("SLACKTAIL_APPROVAL_TIMEOUT") or
                                  f"{DEFAULT_TIMEOUT_S}")  # fmt: skip
        except argparse.ArgumentTypeError as error:
            print(f"slacktail approvals: error: SLACKTAIL_APPROVAL_TIMEOUT: {error}",
                  file=sys.stderr)  # fmt: skip
            return 2
    state_dir = args.state_dir or os.environ.get("SLACKTAIL_STATE_DIR")
    try:
        serve(Path(state_dir) if state_dir else default_state_dir(), timeout_s)
    except NoMcp as error:
        print(f"slacktail: error: {error}", file=sys.stderr)
        return 1
    return 0


def _command(args: argparse.Namespace, log: EventLog) -> int:
    from bot.collector import collecting_rarely

    with collecting_rarely():  # every command reads logs: see bot.collector
        return _run_command(args, log)


def _run_command(args: argparse.Namespace, log: EventLog) -> int:
    if args.command == "preview":
        return _preview(args)
    if args.command == "approvals":
        return _approvals(args)
    from bot import commands
    from bot.logs import with_logging

    settings = with_logging(_settings(args), log)
    if args.command == "follow":
        return commands.follow(settings, args.path, once=args.once, log=log,
                               replay_speed=args.replay_speed)  # fmt: skip
    argv = args.agent[1:] if args.agent[:1] == ["--"] else args.agent
    return commands.run(settings, argv, log=log)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["local-slack"]:  # its options are the local Slack's own (bot.localslack)
        return _local_slack(argv[1:])
    try:
        args = _parser().parse_args(argv)
    except _BadArguments as bad:
        return _bad_arguments(bad, argv)
    from bot.errors import SlacktailError, Stopped
    from bot.logs import EventLog

    log = EventLog(sys.stderr)
    try:
        return _command(args, log)
    except Stopped as stopped:  # a second Ctrl-C: not an error
        print(f"slacktail: {stopped}", file=sys.stderr)
        return stopped.exit_code
    except SlacktailError as error:
        print(log.redacted(f"slacktail: error: {error}"), file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:  # Ctrl-C where no handler of slacktail's own was waiting for it
        print("slacktail: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        return 0
    except Exception:  # unexpected: its traceback, with any secret in it redacted
        sys.stderr.write(log.redacted(traceback.format_exc()))
        return 1


def _bad_arguments(bad: _BadArguments, argv: list[str]) -> int:
    """One line for a command line that could not be parsed; a secret given as a flag is
    refused without a word of its value."""
    said = refusal(argv)
    if said is None:
        from bot.redaction import Redactor

        bad.parser.print_usage(sys.stderr)
        said = Redactor().redact(bad.message)
    print(f"{bad.parser.prog}: error: {said}", file=sys.stderr)
    return 2


def _local_slack(argv: list[str]) -> int:
    said = refusal(argv, allowed=("--token",))  # the local Slack's own token is no secret
    if said is not None:
        print(f"slacktail local-slack: error: {said}", file=sys.stderr)
        return 2
    from bot.commands import local_slack

    return local_slack(argv)


if __name__ == "__main__":
    sys.exit(main())
