"""The agents that write Claude Code's stream-json as their own, and how they differ from it.

- **Amp** (``amp -x --stream-json``, "Claude Code compatible"): its session ids start ``T-``
  and its init names an ``agent_mode`` and no model; a command's tool result is JSON text,
  ``{"output": …, "exitCode": 1}``, with ``is_error`` false even when the command failed; it
  reports no cost.
- **Qwen Code** (``qwen -p --output-format stream-json``; its ``nonInteractive/types.ts`` is
  the Claude SDK's message schema): its init has ``qwen_code_version``; a failed result's
  ``error`` is an object (``{"message": …}``); ``--output-format json`` prints the same
  messages as ONE JSON array, on one line (as Claude Code does with ``--verbose``).

Cursor's stream-json looks like Claude's but is not: see ``cursor_stream``.
"""

from __future__ import annotations

from typing import Any, Final

from bot.formats.common import loads_maybe, text_of
from bot.values import as_int

CLAUDE_CODE: Final = "Claude Code"
AMP: Final = "Amp"
QWEN_CODE: Final = "Qwen Code"


def agent_of(init: dict[str, Any]) -> str:
    """Who wrote a session, from its ``system/init`` line."""
    if isinstance(init.get("qwen_code_version"), str):
        return QWEN_CODE
    if "agent_mode" in init or is_amp_session(init.get("session_id")):
        return AMP
    return CLAUDE_CODE


def is_amp_session(session_id: object) -> bool:
    """Amp names its threads ``T-<uuid>``; Claude Code's session ids are bare UUIDs."""
    return isinstance(session_id, str) and session_id.startswith("T-")


def model_of(init: dict[str, Any], agent: str) -> str | None:
    """The init's model; for Amp, which names none, its agent mode (``smart``, ``rush``...)."""
    model = init.get("model")
    if isinstance(model, str) and model:
        return model
    mode = init.get("agent_mode")
    if agent == AMP and isinstance(mode, str) and mode:
        return f"{mode} mode"
    return None


def version_of(init: dict[str, Any]) -> str | None:
    for key in ("claude_code_version", "qwen_code_version"):
        version = init.get(key)
        if isinstance(version, str) and version:
            return version
    return None


def error_text(error: object) -> str | None:
    """A result's ``error``: Claude's string, or Qwen Code's ``{"message": …}``."""
    if isinstance(error, dict):
        error = error.get("message")
    return error if isinstance(error, str) and error else None


def amp_tool_output(content: str) -> tuple[str, bool] | None:
    """What an Amp tool result says, and whether it failed, from its JSON-text content: a
    command's ``{"output", "exitCode"}`` (failed when the code is not 0), a skill's
    ``{"content": [blocks]}``, a patch's ``{"summary", "files"}``. ``None`` for anything else
    (shown as it is)."""
    if not content.startswith("{"):
        return None
    value = loads_maybe(content)
    if not isinstance(value, dict):
        return None
    output = value.get("output")
    if isinstance(output, str) and "exitCode" in value:
        code = as_int(value.get("exitCode"))
        if code is None or code == 0:
            return output, False
        return f"Exit code {code}\n{output}", True
    blocks = value.get("content")
    if isinstance(blocks, list) and len(value) == 1:
        return text_of(blocks), False
    summary = value.get("summary")
    if isinstance(summary, str) and summary and isinstance(value.get("files"), list):
        return summary, False  # apply_patch: "update: /w/notes.md (+1/-1)"
    return None


def is_message_array(obj: object) -> bool:
    """``--output-format json`` of Qwen Code (and of Claude Code with ``--verbose``): the whole
    run as one JSON array of stream messages, opening with the init, which lists the tools."""
    if not isinstance(obj, list) or not obj:
        return False
    first = obj[0]
    return (
        isinstance(first, dict)
        and first.get("type") == "system"
        and first.get("subtype") == "init"
        and isinstance(first.get("session_id"), str)
        and isinstance(first.get("tools"), list)
    )
