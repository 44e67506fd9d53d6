"""Which sources' pipes are copied for Full output, and where: ``run``'s agent and an
unspooled stdin, while the app runs (see ``bot.sources.pipe_copy`` for the copy itself)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.config import Settings
from bot.logs import redactor_for
from bot.sources.command import AgentCommand
from bot.sources.pipe_copy import PipeCopy
from bot.sources.source import Source
from bot.sources.stream import StreamReader
from bot.store import default_state_dir

if TYPE_CHECKING:
    from bot.commands import Slack


def copy_pipes(settings: Settings, slack: Slack, sources: Sequence[Source]) -> list[PipeCopy]:
    """What comes through a pipe (``run``'s agent, an unspooled stdin) copied, redacted, to
    the state directory while the app can show Full output (``bot.sources.pipe_copy``): the
    copies made, to close (remove) when the run ends."""
    pipes = [source for source in sources if isinstance(source, AgentCommand | StreamReader)]
    if slack.receiving is None or not pipes:
        return []
    state = settings.state_dir or default_state_dir()
    copies: list[PipeCopy] = []
    try:
        state.mkdir(mode=0o700, parents=True, exist_ok=True)
        for source in pipes:
            source.copy = PipeCopy(state / "spool", source.name, redactor_for(settings))
            copies.append(source.copy)
    except OSError as error:
        names = ", ".join(source.name for source in pipes)
        print(f"slacktail: {state}: cannot keep a copy of what {names} writes there "
              f"({error.strerror or error}); its tool calls get no Full output",
              file=sys.stderr)  # fmt: skip
    return copies
