"""Benchmark: what a checkpoint costs (the sessions' state and the sources' positions, saved
together to the state database) and how long a restart takes to restore it.

Builds a log from the corpus like ``benchmarks.replay``, reads it into sessions, then saves
and restores one checkpoint in a temporary state directory, and prints its size and times.
The follower waits at least 20 times a checkpoint's cost between two of them.

Usage: ``python -m benchmarks.checkpoint [--mb 20] [--family claude-stream-json]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.replay import DEFAULT_CORPUS, build_log, read_lines
from bot import snapshot
from bot.checkpoints import Checkpoints, CoreState, plain_core
from bot.formats import FAMILIES
from bot.formats.reader import SourceReader
from bot.session import SessionBook
from bot.store import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=20, help="size of the built log in MB")
    parser.add_argument("--family", default="claude-stream-json", choices=sorted(FAMILIES))
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"benchmark: no corpus at {args.corpus}")
    core = CoreState(SessionBook())
    reader = core.readers.setdefault("log", SourceReader("log"))
    for number, line in enumerate(read_lines(build_log(args.corpus, args.family, args.mb)), 1):
        for record in reader.feed(line, number):
            core.book.apply(record)
    with tempfile.TemporaryDirectory() as state:
        checkpoints = Checkpoints(Store.open(Path(state)), "job")
        started = time.perf_counter()
        checkpoints.save(core, {})  # (a position of a real file would be checked)
        saved = time.perf_counter() - started
        started = time.perf_counter()
        restored = checkpoints.restore()
        loaded = time.perf_counter() - started
    assert restored.core is not None
    size = len(snapshot.dumps(plain_core(core))) / 1e6
    sessions = len(core.book.sessions)
    print(f"family                 {args.family}")
    print(f"open sessions          {sessions:>10,}")
    per_session = size * 1e3 / max(sessions, 1)
    print(f"checkpoint             {size:>10.1f} MB ({per_session:.1f} KB a session)")
    print(f"save                   {saved * 1e3:>10.0f} ms")
    print(f"restore                {loaded * 1e3:>10.0f} ms")


if __name__ == "__main__":
    main()
