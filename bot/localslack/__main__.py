"""`python -m bot.localslack`: run the local Slack alone until interrupted."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence

from bot.localslack.server import DEFAULT_TOKEN, LocalSlack


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot.localslack",
        description="A local Slack-compatible Web API and a page that shows its channels live.",
    )
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--token", default=DEFAULT_TOKEN, help="the bot token it accepts")
    parser.add_argument(
        "--no-rate-limits", action="store_true", help="never answer 429 for rate limits"
    )
    parser.add_argument(
        "--scale", type=float, default=1.0, help="rate limits this many times faster"
    )
    return parser


def run(argv: Sequence[str] | None = None, *, stop: threading.Event | None = None) -> int:
    """Serve until SIGINT/SIGTERM (or until `stop` is set); prints where to find it."""
    args = _parser().parse_args(argv)
    if args.scale <= 0:
        print("--scale must be positive", file=sys.stderr)
        return 2
    stop = stop or threading.Event()
    slack = LocalSlack(
        token=args.token, rate_limits=not args.no_rate_limits, scale=args.scale, port=args.port
    )
    try:
        slack.start()
    except OSError as err:
        print(f"cannot listen on 127.0.0.1:{args.port}: {err.strerror}", file=sys.stderr)
        return 1
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())
    print(f"local Slack: {slack.page_url}", flush=True)
    print(f"SLACK_API_URL={slack.base_url}", flush=True)
    print(f"SLACK_BOT_TOKEN={args.token}", flush=True)
    try:
        stop.wait()
    finally:
        slack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(run())
