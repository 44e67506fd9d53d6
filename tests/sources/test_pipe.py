"""Pipes and devices as streams: a named pipe with no writer said once and waited on, one with a
writer read at once, a process substitution read from the descriptor already held."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from bot.sources.pipe import PipeReader, is_stream, open_stream

LINES = b'{"a": 1}\n{"b": 2}\n'


def read_all(stream: PipeReader) -> bytes:
    chunks = []
    while chunk := stream.read1(7):
        chunks.append(chunk)
    stream.close()
    return b"".join(chunks)


def write_to(path: Path | str, data: bytes) -> threading.Thread:
    """A program writing ``data`` to the pipe at ``path`` (its opening waits for a reader)."""

    def write() -> None:
        with open(path, "wb") as pipe:
            pipe.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


def test_a_pipe_no_program_writes_to_yet_is_said_once_then_read_once_one_does(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "agent.pipe"
    os.mkfifo(fifo)
    told: list[str] = []

    def tell(text: str) -> None:
        told.append(text)
        write_to(fifo, LINES)  # the writer comes only once the wait was said

    assert read_all(open_stream(fifo, tell)) == LINES
    assert told == [f"{fifo}: waiting for a program to write to this pipe (Ctrl-C to stop)"]


@pytest.mark.parametrize("written", ["before", "after"])
def test_a_pipe_a_program_already_has_open_is_read_without_a_word(
    tmp_path: Path, written: str
) -> None:
    fifo = tmp_path / "agent.pipe"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR)  # a program holds it open for writing (never waits)
    if written == "before":
        os.write(writer, LINES)  # read while opening it: given first
    told: list[str] = []
    stream = open_stream(fifo, told.append)
    if written == "after":
        os.write(writer, LINES)
    os.close(writer)
    assert read_all(stream) == LINES
    assert told == []


def test_a_process_substitution_is_read_from_the_descriptor_held_even_once_its_writer_ended(
    tmp_path: Path,
) -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, LINES)
    os.close(write_end)  # ``<(cat log)``: cat wrote and exited before slacktail began
    try:
        told: list[str] = []
        assert read_all(open_stream(Path(f"/dev/fd/{read_end}"), told.append)) == LINES
        assert told == []
    finally:
        os.close(read_end)


def test_pipes_and_devices_are_streams_files_and_folders_are_not(tmp_path: Path) -> None:
    fifo = tmp_path / "agent.pipe"
    os.mkfifo(fifo)
    (tmp_path / "agent.jsonl").write_bytes(b"")
    assert is_stream(fifo)
    assert is_stream("/dev/zero")
    assert not is_stream(tmp_path / "agent.jsonl")
    assert not is_stream(tmp_path)
    assert not is_stream(tmp_path / "missing")


def test_a_device_is_read_as_a_stream() -> None:
    stream = open_stream(Path("/dev/zero"), lambda text: None)
    assert stream.read1(5) == b"\0" * 5
    stream.close()
