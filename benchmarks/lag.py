"""Benchmark: how far behind the channel is while agents write a burst of tool calls.

A writer thread writes a burst of Claude Code stream-json lines (``benchmarks.burst``: several
sessions, parallel tool calls, each result 0.1–3 s after its call, some text, a result at the
end) into a file, in real time, at ``--pace`` tool calls a second. slacktail's real pipeline
follows the file on another thread: a ``Follower`` over a ``FileFollower``, a ``Delivery`` with
the real clock and sleep, into a local Slack that enforces Slack's own rates
(``LocalSlack(rate_limits=True, scale=1.0)``). Once the writer is done and the follower has
read everything, the follower is stopped and delivers the final state.

It prints the calls made (posts, updates, reactions, 429s answered), how much of each Slack
budget they used, and the lag of every record: the seconds from the line being written to the
first call the local Slack accepted whose message shows it (a call's start: its line in a tool
message; its result: that line marked ✅ or ❌; a text: its words), as p50 / p95 / max, by kind
and per minute. Targets: 0 × 429, p95 lag ≤ 5 s. Finally it checks that the channel ends equal
to the sessions' final messages.

How long: a real Claude Code session makes a tool call every couple of seconds at best (the
busiest corpus session: 20 calls in 43 s), so 2,000 calls are hours of one agent's work, or
several agents over tens of minutes. The default squeezes them into about 7.5 minutes: 2
sessions at 4.5 calls/s together, each about five times faster than that busiest session.
Much faster measures a backlog rather than slacktail: Slack allows one post a second per
channel and 48 updates a minute per workspace, and each tool message (up to 12 calls) needs
a post and at least one update, so around 5 calls/s is what a channel can show within 5 s.
``--calls 300`` gives a run of about a minute.

Usage: ``python3 -m benchmarks.lag [--calls 2000] [--sessions 2] [--pace 4.5] [--seed 1]``
Prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.burst import Burst, Timed, burst_lines
from benchmarks.lag_report import report
from bot.delivery import Delivery, SlackApi
from bot.follower import Follower
from bot.localslack import LocalSlack
from bot.sources.follow import FileFollower

TOKEN = "xoxb-bench-lag"
DRAIN_S = 900.0  # at most this long to deliver the final state after the writer is done
RECORDED = 1_000_000
MAX_CALLS = 99_999  # each call's mark is c + five digits


@dataclass
class Replay:
    lines: list[Timed]
    written: list[float]  # time.time() just after each line was written
    writing_s: float
    wall_s: float
    cpu_s: float  # this process's CPU time: slacktail and the local Slack together
    follower: Follower


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    burst = Burst(calls=args.calls, sessions=args.sessions, pace=args.pace, seed=args.seed)
    lines = burst_lines(burst)
    span = lines[-1].at
    print(f"burst: {args.calls:,} tool calls in {args.sessions} sessions at {args.pace:g} "
          f"calls/s asked, {args.calls / span:.2f} written: {len(lines):,} lines over "
          f"{span:.0f} s")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp, LocalSlack(
        token=TOKEN, rate_limits=True, scale=1.0, max_recorded=RECORDED
    ) as slack:
        replay = run(lines, Path(tmp) / "agent.jsonl", slack)
        report(replay.lines, replay.written, replay.follower, slack,
               writing_s=replay.writing_s, wall_s=replay.wall_s, cpu_s=replay.cpu_s)  # fmt: skip
    return 0


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python3 -m benchmarks.lag",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--calls", type=int, default=Burst.calls, help="tool calls in all")
    parser.add_argument("--sessions", type=int, default=Burst.sessions,
                        help="sessions writing at once into the one file")  # fmt: skip
    parser.add_argument("--pace", type=float, default=Burst.pace,
                        help="tool calls a second, all sessions together (a session waits "
                             "for its calls' results, so each can only go so fast)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=Burst.seed)
    args = parser.parse_args(argv)
    if not 1 <= args.calls <= MAX_CALLS or args.sessions < 1 or args.pace <= 0:
        parser.error(f"--calls from 1 to {MAX_CALLS:,}, --sessions at least 1, --pace above 0")
    return args


def run(lines: list[Timed], path: Path, slack: LocalSlack) -> Replay:
    """Write ``lines`` in real time while a follower delivers them; then its final state."""
    path.touch()
    delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id())
    follower = Follower([FileFollower(path)], delivery)
    stop = threading.Event()
    following = threading.Thread(target=follower.run, args=(stop, DRAIN_S), name="follower")
    written = [0.0] * len(lines)
    writer = threading.Thread(target=write, args=(path, lines, written), name="writer")
    started, cpu = time.monotonic(), time.process_time()
    following.start()
    writer.start()
    writer.join()
    writing_s = time.monotonic() - started
    wait_until_read(follower, path)
    stop.set()
    following.join()
    wall_s, cpu_s = time.monotonic() - started, time.process_time() - cpu
    return Replay(lines, written, writing_s, wall_s, cpu_s, follower)


def write(path: Path, lines: list[Timed], written: list[float]) -> None:
    """Append each line at its time from now, noting when it was written."""
    started = time.monotonic()
    with path.open("ab", buffering=0) as out:
        for index, line in enumerate(lines):
            delay = started + line.at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            out.write(line.data)
            written[index] = time.time()


def wait_until_read(follower: Follower, path: Path) -> None:
    source = follower.sources[0]
    assert isinstance(source, FileFollower)
    size = path.stat().st_size
    while source.bytes_read < size:
        time.sleep(0.05)


if __name__ == "__main__":
    raise SystemExit(main())
