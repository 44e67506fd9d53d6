"""Benchmark: what ``preview --json`` cannot go below in C alone, on ``benchmarks.preview_json``'s
log (100,000 lines of one session): reading its lines, ``orjson.loads`` of each, and the C parts
of the secret scan every record gets before the session sees it (``orjson.dumps`` of each
record's content, then the Aho-Corasick search over those bytes), each timed in this process
(CPU time, best of ``--runs``), beside ``redact_record`` whole. The figures against the 1.0 s
that the 0.33 target leaves ``preview --json`` are argued in benchmarks/PERFORMANCE.md.

Usage: ``python3 -m benchmarks.preview_floor [--lines 100000] [--runs 3]``. Prints figures; it
is not a test.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import orjson

from benchmarks.preview_json import CORPUS, build_log
from bot.formats.reader import SourceReader
from bot.redaction import Redactor, redact_record
from bot.redaction.records import content_of


def best(work: Callable[[], object], runs: int) -> float:
    """The least CPU time of ``runs`` runs of ``work``."""
    least = float("inf")
    for _ in range(runs):
        started = time.process_time()
        work()
        least = min(least, time.process_time() - started)
    return least


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    path = build_log(CORPUS, args.lines)
    lines = path.read_bytes().splitlines()
    reader = SourceReader(str(path))
    records = [
        record for number, line in enumerate(lines, 1) for record in reader.feed(line, number)
    ]
    redactor = Redactor()
    contents = [content_of(record) for record in records]
    blobs = [orjson.dumps(content) for content in contents]

    def read() -> None:
        with path.open("rb") as log:
            for _ in log:
                pass

    def loads() -> None:  # each value dropped as the next is made, as bare loads does
        for line in lines:
            orjson.loads(line)

    def dumps() -> None:
        for content in contents:
            orjson.dumps(content)

    def search() -> None:
        for blob in blobs:
            redactor.may_hold_secret_json(blob)

    def redact() -> None:
        for record in records:
            redact_record(record, redactor)

    figures = {
        "reading the lines": best(read, args.runs),
        "orjson.loads of each line": best(loads, args.runs),
        "orjson.dumps of each record's content": best(dumps, args.runs),
        "the secret search over those bytes": best(search, args.runs),
        "redact_record of each record (whole)": best(redact, args.runs),
    }
    size = sum(map(len, blobs)) / 1e6
    print(f"log      {len(lines):,} lines, {len(records):,} records, {size:.0f} MB of content")
    for what, seconds in figures.items():
        print(f"{seconds:7.3f} s  {what}")
    c_only = sum(list(figures.values())[:4])
    print(f"{c_only:7.3f} s  reading, loads and the secret scan's C parts together")


if __name__ == "__main__":
    main()
