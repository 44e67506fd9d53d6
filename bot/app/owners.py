"""Several slacktail processes may share one Slack app: Slack spreads a click over the app's
open connections, so it may reach a process that does not follow the session it is for.

Each process with the app listens on a unix socket in a folder of the state directory they
share (``app/<pid>.sock``). A click for a session this process does not follow is handed to
each other process in turn (one JSON line there, one back), until one owns it: that one carries
it out at once (a modal's trigger is good for 3 s) and says the outcome. A socket nobody
listens on any more (its process ended) is removed. When no process owns the session, it is
"no longer followed"."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import socket
import socketserver
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import orjson

from bot.controls import Click, Outcome

log = logging.getLogger(__name__)

HANDOFF_TIMEOUT_S = 2.0
_PATH_MAX = 100  # a unix socket's path is at most 107 bytes on Linux

CarryOut = Callable[[Click], Outcome | None]  # None: this process does not own the session


def sockets_dir(state_dir: Path) -> Path:
    """Where the processes sharing ``state_dir`` listen (a short folder under the temporary
    directory, named after it, when its own path is too long for a socket)."""
    folder = state_dir / "app"
    if len(str(folder / "4194304.sock")) > _PATH_MAX:
        digest = hashlib.sha256(str(state_dir.resolve()).encode()).hexdigest()[:16]
        folder = Path(tempfile.gettempdir()) / f"slacktail-{digest}"
    return folder


class Owners:
    """This process's socket among the others: ``carry_out`` answers the clicks handed to it;
    ``hand_over`` gives a click to the process that owns its session."""

    def __init__(self, folder: Path, carry_out: CarryOut, *, name: str | None = None) -> None:
        self.folder = folder
        self.path = folder / f"{name or os.getpid()}.sock"
        self.carry_out = carry_out
        self._server: socketserver.ThreadingUnixStreamServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        server = _Server(str(self.path), _Handler)
        server.owners = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="slacktail-handoff", daemon=True)  # fmt: skip
        self._thread.start()

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def hand_over(self, click: Click) -> Outcome | None:
        """The outcome from the process that owns the click's session; None when none does."""
        for peer in sorted(self.folder.glob("*.sock")):
            if peer == self.path:
                continue
            outcome = _ask(peer, click)
            if outcome is not None:
                return outcome
        return None


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    owners: Owners


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        try:
            click = _click_of(orjson.loads(self.rfile.readline()))
        except (orjson.JSONDecodeError, TypeError, KeyError, ValueError) as error:
            log.debug("a click handed over could not be read: %s", error)
            return
        outcome = self.server.owners.carry_out(click)
        answer = None if outcome is None else {"done": outcome.done, "said": outcome.said}
        self.wfile.write(orjson.dumps({"outcome": answer}) + b"\n")


def _ask(peer: Path, click: Click) -> Outcome | None:
    """``peer``'s outcome of ``click`` (None: not its session); a dead peer's socket goes."""
    line = orjson.dumps({**click.__dict__, "fields": dict(click.fields)}) + b"\n"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(HANDOFF_TIMEOUT_S)
            connection.connect(str(peer))
            connection.sendall(line)
            answer = connection.makefile("rb").readline()
    except (ConnectionRefusedError, FileNotFoundError):
        with contextlib.suppress(FileNotFoundError):
            peer.unlink()  # its process is gone
        return None
    except OSError as error:
        log.debug("%s: could not hand a click over: %s", peer.name, error)
        return None
    try:
        outcome = orjson.loads(answer)["outcome"]
    except (orjson.JSONDecodeError, TypeError, KeyError):
        return None
    if not isinstance(outcome, dict):
        return None
    said = outcome.get("said")
    return Outcome(bool(outcome.get("done")), said if isinstance(said, str) else None)


def _click_of(data: object) -> Click:
    if not isinstance(data, dict):
        raise ValueError("not an object")
    fields = data["fields"]
    if not isinstance(fields, dict):
        raise ValueError("fields: not an object")
    trigger, view = data.get("trigger_id"), data.get("view_id")
    return Click(str(data["action_id"]), str(data["session"]),
                 {str(k): str(v) for k, v in fields.items()}, str(data["user"]),
                 str(data["channel"]), str(data["message_ts"]),
                 None if trigger is None else str(trigger),
                 None if view is None else str(view))  # fmt: skip
