"""``follow``, ``run`` and ``local-slack``: settings checked once, Slack (real or local) reached
and checked, then the follower's loop until the input ends or the user stops it."""

from __future__ import annotations

import secrets
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import cast

from bot.config import SLACK_API_URL, Settings
from bot.delivery import Delivery, Pacing, SlackApi
from bot.errors import UsageError
from bot.follower import Follower
from bot.localslack import LocalSlack
from bot.logs import EventLog
from bot.progress import ProgressBar
from bot.session import SessionSettings
from bot.sources.command import AgentCommand
from bot.sources.files import WholeFile, is_document
from bot.sources.follow import FileFollower
from bot.sources.source import Source
from bot.sources.stream import ChunkStream, StreamReader

LOCAL_CHANNEL = "agents"
DOCUMENT_MAX = 64_000_000  # a whole-document log larger than this is followed as lines


@dataclass
class Slack:
    """Where messages go: the API, the channel's id, and the local Slack if we started one."""

    api: SlackApi
    channel: str
    local: LocalSlack | None = None


@contextmanager
def connected(settings: Settings, log: EventLog) -> Iterator[Slack]:
    """The Slack to post to, checked: a real workspace when ``SLACK_BOT_TOKEN`` is set, else
    a local Slack started here (its page's address is printed)."""
    if settings.slack_bot_token is None:
        token = "xoxb-local-" + secrets.token_hex(8)
        with LocalSlack(token=token, port=settings.local_slack_port) as local:
            print(f"slacktail: no SLACK_BOT_TOKEN set: posting to a local Slack at "
                  f"{local.page_url}", file=sys.stderr)  # fmt: skip
            api = SlackApi(token, local.base_url)
            yield Slack(api, api.find_channel(settings.channel or LOCAL_CHANNEL), local)
        return
    if settings.channel is None:
        raise UsageError("no channel: pass --channel NAME or set SLACKTAIL_CHANNEL")
    api = SlackApi(settings.slack_bot_token.get_secret_value(),
                   settings.slack_api_url or SLACK_API_URL)  # fmt: skip
    bot_user = api.check_auth()
    channel = api.find_channel(settings.channel)
    log.event("connected", channel=channel, bot_user=bot_user)
    yield Slack(api, channel)


def follow(settings: Settings, path: str, *, once: bool, log: EventLog) -> int:
    source, size = _source_for(path, once=once)
    with connected(settings, log) as slack:
        progress = ProgressBar(size, Path(path).name) if once and size else None
        follower = _follower(settings, slack, [source], log, progress)
        with _stop_on_signals() as stop:
            follower.run(stop)
    return 0


def run(settings: Settings, argv: Sequence[str], *, log: EventLog) -> int:
    with connected(settings, log) as slack:
        command = AgentCommand(argv)  # forwards SIGINT/SIGTERM to the agent
        try:
            follower = _follower(settings, slack, [command], log, None)
            follower.run()
            code = command.wait()
        finally:
            command.close()
    log.event("agent_exited", code=code)
    return code


def _follower(
    settings: Settings, slack: Slack, sources: list[Source], log: EventLog,
    progress: ProgressBar | None,
) -> Follower:  # fmt: skip
    delivery = Delivery(
        slack.api, slack.channel, pacing=Pacing(settings.rate_scale), thread_ts=settings.thread_ts,
        broadcast_result=settings.broadcast_result, log=log,
    )  # fmt: skip
    session_settings = SessionSettings(
        verbosity=settings.verbosity, orphan_after_s=settings.orphan_after_s
    )
    return Follower(sources, delivery, settings=session_settings, family=settings.format,
                    log=log, progress=progress)  # fmt: skip


def _source_for(path: str, *, once: bool) -> tuple[Source, int]:
    if path == "-":
        stdin = cast(ChunkStream, sys.stdin.buffer)  # a BufferedReader: it has read1
        return StreamReader(stdin, name="stdin"), 0
    follower = FileFollower(path, stop_at_end=once)
    size = Path(path).stat().st_size
    head = Path(path).read_bytes() if size < DOCUMENT_MAX else b""
    if head and is_document(head):  # a .traj or a stored run: rewritten, not appended to
        follower.close()
        return WholeFile(Path(path), head), size
    return follower, size


@contextmanager
def _stop_on_signals() -> Iterator[threading.Event]:
    """SIGINT/SIGTERM set the event: the follower stops reading and delivers what it has."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def local_slack(port: int) -> int:
    from bot.localslack.__main__ import run as serve

    return serve(["--port", str(port)])
