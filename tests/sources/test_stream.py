"""The stream reader: lines from a pipe read on a thread, end of input closes the source."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator

import pytest

from bot import events
from bot.sources.lines import Line
from bot.sources.stream import StreamReader
from tests.sources.helpers import collect, data, said, until_closed, until_lines, wait_until


class Pipe:
    """A pipe: its read end as a buffered stream, its write end for the test."""

    def __init__(self) -> None:
        read_fd, self._write_fd = os.pipe()
        stream = os.fdopen(read_fd, "rb")
        assert isinstance(stream, io.BufferedReader)
        self.stream = stream
        self.ended = False

    def write(self, chunk: bytes) -> None:
        os.write(self._write_fd, chunk)

    def end(self) -> None:
        """Close the write end: end of input."""
        if not self.ended:
            self.ended = True
            os.close(self._write_fd)


@pytest.fixture
def pipe() -> Iterator[Pipe]:
    pipe = Pipe()
    try:
        yield pipe
    finally:
        pipe.end()
        pipe.stream.close()


def test_lines_written_to_a_pipe_are_read(pipe: Pipe) -> None:
    reader = StreamReader(pipe.stream, name="pipe")
    assert reader.read_available() == []
    pipe.write(b"one\ntw")
    items = collect(reader, until_lines(1))
    assert items == [Line(1, 4, b"one")]
    pipe.write(b"o\n")
    assert collect(reader, until_lines(1)) == [Line(2, 8, b"two")]
    assert not reader.closed


def test_end_of_input_emits_the_partial_last_line_and_closes(
    pipe: Pipe,
) -> None:
    reader = StreamReader(pipe.stream)
    pipe.write(b"a\nlast")
    pipe.end()
    assert data(collect(reader, until_closed(reader))) == [b"a", b"last"]
    assert reader.closed
    assert reader.error is None
    assert reader.read_available() == []
    assert not reader.wait_ready(1.0)


def test_wait_ready_returns_once_data_arrives(pipe: Pipe) -> None:
    reader = StreamReader(pipe.stream)
    assert not reader.wait_ready(0.01)
    pipe.write(b"x\n")
    assert reader.wait_ready(5.0)
    assert reader.ready()
    assert data(reader.read_available()) == [b"x"]
    assert not reader.ready()


def test_one_read_returns_at_most_its_limit(pipe: Pipe) -> None:
    reader = StreamReader(pipe.stream, chunk_bytes=4, read_limit=8)
    pipe.write(b"aaa\nbbb\nccc\nddd\n")
    pipe.end()
    assert reader.join(timeout=5.0)  # the reading thread queued four chunks and the end
    assert data(reader.read_available()) == [b"aaa", b"bbb"]
    assert data(collect(reader, until_closed(reader))) == [b"ccc", b"ddd"]


class FailingStream:
    """A stream that gives one chunk, then fails as a terminal that went away does."""

    def __init__(self) -> None:
        self.calls = 0

    def read1(self, size: int = -1, /) -> bytes:
        self.calls += 1
        if self.calls == 1:
            return b"before\n"
        raise OSError(5, "Input/output error")


def test_a_read_error_ends_the_input_and_is_kept_and_said() -> None:
    reader = StreamReader(FailingStream(), name="tty")
    items = collect(reader, until_closed(reader))
    assert data(items) == [b"before"]
    assert isinstance(reader.error, OSError)
    assert said(items) == [events.ReadingStopped("tty", "[Errno 5] Input/output error")]
    assert reader.join(timeout=5.0)


def test_finish_now_ends_the_input_while_the_stream_stays_open(
    pipe: Pipe,
) -> None:
    reader = StreamReader(pipe.stream)
    pipe.write(b"done\nhalf")
    assert reader.wait_ready(5.0)  # the chunk arrived
    assert data(reader.finish_now()) == [b"done", b"half"]
    assert reader.closed
    pipe.write(b"ignored\n")
    assert reader.read_available() == []


def test_chunks_are_handed_to_on_chunk_as_they_arrive(
    pipe: Pipe,
) -> None:
    seen: list[bytes] = []
    reader = StreamReader(pipe.stream, on_chunk=seen.append)
    pipe.write(b"partial")
    wait_until(lambda: b"".join(seen) == b"partial")
    assert reader.read_available() == []
