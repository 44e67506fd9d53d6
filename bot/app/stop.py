"""The Stop control of a session started by ``slacktail run``: the agent is asked to stop as
Ctrl-C would (SIGINT); if it is still running ``interrupt_grace_s`` later it gets SIGTERM, and
``terminate_grace_s`` after that SIGKILL. The agent's sessions then end as stopped."""

from __future__ import annotations

import signal
import subprocess
import threading
from typing import Protocol

from bot import events
from bot.controls import Click, Control, Outcome
from bot.logs import EventLog

INTERRUPT_GRACE_S = 10.0
TERMINATE_GRACE_S = 10.0


class Agent(Protocol):
    """What Stop needs of the agent's command (``bot.sources.command.AgentCommand``)."""

    name: str
    signals: list[int]

    @property
    def returncode(self) -> int | None: ...

    def forward_signal(self, signum: int) -> None: ...

    def wait(self, timeout: float | None = None) -> int: ...


class AgentStop:
    """Stops ``agent`` once (a second click while it stops is told so)."""

    def __init__(
        self,
        agent: Agent,
        log: EventLog,
        *,
        interrupt_grace_s: float = INTERRUPT_GRACE_S,
        terminate_grace_s: float = TERMINATE_GRACE_S,
    ) -> None:
        self.agent, self.log = agent, log
        self.graces = (interrupt_grace_s, terminate_grace_s)
        self.by: str | None = None  # who stopped it
        self._lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def __call__(self, click: Click) -> Outcome:
        return self.stop(click.user)

    def stop(self, user: str) -> Outcome:
        if self.agent.returncode is not None:
            return Outcome(False, f"{self.agent.name} has already exited.")
        with self._lock:
            if self.by is not None:
                return Outcome(False, f"{self.agent.name} is already stopping (asked by "
                                      f"<@{self.by}>).")  # fmt: skip
            self.by = user
        self.agent.signals.append(signal.SIGINT)  # its sessions end as stopped, not as done
        self.thread = threading.Thread(target=self._escalate, name="slacktail-stop", daemon=True)
        self.thread.start()
        return Outcome(True)

    def _escalate(self) -> None:
        interrupt, terminate = self.graces
        for signum, grace in ((signal.SIGINT, interrupt), (signal.SIGTERM, terminate)):
            self._send(signum)
            try:
                self.agent.wait(grace)
                return
            except subprocess.TimeoutExpired:
                continue
        self._send(signal.SIGKILL)

    def _send(self, signum: int) -> None:
        name = signal.Signals(signum).name
        self.log.event(events.AgentSignalled(self.agent.name, name, self.by or ""))
        try:
            self.agent.forward_signal(signum)
        except ProcessLookupError:  # it exited meanwhile
            return


def stop_control(agent: Agent, log: EventLog, interrupt_grace_s: float = INTERRUPT_GRACE_S,
                 terminate_grace_s: float = TERMINATE_GRACE_S) -> Control:  # fmt: skip
    """The Stop control for ``agent``'s sessions."""
    return AgentStop(agent, log, interrupt_grace_s=interrupt_grace_s,
                     terminate_grace_s=terminate_grace_s)  # fmt: skip
