"""Corpus files whose family is not read yet, and the corpus-wide tests each still fails.

The shared corpus can be ahead of the code: a file listed here is marked ``xfail(strict=True)``
in the named test, with the issue that reads its family as the reason, so that each step
lands; an issue is resolved only when none of its files is left here. Every family of the
corpus is read today: nothing is listed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

# test ("thread", "faults", "limits", "unparsed") -> {corpus file name: the issue that reads it}
NOT_READ_YET: dict[str, dict[str, str]] = {}


def corpus_cases(paths: list[Path], test: str) -> list[object]:
    """``paths`` as test parameters, those not read yet marked as expected to fail ``test``."""
    waiting = NOT_READ_YET.get(test, {})
    return [
        pytest.param(path, id=path.name,
                     marks=pytest.mark.xfail(strict=True, reason=waiting[path.name]))
        if path.name in waiting
        else pytest.param(path, id=path.name)
        for path in paths
    ]  # fmt: skip
