"""``follow``, ``run`` and ``local-slack``: settings checked once, Slack (real or local) reached
and checked, then the follower's loop until the input ends or the user stops it."""

from __future__ import annotations

import secrets
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from bot.checkpoints import Checkpoints, CoreState, Restored
from bot.config import SLACK_API_URL, Settings
from bot.delivery import Delivery, Pacing, SlackApi
from bot.delivery.startup import reach_slack
from bot.errors import FormatError, Stopped, UsageError
from bot.follower import Follower
from bot.health import HealthServer, Heartbeat
from bot.localslack import LocalSlack
from bot.logs import EventLog, redactor_for
from bot.progress import ProgressBar
from bot.session import SessionSettings
from bot.sources.command import AgentCommand
from bot.sources.folder import FolderWatch
from bot.sources.source import Source
from bot.store import Store, default_state_dir
from bot.targets import Target, check_target, job_of, target_for

LOCAL_CHANNEL = "agents"


@dataclass
class Slack:
    """Where messages go: the API, the channel's id, and the local Slack if we started one."""

    api: SlackApi
    channel: str
    local: LocalSlack | None = None

    def destination(self, thread_ts: str | None) -> str:
        """What the store's record of sent messages is kept for: a workspace's channel (or
        one thread in it)."""
        return f"{self.api.team_id or 'local'}/{self.channel}/{thread_ts or ''}"


@dataclass
class State:
    """The store, this job's checkpoints, and what the last checkpoint restored."""

    store: Store
    checkpoints: Checkpoints
    restored: Restored


@contextmanager
def kept_state(settings: Settings, slack: Slack, job: str, log: EventLog) -> Iterator[State]:
    """The state database for a real workspace (locked for this job); in memory for the
    embedded local Slack, which does not outlive this run either."""
    if slack.local is not None:
        store = Store.memory()
    else:
        state_dir = settings.state_dir or default_state_dir()
        store = Store.open(state_dir, log)
        if store.recovered:
            what = "was empty" if store.emptied else "was unreadable and was set aside"
            print(f"slacktail: {state_dir}: the state file {what}; reading from the start, "
                  "looking for each message in the channel before posting it",
                  file=sys.stderr)  # fmt: skip
    try:
        full_job = f"{slack.destination(settings.thread_ts)}|{job}"
        store.lock(full_job)
        checkpoints = Checkpoints(store, full_job, log=log)
        yield State(store, checkpoints, checkpoints.restore())
    finally:
        store.close()


@contextmanager
def connected(settings: Settings, log: EventLog) -> Iterator[Slack]:
    """The Slack to post to, checked: a real workspace when ``SLACK_BOT_TOKEN`` is set, else
    a local Slack started here (its page's address is printed)."""
    if settings.slack_bot_token is None:
        token = "xoxb-local-" + secrets.token_hex(8)
        with LocalSlack(token=token, port=settings.local_slack_port) as local:
            print(f"slacktail: no SLACK_BOT_TOKEN set: posting to a local Slack at "
                  f"{local.page_url}", file=sys.stderr)  # fmt: skip
            api = SlackApi(token, local.base_url, redactor=redactor_for(settings))
            yield Slack(api, api.find_channel(settings.channel or LOCAL_CHANNEL), local)
        return
    if settings.channel is None:
        raise UsageError("no channel: pass --channel NAME or set SLACKTAIL_CHANNEL")
    api = SlackApi(settings.slack_bot_token.get_secret_value(),
                   settings.slack_api_url or SLACK_API_URL,
                   redactor=redactor_for(settings))  # fmt: skip
    bot_user, channel = reach_slack(api, settings.channel, log=log)
    log.event("connected", channel=channel, bot_user=bot_user)
    yield Slack(api, channel)


def follow(settings: Settings, path: str, *, once: bool, log: EventLog) -> int:
    check_target(path)
    with connected(settings, log) as slack, kept_state(settings, slack, job_of(path), log) as state:
        spool_dir = None if state.store.path is None else state.store.path.parent / "spool"
        target = target_for(path, once=once, restored=state.restored, spool_dir=spool_dir,
                            max_line_bytes=settings.max_line_bytes,
                            patterns=settings.patterns)  # fmt: skip
        try:
            bar = ProgressBar(target.size, Path(path).name) if once and target.size else None
            # Counters are gathered each turn only for a health endpoint to serve them.
            heartbeat = Heartbeat() if settings.health_port is not None else None
            follower = _follower(settings, slack, target.sources, log, bar, state,
                                 folder=target.folder, heartbeat=heartbeat)  # fmt: skip
            with _health(settings, heartbeat, log), _stop_on_signals() as stop:
                follower.run(stop)
            target.clean_up()
        finally:
            target.close()
    if once and follower.nothing_read:
        if follower.not_understood:  # each source's line is said already
            return FormatError.exit_code
        raise FormatError(f"{path}: nothing to read (no log lines{_looked_for(target)})")
    return 0


def _looked_for(target: Target) -> str:
    folder = target.folder
    return "" if folder is None else f"; looked for {folder.pattern_text}"


def run(settings: Settings, argv: Sequence[str], *, log: EventLog) -> int:
    with connected(settings, log) as slack, kept_state(settings, slack, "run", log) as state:
        stop = threading.Event()  # once the agent exited, Ctrl-C stops delivering, as in follow
        command = AgentCommand(argv, max_line_bytes=settings.max_line_bytes,
                               after_exit=_stop_handler(stop))  # forwards signals  # fmt: skip
        if state.restored.core is not None:  # a new agent's output: read from its start
            state.restored.core.readers.pop(command.name, None)
            state.restored.core.ended.discard(command.name)
        try:
            follower = _follower(settings, slack, [command], log, None, state)
            follower.run(stop)
            code = command.wait()
        finally:
            command.close()
    log.event("agent_exited", code=code)
    return code


def _follower(
    settings: Settings, slack: Slack, sources: list[Source], log: EventLog,
    progress: ProgressBar | None, state: State, *, folder: FolderWatch | None = None,
    heartbeat: Heartbeat | None = None,
) -> Follower:  # fmt: skip
    ledger = state.store.ledger(slack.destination(settings.thread_ts))
    delivery = Delivery(
        slack.api, slack.channel, pacing=Pacing(settings.rate_scale), thread_ts=settings.thread_ts,
        broadcast_result=settings.broadcast_result, log=log, ledger=ledger,
    )  # fmt: skip
    session_settings = SessionSettings(
        verbosity=settings.verbosity, orphan_after_s=settings.orphan_after_s,
        idle_after_s=settings.idle_after,
    )
    core: CoreState | None = state.restored.core
    return Follower(sources, delivery, settings=session_settings, family=settings.format,
                    log=log, progress=progress, checkpoints=state.checkpoints,
                    core=core, redactor=redactor_for(settings), folder=folder,
                    heartbeat=heartbeat)  # fmt: skip


@contextmanager
def _health(settings: Settings, heartbeat: Heartbeat | None, log: EventLog) -> Iterator[None]:
    """``/healthz`` and ``/metrics`` on ``--health-port`` while following."""
    if settings.health_port is None or heartbeat is None:
        yield
        return
    with HealthServer(settings.health_port, settings.health_host, report=heartbeat) as server:
        log.event("health_listening", url=server.url)
        yield


def _stop_handler(stop: threading.Event) -> Callable[[int, FrameType | None], None]:
    """A signal handler: the first SIGINT/SIGTERM sets ``stop`` (the follower stops reading,
    says what it still sends and for how long, and sends it); the next one stops at once."""

    def handler(signum: int, frame: FrameType | None) -> None:
        if stop.is_set():
            raise Stopped(f"stopped at once ({signal.Signals(signum).name} a second time)")
        stop.set()

    return handler


@contextmanager
def _stop_on_signals() -> Iterator[threading.Event]:
    """SIGINT/SIGTERM set the event: the follower stops reading and delivers what it has; a
    second one stops it at once (see ``_stop_handler``)."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    handler = _stop_handler(stop)
    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def local_slack(port: int) -> int:
    from bot.localslack.__main__ import run as serve

    return serve(["--port", str(port)])
