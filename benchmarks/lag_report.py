"""The figures ``benchmarks.lag`` prints: calls, budgets used, lag by kind and per minute, and
whether the channel ended as the sessions' final messages."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import UTC, datetime
from typing import Any

from benchmarks.burst import Timed
from benchmarks.shown import FirstShown, first_shown
from blocks.thread import thread_messages
from bot.delivery.pacing import POSTS_PER_SECOND, UPDATES_PER_MINUTE
from bot.follower import Follower
from bot.localslack import LocalSlack

KINDS = ("start", "result", "text")
TARGET_P95_S = 5.0

Lags = dict[str, list[tuple[float, float]]]  # kind -> (written at, lag in seconds)


def report(
    lines: list[Timed],
    written: list[float],
    follower: Follower,
    slack: LocalSlack,
    *,
    writing_s: float,
    wall_s: float,
    cpu_s: float,
) -> None:
    shown = first_shown(slack.requests)
    lags, missing = record_lags(lines, written, shown)
    calls = sum(1 for line in lines for s in line.shows if s.kind == "start")
    print(f"records written: {len(lines):,} lines ({follower.counts.records:,} records read), "
          f"tool calls: {calls:,}")  # fmt: skip
    print(f"wall time: {wall_s:.1f} s (writing {writing_s:.1f} s, "
          f"{calls / writing_s:.2f} calls/s; final state {wall_s - writing_s:.1f} s after), "
          f"CPU {cpu_s:.1f} s")
    print_calls(follower, slack, shown)
    print_budgets(slack, written[0])
    print_lags(lags, missing)
    print_minutes(lags, slack, written[0])
    print(f"final channel = the sessions' final messages: {final_matches(follower, slack)}")


def record_lags(
    lines: list[Timed], written: list[float], shown: FirstShown
) -> tuple[Lags, Counter[str]]:
    lags: Lags = defaultdict(list)
    missing: Counter[str] = Counter()
    for line, at in zip(lines, written, strict=True):
        for what in line.shows:
            seen = shown.at.get((what.kind, what.mark))
            if seen is None:
                missing[what.kind] += 1
            else:
                lags[what.kind].append((at, seen - at))
    return lags, missing


def print_calls(follower: Follower, slack: LocalSlack, shown: FirstShown) -> None:
    counts = follower.delivery.counts
    answered = Counter(r.method for r in slack.requests if r.status == 200 and not r.error)
    print(f"posts: {counts.posts:,}  updates: {counts.updates:,} "
          f"(root {shown.root_updates:,}, other messages {shown.item_updates:,})  "
          f"reactions: {counts.reactions:,} ({answered['reactions.add']} added, "
          f"{answered['reactions.remove']} removed)")  # fmt: skip
    limited = dict(slack.rate_limited)
    print(f"429s answered: {slack.answered_429} {limited or ''}  "
          f"(slacktail saw {counts.rate_limited}; retries {counts.retries})")  # fmt: skip


def print_budgets(slack: LocalSlack, first_written: float) -> None:
    accepted = [r for r in slack.requests if r.status == 200 and not r.error]
    span = max(r.at for r in accepted) - first_written
    posts = sum(1 for r in accepted if r.method == "chat.postMessage")
    updates = sum(1 for r in accepted if r.method == "chat.update")
    print(f"budgets over {span:.0f} s: posts {posts / span:.2f}/s "
          f"({posts / span / POSTS_PER_SECOND:.0%} of {POSTS_PER_SECOND:g}/s per channel), "
          f"updates {updates / span * 60:.1f}/min "
          f"({updates / span * 60 / UPDATES_PER_MINUTE:.0%} of {UPDATES_PER_MINUTE:g}/min)")


def print_lags(lags: Lags, missing: Counter[str]) -> None:
    every = [lag for kind in KINDS for _, lag in lags[kind]]
    p50, p95, most = figures(every)
    verdict = "met" if p95 <= TARGET_P95_S else "NOT met"
    print(f"lag, every record ({len(every):,}): p50 {p50:.2f} s  p95 {p95:.2f} s  "
          f"max {most:.2f} s  (target p95 <= {TARGET_P95_S:g} s: {verdict})")  # fmt: skip
    for kind in KINDS:
        p50, p95, most = figures([lag for _, lag in lags[kind]])
        never = f", never shown {missing[kind]}" if missing[kind] else ""
        print(f"  {kind:<7} {len(lags[kind]):>6,}: p50 {p50:6.2f} s  p95 {p95:6.2f} s  "
              f"max {most:6.2f} s{never}")  # fmt: skip


def print_minutes(lags: Lags, slack: LocalSlack, first_written: float) -> None:
    by_minute: dict[int, list[float]] = defaultdict(list)
    for kind in KINDS:
        for at, lag in lags[kind]:
            by_minute[int((at - first_written) // 60)].append(lag)
    sent: Counter[tuple[int, str]] = Counter(
        (int((r.at - first_written) // 60), r.method)
        for r in slack.requests
        if r.status == 200 and not r.error
    )
    print("minute  records   p50 s   p95 s   max s  posts  updates")
    for minute in sorted(by_minute):
        p50, p95, most = figures(by_minute[minute])
        print(f"{minute:>6} {len(by_minute[minute]):>8,} {p50:7.2f} {p95:7.2f} {most:7.2f} "
              f"{sent[minute, 'chat.postMessage']:>6} {sent[minute, 'chat.update']:>8}")


def figures(values: list[float]) -> tuple[float, float, float]:
    """p50, p95 and max (nearest rank); zeros for none."""
    if not values:
        return 0.0, 0.0, 0.0
    ordered = sorted(values)

    def rank(q: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]

    return rank(0.50), rank(0.95), ordered[-1]


def final_matches(follower: Follower, slack: LocalSlack) -> bool:
    now = datetime.now(UTC)
    channel = slack.channel_id()
    seen: list[list[tuple[str, Any]]] = [
        [(m["text"], m.get("blocks")) for m in slack.thread(channel, root["ts"])]
        for root in slack.channel_messages()
    ]
    wanted = [
        [(m.text, list(m.blocks)) for m in thread_messages(session, now)]
        for session in follower.book.sessions.values()
    ]
    return seen == wanted
