"""The wrapped agent: its stdout read as lines and written through, its exit code, a command that
cannot start, and SIGINT / SIGTERM forwarded to it."""

from __future__ import annotations

import io
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import events
from bot.errors import InputError
from bot.sources import command as command_module
from bot.sources.command import AgentCommand, Ending
from bot.sources.lines import Line
from bot.sources.source import Item, Source
from tests.sources.helpers import collect, data, said, until_closed, until_lines, wait_until

PY = sys.executable

# Traps SIGTERM (says so on stdout and exits 0), says it is ready, then waits for the signal.
TRAPS_SIGTERM = """
import signal, sys, time
def on_term(signum, frame):
    sys.stdout.write("got SIGTERM\\n"); sys.stdout.flush(); sys.exit(0)
signal.signal(signal.SIGTERM, on_term)
sys.stdout.write("ready\\n"); sys.stdout.flush()
time.sleep(30)
sys.exit(3)
"""


class Passthrough(io.BytesIO):
    """A write-through target that counts its flushes."""

    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


@pytest.fixture
def agents() -> Iterator[list[AgentCommand]]:
    """Commands started by a test: killed if still running, closed, at the end."""
    started: list[AgentCommand] = []
    yield started
    for agent in started:
        if agent.returncode is None:
            agent.forward_signal(signal.SIGKILL)
            agent.wait(timeout=5)
        agent.close()


def start(agents: list[AgentCommand], script: str, **kwargs: object) -> AgentCommand:
    kwargs.setdefault("passthrough", None)
    kwargs.setdefault("forward_signals", False)
    agent = AgentCommand([PY, "-c", script], **kwargs)  # type: ignore[arg-type]
    agents.append(agent)
    return agent


def test_its_stdout_is_read_as_lines_and_written_through(agents: list[AgentCommand]) -> None:
    copy = Passthrough()
    agent = start(
        agents,
        "import sys; sys.stdout.write('one\\ntwo\\r\\npartial'); sys.stdout.flush()",
        passthrough=copy,
    )
    items = collect(agent, until_closed(agent))
    assert items == [Line(1, 4, b"one"), Line(2, 9, b"two"), Line(3, 16, b"partial")]
    assert copy.getvalue() == b"one\ntwo\r\npartial"
    assert copy.flushes >= 1


def test_output_is_written_through_as_it_arrives_not_at_the_end(
    agents: list[AgentCommand],
) -> None:
    copy = Passthrough()
    agent = start(agents, TRAPS_SIGTERM, passthrough=copy)
    wait_until(lambda: copy.getvalue() == b"ready\n")
    assert agent.returncode is None
    assert data(collect(agent, until_lines(1))) == [b"ready"]


def test_the_exit_code_is_the_agents(agents: list[AgentCommand]) -> None:
    agent = start(agents, "import sys; print('bye'); sys.exit(7)")
    assert data(collect(agent, until_closed(agent))) == [b"bye"]
    assert agent.wait(timeout=5) == 7
    assert agent.returncode == 7


def test_an_agent_killed_by_a_signal_exits_128_plus_its_number(
    agents: list[AgentCommand],
) -> None:
    agent = start(agents, "import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    collect(agent, until_closed(agent))
    assert agent.wait(timeout=5) == 128 + signal.SIGKILL


@pytest.mark.parametrize(
    ("script", "ending"),
    [
        ("import sys; sys.exit(3)", Ending(3)),
        ("pass", Ending(0)),
        ("import os, signal; os.kill(os.getpid(), signal.SIGTERM)", Ending(None, "SIGTERM")),
    ],
)
def test_how_the_agent_ended_is_its_code_or_the_signal_that_killed_it(
    agents: list[AgentCommand], script: str, ending: Ending
) -> None:
    agent = start(agents, script)
    collect(agent, until_closed(agent))
    assert agent.ending() == ending


def test_an_agent_that_exits_on_the_ctrl_c_slacktail_received_too_ended_on_it(
    agents: list[AgentCommand],
) -> None:
    agent = start(agents, "import sys; sys.exit(130)")
    agent.signals.append(signal.SIGINT)  # the terminal sent it to both
    collect(agent, until_closed(agent))
    assert agent.ending() == Ending(130, "SIGINT")


def test_an_agent_still_running_has_not_ended(agents: list[AgentCommand]) -> None:
    agent = start(agents, "import time; time.sleep(30)", exit_grace=0.05)
    assert agent.ending() is None


def test_a_signal_after_the_agent_exited_is_slacktails_own(agents: list[AgentCommand]) -> None:
    received: list[int] = []
    agent = start(agents, "pass", after_exit=lambda signum, frame: received.append(signum))
    agent.wait(timeout=5)
    agent.on_signal(signal.SIGINT, None)
    assert (received, agent.signals) == ([signal.SIGINT], [])


def test_a_missing_command_is_a_one_line_input_error_naming_it() -> None:
    with pytest.raises(InputError) as error:
        AgentCommand(["no-such-agent-xyz", "--flag"], passthrough=None, forward_signals=False)
    assert str(error.value) == "no-such-agent-xyz: command not found"


def test_a_file_that_is_not_executable_is_a_one_line_input_error(tmp_path: Path) -> None:
    script = tmp_path / "agent.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    with pytest.raises(InputError) as error:
        AgentCommand([str(script)], passthrough=None, forward_signals=False)
    assert str(error.value) == f"{script}: cannot run it (permission denied)"
    assert "\n" not in str(error.value)


def test_no_command_at_all_is_an_input_error() -> None:
    with pytest.raises(InputError, match="no command"):
        AgentCommand([], passthrough=None, forward_signals=False)


def test_a_forwarded_sigterm_reaches_the_agent(agents: list[AgentCommand]) -> None:
    agent = start(agents, TRAPS_SIGTERM)
    items: list[Item] = collect(agent, until_lines(1))
    agent.forward_signal(signal.SIGTERM)
    items += collect(agent, until_closed(agent))
    assert data(items) == [b"ready", b"got SIGTERM"]
    assert agent.wait(timeout=5) == 0


def test_the_sigterm_handler_forwards_to_the_agent(agents: list[AgentCommand]) -> None:
    agent = start(agents, TRAPS_SIGTERM, forward_signals=True)
    collect(agent, until_lines(1))
    handler = signal.getsignal(signal.SIGTERM)
    assert callable(handler)
    handler(signal.SIGTERM, None)
    assert data(collect(agent, until_closed(agent))) == [b"got SIGTERM"]
    assert agent.signals == [signal.SIGTERM]


def test_a_sigint_from_a_supervisor_is_forwarded(
    agents: list[AgentCommand], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(command_module, "sigint_reaches_agent_directly", lambda: False)
    agent = start(agents, "import time; print('ready', flush=True); time.sleep(30)")
    collect(agent, until_lines(1))
    agent.on_signal(signal.SIGINT, None)
    assert agent.wait(timeout=5) != 0  # KeyboardInterrupt in the agent


def test_a_sigint_from_the_terminal_is_not_sent_a_second_time(
    agents: list[AgentCommand], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(command_module, "sigint_reaches_agent_directly", lambda: True)
    sent: list[int] = []
    agent = start(agents, "print('hi')")
    monkeypatch.setattr(agent, "forward_signal", sent.append)
    agent.on_signal(signal.SIGINT, None)
    agent.on_signal(signal.SIGTERM, None)
    assert sent == [signal.SIGTERM]
    assert agent.signals == [signal.SIGINT, signal.SIGTERM]


def test_signal_handlers_are_restored_on_close(agents: list[AgentCommand]) -> None:
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    agent = start(agents, "pass", forward_signals=True)
    assert signal.getsignal(signal.SIGTERM) == agent.on_signal
    collect(agent, until_closed(agent))
    agent.close()
    assert {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} == before


def test_off_the_main_thread_no_handlers_are_installed(agents: list[AgentCommand]) -> None:
    before = signal.getsignal(signal.SIGTERM)
    started: list[AgentCommand] = []
    thread = threading.Thread(
        target=lambda: started.append(AgentCommand([PY, "-c", "pass"], passthrough=None))
    )
    thread.start()
    thread.join()
    agents.extend(started)
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_broken_passthrough_is_given_up_and_reading_goes_on(
    agents: list[AgentCommand],
) -> None:
    copy = io.BytesIO()
    copy.close()
    agent = start(agents, "print('still read')", passthrough=copy)
    items = collect(agent, until_closed(agent))
    assert data(items) == [b"still read"]
    error = "I/O operation on closed file."
    assert said(items) == [events.OutputNotCopied(agent.name, error)]  # said once


def test_an_output_held_open_by_a_leftover_child_ends_after_a_quiet_grace(
    agents: list[AgentCommand],
) -> None:
    # The agent starts a child that inherits its stdout, says the child's pid, and exits.
    script = (
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])\n"
        "print(child.pid, flush=True)\n"
    )
    now = [0.0]
    agent = start(agents, script, exit_grace=2.0, clock=lambda: now[0])
    leftover = int(data(collect(agent, until_lines(1)))[0])
    try:
        assert agent.wait(timeout=5) == 0
        assert agent.read_available() == []
        now[0] += 1.9
        assert not agent.ready()
        assert not agent.closed
        now[0] += 0.1
        assert agent.ready()
        assert said(agent.read_available()) == [events.OutputAbandoned(agent.name, after_s=2.0)]
        assert agent.closed
    finally:
        os.kill(leftover, signal.SIGKILL)


def test_it_is_a_source() -> None:
    def name_of(source: Source) -> str:
        return source.name

    agent = AgentCommand([PY, "-c", "pass"], passthrough=None, forward_signals=False)
    with agent:
        assert name_of(agent) == Path(PY).name
        agent.wait(timeout=5)
