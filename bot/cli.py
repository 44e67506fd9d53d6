"""slacktail's command line."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

import orjson

from bot import __version__, commands
from bot.build import description
from bot.config import Settings, load_settings
from bot.errors import FormatError, SlacktailError
from bot.formats import FAMILIES
from bot.logs import LEVELS, EventLog, with_logging
from bot.preview import build_preview, preview_document, preview_text
from bot.session import SessionSettings, Verbosity


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="slacktail", description="Post what AI agents are doing to Slack."
    )
    version = f"slacktail {__version__} ({description()})"
    parser.add_argument("--version", action="version", version=version)
    subcommands = parser.add_subparsers(dest="command", required=True)
    preview = subcommands.add_parser(
        "preview", help="show the threads a log becomes, as they would finally look"
    )
    preview.add_argument("files", nargs="+", type=Path, metavar="FILE")
    preview.add_argument("--json", action="store_true", help="print one JSON document")
    preview.add_argument("--format", choices=sorted(FAMILIES), help="skip format detection")
    preview.add_argument(
        "--verbosity",
        choices=[v.value for v in Verbosity],
        default=Verbosity.NORMAL.value,
        help="what to show (default: normal)",
    )
    follow = subcommands.add_parser(
        "follow", help="keep the Slack threads of a log's sessions current as it is written"
    )
    follow.add_argument("path", metavar="PATH", help="a log file, or - for standard input")
    follow.add_argument("--once", action="store_true",
                        help="process what is there, deliver the final state and exit")  # fmt: skip
    follow.add_argument("--pattern", action="append", dest="patterns", metavar="GLOB",
                        help="under a folder, follow the files this glob (relative to it) "
                        "names, instead of the agents' session files; repeatable")  # fmt: skip
    _slack_options(follow)
    run = subcommands.add_parser(
        "run", help="run an agent, show its output, and post what it does to Slack"
    )
    _slack_options(run)
    run.add_argument("agent", nargs=argparse.REMAINDER, metavar="-- CMD ARGS...",
                     help="the agent's command line, after --")  # fmt: skip
    local = subcommands.add_parser("local-slack", help="run the local Slack alone")
    local.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    return parser


def _slack_options(parser: argparse.ArgumentParser) -> None:
    """Settings flags; each overrides its SLACKTAIL_* variable and the settings file. There
    is no flag for a token: SLACK_BOT_TOKEN comes from the environment only."""
    parser.add_argument("--channel", help="channel name or id (default: SLACKTAIL_CHANNEL)")
    parser.add_argument("--thread-ts", help="post into this existing thread")
    parser.add_argument("--broadcast-result", action="store_true", default=None,
                        help="also send each session's result to the channel")  # fmt: skip
    parser.add_argument("--format", choices=sorted(FAMILIES), help="skip format detection")
    parser.add_argument("--verbosity", choices=[v.value for v in Verbosity])
    parser.add_argument("--slack-api-url", help="the Web API base URL (SLACK_API_URL)")
    parser.add_argument("--config", type=Path, help="a TOML settings file (SLACKTAIL_CONFIG)")
    parser.add_argument("--state-dir", type=Path,
                        help="where positions and sent messages are kept across restarts "
                        "(default: $XDG_STATE_HOME/slacktail)")  # fmt: skip
    parser.add_argument("--health-port", type=int,
                        help="serve /healthz and Prometheus /metrics on this port")  # fmt: skip
    _redaction_options(parser)


def _redaction_options(parser: argparse.ArgumentParser) -> None:
    """Redaction and logging flags (SLACKTAIL_REDACT_PATTERNS, _REDACT_ALLOWLIST as JSON
    lists, SLACKTAIL_LOG_LEVEL)."""
    parser.add_argument("--redact-pattern", action="append", dest="redact_patterns",
                        metavar="[NAME::]REGEX", help="also redact what this matches")  # fmt: skip
    parser.add_argument("--redact-allow", action="append", dest="redact_allowlist",
                        metavar="TEXT|re:REGEX", help="never redact this")  # fmt: skip
    parser.add_argument("--log-level", choices=sorted(LEVELS, key=LEVELS.__getitem__))
    parser.add_argument("--debug", action="store_const", const="debug", dest="log_level",
                        help="log at debug level (secrets are still redacted)")  # fmt: skip


def _settings(args: argparse.Namespace) -> Settings:
    flags = {
        "channel": args.channel,
        "thread_ts": args.thread_ts,
        "broadcast_result": args.broadcast_result,
        "format": args.format,
        "verbosity": args.verbosity,
        "slack_api_url": args.slack_api_url,
        "state_dir": args.state_dir,
        "health_port": args.health_port,
        "redact_patterns": args.redact_patterns,
        "redact_allowlist": args.redact_allowlist,
        "log_level": args.log_level,
        "patterns": getattr(args, "patterns", None),  # follow only
    }
    config = args.config or (Path(p) if (p := os.environ.get("SLACKTAIL_CONFIG")) else None)
    return load_settings(flags, config)


def _preview(args: argparse.Namespace) -> int:
    settings = SessionSettings(verbosity=Verbosity(args.verbosity))
    preview = build_preview(args.files, family=args.format, settings=settings)
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(preview_document(preview), option=orjson.OPT_INDENT_2))
        sys.stdout.buffer.write(b"\n")
    else:
        sys.stdout.write(preview_text(preview, styles=sys.stdout.isatty()) + "\n")
    for said in preview.not_understood:
        print(f"slacktail: {said}", file=sys.stderr)
    if preview.read == 0:  # nothing at all could be read: say so with a failing exit
        if not preview.not_understood:
            print("slacktail: nothing to read: the input is empty", file=sys.stderr)
        return FormatError.exit_code
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    log = EventLog(sys.stderr)
    try:
        if args.command == "preview":
            return _preview(args)
        if args.command == "follow":
            settings = with_logging(_settings(args), log)
            return commands.follow(settings, args.path, once=args.once, log=log)
        if args.command == "run":
            argv = args.agent[1:] if args.agent[:1] == ["--"] else args.agent
            return commands.run(with_logging(_settings(args), log), argv, log=log)
        if args.command == "local-slack":
            return commands.local_slack(args.port)
    except SlacktailError as error:
        print(f"slacktail: error: {error}", file=sys.stderr)
        return error.exit_code
    except BrokenPipeError:
        return 0
    except Exception:  # unexpected: its traceback, with any secret in it redacted
        sys.stderr.write(log.redacted(traceback.format_exc()))
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
