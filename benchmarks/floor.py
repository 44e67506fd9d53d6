"""Benchmark: the floor under issue 2's speed ratio in CPython.

For each log family, on the same lines in the same run, it measures the bare ``orjson.loads``
rate and the rate of a skeleton pipeline that does the least any pipeline must do per line:
``orjson.loads``, one field read, one slotted record built, one dispatch by type through a
dict, one state update. No format rule, no significance, no message. The skeleton's ratio to
``loads`` is the best ratio a pipeline in Python could reach; what is left between the
skeleton and the 0.33 target is the time per line for everything the issue asks for. The
skeleton (``benchmarks/floor_skeleton.py``) runs both interpreted and, like slacktail's core,
compiled with mypyc (into a temporary folder; skipped where mypyc cannot build it).

Usage: ``python -m benchmarks.floor [--mb 20]``
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from benchmarks.floor_skeleton import skeleton
from benchmarks.replay import DEFAULT_CORPUS, build_log, corpus_families, read_lines

SKELETON_SOURCE = Path(__file__).with_name("floor_skeleton.py")

ROUNDS = 5
TARGET = 0.33


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


def compiled_skeleton() -> Callable[[list[bytes]], None] | None:
    """The skeleton compiled with mypyc in a temporary folder, or None if it cannot be."""
    folder = Path(tempfile.mkdtemp(prefix="slacktail-floor-"))
    shutil.copy(SKELETON_SOURCE, folder / "floor_skeleton_compiled.py")
    built = subprocess.run(
        [sys.executable, "-m", "mypyc", "floor_skeleton_compiled.py"],
        cwd=folder, capture_output=True, text=True, check=False,
    )
    if built.returncode != 0:
        print(f"(the compiled skeleton could not be built: {built.stderr.strip()[-200:]})")
        return None
    sys.path.insert(0, str(folder))
    module = importlib.import_module("floor_skeleton_compiled")
    assert module.__file__ is not None and not module.__file__.endswith(".py")
    skeleton: Callable[[list[bytes]], None] = module.skeleton
    return skeleton


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=20, help="size of each built log in MB")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"benchmark: no corpus at {args.corpus}")
    skeletons = {"interpreted": skeleton, "compiled": compiled_skeleton()}
    print(f"{'family':<20} {'skeleton':<12} {'loads µs/line':>14} {'skeleton µs/line':>17} "
          f"{'ratio':>6} {'µs/line left at 0.33':>21}")  # fmt: skip
    for family in sorted(corpus_families(args.corpus)):
        lines = list(read_lines(build_log(args.corpus, family, args.mb)))
        for kind, work in skeletons.items():
            if work is None:
                continue
            loads_s = best(bare_loads, lines) / len(lines) * 1e6
            skeleton_s = best(work, lines) / len(lines) * 1e6
            left = loads_s / TARGET - skeleton_s
            print(f"{family:<20} {kind:<12} {loads_s:>14.2f} {skeleton_s:>17.2f} "
                  f"{loads_s / skeleton_s:>6.2f} {left:>21.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
