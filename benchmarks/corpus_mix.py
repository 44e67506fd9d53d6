"""The whole corpus as one large log: every family's lines, each family its own source.

What ``python -m benchmarks.replay --family corpus`` replays. A follower of a folder of agent
logs reads several sources at once; here each family's built log (copies of its corpus files,
with per-copy ids) is one source, and the sources are read in turns of one corpus copy each:
per turn, as many lines of each family as the corpus holds. So the log's mix of families is
the corpus's own. Of its JSON Lines files (whole-document files are left out, as in every
family's log), per copy: claude-transcript 1,027 lines (79 %), claude-stream-json 129 (10 %),
agno 104 (8 %), openai-messages 19 (1.5 %), backend 15 (1.2 %).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from blocks.thread import thread_messages
from bot.formats.reader import SourceReader
from bot.session import SessionBook

Line = tuple[int, bytes]  # (source index, raw line)


def interleaved(logs: list[tuple[Path, int]], limit_bytes: int | None = None) -> Iterator[Line]:
    """Lines of ``logs`` ((path, lines per corpus copy) each) in turns of one corpus copy per
    source, until a source runs out or ``limit_bytes`` have been read."""
    files = [_lines(path) for path, _ in logs]
    read = 0
    while True:
        for index, (_, per_copy) in enumerate(logs):
            for _ in range(per_copy):
                line = next(files[index], None)
                if line is None:
                    return
                read += len(line) + 1
                if limit_bytes is not None and read > limit_bytes:
                    return
                yield index, line


def _lines(path: Path) -> Iterator[bytes]:
    with path.open("rb") as log:
        for line in log:
            yield line.rstrip(b"\n")


def run_sources(
    lines: Iterable[Line], sources: int, open_sessions: int, render: bool = True
) -> tuple[int, int, int, int]:
    """``benchmarks.replay.run_pipeline`` over several sources sharing one session book:
    (lines, records, messages, late records)."""
    readers = [SourceReader(f"bench-{index}") for index in range(sources)]
    numbers = [0] * sources
    book = SessionBook()
    apply = book.apply
    sessions = book.sessions
    count = messages = 0
    for index, line in lines:
        count += 1
        numbers[index] += 1
        for record in readers[index].feed(line, numbers[index]):
            apply(record)
        if len(sessions) > open_sessions:
            session = book.least_recent()
            if session is not None:
                messages += len(thread_messages(session)) if render else 0
                book.release(session.session_id)
    for reader in readers:
        for record in reader.finish():
            apply(record)
    book.close()
    for session in list(sessions.values()):
        messages += len(thread_messages(session)) if render else 0
        book.release(session.session_id)
    records = sum(reader.stats.records for reader in readers)
    return count, records, messages, book.late
