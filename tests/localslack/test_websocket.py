"""The WebSocket server side (RFC 6455): handshake key, masked client frames, fragments, control
frames and the closing handshake, over in-memory streams."""

from __future__ import annotations

import io
import os
import struct

import pytest

from bot.localslack.websocket import (
    Close,
    Opcode,
    ProtocolError,
    WebSocket,
    accept_key,
    encode_frame,
    is_valid_key,
    read_frame,
)


def client_frame(opcode: int, payload: bytes, *, fin: bool = True, masked: bool = True) -> bytes:
    """A frame as a client sends it: masked, with the length in 7, 16 or 64 bits."""
    head = bytes([(0x80 if fin else 0) | opcode])
    size = len(payload)
    flag = 0x80 if masked else 0
    if size < 126:
        head += bytes([flag | size])
    elif size < 1 << 16:
        head += bytes([flag | 126]) + struct.pack("!H", size)
    else:
        head += bytes([flag | 127]) + struct.pack("!Q", size)
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def server_frames(data: bytes) -> list[tuple[int, bytes]]:
    """The (opcode, payload) of every frame the server wrote (unmasked, final)."""
    frames, at = [], 0
    while at < len(data):
        opcode, size = data[at] & 0x0F, data[at + 1] & 0x7F
        assert data[at] & 0x80 and not data[at + 1] & 0x80  # final, never masked
        at += 2
        if size == 126:
            size, at = struct.unpack("!H", data[at : at + 2])[0], at + 2
        elif size == 127:
            size, at = struct.unpack("!Q", data[at : at + 8])[0], at + 8
        frames.append((opcode, data[at : at + size]))
        at += size
    return frames


def connection(*frames: bytes) -> tuple[WebSocket, io.BytesIO]:
    written = io.BytesIO()
    return WebSocket(io.BytesIO(b"".join(frames)), written), written


def test_the_accept_key_is_the_rfc_example() -> None:
    assert accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
    assert is_valid_key("dGhlIHNhbXBsZSBub25jZQ==")
    assert not is_valid_key("not base64!") and not is_valid_key("c2hvcnQ=")


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536])
def test_a_masked_text_frame_is_read_whatever_its_length(size: int) -> None:
    text = "é" * size if size < 100 else "x" * size  # é: two bytes each
    socket, _ = connection(client_frame(Opcode.TEXT, text.encode()))
    assert socket.receive() == text


@pytest.mark.parametrize("size", [5, 200, 70000])
def test_server_frames_carry_their_length_unmasked(size: int) -> None:
    assert server_frames(encode_frame(Opcode.TEXT, b"a" * size)) == [(Opcode.TEXT, b"a" * size)]


def test_a_fragmented_message_is_put_back_together_around_a_ping() -> None:
    socket, written = connection(
        client_frame(Opcode.TEXT, b"hel", fin=False),
        client_frame(Opcode.PING, b"are you there"),
        client_frame(Opcode.CONTINUATION, b"lo"),
    )
    assert socket.receive() == "hello"
    assert server_frames(written.getvalue()) == [(Opcode.PONG, b"are you there")]


def test_an_unmasked_client_frame_closes_with_a_protocol_error() -> None:
    socket, written = connection(client_frame(Opcode.TEXT, b"hi", masked=False))
    assert socket.receive() is None
    [(opcode, payload)] = server_frames(written.getvalue())
    assert opcode == Opcode.CLOSE and struct.unpack("!H", payload[:2])[0] == Close.PROTOCOL_ERROR


def test_text_that_is_not_utf8_closes_with_1007() -> None:
    socket, written = connection(client_frame(Opcode.TEXT, b"\xff\xfe"))
    assert socket.receive() is None
    assert server_frames(written.getvalue())[0][1][:2] == struct.pack("!H", Close.INVALID_DATA)


def test_a_continuation_with_no_message_started_is_a_protocol_error() -> None:
    socket, _ = connection(client_frame(Opcode.CONTINUATION, b"x"))
    assert socket.receive() is None and socket.closed


def test_the_closing_handshake_is_answered_with_the_same_code() -> None:
    socket, written = connection(client_frame(Opcode.CLOSE, struct.pack("!H", 1001) + b"bye"))
    assert socket.receive() is None
    assert socket.close_code == 1001
    assert server_frames(written.getvalue()) == [(Opcode.CLOSE, struct.pack("!H", 1001))]
    assert socket.send_text("too late") is False  # nothing is sent after a close


def test_the_end_of_the_stream_ends_the_connection() -> None:
    socket, written = connection(client_frame(Opcode.TEXT, b"one"))
    assert socket.receive() == "one"
    assert socket.receive() is None and written.getvalue() == b""


def test_a_control_frame_must_be_final_and_short() -> None:
    with pytest.raises(ProtocolError):
        read_frame(io.BytesIO(client_frame(Opcode.PING, b"p" * 126)).read)
    with pytest.raises(ProtocolError):
        read_frame(io.BytesIO(client_frame(Opcode.PING, b"p", fin=False)).read)


def test_a_frame_cut_short_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError):
        read_frame(io.BytesIO(client_frame(Opcode.TEXT, b"hello")[:-2]).read)


def test_a_binary_message_is_skipped() -> None:
    binary, text = client_frame(Opcode.BINARY, b"\x00\x01"), client_frame(Opcode.TEXT, b"t")
    socket, _ = connection(binary, text)
    assert socket.receive() == "t"
