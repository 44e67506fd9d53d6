"""slacktail's command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import orjson

from bot import __version__
from bot.errors import SlacktailError
from bot.formats import FAMILIES
from bot.preview import build_preview, preview_document, preview_text
from bot.session import SessionSettings, Verbosity


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="slacktail", description="Post what AI agents are doing to Slack."
    )
    parser.add_argument("--version", action="version", version=f"slacktail {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    preview = commands.add_parser(
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
    return parser


def _preview(args: argparse.Namespace) -> int:
    settings = SessionSettings(verbosity=Verbosity(args.verbosity))
    preview = build_preview(args.files, family=args.format, settings=settings)
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(preview_document(preview), option=orjson.OPT_INDENT_2))
        sys.stdout.buffer.write(b"\n")
    else:
        sys.stdout.write(preview_text(preview) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "preview":
            return _preview(args)
    except SlacktailError as error:
        print(f"slacktail: error: {error}", file=sys.stderr)
        return error.exit_code
    except BrokenPipeError:
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
