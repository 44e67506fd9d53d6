"""The file follower against a model: random writes, partial writes, rename rotations,
copytruncates, truncations, deletions, restarts and idle closes, and the lines delivered are
exactly those the model expects (so: none twice, none that was not written, none written after
the last truncation lost).

The follower is drained after each step, as the main loop would. The model knows which lines
that makes certain: every complete line; a partial line once its file is rotated away or
deleted (read to the end, it is emitted as it is), unless a restart came first (the partial
was never committed and its file is gone); never a partial line cut by a truncation. A line
starts with its file's generation letter, which changes whenever the file is emptied, so a file
replaced by new content differs from the old in its first byte (what a fingerprint can see).
"""

from __future__ import annotations

import itertools
import os
import shutil
import string
import tempfile
from pathlib import Path

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from bot.sources.file_options import FileOptions
from bot.sources.follow import FileFollower
from bot.sources.lines import Line
from bot.sources.position import FilePosition

GENERATIONS = string.ascii_lowercase


class FollowedFile(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="slacktail-model-"))
        self.path = self.folder / "agent.jsonl"
        self.path.write_bytes(b"")
        self.serials = itertools.count(1)
        self.generation = 0
        self.lines: list[bytes] = []  # the complete lines now in the file
        self.partial = b""  # the unfinished last line's bytes now in the file
        self.rest = b""  # what completes it
        self.held = b""  # the partial line of a deleted file, emitted once the path is back
        self.expected: list[bytes] = []
        self.delivered: list[bytes] = []
        self.follower = self._follower(None)

    def _follower(self, resume: FilePosition | None) -> FileFollower:
        return FileFollower(
            self.path, FileOptions(wait_for_file=True, chunk_bytes=7), resume=resume
        )

    def _new_line(self) -> bytes:
        return b"%s%d-%s" % (GENERATIONS[self.generation].encode(), next(self.serials), b"x" * 5)

    def _append(self, data: bytes) -> None:
        if not self.path.exists() and self.held:
            self.expected.append(self.held)  # the deleted file's partial line, then the new file
            self.held = b""
        with self.path.open("ab") as file:
            file.write(data)

    def _emptied(self) -> None:
        """The file's content is gone: a new generation starts."""
        self.lines, self.partial, self.rest = [], b"", b""
        self.generation = (self.generation + 1) % len(GENERATIONS)

    def _drain(self, follower: FileFollower) -> None:
        for _ in range(1000):  # a follower that never settles is a failure, not a hang
            items = follower.read_available()
            self.delivered.extend(item.data for item in items if isinstance(item, Line))
            if not items and not follower.ready():
                return
        raise AssertionError("the follower still has something to read after 1000 reads")

    # --- what happens to the file ---------------------------------------------------------------

    @rule(count=st.integers(1, 3))
    @precondition(lambda self: not self.partial)
    def write_lines(self, count: int) -> None:
        new = [self._new_line() for _ in range(count)]
        self._append(b"".join(line + b"\n" for line in new))
        self.lines += new
        self.expected += new

    @rule(cut=st.integers(1, 8))
    @precondition(lambda self: not self.partial)
    def write_partial_line(self, cut: int) -> None:
        line = self._new_line()
        self._append(line[:cut])
        self.partial, self.rest = line[:cut], line[cut:]

    @rule()
    @precondition(lambda self: bool(self.partial))
    def complete_the_line(self) -> None:
        self._append(self.rest + b"\n")
        line = self.partial + self.rest
        self.lines.append(line)
        self.expected.append(line)
        self.partial, self.rest = b"", b""

    @rule()
    @precondition(lambda self: self.path.exists())
    def rotate(self) -> None:
        self.path.rename(self.folder / "agent.jsonl.1")
        self.path.write_bytes(b"")
        if self.partial:
            self.expected.append(self.partial)  # read to its end: emitted as it is
        self._emptied()

    @rule(write_after=st.booleans())
    @precondition(lambda self: self.path.exists())
    def copytruncate(self, write_after: bool) -> None:
        shutil.copyfile(self.path, self.folder / "agent.jsonl.1")
        os.truncate(self.path, 0)
        self._emptied()
        if write_after:  # the agent writes again before the follower looks
            self.write_lines(2)

    @rule(data=st.data())
    @precondition(lambda self: self.path.exists())
    def truncate(self, data: st.DataObject) -> None:
        keep = data.draw(st.integers(0, len(self.lines)), label="lines kept")
        os.truncate(self.path, sum(len(line) + 1 for line in self.lines[:keep]))
        if keep == 0:
            self._emptied()
        else:
            self.lines, self.partial, self.rest = self.lines[:keep], b"", b""

    @rule()
    @precondition(lambda self: self.path.exists())
    def delete(self) -> None:
        self.path.unlink()
        self.held = self.partial
        self._emptied()

    @rule()
    def restart(self) -> None:
        position = self.follower.position()
        self.follower.close()
        self.follower = self._follower(FilePosition.from_dict(position.to_dict()))
        self.held = b""  # a deleted file's partial line was never committed: it is gone

    @rule()
    def park(self) -> None:
        """Close the file while idle (the follower keeps its partial line)."""
        self.follower.park()

    # --- what the follower delivered ------------------------------------------------------------

    @invariant()
    def delivers_exactly_what_the_model_expects(self) -> None:
        self._drain(self.follower)
        assert self.delivered == self.expected
        assert len(set(self.delivered)) == len(self.delivered)  # never a line twice

    def teardown(self) -> None:
        try:
            self.follower.stop_at_end = True
            self._drain(self.follower)
            assert self.follower.closed
            last = [self.held] if self.held else []
            assert self.delivered == [*self.expected, *last, *([self.partial] * bool(self.partial))]
        finally:
            self.follower.close()
            shutil.rmtree(self.folder)


FollowedFile.TestCase.settings = settings(max_examples=150, stateful_step_count=25, deadline=None)
test_the_follower_delivers_what_the_model_expects = FollowedFile.TestCase
