"""`python -m bot.localslack` (and `slacktail local-slack`): run the local Slack alone until
interrupted, with the channels and faults asked for."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence

from bot.localslack.faults import Faults
from bot.localslack.model import DEFAULT_CHANNEL
from bot.localslack.server import DEFAULT_TOKEN, LocalSlack

# The app's credentials this local Slack makes up, as it makes up its bot token: no secrets.
DEFAULT_APP_TOKEN = "xapp-1-local-slack"
DEFAULT_SIGNING_SECRET = "local-slack-signing-secret"

EPILOG = """\
Faults (for trying slacktail against a Slack that misbehaves; also at run time with
POST /_admin/faults and a JSON object of the same names):
  --error-rate 0.2                     a fifth of the calls answer HTTP 500, nothing done
  --ratelimit-burst chat.update=3      the next 3 chat.update calls answer 429
  --drop-after-store chat.postMessage=1  the next post is stored, then its answer is lost
  --delay 2                            every answer comes 2 seconds late

Then point slacktail at it: SLACK_API_URL and SLACK_BOT_TOKEN as printed, and
slacktail follow --channel agents LOG."""


def parser(prog: str = "python -m bot.localslack") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="A local Slack-compatible Web API and a page that shows its channels live.",
    )  # fmt: skip
    parser.add_argument("--port", type=_port, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--channel", action="append", default=[], metavar="NAME",
                        help=f"create this channel too (#{DEFAULT_CHANNEL} is always there); "
                        "repeatable")  # fmt: skip
    parser.add_argument("--token", default=DEFAULT_TOKEN, help="the bot token it accepts")
    parser.add_argument(
        "--no-rate-limits", action="store_true", help="never answer 429 for rate limits"
    )
    parser.add_argument(
        "--scale", type=float, default=1.0, help="rate limits this many times faster"
    )
    app = parser.add_argument_group("an interactive app (buttons, modals, the App Home)")
    app.add_argument("--socket-mode", action="store_true",
                     help="the app connects by Socket Mode with the app token printed "
                     "(SLACK_APP_TOKEN)")  # fmt: skip
    app.add_argument("--request-url", metavar="URL",
                     help="POST interactions and events to the app here, signed with the "
                     "signing secret printed (SLACK_SIGNING_SECRET)")  # fmt: skip
    faults = parser.add_argument_group("faults")
    faults.add_argument("--error-rate", type=float, metavar="SHARE",
                        help="this share of calls (0 to 1) answers HTTP 5xx, "
                        "nothing done")  # fmt: skip
    faults.add_argument("--error-status", type=int, metavar="CODE",
                        help="the 5xx status those answer (default 500)")  # fmt: skip
    faults.add_argument("--error-method", action="append", dest="error_methods",
                        metavar="METHOD", help="only these methods fail (repeatable)")  # fmt: skip
    faults.add_argument("--ratelimit-burst", action="append", default=[], type=_count,
                        metavar="METHOD=N",
                        help="the next N calls of METHOD answer 429")  # fmt: skip
    faults.add_argument("--retry-after", type=int, metavar="SECONDS",
                        help="the Retry-After those 429s give (default 1)")  # fmt: skip
    faults.add_argument("--delay", type=float, metavar="SECONDS",
                        help="every answer comes this late (the call is done first)")  # fmt: skip
    faults.add_argument("--drop-after-store", action="append", default=[], type=_count,
                        metavar="METHOD=N", help="the next N calls of METHOD are done, then "
                        "their connection closed unanswered")  # fmt: skip
    faults.add_argument("--seed", type=int, help="the seed of the random 5xx faults")
    return parser


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: a port number, 0 to 65535")
    return int(text)


def _count(text: str) -> tuple[str, int]:
    method, _, count = text.partition("=")
    if not method or not count.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: METHOD=N, e.g. chat.postMessage=2")
    return method, int(count)


def faults_of(args: argparse.Namespace) -> Faults:
    """The faults the switches ask for; ValueError names a bad value."""
    faults = Faults(seed=args.seed or 0)
    faults.configure(
        error_rate=args.error_rate, error_status=args.error_status,
        error_methods=args.error_methods, ratelimit_bursts=dict(args.ratelimit_burst),
        retry_after=args.retry_after, delay=args.delay,
        drop_after_store=dict(args.drop_after_store),
    )  # fmt: skip
    return faults


def local_slack_of(args: argparse.Namespace, legend: Sequence[tuple[str, str]] = ()) -> LocalSlack:
    """The local Slack the options ask for, not started yet: its channels made, its faults in
    force. ValueError names a bad value."""
    slack = LocalSlack(token=args.token, rate_limits=not args.no_rate_limits, scale=args.scale,
                       port=args.port, faults=faults_of(args), legend=legend)  # fmt: skip
    slack.configure_app(
        app_token=DEFAULT_APP_TOKEN if args.socket_mode else None,
        request_url=args.request_url,
        signing_secret=DEFAULT_SIGNING_SECRET if args.request_url else None,
    )
    for name in args.channel:
        slack.create_channel(name.lstrip("#"))
    return slack


def run(
    argv: Sequence[str] | None = None,
    *,
    stop: threading.Event | None = None,
    prog: str = "python -m bot.localslack",
    legend: Sequence[tuple[str, str]] = (),
) -> int:
    """Serve until SIGINT/SIGTERM (or until `stop` is set); prints where to find it.
    ``legend``: the status emoji and their meanings, shown on the page."""
    args = parser(prog).parse_args(argv)
    if args.scale <= 0:
        print(f"{prog}: error: --scale must be positive", file=sys.stderr)
        return 2
    try:
        slack = local_slack_of(args, legend)
    except ValueError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    stop = stop or threading.Event()
    try:
        slack.start()
    except OSError as err:
        print(f"{prog}: error: cannot listen on 127.0.0.1:{args.port}: "
              f"{err.strerror or err}", file=sys.stderr)  # fmt: skip
        return 1
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())
    print(f"local Slack: {slack.page_url}", flush=True)
    print(f"SLACK_API_URL={slack.base_url}", flush=True)
    print(f"SLACK_BOT_TOKEN={args.token}", flush=True)
    if args.socket_mode:
        print(f"SLACK_APP_TOKEN={DEFAULT_APP_TOKEN}", flush=True)
    if args.request_url:
        print(f"SLACK_SIGNING_SECRET={DEFAULT_SIGNING_SECRET}", flush=True)
    if args.scale != 1.0:
        print(f"SLACKTAIL_RATE_SCALE={args.scale:g}", flush=True)
    print("(press Ctrl-C to stop it)", file=sys.stderr, flush=True)
    try:
        stop.wait()
    finally:
        slack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(run())
