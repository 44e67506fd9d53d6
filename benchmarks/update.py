"""Benchmark: what one update costs as a session grows, and the memory of a long session.

One update is what the follower does when a tool call's result arrives: the record applied to
its session, the messages it changed built again (the root, and the tool message of that call:
``changed_messages``), and compared with what Slack shows (``Delivery.want``: a digest of each
payload against the ledger). It is measured in one session of 100, 2,000 and 20,000 tool calls
(target: the 20,000 figure within 1.5× of the 100 figure), beside the cost of building and
comparing the whole thread (what each update cost before).

The memory: a session of 100,000 tool calls (each with a result of a few KB, a remark now and
then) in a fresh process, followed (its changed messages built every 100 calls and recorded
in a ledger), and read then built whole at once (as ``preview`` does); the peak traced by
``tracemalloc`` and the process's peak resident size (target ≤ 100 MB), and that size once
more in a process that first imports what ``slacktail follow`` imports (a real follower's).

Usage: ``python3 -m benchmarks.update [--updates 200] [--memory-calls 100000]``. Prints
figures; it is not a test.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from datetime import UTC, datetime, timedelta

from blocks.thread import changed_messages, thread_messages
from bot.delivery import Delivery
from bot.delivery.ledger import Ledger, digest
from bot.delivery.slack_api import SlackApi
from bot.records import AssistantText, Origin, SessionStarted, ToolCall, ToolResult
from bot.session import Session

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SID = "bench"
OUTPUT = "\n".join(f"line {n}: src/module_{n}.py: ok" for n in range(80))  # about 2.5 KB


def call_records(number: int) -> tuple[ToolCall, ToolResult]:
    """The ``number``-th call of the session and its result."""
    at = T0 + timedelta(seconds=number)
    call_id = f"toolu_{number:08d}"
    command = {"command": f"pytest tests/test_{number % 97}.py -q"}
    call = ToolCall(Origin(SID, at, 2 * number), call_id=call_id, name="Bash", input=command)
    result = ToolResult(Origin(SID, at, 2 * number + 1), call_id=call_id, output=OUTPUT)
    return call, result


def session_of(calls: int) -> Session:
    session = Session(SID)
    session.apply(SessionStarted(Origin(SID, T0, 1), agent="Claude Code", model="m", cwd="/w"))
    for number in range(calls):
        call, result = call_records(number)
        session.apply(call)
        session.apply(result)
        if number % 50 == 0:
            origin = Origin(SID, T0 + timedelta(seconds=number), 2 * number + 1)
            session.apply(AssistantText(origin, text="Now let me look at the next test."))
    return session


def delivered(session: Session) -> Delivery:
    """A delivery whose ledger says the whole thread is in Slack as it is now."""
    delivery = Delivery(SlackApi("xoxb-bench", "http://127.0.0.1:9"), "C1")
    for number, message in enumerate(thread_messages(session)):
        delivery.ledger.record(SID, message.key, f"{number}.0", digest(message.payload()))
    session.take_changes()
    return delivery


def update_costs(calls: int, updates: int, whole: bool) -> list[float]:
    """The seconds each of ``updates`` updates takes (a result arriving, built, compared)."""
    session = session_of(calls)
    delivery = delivered(session)
    now = T0 + timedelta(seconds=calls + updates + 1)
    costs: list[float] = []
    for number in range(calls, calls + updates):
        call, result = call_records(number)
        session.apply(call)  # a new call (not measured), then its result
        delivery.want(SID, changed_messages(session, session.take_changes(), now))
        started = time.perf_counter()
        session.apply(result)
        changes = None if whole else session.take_changes()
        delivery.want(SID, changed_messages(session, changes, now))
        costs.append(time.perf_counter() - started)
        session.take_changes()
    return costs


def followed(calls: int, every: int = 100) -> int:
    """A session of ``calls`` calls read as a follower reads it: every ``every`` calls, the
    messages that changed built and recorded as sent (a ledger of their digests, as
    delivery keeps); the messages built."""
    session = Session(SID)
    session.apply(SessionStarted(Origin(SID, T0, 1), agent="Claude Code", model="m", cwd="/w"))
    ledger = Ledger()
    built = 0
    for number in range(calls):
        call, result = call_records(number)
        session.apply(call)
        session.apply(result)
        if number % every == every - 1:
            for message in changed_messages(session, session.take_changes()):
                ledger.record(SID, message.key, "1.0", digest(message.payload()))
                built += 1
    return built


def memory(calls: int, whole: bool, traced: bool, follower: bool = False) -> None:
    """In this process: a session of ``calls`` calls followed (or read, then its thread built
    whole at once, as ``preview`` does: ``whole``); print the peak traced by tracemalloc
    (``traced``), else the peak resident size (tracemalloc's own records would swell it).
    ``follower``: first import what ``slacktail follow`` imports (its settings, the app, Slack's
    SDK, the followers: about 16 MB more than this benchmark's own imports), so the figure is a
    real follower's."""
    if follower:
        import bot.follower  # noqa: F401  (only its imports' memory is wanted)
    before = peak_rss_mb()  # the imports'
    if traced:
        tracemalloc.start()
    if whole:
        what = "read, its thread built whole once"
        messages = len(thread_messages(session_of(calls)))
    else:
        what = "followed (changed messages built every 100 calls)"
        messages = followed(calls)
    if traced:
        figure = f"traced peak {tracemalloc.get_traced_memory()[1] / 1e6:.1f} MB"
    else:
        figure = f"peak RSS {peak_rss_mb():.1f} MB ({before:.1f} MB before the session)"
    imports = " (with the follower's imports)" if follower else ""
    print(f"  {calls:,} calls {what}{imports}: {messages:,} messages built, {figure}")


def peak_rss_mb() -> float:
    """This process's peak resident size in MB: VmHWM, not ``ru_maxrss``, which survives fork
    and exec and so counted this benchmark's first part (its 20,000-call sessions) too."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # not Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--updates", type=int, default=200)
    parser.add_argument("--memory-calls", type=int, default=100_000)
    parser.add_argument("--memory-only", choices=("followed", "whole"), help=argparse.SUPPRESS)
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--follower", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_only:
        memory(args.memory_calls, args.memory_only == "whole", args.traced, args.follower)
        return
    print("one update (a result arrives, its messages built and compared), median of "
          f"{args.updates}:")  # fmt: skip
    first: float | None = None
    for calls in (100, 2_000, 20_000):
        changed = statistics.median(update_costs(calls, args.updates, whole=False))
        whole = statistics.median(update_costs(calls, min(args.updates, 20), whole=True))
        first = first or changed
        print(f"  {calls:>7,} calls: {changed * 1e3:7.3f} ms ({changed / first:4.2f}× the 100 "
              f"figure; the whole thread: {whole * 1e3:8.2f} ms)")  # fmt: skip
    print("memory (each in a fresh process):")
    for way, flags in (("followed", ["--traced"]), ("followed", []),
                       ("followed", ["--follower"]), ("whole", ["--traced"]), ("whole", [])):
        command = [sys.executable, "-m", "benchmarks.update", "--memory-only", way,
                   "--memory-calls", str(args.memory_calls), *flags]  # fmt: skip
        subprocess.run(command, check=True)


if __name__ == "__main__":
    main()
