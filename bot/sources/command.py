"""Running the agent: its stdout is both read as lines and written through to our own stdout.

``slacktail run -- CMD ARGS...`` starts the agent with stdin and stderr inherited and stdout
piped. Every chunk it writes is copied to slacktail's stdout at once (flushed), so the agent's
output looks as it would without slacktail, and is read as lines like any source. SIGINT and
SIGTERM sent to slacktail are forwarded to the agent, which decides how to end; slacktail keeps
reading until its output ends, then returns its exit code.

A Ctrl-C typed in a terminal reaches every process of the foreground group, the agent included;
forwarding it as well would interrupt the agent twice. So a SIGINT is forwarded only when it
cannot have come from the terminal (slacktail is not in the terminal's foreground group, or
there is no terminal): ``kill -INT`` from a supervisor, a container runtime. A signal that
comes after the agent exited is slacktail's alone (``after_exit``: stop delivering).

``ending()`` says how the agent ended, for the sessions it wrote: its exit code, and the
signal that ended it (the one that killed it, or the one slacktail received while it ran).
"""

from __future__ import annotations

import ctypes
import io
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import BinaryIO

from bot import events
from bot.errors import InputError
from bot.sources.lines import DEFAULT_MAX_LINE_BYTES
from bot.sources.pipe_copy import PipeCopy
from bot.sources.source import Item, SourceEvent
from bot.sources.stream import StreamReader

log = logging.getLogger(__name__)

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM)
EXIT_GRACE = 2.0

_Handler = Callable[[int, FrameType | None], object] | int | None


@dataclass(frozen=True, slots=True)
class Ending:
    """How the agent ended: its exit ``code`` (``None`` when a signal killed it), and the
    ``signal`` that ended it ("SIGINT"), if one did."""

    code: int | None
    signal: str | None = None


class _Default:
    """The default write-through target: ``sys.stdout.buffer`` as it is when the agent starts."""


STDOUT = _Default()


class AgentCommand:
    """The agent's process and its stdout as a source.

    ``passthrough`` receives a copy of everything the agent writes (``None``: no copy); a copy
    that fails (a closed pipe) is given up, said once, and reading goes on. With
    ``forward_signals`` (and on the main thread only) SIGINT and SIGTERM handlers are installed
    until ``close()``; a signal that comes once the agent exited goes to ``after_exit``
    instead. If the agent exited but its stdout stays open (something it started holds it) for
    ``exit_grace`` seconds, the input is taken as ended.
    """

    copy: PipeCopy | None = None  # its lines copied, redacted, for Full output (when set)

    def __init__(
        self,
        argv: Sequence[str],
        *,
        passthrough: BinaryIO | _Default | None = STDOUT,
        name: str | None = None,
        forward_signals: bool = True,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        exit_grace: float = EXIT_GRACE,
        clock: Callable[[], float] = time.monotonic,
        env: dict[str, str] | None = None,
        after_exit: Callable[[int, FrameType | None], object] | None = None,
    ) -> None:
        if not argv:
            raise InputError("no command to run (give it after --)")
        self.argv = list(argv)
        self.name = name if name is not None else os.path.basename(self.argv[0])
        self.signals: list[int] = []  # the signals received, in order
        self._passthrough = sys.stdout.buffer if isinstance(passthrough, _Default) else passthrough
        self._clock = clock
        self._exit_grace = exit_grace
        self._after_exit = after_exit
        self._quiet_since: float | None = None  # after the agent exited: since when no data
        self._received = 0
        self._copy_error: str | None = None  # why the copy was given up (said once)
        self._copy_error_said = False
        self._previous: dict[int, _Handler] = {}
        self._process = _start(self.argv, env)
        stdout = self._process.stdout
        assert isinstance(stdout, io.BufferedReader)  # stdout=PIPE, buffered
        self._reader = StreamReader(
            stdout,
            name=self.name,
            on_chunk=self._write_through if self._passthrough is not None else None,
            max_line_bytes=max_line_bytes,
        )
        if forward_signals:
            self._install_handlers()

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def closed(self) -> bool:
        return self._reader.closed

    @property
    def returncode(self) -> int | None:
        """The agent's exit code (see ``wait``), or None while it runs."""
        code = self._process.poll()
        return None if code is None else _exit_code(code)

    def read_available(self) -> list[Item]:
        items = self._reader.read_available()
        copy_error = self._copy_error
        if copy_error is not None and not self._copy_error_said:
            self._copy_error_said = True
            text = f"warning: {self.name}: no longer copying its output: {copy_error}"
            items.insert(0, SourceEvent(events.OutputNotCopied(self.name, copy_error), text))
        if not self._reader.closed and self._stdout_abandoned():
            text = (f"{self.name} exited, and its output stayed open but quiet for "
                    f"{self._exit_grace:g} s; taking it as ended")  # fmt: skip
            items.append(SourceEvent(events.OutputAbandoned(self.name, self._exit_grace), text))
            items.extend(self._reader.finish_now())
        return items

    def ready(self) -> bool:
        return self._reader.ready() or (not self._reader.closed and self._stdout_abandoned())

    def wait_ready(self, timeout: float) -> bool:
        if self._reader.closed:
            return False
        if self._process.poll() is not None:  # wake up in time to give up on an open stdout
            timeout = min(timeout, max(self._grace_left(), 0.0))
        return self._reader.wait_ready(timeout) or self.ready()

    def ending(self) -> Ending | None:
        """How the agent ended, once it did (waited for ``exit_grace`` seconds at most: its
        output ended, its exit follows); ``None`` while it runs."""
        try:
            code = self._process.wait(self._exit_grace)
        except subprocess.TimeoutExpired:
            return None
        if code < 0:  # killed by a signal
            return Ending(None, _signal_name(-code))
        if self.signals:  # it exited on the signal slacktail received too (Ctrl-C)
            return Ending(code, _signal_name(self.signals[0]))
        return Ending(code)

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the agent to exit; its exit code, shell-style (killed by signal N: 128+N)."""
        return _exit_code(self._process.wait(timeout))

    def forward_signal(self, signum: int) -> None:
        """Send ``signum`` to the agent (nothing if it already exited)."""
        log.debug("forwarding %s to %s", signal.Signals(signum).name, self.name)
        self._process.send_signal(signum)

    def close(self) -> None:
        """Restore the signal handlers and stop reading. The agent is left as it is."""
        self._restore_handlers()
        self._reader.close()
        if self._process.stdout is not None and self._reader.join(timeout=0):
            self._process.stdout.close()

    def __enter__(self) -> AgentCommand:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _write_through(self, chunk: bytes) -> None:
        """On the reading thread: copy ``chunk`` to the passthrough at once."""
        target = self._passthrough
        if target is None:
            return
        try:
            target.write(chunk)
            target.flush()
        except (OSError, ValueError) as error:  # a closed pipe (``| head``), a closed file
            self._copy_error = str(error)  # said by the next read, on the main thread
            self._passthrough = None

    def _stdout_abandoned(self) -> bool:
        """The agent exited, and its stdout has been open but quiet for ``exit_grace`` s."""
        return self._process.poll() is not None and self._grace_left() <= 0

    def _grace_left(self) -> float:
        """Seconds until the agent's open but quiet stdout is taken as ended (once it exited):
        the grace counts from the last time data came (the reading may be behind)."""
        now = self._clock()
        received = self._reader.received
        if self._quiet_since is None or received != self._received or self._reader.ready():
            self._quiet_since = now
            self._received = received
        return self._quiet_since + self._exit_grace - now

    def on_signal(self, signum: int, frame: FrameType | None) -> None:
        """The handler slacktail installs for SIGINT and SIGTERM while it runs the agent (with
        ``forward_signals``): the signal is forwarded to the agent, or, once the agent exited,
        handed to ``after_exit``."""
        if self._after_exit is not None and self._process.poll() is not None:
            self._after_exit(signum, frame)  # the agent is gone: the signal is slacktail's
            return
        self.signals.append(signum)
        if signum == signal.SIGINT and sigint_reaches_agent_directly():
            log.debug("interrupt from the terminal: %s receives it too", self.name)
            return
        self.forward_signal(signum)

    def _install_handlers(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            log.debug("not on the main thread: signals are not forwarded to %s", self.name)
            return
        for signum in FORWARDED_SIGNALS:
            self._previous[signum] = signal.signal(signum, self.on_signal)

    def _restore_handlers(self) -> None:
        previous, self._previous = self._previous, {}
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)


def sigint_reaches_agent_directly() -> bool:
    """Whether a SIGINT we received most likely came from the terminal (Ctrl-C), which sends it
    to the agent as well: slacktail is in the foreground process group of a terminal."""
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp():
                return True
        except OSError:  # fd closed, or no controlling terminal
            continue
    return False


def _start(argv: list[str], env: dict[str, str] | None) -> subprocess.Popen[bytes]:
    command = argv[0]
    try:
        return subprocess.Popen(argv, stdout=subprocess.PIPE, env=env,
                                preexec_fn=_ENDS_WITH_US)  # fmt: skip
    except FileNotFoundError:
        raise InputError(f"{command}: command not found") from None
    except PermissionError:
        raise InputError(f"{command}: cannot run it (permission denied)") from None
    except OSError as error:
        raise InputError(f"{command}: cannot run it ({error.strerror or error})") from None


def _linux_parent_death_signal() -> Callable[[], None] | None:
    """On Linux, what the agent runs before its program: it asks the kernel for SIGTERM should
    slacktail die first (killed outright, with no chance to say anything), so that no agent
    is left running with nobody reading its output. Elsewhere, nothing."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up now: only called after fork
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def ends_with_slacktail() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # slacktail died before the request was made
            os.kill(os.getpid(), signal.SIGTERM)

    return ends_with_slacktail


_PR_SET_PDEATHSIG = 1
_ENDS_WITH_US = _linux_parent_death_signal()


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:  # a number with no name here
        return f"signal {signum}"


def _exit_code(code: int) -> int:
    return 128 - code if code < 0 else code
