"""Benchmark: how fast redaction is, and what it costs the pipeline.

On a log built from the corpus as ``benchmarks.replay`` builds it, in one run:

- ``Redactor.redact`` in MB/s over every string of the log's records (corpus text: almost
  never a secret, so mostly the keyword pre-filter), and over the same text with a fake secret
  of every kind put into one string in ten;
- the pipeline (reader → records → session book → every session's final messages) in
  records/s without redaction and with it (each record redacted before the session applies
  it, each final message's payload redacted once more), on the same lines, alternating runs
  and keeping each one's best; the cost is ``1 - with/without`` (target: under 25 %).

Times are CPU seconds of this process (``time.process_time``), best of ``ROUNDS``.

Usage: ``python -m benchmarks.redaction [--mb 20] [--family claude-transcript]``
Prints figures; it is not a test.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarks.replay import DEFAULT_CORPUS, build_log, read_lines
from blocks.thread import thread_messages
from bot.formats import FAMILIES
from bot.formats.reader import SourceReader
from bot.records import Record
from bot.redaction import Redactor, redact_record, redact_value
from bot.session import SessionBook
from tests.fixtures.secrets.fake import fake_secrets

ROUNDS = 5


def records_of(lines: list[bytes]) -> list[Record]:
    reader = SourceReader("bench")
    records: list[Record] = []
    for number, line in enumerate(lines, start=1):
        records.extend(reader.feed(line, number))
    return records + reader.finish()


def strings_of(value: Any) -> Iterator[str]:
    """Every string in a record, as ``redact_record`` walks it."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings_of(key)
            yield from strings_of(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_of(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from strings_of(getattr(value, field.name))


def with_secrets(strings: list[str]) -> list[str]:
    """The same strings, one in ten carrying a fake secret (kinds in turn) in its middle."""
    secrets = [fake.text for fake in fake_secrets()]
    out = []
    for index, text in enumerate(strings):
        if index % 10 == 0:
            middle = len(text) // 2
            text = f"{text[:middle]} {secrets[index // 10 % len(secrets)]} {text[middle:]}"
        out.append(text)
    return out


def redaction_rate(redactor: Redactor, strings: list[str]) -> float:
    """MB/s of ``redact`` over ``strings`` (characters taken as bytes), best of ROUNDS."""
    size = sum(len(text) for text in strings) / 1e6
    redact = redactor.redact
    best = min(_timed(lambda: [redact(text) for text in strings]) for _ in range(ROUNDS))
    return size / best


def print_redaction_rates(lines: list[bytes], redactor: Redactor) -> None:
    strings = [text for record in records_of(lines) for text in strings_of(record)]
    size = sum(len(text) for text in strings) / 1e6
    print(f"strings in its records     {len(strings):>10,} ({size:,.1f} M characters)")
    print(f"redact, corpus text        {redaction_rate(redactor, strings):>10,.0f} MB/s")
    secret_rate = redaction_rate(redactor, with_secrets(strings))
    print(f"redact, 1 in 10 w/ secret  {secret_rate:>10,.0f} MB/s")


def run_pipeline(lines: list[bytes], redactor: Redactor | None) -> int:
    """Records through the pipeline to every session's final messages; the record count."""
    reader = SourceReader("bench")
    book = SessionBook()
    apply = book.apply
    for number, line in enumerate(lines, start=1):
        for record in reader.feed(line, number):
            apply(record if redactor is None else redact_record(record, redactor))
    for record in reader.finish():
        apply(record if redactor is None else redact_record(record, redactor))
    book.close()
    for session in book.sessions.values():
        for message in thread_messages(session):
            if redactor is not None:
                redact_value(message.payload(), redactor)
    return reader.stats.records


def pipeline_rates(lines: list[bytes], redactor: Redactor) -> tuple[float, float]:
    """(records/s without, records/s with redaction): runs alternate, each keeps its best."""
    records = run_pipeline(lines, None)
    plain: list[float] = []
    redacted: list[float] = []
    for _ in range(ROUNDS):
        plain.append(_timed(lambda: run_pipeline(lines, None)))
        redacted.append(_timed(lambda: run_pipeline(lines, redactor)))
    return records / min(plain), records / min(redacted)


def _timed(work: Callable[[], object]) -> float:
    """CPU seconds of this process (others' load on a shared machine counts less)."""
    started = time.process_time()
    work()
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=20, help="size of the built log in MB")
    parser.add_argument("--family", default="claude-transcript", choices=sorted(FAMILIES))
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"benchmark: no corpus at {args.corpus}")
    path = build_log(args.corpus, args.family, args.mb)
    lines = list(read_lines(path))
    redactor = Redactor()
    print(f"log {path} ({args.family}): {len(lines):,} lines")
    print_redaction_rates(lines, redactor)
    gc.collect()  # what the rates above kept is gone: the pipelines run on the same heap
    plain, redacted = pipeline_rates(lines, redactor)
    print(f"pipeline without redaction {plain:>10,.0f} records/s")
    print(f"pipeline with redaction    {redacted:>10,.0f} records/s")
    print(f"redaction's cost           {1 - redacted / plain:>10.1%}  (target: under 25 %)")


if __name__ == "__main__":
    main()
