"""The local Slack as slacktail's commands use it: the one ``follow`` and ``run`` start when no
``SLACK_BOT_TOKEN`` is set, and ``slacktail local-slack``, which runs it alone.

A local Slack that slacktail started stays up once the work is done (``follow --once``, the end
of standard input, the agent of ``run`` exiting), so the person who opened its page can read
the threads: until Ctrl-C, and only on a terminal (in a script, nobody would press it).
"""

from __future__ import annotations

import re
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from blocks.legend import status_legend
from bot.delivery import SlackApi
from bot.errors import UsageError
from bot.localslack import LocalSlack

_CHANNEL_ID = re.compile(r"[CGD][A-Z0-9]{2,}")


def start_local_slack(token: str, port: int) -> LocalSlack:
    """A local Slack serving on 127.0.0.1 (``port`` 0: a free one), its page showing what the
    status emoji mean; a port it cannot listen on is one line."""
    local = LocalSlack(token=token, port=port, legend=status_legend())
    try:
        local.start()
    except (OSError, OverflowError) as error:
        why = getattr(error, "strerror", None) or str(error)
        raise UsageError(f"the local Slack cannot listen on 127.0.0.1:{port}: {why} "
                         "(SLACKTAIL_LOCAL_SLACK_PORT; 0 takes a free port)") from None  # fmt: skip
    return local


def local_channel(local: LocalSlack, api: SlackApi, channel: str) -> str:
    """The id of ``channel`` in the local Slack, which makes a channel asked for by name."""
    name = channel.lstrip("#")
    if not _CHANNEL_ID.fullmatch(name):
        local.create_channel(name)
    return api.find_channel(name)


def stays_up() -> bool:
    """Whether a person may be looking: stderr is a terminal."""
    return sys.stderr.isatty()


def keep_serving(local: LocalSlack) -> None:
    """Serve until Ctrl-C (or SIGTERM), saying so."""
    print(f"slacktail: done. The local Slack keeps serving at {local.page_url} "
          "until you press Ctrl-C", file=sys.stderr, flush=True)  # fmt: skip
    _until_interrupted()


def _until_interrupted() -> None:
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        return  # no signal reaches another thread: nobody could end the wait

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        stop.wait()
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def serve_alone(argv: Sequence[str]) -> int:
    """``slacktail local-slack [OPTIONS]``: the options are ``python -m bot.localslack``'s."""
    from bot.localslack.__main__ import run

    return run(argv, prog="slacktail local-slack", legend=status_legend())
