"""Benchmark: the floor under issue 2's speed ratio in CPython.

For each log family, on the same lines in the same run, it measures the bare ``orjson.loads``
rate and the rate of a skeleton pipeline that does the least any pipeline must do per line:
``orjson.loads``, one field read, one slotted record built, one dispatch by type through a
dict, one state update. No format rule, no significance, no message. The skeleton's ratio to
``loads`` is the best ratio a pure-Python pipeline could reach; what is left between the
skeleton and the 0.33 target is the time per line for everything the issue asks for.

Usage: ``python -m benchmarks.floor [--mb 20]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from benchmarks.replay import DEFAULT_CORPUS, FAMILY_DIRS, build_log, read_lines

ROUNDS = 5
TARGET = 0.33


@dataclass(slots=True)
class _Record:
    session_id: str
    timestamp: Any
    line: int
    kind: Any
    text: Any


class _State:
    __slots__ = ("last", "seen")

    def __init__(self) -> None:
        self.last: _Record | None = None
        self.seen = 0


def _keep(state: _State, record: _Record) -> None:
    state.last = record
    state.seen += 1


_STEPS: dict[type, Callable[[_State, _Record], None]] = {_Record: _keep}


def skeleton(lines: list[bytes]) -> None:
    state = _State()
    loads, steps = orjson.loads, _STEPS
    for number, raw in enumerate(lines, 1):
        obj = loads(raw)
        get = obj.get if type(obj) is dict else {}.get
        record = _Record(get("session_id") or "", get("timestamp"), number, get("type"), None)
        steps[type(record)](state, record)


def bare_loads(lines: list[bytes]) -> None:
    loads = orjson.loads
    for raw in lines:
        loads(raw)


def best(work: Callable[[list[bytes]], None], lines: list[bytes]) -> float:
    times = []
    for _ in range(ROUNDS):
        started = time.process_time()
        work(lines)
        times.append(time.process_time() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=20, help="size of each built log in MB")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"benchmark: no corpus at {args.corpus}")
    print(f"{'family':<20} {'loads µs/line':>14} {'skeleton µs/line':>17} {'ratio':>6} "
          f"{'µs/line left at 0.33':>21}")  # fmt: skip
    for family in sorted(FAMILY_DIRS):
        lines = list(read_lines(build_log(args.corpus, family, args.mb)))
        loads_s = best(bare_loads, lines) / len(lines) * 1e6
        skeleton_s = best(skeleton, lines) / len(lines) * 1e6
        left = loads_s / TARGET - skeleton_s
        print(f"{family:<20} {loads_s:>14.2f} {skeleton_s:>17.2f} {loads_s / skeleton_s:>6.2f} "
              f"{left:>21.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
