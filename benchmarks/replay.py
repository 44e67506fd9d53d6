"""Benchmark: replay a large log through parse → session → final messages.

Builds a large JSON Lines log from the corpus (each copy of a corpus file gets its own session
and call ids, so the log holds many sessions like a real long-lived stream, and is read by a
reader of its own, as a follower reads each file of a folder), then measures in one run, over
the same lines (each rate the best of ``RUNS`` alternated runs, timed in CPU time):

- the pipeline's rate (lines/s and records/s: reader → session book → final messages, each
  session rendered and released once it is among the least recently active, as a long-lived
  follower would),
- the bare ``orjson.loads`` rate on the very same lines,
- their ratio (issue 2's: pipeline records/s ÷ bare loads lines/s; target ≥ 0.33), the
  lines/s ratio, and the records/s ratio without the final messages (what they cost),
- the peak resident memory of a separate process that runs the pipeline on the whole log
  (target < 200 MB for a 500 MB log).

``--family corpus`` (the default) replays the whole corpus as one log: every family, each its
own source, in the corpus's own proportions (see ``benchmarks.corpus_mix``); ``--mb`` is then
the size read for the memory figure, across all sources. ``--family FAMILY`` replays one;
``--families A,B`` the corpus's mix of those families only.

Usage: ``python -m benchmarks.replay [--mb 500] [--family corpus|FAMILY] [--corpus DIR]``
Prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import orjson

from benchmarks.corpus_mix import FileCopies, interleaved, run_sources
from blocks.thread import thread_messages
from bot.build import description
from bot.collector import collecting_rarely
from bot.formats import FAMILIES
from bot.formats.reader import SourceReader
from bot.records import Record
from bot.session import Session, SessionBook
from bot.sources.files import is_document, split_lines

ROOT = Path(__file__).resolve().parents[1]
_SHARED = os.environ.get("SLACKTAIL_SHARED")  # where the corpus is, when not beside the project
DEFAULT_CORPUS = Path(_SHARED) / "corpus" if _SHARED else ROOT.parent / "shared" / "corpus"
OUT = ROOT / "benchmarks" / "out"
# Ids that must differ per copy: session ids, tool call ids, uuids, run ids (every family's).
_ID = re.compile(rb'"(session_id|sessionId|sessionID|id|tool_use_id|uuid|parentUuid|run_id|'
                 rb'thread_id|parent_tool_use_id|tool_call_id|message_id|tool_id|call_id|callID|'
                 rb'toolCallId|conversation_id)":\s*"([^"]*)"')  # fmt: skip


def corpus_families(corpus: Path) -> dict[str, list[Path]]:
    """The corpus's JSON Lines files by the family slacktail reads each as (detected as a
    follower detects it; whole-document files are left out, being read once, not streamed)."""
    found: dict[str, list[Path]] = {}
    for path in sorted(corpus.glob("*/*")):
        if not path.is_file() or path.suffix == ".md":
            continue
        data = path.read_bytes()
        if is_document(data):
            continue
        reader = SourceReader(str(path))
        for number, line in split_lines(data):
            reader.feed(line, number)
            if reader.family is not None:
                found.setdefault(reader.family, []).append(path)
                break
    return found


def corpus_lines(corpus: Path, family: str) -> list[bytes]:
    """The JSON Lines of one family's corpus files."""
    lines: list[bytes] = []
    for path in corpus_families(corpus).get(family, []):
        lines.extend(_file_lines(path))
    return lines


def file_lengths(corpus: Path, family: str) -> list[int]:
    """The lines of each of one family's corpus files, in ``corpus_lines``'s order: where each
    copy of a file starts in its log (each is read by a reader of its own, see ``FileCopies``)."""
    return [len(_file_lines(path)) for path in corpus_families(corpus).get(family, [])]


def _file_lines(path: Path) -> list[bytes]:
    return [line for line in path.read_bytes().split(b"\n") if line.strip()]


def _renamer(suffix: bytes) -> Callable[[re.Match[bytes]], bytes]:
    def rename(match: re.Match[bytes]) -> bytes:
        return match.group(0)[:-1] + suffix + b'"'

    return rename


def build_log(corpus: Path, family: str, megabytes: int) -> Path:
    """A log of about ``megabytes`` MB: copies of the corpus lines with per-copy ids."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{family}-{megabytes}mb.jsonl"
    if path.exists() and path.stat().st_size >= megabytes * 1_000_000:
        return path
    lines = corpus_lines(corpus, family)
    target = megabytes * 1_000_000
    written = 0
    copy = 0
    with path.open("wb") as out:
        while written < target:
            rename = _renamer(f"-{copy}".encode())
            for line in lines:
                renamed = _ID.sub(rename, line)
                out.write(renamed + b"\n")
                written += len(renamed) + 1
            copy += 1
    return path


def read_lines(path: Path) -> Iterator[bytes]:
    with path.open("rb") as log:
        for line in log:
            yield line.rstrip(b"\n")


OPEN_SESSIONS = 256  # sessions kept open; past this the least recently active one is finished


def run_pipeline(
    lines: Iterator[bytes] | list[bytes], files: list[int], family: str | None,
    render: bool = True,
) -> Counts:
    """The whole pipeline over ``lines``, streaming as a long-lived follower would: once more
    than ``OPEN_SESSIONS`` sessions are open, the least recently active one gets its final
    messages rendered and is released, so memory stays bounded however many sessions the log
    holds (a late record of a released session would be counted in ``late``). ``render``
    false leaves the final messages out (parse → session only), to show what they cost.
    ``files``: the lines of each corpus file (each copy of one is read by a reader of its own).
    """
    source = FileCopies("bench", files, family)
    _, reader, end = source.next_file()
    book = SessionBook()
    apply = book.apply
    sessions = book.sessions
    count = number = messages = 0
    for line in lines:
        count += 1
        number += 1
        if number > end:  # the next file copy, read by a reader of its own
            done, reader, end = source.next_file()
            for record in done:
                apply(record)
            number = 1
        for record in reader.feed(line, number):
            apply(record)
        if len(sessions) > OPEN_SESSIONS:
            messages += _finish(book, book.least_recent(), render)
    for record in source.finish():
        apply(record)
    book.close()
    for session in list(sessions.values()):
        messages += _finish(book, session, render)
    return Counts(count, source.records, messages, book.late)


class Counts(NamedTuple):
    lines: int
    records: int
    messages: int
    late: int  # records of a session already released: must be 0 for the figures to hold


def _finish(book: SessionBook, session: Session | None, render: bool) -> int:
    """Render ``session``'s final messages, release it, and count the messages."""
    if session is None:
        return 0
    messages = len(thread_messages(session)) if render else 0
    book.release(session.session_id)
    return messages


RUNS = 3  # each rate is the best of this many runs, alternated: loads, pipeline, loads, ...


def measure_speed(path: Path, files: list[int], limit: int) -> None:
    """Bare ``orjson.loads`` and the whole pipeline, streaming as it runs for real (nothing
    kept but the open sessions' state), over the same lines in the same run, alternated and
    each timed ``RUNS`` times (the best counts: this machine is shared); then a stage breakdown
    on a prefix."""
    lines = []
    for line in read_lines(path):
        lines.append(line)
        if len(lines) >= limit:
            break
    compare_with_loads(lines, lambda render: run_pipeline(lines, files, None, render))
    measure_drift(lines, files)
    print_stages(lines[:STAGE_LINES], files)


def compare_with_loads(lines: list[bytes], replay: Callable[[bool], Counts]) -> None:
    """Time bare ``orjson.loads`` over ``lines`` and ``replay`` of them with and without the
    final messages, alternated, each the best of ``RUNS``; print the rates and ratios."""
    bare = whole = core = float("inf")
    result: list[Counts] = []
    for _ in range(RUNS):
        bare = min(bare, _timed(lambda: _loads_all(lines)))
        whole = min(whole, _timed(lambda: result.append(replay(True))))
        core = min(core, _timed(lambda: replay(False)))
    n, r, messages, late = result[0]
    size_mb = sum(len(line) + 1 for line in lines) / 1e6
    print(f"lines               {n:>12,}  ({size_mb:,.1f} MB, {r:,} records, "
          f"{messages:,} messages, {late} late records; best of {RUNS} runs)")
    print(f"orjson.loads        {n / bare:>12,.0f} lines/s  ({size_mb / bare:,.0f} MB/s)")
    print(f"pipeline            {n / whole:>12,.0f} lines/s  {r / whole:,.0f} records/s")
    ratio = (r / whole) / (n / bare)
    print(f"ratio               {ratio:>12.3f}  records/s ÷ orjson.loads lines/s (issue 2's)")
    print(f"                    {bare / whole:>12.3f}  lines/s ÷ orjson.loads lines/s")
    print(f"without final msgs  {(r / core) / (n / bare):>12.3f}  records/s ÷ orjson.loads lines/s "
          f"(parse → session only: {n / core:,.0f} lines/s)")


STAGE_LINES = 20_000
DRIFT_PARTS = 10


def measure_drift(lines: list[bytes], files: list[int]) -> None:
    """The pipeline's cost per line in the first and the last tenth of one pass over ``lines``:
    a long-lived follower must not slow down as its bounded memories fill up (a plain dict
    evicting its oldest entries once made the last tenth 2.6 times as slow as the first)."""
    step = max(1, len(lines) // DRIFT_PARTS)
    marks: list[tuple[int, float]] = []

    def marked() -> Iterator[bytes]:
        for index, line in enumerate(lines):
            if index % step == 0:
                marks.append((index, time.process_time()))
            yield line
        marks.append((len(lines), time.process_time()))

    run_pipeline(marked(), files, None)
    costs = [(t2 - t1) / (i2 - i1) * 1e6 for (i1, t1), (i2, t2) in itertools.pairwise(marks)]
    print(f"drift               {costs[0]:>12.2f} µs/line in the first tenth, "
          f"{costs[-1]:.2f} in the last (one pass; the last part may be shorter)")


def print_stages(lines: list[bytes], files: list[int]) -> None:
    """Where the time goes, stage by stage, on ``lines`` (records are kept between stages
    here, which a long prefix would make slower than the streaming pipeline)."""
    records: list[Record] = []
    parse = _timed(lambda: _parse_all(FileCopies("bench", files), lines, records))
    loads = _timed(lambda: _loads_all(lines))
    book = SessionBook()
    session = _timed(lambda: _apply_all(book, records))
    render = _timed(lambda: [thread_messages(s) for s in book.sessions.values()])
    n = len(lines)
    print(f"stages (first {n:,} lines, µs/line): parse {parse / n * 1e6:.2f} (of which "
          f"orjson.loads {loads / n * 1e6:.2f}) · session {session / n * 1e6:.2f} · "
          f"final messages {render / n * 1e6:.2f}")


def _loads_all(lines: list[bytes]) -> None:
    loads = orjson.loads
    for line in lines:
        loads(line)  # each value is dropped at once, as the pipeline's are


def _timed(work: Callable[[], object]) -> float:
    """The CPU time ``work`` takes: this process runs alone on no CPU of a shared machine, and
    its wall time would count the others' work too (one thread: on a quiet machine the two are
    the same)."""
    started = time.process_time()
    work()
    return time.process_time() - started


def _parse_all(source: FileCopies, lines: list[bytes], out: list[Record]) -> None:
    _, reader, end = source.next_file()
    number = 0
    for line in lines:
        number += 1
        if number > end:
            done, reader, end = source.next_file()
            out.extend(done)
            number = 1
        out.extend(reader.feed(line, number))
    out.extend(source.finish())


def _apply_all(book: SessionBook, records: list[Record]) -> None:
    apply = book.apply
    for record in records:
        apply(record)
    book.close()


def measure_memory(path: Path, files: list[int], family: str) -> None:
    """Peak RSS of a fresh process running the pipeline over the whole file. (VmHWM, not
    ``ru_maxrss``: the latter survives fork and exec and would count this process's lines.)"""
    code = (
        "from pathlib import Path;"
        "from bot.collector import collecting_rarely; collecting_rarely().__enter__();"
        "from benchmarks.replay import run_pipeline, read_lines;"
        f"n, r, m, late = run_pipeline(read_lines(Path({str(path)!r})), {files!r}, "
        f"{family!r});"
        "peak = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')];"
        "peak = peak[0] / 1024;"
        "print(f'{n} {r} {m} {late} {peak:.1f}')"
    )
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.split()
    took = time.perf_counter() - started
    lines, records, messages, late = (int(part) for part in out[:4])
    peak = float(out[4])
    size_mb = path.stat().st_size / 1e6
    print(f"whole log           {size_mb:>12,.0f} MB, {lines:,} lines, {records:,} records,"
          f" {messages:,} messages, {late} late records in {took:.1f}s")
    print(f"peak memory         {peak:>12.1f} MB (VmHWM: peak RSS of the replaying process)")


CORPUS = "corpus"  # --family: the whole corpus, every family its own source


def corpus_logs(
    corpus: Path, megabytes: int, families: list[str] | None = None
) -> list[tuple[Path, list[int]]]:
    """Each family's built log (of ``families`` only, when given), with the lines of each of
    its corpus files."""
    return [
        (build_log(corpus, family, megabytes), file_lengths(corpus, family))
        for family in _mixed(corpus, families)
    ]


def _mixed(corpus: Path, families: list[str] | None) -> list[str]:
    """The corpus's families in its order, or those of them in ``families``."""
    return [family for family in corpus_families(corpus) if not families or family in families]


def measure_corpus(
    corpus: Path, megabytes: int, limit: int, families: list[str] | None = None
) -> None:
    """``measure_speed`` and ``measure_memory`` for the whole corpus as one log (or the mix of
    ``families`` only)."""
    logs = corpus_logs(corpus, megabytes, families)
    shares = zip(_mixed(corpus, families), logs, strict=True)
    mix = ", ".join(f"{family} {sum(files)}" for family, (_, files) in shares)
    print(f"corpus mix (lines per copy): {mix}")
    pairs = list(itertools.islice(interleaved(logs), limit))
    lines = [line for _, line in pairs]
    files = [lengths for _, lengths in logs]

    def replay(render: bool) -> Counts:
        return Counts(*run_sources(pairs, files, OPEN_SESSIONS, render))

    compare_with_loads(lines, replay)
    code = (
        "from pathlib import Path;"
        "from bot.collector import collecting_rarely; collecting_rarely().__enter__();"
        "from benchmarks.corpus_mix import interleaved, run_sources;"
        f"logs = [(Path(p), k) for p, k in {[(str(p), k) for p, k in logs]!r}];"
        f"n, r, m, late = run_sources(interleaved(logs, {megabytes * 1_000_000}), "
        "[files for _, files in logs], "
        f"{OPEN_SESSIONS});"
        "peak = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')];"
        "print(n, r, m, late, peak[0] / 1024)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.split()
    print(f"whole log           {megabytes:>12,} MB read across {len(logs)} sources, "
          f"{int(out[0]):,} lines, {int(out[1]):,} records, {int(out[2]):,} messages, "
          f"{out[3]} late records")
    print(f"peak memory         {float(out[4]):>12.1f} MB (VmHWM: peak RSS of the replaying "
          "process)")


def main() -> None:
    with collecting_rarely():  # as the command line reads
        _measure()


def _measure() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=500, help="size of the built log in MB")
    parser.add_argument("--family", default=CORPUS, choices=[*sorted(FAMILIES), CORPUS],
                        help="one family's log, or the whole corpus as one log (the default)")
    parser.add_argument("--families", type=lambda text: text.split(","), default=None,
                        help="with --family corpus: the mix of these families only "
                             "(comma-separated; e.g. the five the ratio's target was set on)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--speed-lines", type=int, default=250_000,
                        help="lines of the log used for the speed comparison")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"benchmark: no corpus at {args.corpus}")
    if args.family == CORPUS:
        print(f"the whole corpus as one log; python {sys.version.split()[0]}, {description()}, "
              f"{os.cpu_count()} cpus")
        measure_corpus(args.corpus, args.mb, args.speed_lines, args.families)
        return
    path = build_log(args.corpus, args.family, args.mb)
    files = file_lengths(args.corpus, args.family)
    print(f"log {path} ({args.family}); python {sys.version.split()[0]}, {description()}, "
          f"{os.cpu_count()} cpus")
    measure_speed(path, files, args.speed_lines)
    measure_memory(path, files, args.family)


if __name__ == "__main__":
    main()
