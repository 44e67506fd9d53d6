"""How slacktail stops when asked (Ctrl-C, SIGTERM), while it still has changes to send.

The first stop ends the reading; delivery goes on for ``drain_s`` more seconds, and says at
once what it is waiting for and for how long. A second one stops at once: the signal handler
raises ``Stopped``; the follower saves its state, so the next start sends what was not sent.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

from blocks.figures import plural
from bot import events
from bot.logs import EventLog

DRAIN_S = 30.0  # after a stop, delivery goes on this long at most


class Stopping:
    """Whether the final delivery gives up (``give_up``, asked as it goes), and what is said
    about it: ``waiting()`` counts the changes still to send; ``keeps_state``: a state file
    outlives this run, so the next start sends the rest."""

    def __init__(
        self,
        clock: Callable[[], float],
        waiting: Callable[[], int],
        log: EventLog,
        *,
        keeps_state: bool,
    ) -> None:
        self.stop = threading.Event()  # set to stop: the reading ends, delivery drains
        self.drain_s = DRAIN_S
        self.clock, self.waiting, self.log = clock, waiting, log
        self.keeps_state = keeps_state
        self.seen_at: float | None = None  # when the final delivery saw the stop

    def give_up(self) -> bool:
        """Whether the final delivery stops now: ``drain_s`` after a stop was asked for (said
        at once: what it waits for, how long, and how to stop at once)."""
        if not self.stop.is_set():
            return False
        if self.seen_at is None:
            self.seen_at = self.clock()
            later = " (the next start sends the rest)" if self.keeps_state else ""
            self._say(f"stopping: sending the {plural(self.waiting(), 'change')} still waiting "
                      f"for Slack, for at most {self.drain_s:g} s; Ctrl-C again stops at "
                      f"once{later}")  # fmt: skip
        return self.clock() - self.seen_at > self.drain_s

    def ended(self, done: bool) -> None:
        """The final delivery ended: if a stop cut it short, say what was not sent."""
        if done or self.seen_at is None:
            return
        later = "; the next start sends them" if self.keeps_state else ""
        self._say(f"stopped with {plural(self.waiting(), 'change')} not sent to Slack{later}")

    def _say(self, text: str) -> None:
        print(f"slacktail: {text}", file=sys.stderr)
        self.log.event(events.Stopping(text))
