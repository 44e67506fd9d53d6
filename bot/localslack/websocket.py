"""A small WebSocket server side (RFC 6455), enough for Slack's Socket Mode on loopback.

The standard library has no WebSocket server, and no library that has one is a dependency of
slacktail (`wsproto` and `websocket-client` come with Selenium, a test tool; the latter is a client
only), so this is the part of the protocol a server needs: the opening handshake's
`Sec-WebSocket-Accept`, masked client frames (an unmasked one is a protocol error, 1002),
fragmented messages put back together, text messages (UTF-8 checked, 1007), ping answered by pong,
and the closing handshake. Server frames are never masked. No extensions, no subprotocols.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import struct
import threading
from collections.abc import Callable
from enum import IntEnum
from typing import Protocol

log = logging.getLogger(__name__)

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
MAX_MESSAGE = 4 * 1024 * 1024  # bytes of one message, all its fragments together


class Reader(Protocol):
    def read(self, size: int, /) -> bytes: ...


class Writer(Protocol):
    def write(self, data: bytes, /) -> int: ...

    def flush(self) -> None: ...


class Opcode(IntEnum):
    CONTINUATION = 0x0
    TEXT = 0x1
    BINARY = 0x2
    CLOSE = 0x8
    PING = 0x9
    PONG = 0xA


class Close(IntEnum):
    """The close codes this server sends (RFC 6455, 7.4.1)."""

    NORMAL = 1000
    GOING_AWAY = 1001
    PROTOCOL_ERROR = 1002
    INVALID_DATA = 1007
    TOO_BIG = 1009


class ProtocolError(Exception):
    """The client broke the protocol: the connection ends with `code`."""

    def __init__(self, code: Close, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def accept_key(key: str) -> str:
    """`Sec-WebSocket-Accept` for a client's `Sec-WebSocket-Key`."""
    digest = hashlib.sha1((key.strip() + GUID).encode("ascii")).digest()
    return base64.b64encode(digest).decode("ascii")


def is_valid_key(key: str) -> bool:
    """A client key is 16 random bytes in base64."""
    try:
        return len(base64.b64decode(key.strip(), validate=True)) == 16
    except ValueError:
        return False


def encode_frame(opcode: Opcode, payload: bytes = b"") -> bytes:
    """One unmasked, final frame (what a server sends)."""
    head = bytes([0x80 | opcode])
    size = len(payload)
    if size < 126:
        return head + bytes([size]) + payload
    if size < 1 << 16:
        return head + struct.pack("!BH", 126, size) + payload
    return head + struct.pack("!BQ", 127, size) + payload


def _unmask(data: bytes, mask: bytes) -> bytes:
    if not data:
        return data
    whole = (mask * (len(data) // 4 + 1))[: len(data)]
    return (int.from_bytes(data, "big") ^ int.from_bytes(whole, "big")).to_bytes(len(data), "big")


def read_frame(read: Callable[[int], bytes]) -> tuple[bool, int, bytes] | None:
    """The next client frame as (fin, opcode, unmasked payload); None at the end of the stream."""
    head = read(2)
    if len(head) < 2:
        return None
    fin, opcode = bool(head[0] & 0x80), head[0] & 0x0F
    if head[0] & 0x70:
        raise ProtocolError(Close.PROTOCOL_ERROR, "reserved bits set without an extension")
    if not head[1] & 0x80:
        raise ProtocolError(Close.PROTOCOL_ERROR, "a client frame must be masked")
    size = head[1] & 0x7F
    if size == 126:
        size = struct.unpack("!H", _exactly(read, 2))[0]
    elif size == 127:
        size = struct.unpack("!Q", _exactly(read, 8))[0]
    if opcode >= Opcode.CLOSE and (size > 125 or not fin):
        raise ProtocolError(Close.PROTOCOL_ERROR, "a control frame must be short and final")
    if size > MAX_MESSAGE:
        raise ProtocolError(Close.TOO_BIG, "message too big")
    mask = _exactly(read, 4)
    return fin, opcode, _unmask(_exactly(read, size), mask)


def _exactly(read: Callable[[int], bytes], size: int) -> bytes:
    data = read(size) if size else b""
    if len(data) < size:
        raise ProtocolError(Close.PROTOCOL_ERROR, "the stream ended inside a frame")
    return data


class WebSocket:
    """One accepted connection: `receive()` text messages; `send_text`, `close` from any thread."""

    def __init__(
        self, rfile: Reader, wfile: Writer, shutdown: Callable[[], None] | None = None
    ) -> None:
        self._rfile, self._wfile = rfile, wfile
        self._shutdown = shutdown
        self._send_lock = threading.Lock()
        self.closed = False
        self.close_code: int | None = None

    def send_text(self, text: str) -> bool:
        """Send one text message; False if the connection is already closed or broken."""
        return self._send(Opcode.TEXT, text.encode("utf-8"))

    def ping(self, payload: bytes = b"") -> bool:
        return self._send(Opcode.PING, payload)

    def close(self, code: int = Close.NORMAL, reason: str = "") -> None:
        """Start (or answer) the closing handshake; sends nothing more afterwards."""
        if not self.closed:
            self._send(Opcode.CLOSE, struct.pack("!H", code) + reason.encode("utf-8")[:120])
            self.closed = True

    def abort(self) -> None:
        """End the connection at once (a reader blocked in `receive` returns None)."""
        self.closed = True
        if self._shutdown is not None:
            try:
                self._shutdown()
            except OSError as err:
                log.debug("the connection was already gone: %s", err)

    def _send(self, opcode: Opcode, payload: bytes) -> bool:
        with self._send_lock:
            if self.closed:
                return False
            try:
                self._wfile.write(encode_frame(opcode, payload))
                self._wfile.flush()
            except (OSError, ValueError):  # the peer went away (or the file was closed)
                self.closed = True
                return False
            return True

    def receive(self) -> str | None:
        """The next text message; pings are answered and pongs skipped on the way. None once the
        connection has closed (the closing handshake answered, or the stream ended)."""
        parts: list[bytes] = []
        kind: int | None = None
        while True:
            try:
                frame = read_frame(self._rfile.read)
            except ProtocolError as err:
                self.close(err.code, err.reason)
                return None
            except (OSError, ValueError):
                frame = None
            if frame is None:
                self.closed = True
                return None
            fin, opcode, payload = frame
            if opcode >= Opcode.CLOSE:
                if not self._control(opcode, payload):
                    return None
                continue
            if (opcode == Opcode.CONTINUATION) == (kind is None):
                self.close(Close.PROTOCOL_ERROR, "unexpected continuation frame")
                return None
            kind = opcode if kind is None else kind
            parts.append(payload)
            if sum(len(p) for p in parts) > MAX_MESSAGE:
                self.close(Close.TOO_BIG, "message too big")
                return None
            if fin:
                message = self._message(kind, b"".join(parts))
                if message is not None or self.closed:
                    return message
                parts, kind = [], None

    def _control(self, opcode: int, payload: bytes) -> bool:
        """Handle a control frame; False once the connection is closed."""
        if opcode == Opcode.PING:
            self._send(Opcode.PONG, payload)
        elif opcode == Opcode.CLOSE:
            self.close_code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
            self.close(self.close_code or Close.NORMAL)
            return False
        elif opcode != Opcode.PONG:
            self.close(Close.PROTOCOL_ERROR, "unknown control frame")
            return False
        return True

    def _message(self, kind: int, data: bytes) -> str | None:
        """A whole message's text; None for a binary message (Socket Mode sends none) or bad
        UTF-8 (which closes the connection)."""
        if kind == Opcode.BINARY:
            return None
        if kind != Opcode.TEXT:
            self.close(Close.PROTOCOL_ERROR, "unknown data frame")
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            self.close(Close.INVALID_DATA, "text must be UTF-8")
            return None
