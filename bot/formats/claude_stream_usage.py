"""The tokens of a run as its assistant messages tell them, for a result that tells none (Amp's
result line has no ``usage``; its assistant messages each carry one).

Claude Code writes one line per content block of a message, each with the message's ``id`` and
its ``usage`` again: a message is counted once, by its id, its last line's usage kept. A line
whose message has no id (Amp) is a message of its own.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

from mypy_extensions import mypyc_attr

from bot.formats.common import remember
from bot.formats.running_totals import Counts
from bot.values import as_int, dict_or_empty

# input, output, cache read, cache write: the keys of an API message's ``usage``
USAGE_KEYS: Final = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)
_MAX_MESSAGES: Final = 1024  # messages whose usage a repeated line may still replace

def counts_of(usage: object) -> Counts:
    """The four token counts of a ``usage`` object (``None`` for one it does not give)."""
    given = dict_or_empty(usage)
    return (
        as_int(given.get(USAGE_KEYS[0])),
        as_int(given.get(USAGE_KEYS[1])),
        as_int(given.get(USAGE_KEYS[2])),
        as_int(given.get(USAGE_KEYS[3])),
    )


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class RunUsage:
    """The sum of the usage of the run's assistant messages, each message counted once."""

    def __init__(self) -> None:
        self._messages: OrderedDict[str, Counts] = OrderedDict()
        self._sums = [0, 0, 0, 0]
        self._given = [False, False, False, False]

    def add(self, key: str, usage: object) -> None:
        """The usage of message ``key`` (its id, or its line's number when it has none): a
        message seen again has its usage replaced, not added twice."""
        counts = counts_of(usage)
        if all(count is None for count in counts):
            return
        old = self._messages.get(key)
        if old is not None:
            self._count(old, -1)
        self._count(counts, 1)
        remember(self._messages, key, counts, _MAX_MESSAGES)

    def totals(self) -> Counts:
        """The sums, ``None`` for a count no message gave."""
        sums, given = self._sums, self._given
        return (
            sums[0] if given[0] else None,
            sums[1] if given[1] else None,
            sums[2] if given[2] else None,
            sums[3] if given[3] else None,
        )

    def clear(self) -> None:
        """A new run begins (after a result)."""
        self._messages.clear()
        self._sums = [0, 0, 0, 0]
        self._given = [False, False, False, False]

    def _count(self, counts: Counts, sign: int) -> None:
        for index in range(4):
            count = counts[index]
            if count is not None:
                self._sums[index] += sign * count
                self._given[index] = True
