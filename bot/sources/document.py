"""Following a JSON document that its agent rewrites in place: read whole, again at each change.

A Gemini CLI session file (``~/.gemini/tmp/<hash>/chats/session-*.json``) or a SWE-agent
``.traj`` is one JSON document, written again whole as the session grows: it is not appended
to, so it cannot be followed like ``tail -F``. A ``DocumentFollower`` looks at the file when it
changed (its device, inode, size or modification time; with a ``ChangeWatch``, when the watch
saw a change to it, or at each recheck), reads it whole and, when the content differs from the
content it returned last (by digest), returns it as one line numbered 1, after a ``Rewritten``
marker if some content was returned before (or, after a restart, was read before: ``resume``).
Whoever reads it then builds what it read from the old content again, from the new one. A file
read less than a second after it was written is read once more when it has settled: a second
write in the same clock tick, of the same size, would leave it looking unchanged.

A content that is not one whole JSON document (the agent is still writing it) is left until the
file changes again; at the end of a ``--once`` reading it is given as it is, line by line. The
position (a ``DocumentPosition``) is the file and the digest of the content last returned: a
restart returns the document again only if its content changed meanwhile. A file that cannot be
read for a while is said once (a ``SourceEvent``) and tried again every few seconds.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson

from bot.errors import InputError
from bot.lenient import NOT_JSON, lenient_json
from bot.sources.file_options import POLL_INTERVAL
from bot.sources.files import DOCUMENT_MAX, is_document, split_lines
from bot.sources.lines import BOM, Line, LongLine
from bot.sources.opening import Unreadable, file_error, open_file
from bot.sources.position import DocumentPosition, FilePosition, fingerprint
from bot.sources.source import Item, Rewritten
from bot.sources.waiting import wait_for_data
from bot.sources.watch import ChangeWatch, Lookout, wait_for_change

log = logging.getLogger(__name__)

DOCUMENT_SUFFIXES = (".json", ".traj")  # names of documents rewritten whole (see folder.py)
HEAD_BYTES = 64 * 1024  # how much of a file is read to tell JSON Lines from a document
SETTLED_NS = 1_000_000_000  # a file written longer ago than this is known by its state alone

Seen = tuple[int, int, int, int]  # device, inode, size, modification time (ns)


def is_document_file(path: Path, *, look_inside: bool = False) -> bool:
    """Whether ``path`` is followed as one JSON document rather than as JSON Lines.

    A ``.json`` or ``.traj`` file is a document (even while it is empty or half written),
    unless its first line is a JSON value of its own and more lines follow: JSON Lines under
    another name. With ``look_inside``, a file of another name is a document if it holds one
    over many lines now (a file given on the command line)."""
    if path.suffix in DOCUMENT_SUFFIXES:
        return not _json_lines_inside(path)
    if not look_inside:
        return False
    try:
        if path.stat().st_size >= DOCUMENT_MAX:
            return False
        return is_document(path.read_bytes())
    except OSError as error:
        raise file_error(path, error) from None


def _json_lines_inside(path: Path) -> bool:
    try:
        opened = open_file(path)
        if opened is None:
            return False
        with opened[0] as file:
            head = file.read(HEAD_BYTES)
    except (OSError, InputError):  # it may not be read (yet): a document, as its name says
        return False
    first, newline, rest = head.removeprefix(BOM).partition(b"\n")
    if not newline or not first.strip() or not rest.strip():
        return False
    return _parses(first)


def _parses(data: bytes) -> bool:
    """``data`` is one JSON value, as the reader reads it (``NaN`` and the like included)."""
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return lenient_json(data.decode("utf-8", errors="replace")) is not NOT_JSON
    return True


@dataclass(frozen=True)
class DocumentOptions:
    """How a document is followed. With ``stop_at_end`` the file is read once, as it is, and
    the follower closes (backfill, ``--once``). A document over ``max_bytes`` is not read.
    Without a ``ChangeWatch`` it is looked at every ``poll_interval`` seconds of ``clock``;
    ``file_time_ns`` is the clock files' modification times are in."""

    stop_at_end: bool = False
    max_bytes: int = DOCUMENT_MAX
    poll_interval: float = POLL_INTERVAL
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    file_time_ns: Callable[[], int] = time.time_ns


class DocumentFollower:
    """The whole content of the JSON document at ``path``, each time it changes, followed as
    ``options`` say.

    ``resume`` is the position a restart gives back (a ``FilePosition``: the path was followed
    as lines before; its next content replaces what was read); ``watch``: the ``ChangeWatch``
    that says when it changed.
    """

    def __init__(
        self,
        path: Path | str,
        options: DocumentOptions | None = None,
        *,
        resume: DocumentPosition | FilePosition | None = None,
        watch: ChangeWatch | None = None,
    ) -> None:
        options = options or DocumentOptions()
        clock = options.clock
        self.path = Path(path)
        self.name = str(path)
        self.stop_at_end = options.stop_at_end
        self.poll_interval, self.clock, self.sleep = options.poll_interval, clock, options.sleep
        self._file_time_ns = options.file_time_ns
        self._key = os.path.abspath(self.path)
        self._max_bytes = options.max_bytes
        self._watch = watch
        if watch is not None:
            watch.watch_file(self.path)
        self._lookout = Lookout(watch, self._key, clock)
        resumed = resume if isinstance(resume, DocumentPosition) and resume.read else None
        self._returned = resumed  # the content returned last (or read before a restart)
        self._replaces = resume is not None and resume.inode != 0  # the next content replaces
        self._seen: Seen | None = None  # read at the first look (a restart compares digests)
        self._unsettled = False  # the file was read too soon after it was written to trust
        self._unreadable = Unreadable(self.name, clock)  # the file cannot be read for now
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def position(self) -> DocumentPosition:
        """The content returned last: what may be committed once it is dealt with."""
        if self._returned is not None:
            return self._returned
        return DocumentPosition(self._key, 0, 0, 0, 0, "")

    def read_available(self) -> list[Item]:
        """The document's content if it changed since it was last returned (after a
        ``Rewritten`` marker when it replaces one); nothing otherwise."""
        if self._closed or not self._lookout.due():
            return []
        items = self._look()
        if self.stop_at_end:
            self.close()
        else:
            self._lookout.done()
        return items

    def ready(self) -> bool:
        """True when the file changed since it was last looked at (or the follower is to read
        it once and has not yet)."""
        if self._closed:
            return False
        if self.stop_at_end:
            return True
        if not self._unreadable.due() or not self._lookout.due():
            return False
        if self._changed(_seen_at(self.path)):
            return True
        self._lookout.done()
        return False

    def wait_ready(self, timeout: float) -> bool:
        if self._watch is None:
            return wait_for_data([self], timeout, poll_interval=self.poll_interval,
                                 clock=self.clock, sleep=self.sleep)  # fmt: skip
        return wait_for_change(self._watch, [self], timeout)

    def close(self) -> None:
        self._closed = True

    def __enter__(self) -> DocumentFollower:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- reading --------------------------------------------------------------------------

    def _look(self) -> list[Item]:
        """The content, if the file changed since it was last looked at and holds another."""
        if not self._unreadable.due():
            return []
        try:
            opened = open_file(self.path)
            if opened is None:
                self._seen = None
                return []
            with opened[0] as file:
                seen = _seen_of(opened[1])
                if not self._changed(seen):
                    return self._unreadable.cleared()
                data = file.read() if seen[2] <= self._max_bytes else None
        except OSError as error:  # a read error
            return self._unreadable.failed(file_error(self.path, error))
        except InputError as error:  # a folder, a file it may not read
            return self._unreadable.failed(error)
        said = self._unreadable.cleared()
        self._seen, self._unsettled = seen, not self._settled(seen)
        if data is None:
            self._unsettled = False  # over the limit: not read (the follower says so)
            return [*said, LongLine(1, seen[2], seen[2])]
        return [*said, *self._content(seen, data)]

    def _changed(self, seen: Seen | None) -> bool:
        """The file is not as it was when last looked at, or was looked at too soon after it
        was written to trust its state (another write in the same clock tick, of the same
        size, leaves the same state): it is read again once, when it has settled."""
        if seen != self._seen:
            return True
        return seen is not None and self._unsettled and self._settled(seen)

    def _settled(self, seen: Seen) -> bool:
        """Written long enough ago that its state (size, time) tells any later write."""
        return seen[3] < self._file_time_ns() - SETTLED_NS

    def _content(self, seen: Seen, data: bytes) -> list[Item]:
        position = DocumentPosition(self._key, *seen, fingerprint(data))
        if self._returned is not None and position.digest == self._returned.digest:
            self._returned = position  # touched, or written again the same
            return []
        whole = _parses(data.removeprefix(BOM))
        if not whole and not self.stop_at_end:
            log.debug("%s: not a whole JSON document yet; waiting for it to change", self.name)
            return []
        before = self._returned.size if self._returned is not None else None
        items: list[Item] = [Rewritten(len(data), before)] if self._replaces else []
        if whole:
            items.append(Line(1, len(data), data))
        else:  # read as it is, for the reader to say what it holds
            items.extend(Line(number, len(data), line) for number, line in split_lines(data))
        self._returned, self._replaces = position, True
        return items


def _seen_of(stat: os.stat_result) -> Seen:
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


def _seen_at(path: Path) -> Seen | None:
    try:
        return _seen_of(os.stat(path))
    except OSError:  # none, or its folder may not be read
        return None
