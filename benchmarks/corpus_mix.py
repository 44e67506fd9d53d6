"""The whole corpus as one large log: every family's lines, each family its own source.

What ``python -m benchmarks.replay --family corpus`` replays. A follower of a folder of agent
logs reads several sources at once; here each family's built log (copies of its corpus files,
with per-copy ids) is one source, and the sources are read in turns of one corpus copy each:
per turn, as many lines of each family as the corpus holds. So the log's mix of families is
the corpus's own. Each copy of a corpus file is read by a reader of its own, as a follower
reads each file of a folder (see ``FileCopies``). Of its JSON Lines files (whole-document files
are left out, as in every family's log), per copy of 3,064 lines: claude-transcript 1,027
(34 %), pi-session 1,019 (33 %), codex-rollout 414 (14 %), claude-stream-json 155 (5 %),
codex-exec-json 122 (4 %), agno 104 (3 %), pi-json 61 (2 %), and eight families of 11 to 36
lines each (gemini-stream-json, cursor-stream-json, gemini-session, openai-messages, kimi-wire,
opencode-json, backend, antigravity-transcript: 5 % together)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from blocks.thread import thread_messages
from bot.formats.reader import SourceReader
from bot.records import Record
from bot.session import SessionBook

Line = tuple[int, bytes]  # (source index, raw line)


def interleaved(
    logs: list[tuple[Path, list[int]]], limit_bytes: int | None = None
) -> Iterator[Line]:
    """Lines of ``logs`` ((path, lines of each corpus file) each) in turns of one corpus copy
    per source, until a source runs out or ``limit_bytes`` have been read."""
    files = [_lines(path) for path, _ in logs]
    read = 0
    while True:
        for index, (_, lengths) in enumerate(logs):
            for _ in range(sum(lengths)):
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


class FileCopies:
    """One source's lines: copies of its corpus files, one after another, each copy of a file
    read by a reader of its own, as a follower reads each file of a folder. (One reader for
    them all would pile every copy of a file into one ever-growing session wherever a family
    names its session after its file: Kimi, Antigravity, pi's events, trimmed Codex rollouts.)"""

    def __init__(self, name: str, files: list[int], family: str | None = None) -> None:
        self.name, self.files, self.family = name, files, family  # files: lines of each
        self.copies = 0  # file copies begun
        self.reader: SourceReader | None = None
        self.records = 0  # records of the readers done with

    def next_file(self) -> tuple[list[Record], SourceReader, int]:
        """The end of the current file copy (its last records), then the next copy's reader
        and lines."""
        done = self.finish()
        reader = self.reader = SourceReader(f"{self.name}-{self.copies}", family=self.family)
        lines = self.files[self.copies % len(self.files)]
        self.copies += 1
        return done, reader, lines

    def finish(self) -> list[Record]:
        """The end of the current file copy's input."""
        reader, self.reader = self.reader, None
        if reader is None:
            return []
        done = reader.finish()
        self.records += reader.stats.records
        return done


def run_sources(
    lines: Iterable[Line], files: list[list[int]], open_sessions: int, render: bool = True
) -> tuple[int, int, int, int]:
    """``benchmarks.replay.run_pipeline`` over several sources sharing one session book
    (``files``: per source, the lines of each of its corpus files, see ``FileCopies``):
    (lines, records, messages, late records)."""
    sources = [FileCopies(f"bench-{index}", lengths) for index, lengths in enumerate(files)]
    firsts = [source.next_file() for source in sources]
    readers = [reader for _, reader, _ in firsts]
    ends = [lines for _, _, lines in firsts]  # each source's current file copy's lines
    numbers = [0] * len(sources)
    book = SessionBook()
    apply = book.apply
    sessions = book.sessions
    count = messages = 0
    for index, line in lines:
        count += 1
        number = numbers[index] + 1
        if number > ends[index]:  # the next file copy, read by a reader of its own
            done, readers[index], ends[index] = sources[index].next_file()
            for record in done:
                apply(record)
            number = 1
        numbers[index] = number
        for record in readers[index].feed(line, number):
            apply(record)
        if len(sessions) > open_sessions:
            session = book.least_recent()
            if session is not None:
                messages += len(thread_messages(session)) if render else 0
                book.release(session.session_id)
    for source in sources:
        for record in source.finish():
            apply(record)
    book.close()
    for session in list(sessions.values()):
        messages += len(thread_messages(session)) if render else 0
        book.release(session.session_id)
    records = sum(source.records for source in sources)
    return count, records, messages, book.late
