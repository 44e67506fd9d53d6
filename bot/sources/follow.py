"""Following a growing file like ``tail -F``: what was appended since the last look, as lines.

The follower keeps the file open and reads from where it stopped, in chunks, at most
``read_limit`` bytes per call (so memory stays bounded however far behind it is); the caller
drives the loop. What it copes with:

- truncation and copytruncate: the file shrank, or grew with other first bytes (a fingerprint of
  up to 1 KiB): a ``Truncated`` marker, then the file again from its start (or, when it was only
  cut short with its first bytes kept, from the cut, without the lines already returned);
- rename rotation and deletion: the path names another file, or none: the open file is read to
  its end (its partial last line emitted), then a ``Rotated`` marker and the new file from its
  start once the path names one again;
- a restart: ``resume`` (a ``FilePosition``) continues the same file where it was left, notices
  a file cut or replaced meanwhile (``Truncated``), and finds a file rotated meanwhile among its
  siblings (its rest first, then ``Rotated`` and the new file);
- a path it cannot read for a while (a file it may not read, a folder, a pipe; the file the path
  was rotated to): an ``unreadable`` ``SourceEvent`` once, the open file, if any, read on; the
  path tried again every ``RETRY_S`` seconds, and read once it can be (a ``readable`` event).

With a ``ChangeWatch`` the follower looks at the file only when the watch saw a change to its
path, or every ``recheck_interval`` seconds: hundreds of idle files cost next to nothing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

from bot import events
from bot.errors import InputError
from bot.sources.file_options import FileOptions
from bot.sources.lines import LineSplitter
from bot.sources.opening import Unreadable, open_at, open_file, open_resumed
from bot.sources.position import (
    FINGERPRINT_BYTES,
    FilePosition,
    Identity,
    fingerprint,
    identity,
    lines_before,
    path_identity,
    read_head,
    unchanged,
)
from bot.sources.source import Item, Rotated, SourceEvent, Truncated
from bot.sources.watch import ChangeWatch, Lookout, wait_for_change


class FileFollower:
    """Lines appended to ``path``, followed as ``options`` say: from ``resume``, else from
    ``offset`` (just after line ``line_number``), else from its start. ``name``: its id as a
    source (default: the path); ``watch``: the ``ChangeWatch`` that says when it changed.
    """

    def __init__(
        self,
        path: Path | str,
        options: FileOptions | None = None,
        *,
        resume: FilePosition | None = None,
        offset: int = 0,
        line_number: int = 0,
        watch: ChangeWatch | None = None,
        name: str | None = None,
    ) -> None:
        options = options or FileOptions()
        clock = options.clock
        self.path = Path(path)
        self.name = name if name is not None else str(path)
        self.poll_interval = options.poll_interval
        self.clock = clock
        self.sleep = options.sleep
        self.stop_at_end = options.stop_at_end
        self._chunk_bytes = options.chunk_bytes
        self._read_limit = max(options.read_limit, options.chunk_bytes)
        self._max_line_bytes = max_line_bytes = options.max_line_bytes
        self._resume = resume if resume is not None and resume.inode else None
        self._start = (offset, line_number)  # where a first open without ``resume`` starts
        self._splitter = LineSplitter(max_line_bytes, offset=offset, number=line_number)
        self._position = offset  # bytes of the file read so far
        self._head = b""  # the file's first bytes read so far (at most FINGERPRINT_BYTES)
        self._file: BinaryIO | None = None
        self._identity: Identity | None = None
        self._searched = False  # the rotated file was looked for among the siblings
        self._close_idle_after = options.close_idle_after
        self._active_at = clock()  # when lines last came
        self._parked = False  # the file was closed while idle (``park``)
        self._pending: list[Item] = []  # markers found on opening, returned by the next read
        self._unreadable = Unreadable(self.name, clock)  # the path cannot be opened for now
        self._closed = False
        self._watch = watch
        self._key = os.path.abspath(self.path)
        self._lookout = Lookout(watch, self._key, clock)  # look only after a change (or a recheck)
        if watch is not None:
            watch.watch_file(self.path)
        if not self._open() and not options.wait_for_file:
            raise self._unreadable.error or InputError(f"{self.path}: no such file")

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def bytes_read(self) -> int:
        """Bytes of the current file read so far (the partial last line included)."""
        return self._position

    @property
    def offset(self) -> int:
        """The offset just after the last line returned: where a later reading may resume."""
        return self._splitter.offset

    def position(self) -> FilePosition:
        """Where the lines returned so far end: what may be committed once they are dealt with,
        and given back as ``resume`` after a restart. Its ``path`` is absolute."""
        if self._identity is None:
            if self._resume is not None:
                return self._resume
            return FilePosition(self._key, 0, 0, fingerprint(b""), 0, 0, 0)
        offset = self._splitter.offset
        size = min(len(self._head), offset)
        device, inode = self._identity
        return FilePosition(
            self._key, device, inode, fingerprint(self._head[:size]), size, offset,
            self._splitter.number,
        )  # fmt: skip

    def read_available(self) -> list[Item]:
        """The lines appended since the last call (at most ``read_limit`` bytes' worth), after
        any ``Truncated`` or ``Rotated`` marker."""
        if self._closed:
            return []
        if self._file is None:
            if not self.stop_at_end and (not self._unreadable.due() or self._resting()):
                return self._take_pending()
            if not self._open():  # nothing to read to its end
                return self._finish() if self.stop_at_end else self._take_pending()
        items, self._pending = self._pending, []
        if not self._should_look():
            self._rest_if_idle(bool(items))
            return items
        budget = self._read_limit
        while True:
            items.extend(self._check_size())
            found = path_identity(self.path)
            moved = found is None or found[0] != self._identity
            budget, at_end = self._read(budget, items)
            if not at_end:
                return items  # the limit was reached: more at the next call
            if not (moved and found is not None and self._unreadable.due() and self._switch(items)):
                break
        if self.stop_at_end:
            items.extend(self._finish())
        else:
            self._looked()
            self._rest_if_idle(bool(items))
        return items

    def _take_pending(self) -> list[Item]:
        items, self._pending = self._pending, []
        return items

    def _finish(self) -> list[Item]:
        """The end: what is pending, the partial last line; then the follower closes."""
        items = [*self._pending, *self._splitter.finish()]
        self._pending = []
        self.close()
        return items

    def ready(self) -> bool:
        """True when the file grew, shrank or was replaced since the last read (or it appeared,
        or the follower is to stop at its end and has not yet)."""
        if self._closed:
            return False
        if self._pending or self.stop_at_end:
            return True
        if not self._unreadable.due():  # the path cannot be read: only the open file may grow
            return self._file is not None and self._grew()
        if self._file is None:
            return (not self.parked or not self._resting()) and os.path.exists(self.path)
        if not self._should_look():
            return False
        if self._grew():
            return True
        found = path_identity(self.path)
        if found is not None and found[0] != self._identity:
            return True
        self._looked()
        return False

    def _grew(self) -> bool:
        assert self._file is not None
        return os.fstat(self._file.fileno()).st_size != self._position

    def wait_ready(self, timeout: float) -> bool:
        if self._watch is None:
            from bot.sources.waiting import wait_for_data  # (it imports this module)

            return wait_for_data([self], timeout)
        return wait_for_change(self._watch, [self], timeout)

    def close(self) -> None:
        self._closed = True
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> FileFollower:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- looking only when something changed -------------------------------------------------

    def _should_look(self) -> bool:
        return self._lookout.due()

    def _looked(self) -> None:
        """Read to the end: wait for the next change (or recheck) before looking again."""
        self._lookout.done()

    # --- reading ------------------------------------------------------------------------------

    def _read(self, budget: int, items: list[Item]) -> tuple[int, bool]:
        """Read up to ``budget`` bytes into ``items``; the budget left, and whether the end of
        the file was reached."""
        file = self._file
        assert file is not None
        while budget > 0:
            chunk = file.read(min(self._chunk_bytes, budget))
            if not chunk:
                return budget, True
            if len(self._head) < FINGERPRINT_BYTES:
                self._head += chunk[: FINGERPRINT_BYTES - len(self._head)]
            self._position += len(chunk)
            budget -= len(chunk)
            items.extend(self._splitter.feed(chunk))
        return budget, False

    def _check_size(self) -> list[Item]:
        """A marker when the open file was cut short or its first bytes were replaced."""
        assert self._file is not None
        fd = self._file.fileno()
        size = os.fstat(fd).st_size
        head = self._head
        if size < self._position:
            kept = min(size, len(head))
            if read_head(fd, kept) != head[:kept]:
                return [self._restart(size, 0, 0)]
            if size >= self._splitter.offset:  # only the partial last line was cut
                return [self._restart(size, self._splitter.offset, self._splitter.number)]
            return [self._restart(size, size, lines_before(fd, size))]
        if head and read_head(fd, len(head)) != head:  # replaced (copytruncate, then written)
            return [self._restart(size, 0, 0)]
        return []

    def _restart(self, size: int, offset: int, line: int) -> Truncated:
        """Go on reading at ``offset``, just after line ``line``, dropping the partial line."""
        marker = Truncated(self._position, size, offset, line)
        self._go_to(offset, line)
        return marker

    def _go_to(self, offset: int, line: int) -> None:
        assert self._file is not None
        self._file.seek(offset)
        self._position = offset
        self._head = self._head[: min(offset, FINGERPRINT_BYTES)]
        self._splitter = LineSplitter(self._max_line_bytes, offset=offset, number=line)

    def _switch(self, items: list[Item]) -> bool:
        """The old file was read to its end and the path names a new one: its partial last line,
        a ``Rotated`` marker, then the new file from its start. False if the new one vanished,
        or cannot be read (said once: the old file stays open, the path is tried again)."""
        try:
            opened = open_file(self.path)
        except InputError as error:
            items.extend(self._unreadable.failed(error))
            return False
        if opened is None:
            return False
        items.extend(self._unreadable.cleared())
        file, stat = opened
        items.extend(self._splitter.finish())
        items.append(Rotated(self._position, stat.st_size))
        self._attach(file, stat, 0, 0)
        return True

    # --- opening and parking ---------------------------------------------------------------

    def _open(self) -> bool:
        """Open the file (at ``resume``, or the start offset); False while it does not exist or
        cannot be read (said once, by a pending ``SourceEvent``)."""
        try:
            opened = self._open_now()
        except InputError as error:
            self._pending.extend(self._unreadable.failed(error))
            return False
        if opened:
            self._pending[:0] = self._unreadable.cleared()  # said before its markers
        return opened

    def _open_now(self) -> bool:
        if self._parked:
            return self._unpark()
        if self._resume is None:
            opened = open_at(self.path, *self._start)
        else:
            search = not self._searched or os.path.exists(self.path)
            opened = open_resumed(self.path, self._resume, search=search)
            self._searched = True
        if opened is None:
            return False
        if opened.moved_to is not None:
            self._pending.append(SourceEvent(events.Moved(self.name, str(opened.moved_to))))
        if opened.marker is not None:
            self._pending.append(opened.marker)
        self._attach(opened.file, opened.stat, opened.offset, opened.line)
        return True

    def _attach(self, file: BinaryIO, stat: os.stat_result, offset: int, line: int) -> None:
        if self._file is not None:
            self._file.close()
        self._file = file
        self._identity = identity(stat)
        self._resume = None
        self._parked = False
        self._active_at = self.clock()
        self._head = read_head(file.fileno(), min(offset, FINGERPRINT_BYTES))
        self._go_to(offset, line)

    def park(self) -> None:
        """Close the file while it is idle, keeping all else: it is opened again once its path
        changes (the same file: as if it had stayed open; another: as after a restart).

        A file with a partial last line, or no longer at the path (deleted, rotated), stays
        open: it is not idle, and its inode must not be reused under the follower."""
        if self._file is None or self._closed or self._position != self._splitter.offset:
            return
        found = path_identity(self.path)
        if found is None or found[0] != self._identity:
            return
        self._file.close()
        self._file = None
        self._parked = True

    @property
    def parked(self) -> bool:
        return self._parked

    def _unpark(self) -> bool:
        opened = open_file(self.path)
        if opened is not None and identity(opened[1]) == self._identity:
            self._file = opened[0]
            self._file.seek(self._position)
            self._parked = False
            self._active_at = self.clock()
            return True
        if opened is not None:
            opened[0].close()
        self._resume, self._searched = self.position(), False
        self._parked = False
        self._identity = None
        return self._open_now()

    def _resting(self) -> bool:
        """Parked, and the path still names the same file, of the same size: stay closed."""
        if not self._parked:
            return False
        if not self._should_look():
            return True
        if unchanged(self.path, self.position(), self._position):
            self._looked()
            return True
        return False

    def _rest_if_idle(self, read: bool) -> None:
        now = self.clock()
        if read:
            self._active_at = now
        elif self._close_idle_after is not None and now - self._active_at >= self._close_idle_after:
            self.park()
