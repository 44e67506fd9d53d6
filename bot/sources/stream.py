"""Reading a binary stream (stdin, a child's stdout) without ever blocking the main loop.

A background thread reads chunks as they come and puts them on a bounded queue (when the main
loop falls that far behind, the thread waits, and so does the writer: memory stays bounded); the
main loop takes what is queued and splits it into lines. End of input closes the source, after
its partial last line.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Protocol

from bot import events
from bot.sources.lines import DEFAULT_MAX_LINE_BYTES, LineSplitter
from bot.sources.pipe_copy import PipeCopy
from bot.sources.source import Item, SourceEvent

CHUNK_BYTES = 64 * 1024
QUEUE_CHUNKS = 256  # at most 16 MiB read ahead
READ_LIMIT_BYTES = 1024 * 1024


class ChunkStream(Protocol):
    """A binary stream that returns what is there (``io.BufferedReader``: stdin's buffer,
    ``Popen.stdout``); ``b""`` at end of input."""

    def read1(self, size: int = ..., /) -> bytes: ...


_END = b""  # queued by the thread once, at end of input (data chunks are never empty)


class StreamReader:
    """Lines of ``stream``, read on a background thread.

    ``on_chunk`` is called on that thread with every chunk as it arrives, before it is queued
    (the wrapped command's write-through). An error reading the stream ends the input; it is
    kept in ``error`` and said (a ``reading_stopped`` event).
    """

    copy: PipeCopy | None = None  # its lines copied, redacted, for Full output (when set)

    def __init__(
        self,
        stream: ChunkStream,
        *,
        name: str = "stdin",
        on_chunk: Callable[[bytes], None] | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        chunk_bytes: int = CHUNK_BYTES,
        queue_chunks: int = QUEUE_CHUNKS,
        read_limit: int = READ_LIMIT_BYTES,
    ) -> None:
        self.name = name
        self.error: OSError | ValueError | None = None
        self._stream = stream
        self._on_chunk = on_chunk
        self._chunk_bytes = chunk_bytes
        self._read_limit = read_limit
        self._splitter = LineSplitter(max_line_bytes)
        self._queue: queue.Queue[bytes] = queue.Queue(maxsize=queue_chunks)
        self._next: bytes | None = None  # a chunk taken off the queue by ``wait_ready``
        self._closed = False
        self._thread = threading.Thread(
            target=self._pump, name=f"slacktail-read-{name}", daemon=True
        )
        self._thread.start()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def offset(self) -> int:
        """Bytes of the stream up to the end of the last line returned."""
        return self._splitter.offset

    @property
    def received(self) -> int:
        """Bytes taken off the queue so far (the partial last line included)."""
        return self._splitter.offset + self._splitter.pending

    def read_available(self) -> list[Item]:
        """The complete lines that arrived since the last call (about ``read_limit`` bytes at
        most); at end of input, the partial last line too, and the source closes."""
        items: list[Item] = []
        budget = self._read_limit
        while budget > 0 and not self._closed:
            chunk = self._take()
            if chunk is None:
                break
            if not chunk:  # _END
                items.extend(self._end())
                break
            items.extend(self._splitter.feed(chunk))
            budget -= len(chunk)
        return items

    def finish_now(self) -> list[Item]:
        """End the input here, whatever the stream still does: what is queued, then the partial
        last line; later data is ignored. (A wrapped command exited but something it started
        still holds its stdout open.)"""
        items: list[Item] = []
        while not self._closed:
            chunk = self._take()
            if not chunk:  # nothing queued, or _END
                items.extend(self._end())
                break
            items.extend(self._splitter.feed(chunk))
        return items

    def ready(self) -> bool:
        return not self._closed and (self._next is not None or not self._queue.empty())

    def wait_ready(self, timeout: float) -> bool:
        """Block until something arrived (or the input ended) or ``timeout`` seconds passed."""
        if self._closed:
            return False
        if self._next is None:
            try:
                self._next = self._queue.get(timeout=max(timeout, 0.0))
            except queue.Empty:
                return False
        return True

    def close(self) -> None:
        """Stop returning lines. The thread is a daemon: a read it is blocked in (a terminal's
        stdin) does not keep the process alive."""
        self._closed = True

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the reading thread to end (after end of input); whether it did."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _take(self) -> bytes | None:
        if self._next is not None:
            chunk, self._next = self._next, None
            return chunk
        try:
            return self._queue.get_nowait()
        except queue.Empty:
            return None

    def _end(self) -> list[Item]:
        self._closed = True
        items: list[Item] = []
        if self.error is not None:
            text = f"warning: {self.name}: reading stopped: {self.error}"
            items.append(SourceEvent(events.ReadingStopped(self.name, str(self.error)), text))
        items.extend(self._splitter.finish())
        return items

    def _pump(self) -> None:
        """The thread: chunks onto the queue until end of input (or an error), then ``_END``."""
        try:
            while not self._closed:
                chunk = self._stream.read1(self._chunk_bytes)
                if not chunk:
                    break
                if self._on_chunk is not None:
                    self._on_chunk(chunk)
                self._put(chunk)
        except (OSError, ValueError) as error:  # EIO, or the stream closed under the thread
            self.error = error
        finally:
            self._put(_END)

    def _put(self, chunk: bytes) -> None:
        """Queue ``chunk``, waiting while the queue is full, unless the source was closed."""
        while not self._closed:
            try:
                self._queue.put(chunk, timeout=0.5)
                return
            except queue.Full:
                continue
