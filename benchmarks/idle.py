"""What following hundreds of idle session files costs: CPU seconds and open files.

Creates ``--files`` session files (one line each) in a temporary folder laid out like
``~/.claude/projects``, follows the folder with a ``FolderWatch`` the way the main loop does
(new files, then every follower's ``read_available``, then ``wait_ready``) for ``--seconds``,
and prints the process's CPU seconds (user + system, every thread) and how many files it held
open at the end: once with file-system events, once polling.

    python3 -m benchmarks.idle --files 300 --seconds 10
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from bot.sources.folder import FolderOptions, FolderWatch, FollowedFile
from bot.sources.watch import ChangeWatch

TURN_S = 0.25  # the main loop's longest idle wait


def make_files(root: Path, count: int) -> None:
    for index in range(count):
        project = root / f"project-{index % 10}"
        project.mkdir(exist_ok=True)
        (project / f"session-{index}.jsonl").write_bytes(b'{"type": "user"}\n')


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def open_files() -> int:
    return len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else -1


def follow_idle(root: Path, seconds: float, *, events: bool, close_idle_after: float) -> None:
    watch = ChangeWatch(events=events)
    options = FolderOptions(close_idle_after=close_idle_after)
    folder = FolderWatch(str(root), options, watch=watch)
    followers: list[FollowedFile] = []
    followers.extend(folder.new_files())
    for follower in followers:
        follower.read_available()
    before, started = cpu_seconds(), time.monotonic()
    turns = 0
    while time.monotonic() - started < seconds:
        followers.extend(folder.new_files())
        for follower in followers:
            follower.read_available()
        folder.wait_ready(TURN_S)
        turns += 1
    used = cpu_seconds() - before
    mode = "events" if watch.events else "polling"
    print(f"{len(followers)} idle files, {mode}, close idle after {close_idle_after:g} s: "
          f"{used:.3f} CPU s in {seconds:g} s ({100 * used / seconds:.2f} % of a core), "
          f"{turns} turns, {open_files()} open files at the end")  # fmt: skip
    folder.close()
    watch.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="slacktail-idle-") as folder:
        root = Path(folder)
        make_files(root, args.files)
        for events in (True, False):
            for close_idle_after in (args.seconds / 2, 3600.0):
                follow_idle(root, args.seconds, events=events, close_idle_after=close_idle_after)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
