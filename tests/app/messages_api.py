"""A stand-in for Anthropic's Messages API, for running the real ``claude`` offline: every
streamed turn of the main loop asks for one ``Bash`` call (``COMMAND``) until a tool result
comes back, then says "done"; any other request gets a short text."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson

COMMAND = "touch created-by-bash.txt"
CALL_ID = "toolu_stand_in_1"


def _events(body: dict[str, Any]) -> bytes:
    messages = body.get("messages") or [{}]
    content = messages[-1].get("content")
    answered = isinstance(content, list) and any(
        isinstance(part, dict) and part.get("type") == "tool_result" for part in content
    )
    tools = {tool.get("name") for tool in body.get("tools") or []}
    if "Bash" in tools and not answered:
        block: dict[str, Any] = {"type": "tool_use", "id": CALL_ID, "name": "Bash", "input": {}}
        arguments = orjson.dumps({"command": COMMAND, "description": "Make a file"}).decode()
        delta = {"type": "input_json_delta", "partial_json": arguments}
        stop = "tool_use"
    else:
        block, stop = {"type": "text", "text": ""}, "end_turn"
        delta = {"type": "text_delta", "text": "done"}
    usage = {"input_tokens": 10, "output_tokens": 5}
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model"),
               "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": usage}  # fmt: skip
    events = [
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 5},
                           "delta": {"stop_reason": stop, "stop_sequence": None}}),
        ("message_stop", {"type": "message_stop"}),
    ]  # fmt: skip
    return b"".join(f"event: {name}\ndata: ".encode() + orjson.dumps(data) + b"\n\n"
                    for name, data in events)  # fmt: skip


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            body = {}
        if body.get("stream"):
            self._send(_events(body), "text/event-stream")
            return
        reply = {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model"),
                 "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                 "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5},
                 "input_tokens": 10}  # fmt: skip
        self._send(orjson.dumps(reply), "application/json")

    def do_GET(self) -> None:
        self._send(b"{}", "application/json")

    def _send(self, data: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def messages_api() -> Iterator[str]:
    """The stand-in's base URL (``ANTHROPIC_BASE_URL``) while the block runs."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
