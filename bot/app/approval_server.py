"""`slacktail approvals`: the MCP server (over stdio) that Claude Code asks for permission.

Claude Code, run with ``--permission-prompt-tool mcp__slacktail__approve``, calls the tool
``approve`` with ``tool_name``, ``input`` (the call's arguments) and ``tool_use_id`` before it
runs a tool that needs permission, and reads the answer from the tool's text: the JSON
``{"behavior": "allow", "updatedInput": {...}}`` or ``{"behavior": "deny", "message": "..."}``.

The server writes the request on the desk (``bot.app.desk``, in the state directory) with a
redacted one-line summary of the input, and waits for its decision; the follower that follows
the agent's stream shows it in the session's thread, where a click decides it. No decision in
``--approval-timeout`` (default 5 minutes) denies. It needs no Slack token: the follower posts.
It writes nothing on stdout but the protocol's messages.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import orjson

from bot.app.desk import ALLOW, TIMEOUT, Desk, Request
from bot.redaction import Redactor
from bot.session.tool_calls import describe_call

TOOL: Final = "approve"
SERVER: Final = "slacktail"
DEFAULT_TIMEOUT_S: Final = 300.0
POLL_S: Final = 0.1  # how often the desk is looked at while a request waits
SUMMARY_LIMIT: Final = 300
DESCRIPTION: Final = (
    "Asks the people in the session's Slack thread whether a tool call may run. Claude Code "
    "calls it (--permission-prompt-tool) with the tool's name, its input and the tool use id."
)


def summary_of(tool_name: str, tool_input: Mapping[str, Any], redactor: Redactor) -> str:
    """One redacted line saying what the call would do (the Bash command, the file...)."""
    said = describe_call(tool_name, tool_input) or orjson.dumps(dict(tool_input)).decode()
    return redactor.redact(said)[:SUMMARY_LIMIT]


def answer_of(request: Request, tool_input: Mapping[str, Any]) -> dict[str, Any]:
    """The permission tool's answer for a decided request."""
    if request.decision == ALLOW:
        return {"behavior": "allow", "updatedInput": dict(tool_input)}
    if request.decision == TIMEOUT:
        minutes = f"{request.timeout_s / 60:g} min"
        return {"behavior": "deny", "message": f"No answer in Slack within {minutes}: denied."}
    who = f" by {request.decided_by}" if request.decided_by else ""
    return {"behavior": "deny", "message": f"Denied in Slack{who}."}


async def ask(
    desk: Desk, redactor: Redactor, tool_name: str, tool_input: Mapping[str, Any],
    tool_use_id: str | None, timeout_s: float,
) -> dict[str, Any]:  # fmt: skip
    """Put the request on the desk and wait for its decision (the timeout's at the latest)."""
    request = desk.ask(tool_name, summary_of(tool_name, tool_input, redactor),
                       tool_use_id=tool_use_id, hint=os.getcwd(), timeout_s=timeout_s)  # fmt: skip
    while True:
        found = desk.get(request.id)
        if found is not None and found.decision is not None:
            return answer_of(found, tool_input)
        if desk.clock() >= request.deadline:
            desk.decide(request.id, TIMEOUT)  # unless a person's decision came just before
            continue
        await asyncio.sleep(POLL_S)


class NoMcp(Exception):
    """The mcp package is not installed."""


def serve(state_dir: Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
    """Run the MCP server on stdin/stdout until the client closes it."""
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError as error:
        said = f"slacktail approvals needs the mcp package (pip install mcp): {error}"
        raise NoMcp(said) from None

    desk = Desk.open(state_dir)
    redactor = Redactor()
    server = MCPServer(SERVER)

    async def approve(tool_name: str, input: dict[str, Any], tool_use_id: str | None = None) -> str:
        answer = await ask(desk, redactor, tool_name, input, tool_use_id, timeout_s)
        return orjson.dumps(answer).decode()

    server.add_tool(approve, name=TOOL, description=DESCRIPTION, structured_output=False)
    try:
        server.run("stdio")
    finally:
        desk.close()
