"""``follow``, ``run`` and ``local-slack``: settings checked once, Slack (real or local) reached
and checked, then the follower's loop until the input ends or the user stops it."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from slack_sdk import WebClient

from bot import events
from bot.app.approval_threads import ApprovalThreads
from bot.app.approvals import approvals_in
from bot.app.full_output import calls_in, full_output
from bot.app.running import FollowedSessions, Receiving, app_beside, controls_for, receiving
from bot.app.slack_app import ControlsApp
from bot.app.stop import AgentStop
from bot.checkpoints import Checkpoints, Restored
from bot.config import SLACK_API_URL, Settings
from bot.controls import Control
from bot.delivery import Delivery, Pacing, SlackApi
from bot.delivery.home import HomePublisher, home_for
from bot.delivery.startup import reach_slack
from bot.delivery.status import surfaces_for
from bot.errors import FormatError, Stopped, UsageError
from bot.follower import Follower, FollowerOptions
from bot.health import HealthServer, Heartbeat
from bot.local_slack import keep_serving, local_channel, serve_alone, start_local_slack, stays_up
from bot.localslack import LocalSlack
from bot.localslack.model import HUMAN_USER_ID
from bot.logs import EventLog, redactor_for
from bot.pipe_copies import copy_pipes
from bot.progress import ProgressBar
from bot.replay import Replay
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
    keep_serving: bool = False  # the local Slack stays up after the work, until Ctrl-C
    receiving: Receiving | None = None  # how the app receives clicks (None: no controls)

    def work_done(self, *, interrupted: bool) -> None:
        """The input ended (or the agent exited): a local Slack started here stays up for the
        person reading its page, unless Ctrl-C ended the work or nobody is at a terminal."""
        if self.local is None or interrupted:
            return
        self.keep_serving = stays_up()
        if not self.keep_serving:
            print("slacktail: done; the local Slack stops with slacktail (run on a terminal, "
                  "it stays up until Ctrl-C)", file=sys.stderr)  # fmt: skip

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
        with start_local_slack(token, settings.local_slack_port) as local:
            print(f"slacktail: no SLACK_BOT_TOKEN set: posting to a local Slack at "
                  f"{local.page_url}", file=sys.stderr)  # fmt: skip
            api = SlackApi(token, local.base_url, redactor=redactor_for(settings))
            app_token = "xapp-1-local-" + secrets.token_hex(8)  # the app's, made up as well
            local.configure_app(app_token=app_token)
            slack = Slack(api, local_channel(local, api, settings.channel or LOCAL_CHANNEL), local,
                          receiving=Receiving(app_token, allowed=(HUMAN_USER_ID,)))  # fmt: skip
            yield slack
            if slack.keep_serving:
                keep_serving(local)
        return
    if settings.channel is None:
        raise UsageError("no channel: pass --channel NAME or set SLACKTAIL_CHANNEL")
    api = SlackApi(settings.slack_bot_token.get_secret_value(),
                   settings.slack_api_url or SLACK_API_URL,
                   redactor=redactor_for(settings))  # fmt: skip
    bot_user, channel = reach_slack(api, settings.channel, log=log)
    log.event(events.Connected(channel, bot_user))
    yield Slack(api, channel, receiving=receiving(settings))


def follow(
    settings: Settings, path: str, *, once: bool, log: EventLog, replay_speed: float | None = None
) -> int:
    check_target(path)
    check_ports(settings)
    with connected(settings, log) as slack, kept_state(settings, slack, job_of(path), log) as state:
        spool_dir = None if state.store.path is None else state.store.path.parent / "spool"
        target = target_for(path, once=once, restored=state.restored, spool_dir=spool_dir,
                            max_line_bytes=settings.max_line_bytes, patterns=settings.patterns,
                            redactor=redactor_for(settings))  # fmt: skip
        copies = copy_pipes(settings, slack, target.sources)
        try:
            bar = ProgressBar(target.size, Path(path).name, min_bytes=0) if once else None
            # Counters are gathered each turn only for a health endpoint to serve them.
            heartbeat = Heartbeat() if settings.health_port is not None else None
            replay = Replay(replay_speed) if replay_speed is not None else None
            follower = _follower(settings, slack, target.sources, log, bar, state,
                                 folder=target.folder, heartbeat=heartbeat,
                                 replay=replay)  # fmt: skip
            with _health(settings, heartbeat, log), _stop_on_signals() as stop, _shown(bar, log), \
                    _app(settings, slack, follower, state, log):
                follower.run(stop)
            target.clean_up()
        finally:
            target.close()
            for copy in copies:
                copy.close()
        if once and follower.nothing_read:
            if follower.not_understood:  # each source's line is said already
                return FormatError.exit_code
            raise FormatError(f"{path}: nothing to read (no log lines{_looked_for(target)})")
        slack.work_done(interrupted=stop.is_set())
    return 0


@contextmanager
def _shown(bar: ProgressBar | None, log: EventLog) -> Iterator[None]:
    """The bar drawn while following, what else goes to stderr on lines above it."""
    if bar is None:
        yield
        return
    try:
        with bar.lines_above(log):
            yield
    finally:
        bar.close()


def check_ports(settings: Settings) -> None:
    """A health port that is taken is said before Slack is reached (or a local one started)."""
    port = settings.health_port
    if port is None or port == 0:
        return
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((settings.health_host, port))
        except OSError as error:
            raise UsageError(f"health port {settings.health_host}:{port}: "
                             f"{error.strerror or error}") from None  # fmt: skip


def check_command(argv: Sequence[str]) -> None:
    """An agent's command that cannot be run is said before Slack is reached."""
    if not argv:
        raise UsageError("no command to run (give it after --)")
    command = argv[0]
    if os.sep in command:
        if not os.path.isfile(command):
            raise UsageError(f"{command}: command not found")
    elif shutil.which(command) is None:
        raise UsageError(f"{command}: command not found")


def _looked_for(target: Target) -> str:
    folder = target.folder
    return "" if folder is None else f"; looked for {folder.pattern_text}"


def run(settings: Settings, argv: Sequence[str], *, log: EventLog) -> int:
    check_command(argv)
    check_ports(settings)
    with connected(settings, log) as slack, kept_state(settings, slack, "run", log) as state:
        stop = threading.Event()  # once the agent exited, Ctrl-C stops delivering, as in follow
        command = AgentCommand(argv, max_line_bytes=settings.max_line_bytes,
                               env=agent_env(settings),  # where its approvals server writes
                               after_exit=_stop_handler(stop))  # forwards signals  # fmt: skip
        if state.restored.core is not None:  # a new agent's output: read from its start
            state.restored.core.readers.pop(command.name, None)
            state.restored.core.ended.discard(command.name)
        stopper = AgentStop(command, log, interrupt_grace_s=settings.sigterm_after_s,
                            terminate_grace_s=settings.sigkill_after_s)  # fmt: skip
        copies = copy_pipes(settings, slack, [command])
        try:
            follower = _follower(settings, slack, [command], log, None, state,
                                 stop_button=slack.receiving is not None)  # fmt: skip
            try:
                with _app(settings, slack, follower, state, log, stop=stopper):
                    follower.run(stop)
            except Stopped:
                raise  # a second Ctrl-C: stop at once
            except Exception as error:  # any failure of slacktail's own: said, the agent goes on
                _agent_goes_on(command, error, log)
            code = command.wait()
        finally:
            command.close()
            for copy in copies:
                copy.close()
        signalled = bool(command.signals) and stopper.by is None  # not a Stop from Slack
        slack.work_done(interrupted=signalled or stop.is_set())
    log.event(events.AgentExited(code))
    return code


def agent_env(settings: Settings) -> dict[str, str] | None:
    """The agent's environment: with --state-dir, its `slacktail approvals` (an MCP server the
    agent starts) is told this run's state directory, where the follower looks for requests."""
    if settings.state_dir is None:
        return None
    return {**os.environ, "SLACKTAIL_STATE_DIR": str(settings.state_dir)}


def _agent_goes_on(command: AgentCommand, error: BaseException, log: EventLog) -> None:
    """slacktail itself failed while the agent runs: the agent is not stopped for it. Posting
    stops (said once, on stderr and in the log); the agent's output is still shown here until
    it ends, and ``run`` exits with the agent's own exit code."""
    what = log.redacted(f"{type(error).__name__}: {error}")[:300]
    print(f"slacktail: stopped posting to Slack ({what}); {command.name} goes on, its output "
          "still shown here, and slacktail exits with its exit code", file=sys.stderr)  # fmt: skip
    log.event(events.PostingStopped(what, command.name))
    while not command.closed:  # keep its output flowing (to our stdout) until it ends
        command.read_available()
        command.wait_ready(0.5)


def _follower(
    settings: Settings, slack: Slack, sources: list[Source], log: EventLog,
    progress: ProgressBar | None, state: State, *, folder: FolderWatch | None = None,
    heartbeat: Heartbeat | None = None, replay: Replay | None = None, stop_button: bool = False,
) -> Follower:  # fmt: skip
    ledger = state.store.ledger(slack.destination(settings.thread_ts))
    delivery = Delivery(
        slack.api, slack.channel, pacing=Pacing(settings.rate_scale), thread_ts=settings.thread_ts,
        broadcast_result=settings.broadcast_result, log=log, ledger=ledger,
        sleep=time.sleep if progress is None else progress.sleep,
    )  # fmt: skip
    if progress is not None:  # the bar shows what was sent as well as what was read
        progress.watch_delivery(lambda: (delivery.counts.posts + delivery.counts.updates,
                                         delivery.pending))  # fmt: skip
    session_settings = SessionSettings(
        verbosity=settings.verbosity, orphan_after_s=settings.orphan_after_s,
        idle_after_s=settings.idle_after, stop_button=stop_button,
        controls=slack.receiving is not None,  # Full output on cut outputs
    )
    redactor = redactor_for(settings)
    options = FollowerOptions(
        session_settings=session_settings, family=settings.format, since=settings.since,
        redactor=redactor, log=log, checkpoints=state.checkpoints,
        progress=progress, heartbeat=heartbeat, replay=replay,
        approvals=ApprovalThreads(_approvals_dir(settings), redactor=redactor),
        surfaces=(*surfaces_for(settings, delivery, log), *_home(settings, slack, delivery, log)),
        plan_blocks=settings.plan_blocks,
    )  # fmt: skip
    return Follower(sources, delivery, options, core=state.restored.core, folder=folder)


def _approvals_dir(settings: Settings) -> Path:
    """Where `slacktail approvals` writes its requests: the state directory, even when the
    embedded local Slack keeps this run's own state in memory."""
    return settings.state_dir or default_state_dir()


def _home(
    settings: Settings, slack: Slack, delivery: Delivery, log: EventLog,
) -> tuple[HomePublisher, ...]:  # fmt: skip
    """The App Home, when the app can receive (its ``app_home_opened`` is the app's)."""
    if slack.receiving is None:
        return ()
    page_url = None if slack.local is None else slack.local.page_url
    home = home_for(settings, delivery, log, page_url)
    return () if home is None else (home,)


def _app(
    settings: Settings, slack: Slack, follower: Follower, state: State, log: EventLog,
    stop: Control | None = None,
) -> AbstractContextManager[ControlsApp | None]:  # fmt: skip
    """The app beside the follower, when slacktail can receive clicks (``bot.app.running``)."""
    sessions = FollowedSessions(follower.book.sessions, follower.delivery.ledger.threads,
                                state.checkpoints.is_archived)  # fmt: skip
    api = slack.api.client
    client = WebClient(token=api.token, base_url=api.base_url, timeout=10)
    shared = None if state.store.path is None else state.store.path.parent
    output = full_output(calls_in(follower.core, state.checkpoints.unarchive), client,
                         redactor_for(settings))  # fmt: skip
    decide = approvals_in(_approvals_dir(settings))  # where `slacktail approvals` asks
    controls = controls_for(stop, approvals=decide, full_output=output)
    homes = [surface for surface in follower.surfaces if isinstance(surface, HomePublisher)]
    return app_beside(settings, slack.receiving, client, sessions, controls, log,
                      state_dir=shared, homes=homes)  # fmt: skip


@contextmanager
def _health(settings: Settings, heartbeat: Heartbeat | None, log: EventLog) -> Iterator[None]:
    """``/healthz`` and ``/metrics`` on ``--health-port`` while following."""
    if settings.health_port is None or heartbeat is None:
        yield
        return
    with HealthServer(settings.health_port, settings.health_host, report=heartbeat) as server:
        log.event(events.HealthListening(server.url))
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


def local_slack(argv: Sequence[str]) -> int:
    """``slacktail local-slack [OPTIONS]``: the local Slack alone, until Ctrl-C."""
    return serve_alone(argv)
