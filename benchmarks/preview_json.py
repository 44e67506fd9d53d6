"""Benchmark: ``preview --json`` of a long single-session log, as a whole process, against a
process doing no more than ``orjson.loads`` of each of the same lines.

The log: the assistant and user lines of the claude-stream-json corpus (tool calls, their
results, text), copied with per-copy ids into ONE session until it has ``--lines`` lines
(100,000), after the corpus's first ``init`` line and before one ``result`` line. Both
processes are timed whole (start-up and output included, stdout to /dev/null), best of
``--runs``; the figure is bare loads' time over preview's (target ≥ 0.33). It also prints
preview's peak resident size. Which build runs (pure or compiled) is the one ``bot`` imports
from: ``python3 -m bot.cli --version`` says.

Usage: ``python3 -m benchmarks.preview_json [--lines 100000] [--runs 3]``. Prints figures; it
is not a test.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import orjson

from benchmarks.replay import DEFAULT_CORPUS, OUT, _renamer, corpus_lines

_SESSION = re.compile(rb'"session_id":\s*"[^"]*"')
_CALL_ID = re.compile(rb'"(id|tool_use_id|uuid|parentUuid|parent_tool_use_id)":\s*"([^"]*)"')
SESSION = b'"session_id":"preview-json-bench"'
SHARED = os.environ.get("SLACKTAIL_SHARED")  # where the corpus is, when not beside the project
CORPUS = Path(SHARED) / "corpus" if SHARED else DEFAULT_CORPUS
LOADS = (
    "import sys, orjson\n"
    "with open(sys.argv[1], 'rb') as log:\n"
    "    for line in log:\n"
    "        orjson.loads(line)\n"
)


def build_log(corpus: Path, lines: int) -> Path:
    """The single-session log of ``lines`` lines (built once, kept in benchmarks/out)."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"preview-json-{lines}.jsonl"
    if path.exists():
        return path
    found = corpus_lines(corpus, "claude-stream-json")
    kinds = [(orjson.loads(line).get("type"), line) for line in found]
    init = next(line for kind, line in kinds if kind == "system")
    result = next(line for kind, line in kinds if kind == "result")
    body = [line for kind, line in kinds if kind in ("assistant", "user")]
    out = [_SESSION.sub(SESSION, init)]
    copy = 0
    while len(out) < lines - 1:
        rename = _renamer(f"-{copy}".encode())
        for line in body:
            out.append(_SESSION.sub(SESSION, _CALL_ID.sub(rename, line)))
            if len(out) == lines - 1:
                break
        copy += 1
    out.append(_SESSION.sub(SESSION, result))
    path.write_bytes(b"\n".join(out) + b"\n")
    return path


# preview run as ``slacktail preview --json LOG`` is, then its own peak resident size (VmHWM,
# which exec resets: ``ru_maxrss`` would keep this process's, and the log it built) on stderr.
PREVIEW = (
    "import sys\n"
    "from bot.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "with open('/proc/self/status') as status:\n"
    "    peak = [line.split()[1] for line in status if line.startswith('VmHWM')][0]\n"
    "sys.stderr.write(f'VmHWM {peak}\\n')\n"
    "sys.exit(code)\n"
)


def timed(command: list[str], runs: int) -> tuple[float, float, float]:
    """The best wall time and the best CPU time (user + system: less noisy on a shared
    machine) of ``runs`` runs of ``command`` (stdout to /dev/null), and the peak resident size
    in MB it reports on stderr (``VmHWM <KB>``; 0 when it does not)."""
    best = best_cpu = float("inf")
    peak = 0.0
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              check=True, text=True)  # fmt: skip
        best = min(best, time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        best_cpu = min(best_cpu, cpu)
        for line in done.stderr.splitlines():
            if line.startswith("VmHWM "):
                peak = max(peak, int(line.split()[1]) / 1024)
    return best, best_cpu, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"benchmark: no corpus at {args.corpus}")
    log = build_log(args.corpus, args.lines)
    build = subprocess.run([sys.executable, "-m", "bot.cli", "--version"], check=True,
                           capture_output=True, text=True).stdout.strip()  # fmt: skip
    loads, loads_cpu, _ = timed([sys.executable, "-c", LOADS, str(log)], args.runs)
    preview, preview_cpu, peak = timed(
        [sys.executable, "-c", PREVIEW, "preview", "--json", str(log)], args.runs
    )
    size = log.stat().st_size / 1e6
    print(f"log                  {args.lines:,} lines, {size:.1f} MB, one session ({log})")
    print(f"build                {build}")
    print(f"bare orjson.loads    {loads:7.2f} s wall, {loads_cpu:7.2f} s CPU")
    print(f"preview --json       {preview:7.2f} s wall, {preview_cpu:7.2f} s CPU  "
          f"(peak RSS {peak:.0f} MB)")  # fmt: skip
    print(f"ratio                {loads / preview:7.2f} wall, {loads_cpu / preview_cpu:7.2f} CPU  "
          "(target ≥ 0.33)")  # fmt: skip

if __name__ == "__main__":
    main()
