"""Spooling stdin: its bytes land in a private spool file as they come (a line over the limit cut
short), the lines are read from that file, the input ends after stdin's end, and spools left by
an earlier run are found."""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.errors import InputError
from bot.redaction import Redactor
from bot.sources.file_options import FileOptions
from bot.sources.follow import FileFollower
from bot.sources.lines import Line, LineOverLimit, LongLine
from bot.sources.pipe_copy import redacted_line
from bot.sources.spool import (
    LineClipper,
    LineRedactor,
    StdinSpool,
    leftover_spools,
    remove_spool,
)
from tests.sources.helpers import collect, data, until_closed, until_lines, wait_until

MOMENT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.fixture
def pipe() -> Iterator[tuple[BinaryIO, int]]:
    """A stream to read (like stdin's buffer) and the descriptor that writes into it."""
    read_end, write_end = os.pipe()
    stream = open(read_end, "rb")  # noqa: SIM115 (closed below)
    yield stream, write_end
    with contextlib.suppress(OSError):  # closed by the test already
        os.close(write_end)  # first: the spool's thread reading the stream sees its end
    stream.close()


def test_lines_written_to_stdin_are_read_through_the_spool(
    tmp_path: Path, pipe: tuple[BinaryIO, int]
) -> None:
    stream, writer = pipe
    spool = StdinSpool(stream, tmp_path / "spool", now=lambda: MOMENT)
    os.write(writer, b"one\ntwo\n")
    assert data(collect(spool, until_lines(2))) == [b"one", b"two"]
    assert spool.path.read_bytes() == b"one\ntwo\n"
    assert spool.path.name == f"stdin-20260102T030405000000Z-{os.getpid()}.jsonl"
    spool.close()


def test_the_spool_file_is_private(tmp_path: Path, pipe: tuple[BinaryIO, int]) -> None:
    spool = StdinSpool(pipe[0], tmp_path / "spool")
    assert stat.S_IMODE(spool.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(spool.path.parent.stat().st_mode) == 0o700
    spool.close()


def test_the_input_ends_after_stdin_with_its_partial_last_line(
    tmp_path: Path, pipe: tuple[BinaryIO, int]
) -> None:
    stream, writer = pipe
    spool = StdinSpool(stream, tmp_path / "spool")
    os.write(writer, b"one\nlast")
    os.close(writer)
    assert data(collect(spool, until_closed(spool))) == [b"one", b"last"]
    assert spool.join(timeout=5)
    assert not spool.ready()


def test_waiting_wakes_when_stdin_brings_bytes(tmp_path: Path, pipe: tuple[BinaryIO, int]) -> None:
    stream, writer = pipe
    spool = StdinSpool(stream, tmp_path / "spool")
    assert not spool.ready()
    os.write(writer, b"x\n")
    assert spool.wait_ready(5)
    assert data(spool.read_available()) == [b"x"]
    spool.close()


def test_a_spool_left_by_an_earlier_run_is_found_and_resumed(
    tmp_path: Path, pipe: tuple[BinaryIO, int]
) -> None:
    stream, writer = pipe
    first = StdinSpool(stream, tmp_path / "spool", now=lambda: MOMENT)
    os.write(writer, b"read\n")
    collect(first, until_lines(1))
    committed = first.position()  # what the store committed before a crash
    os.write(writer, b"not yet\n")
    wait_until(lambda: first.path.stat().st_size == 13)
    first.close()
    with open(os.devnull, "rb") as empty:
        second = StdinSpool(empty, tmp_path / "spool")
    assert leftover_spools(tmp_path / "spool", besides=second.path) == [first.path]
    with FileFollower(first.path, FileOptions(stop_at_end=True), resume=committed) as rest:
        assert rest.read_available() == [Line(2, 13, b"not yet")]
    remove_spool(first.path)
    assert leftover_spools(tmp_path / "spool", besides=second.path) == []
    second.close()


def test_a_spool_folder_that_cannot_be_made_is_an_input_error(
    tmp_path: Path, pipe: tuple[BinaryIO, int]
) -> None:
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(InputError, match="cannot spool stdin"):
        StdinSpool(pipe[0], tmp_path / "file" / "spool")


def test_a_line_with_no_end_does_not_fill_the_spool(
    tmp_path: Path, pipe: tuple[BinaryIO, int]
) -> None:
    stream, writer = pipe
    spool = StdinSpool(stream, tmp_path / "spool", max_line_bytes=1024)
    for _ in range(64):
        os.write(writer, b"\0" * 65536)  # 4 MiB of /dev/zero
    os.write(writer, b"\nafter\n")
    items = collect(spool, until_lines(1))
    assert items == [LineOverLimit(1, 1024), LongLine(1, 1026, 1025), Line(2, 1032, b"after")]
    assert spool.path.stat().st_size == 1032
    spool.close()


@given(
    data=st.lists(st.sampled_from([b"a", b"bb", b"\n", b"xxxxxxx"]), max_size=40).map(b"".join),
    cuts=st.lists(st.integers(0, 300), max_size=10),
    keep=st.integers(1, 9),
)
def test_clipping_cuts_each_line_to_its_first_bytes_however_it_is_chunked(
    data: bytes, cuts: list[int], keep: int
) -> None:
    bounds = [0, *sorted(cut % (len(data) + 1) for cut in cuts), len(data)]
    clipper = LineClipper(keep)
    clipped = b"".join(clipper.clip(data[a:b]) for a, b in itertools.pairwise(bounds))
    assert clipped == b"\n".join(line[:keep] for line in data.split(b"\n"))


SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_given_a_redactor_stdin_is_spooled_without_its_secrets(
    tmp_path: Path, pipe: tuple[BinaryIO, int]
) -> None:
    stream, writer = pipe
    spool = StdinSpool(stream, tmp_path / "spool", redactor=Redactor())
    secret = SECRET.encode()
    os.write(writer, b'{"a": "one"}\n{"token": "' + secret + b'"}\nlast ' + secret)
    os.close(writer)
    assert data(collect(spool, until_closed(spool))) == [
        b'{"a": "one"}', b'{"token": "[redacted:github-token]"}', b"last [redacted:github-token]"
    ]
    assert SECRET.encode() not in spool.path.read_bytes()


@given(
    chunks=st.lists(st.sampled_from([b"a", b"\n", b"token ", SECRET.encode(), b"{\"x\": 1}"]),
                    max_size=30),
    cuts=st.lists(st.integers(0, 500), max_size=10),
)  # fmt: skip
def test_redacting_gives_each_line_redacted_however_it_is_chunked(
    chunks: list[bytes], cuts: list[int]
) -> None:
    text = b"".join(chunks)
    bounds = [0, *sorted(cut % (len(text) + 1) for cut in cuts), len(text)]
    redacting = LineRedactor(Redactor())
    written = b"".join(redacting.redact(text[a:b]) for a, b in itertools.pairwise(bounds))
    written += redacting.flush()
    expected = [redacted_line(Redactor(), line) for line in text.split(b"\n")]
    assert written == b"\n".join(expected)
    assert SECRET.encode() not in written
