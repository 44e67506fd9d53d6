"""A test MCP client, as Claude Code is one: the mcp SDK's own stdio client and session, talking
to `slacktail approvals` run as a real subprocess. It runs its event loop in a thread, so a test
asks (a call that waits for a decision) and meanwhile clicks, as a person would.

Skips the test, saying why, where the `mcp` package is not installed."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest

NEEDS = "slacktail approvals needs the mcp package (pip install mcp)"
mcp = pytest.importorskip("mcp", reason=NEEDS)
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 20.0


class ApprovalClient:
    """An MCP client connected to ``slacktail approvals --state-dir STATE``."""

    def __init__(self, state_dir: Path, *args: str) -> None:
        env = {"PYTHONPATH": str(ROOT), "SLACKTAIL_COMPILE": "0"}
        self.params = StdioServerParameters(
            command=sys.executable, args=["-m", "bot.cli", "approvals", "--state-dir",
                                          str(state_dir), *args], env=env, cwd=os.getcwd(),
        )  # fmt: skip
        self.loop = asyncio.new_event_loop()
        self.session: ClientSession | None = None
        self._ready = threading.Event()
        self._done: asyncio.Event | None = None
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self.loop.run_until_complete, args=(self._run(),))

    async def _run(self) -> None:
        self._done = asyncio.Event()
        try:
            async with (
                stdio_client(self.params) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                self.session = session
                self._ready.set()
                await self._done.wait()
        except BaseException as error:  # said by start() or by the test that waits
            self._failed = error
            self._ready.set()

    def start(self) -> None:
        self._thread.start()
        assert self._ready.wait(WAIT_S), "the MCP server did not start"
        if self._failed is not None:
            raise self._failed

    def close(self) -> None:
        if self._done is not None:
            self.loop.call_soon_threadsafe(self._done.set)
        self._thread.join(WAIT_S)

    def tools(self) -> list[Any]:
        assert self.session is not None
        future = asyncio.run_coroutine_threadsafe(self.session.list_tools(), self.loop)
        return list(future.result(WAIT_S).tools)

    def ask(self, tool_name: str, tool_input: dict[str, Any],
            tool_use_id: str | None = None) -> Future[dict[str, Any]]:  # fmt: skip
        """Call the permission tool as Claude Code does; the future holds its JSON answer."""
        assert self.session is not None
        arguments: dict[str, Any] = {"tool_name": tool_name, "input": tool_input}
        if tool_use_id is not None:
            arguments["tool_use_id"] = tool_use_id
        return asyncio.run_coroutine_threadsafe(self._call(arguments), self.loop)

    async def _call(self, arguments: dict[str, Any]) -> dict[str, Any]:
        assert self.session is not None
        result = await self.session.call_tool("approve", arguments)
        assert not result.is_error, result
        (content,) = result.content
        answer: dict[str, Any] = orjson.loads(content.text)  # type: ignore[union-attr]
        return answer


@contextmanager
def approval_client(state_dir: Path, *args: str) -> Iterator[ApprovalClient]:
    client = ApprovalClient(state_dir, *args)
    client.start()
    try:
        yield client
    finally:
        client.close()
