"""What a Codex tool output says: its text, and whether the call failed, by the output's shape
in each CLI era:

- a JSON text ``{"output": …, "metadata": {"exit_code": N, "duration_seconds": s}}`` (0.40);
- plain text: a status header (``Chunk ID``, ``Wall time``, ``Process exited with code N`` for
  ``exec_command``, ``Exit code: N`` for ``apply_patch``) then ``Output:`` and the output
  (0.129–0.143); a status line after ``Output:`` is the command's own output, not its end. A
  sandbox refusal (0.40) is plain text starting ``failed in sandbox``;
- a list of ``input_text`` parts (0.144 ``exec``): ``Script completed``, its header, then one
  ``{"exit_code": N, "output": …}`` line per inner call, any N ≠ 0 failing the call; shown as
  each inner output (with its exit code where it failed, or where there are several);
- an object ``{content, success}`` (older builds), or ``{error}``;
- an MCP call's end: ``{"Ok": {content, isError}}`` or ``{"Err": text}``.
"""

from __future__ import annotations

import re
from typing import Any, Final

from bot.formats.common import loads_maybe, text_of
from bot.values import as_int, json_text

_STATUS_LINE: Final = re.compile(r"^(?:Process exited with code|Exit code:)\s*(-?\d+)\s*$")
_HEADER_LINES: Final = 8  # a status header (Chunk ID, Wall time, exit code...) before "Output:"
_SANDBOX_REFUSAL: Final = "failed in sandbox"
_OK_KEYS: Final = ("Ok", "ok")
_ERR_KEYS: Final = ("Err", "err")
_FAILED_STATUSES: Final = ("errored", "not_found", "failed")


def output_of(value: object) -> tuple[str, bool]:
    """A call output's text and whether it failed, whatever its era's shape."""
    if isinstance(value, list):
        return _parts_output(value)
    if isinstance(value, dict):
        error = value.get("error")
        text = value.get("content", value.get("output", error))
        failed = value.get("success") is False or error not in (None, "", False)
        return (text if isinstance(text, str) else text_of(text)), failed
    if not isinstance(value, str):
        return ("" if value is None else json_text(value)), False
    if value[:1] == "{":
        parsed = loads_maybe(value)
        meta = parsed.get("metadata") if isinstance(parsed, dict) else None
        if isinstance(meta, dict) and "exit_code" in meta:
            code = as_int(meta.get("exit_code"))
            body = parsed.get("output")
            failed = code is not None and code != 0
            return (body if isinstance(body, str) else text_of(body)), failed
    if value.startswith(_SANDBOX_REFUSAL):
        return value, True
    header, body = _split_header(value)
    return body, _header_failed(header)


def _parts_output(parts: list[Any]) -> tuple[str, bool]:
    """0.144 ``exec``: input_text parts, a status header then a JSON line per inner call."""
    texts: list[str] = []
    for part in parts:
        if isinstance(part, dict):
            text = part.get("text")
            texts.append(text if isinstance(text, str) else f"[{part.get('type') or 'part'}]")
        elif isinstance(part, str):
            texts.append(part)
    header, body = _split_header("".join(texts))
    failed = _header_failed(header)
    lines = body.splitlines()
    results = [_inner_result(line) for line in lines]
    runs = sum(1 for result in results if result is not None)
    shown: list[str] = []
    for line, result in zip(lines, results, strict=True):
        if result is None:
            shown.append(line)
            continue
        code, output = result
        failed = failed or (code is not None and code != 0)
        shown.append(_inner_text(code, output, len(shown) + 1 if runs > 1 else 0))
    return "\n".join(shown) if runs else body, failed


def _inner_result(line: str) -> tuple[int | None, str] | None:
    """An inner call's ``{"exit_code": N, "output": …}`` line: its code and output text."""
    if not line.startswith("{") or '"exit_code"' not in line:
        return None
    inner = loads_maybe(line)
    if not isinstance(inner, dict) or "exit_code" not in inner:
        return None
    output = inner.get("output")
    return as_int(inner.get("exit_code")), output if isinstance(output, str) else text_of(output)


def _inner_text(code: int | None, output: str, number: int) -> str:
    """An inner call's output as text: ``Exit code 7`` before it when it failed; when the
    script made several calls, ``[2] exit code 0`` (its place among them) before each."""
    if number:
        return f"[{number}] exit code {'?' if code is None else code}\n{output}"
    return output if not code else f"Exit code {code}\n{output}"


def _split_header(text: str) -> tuple[list[str], str]:
    """The status lines before an ``Output:`` line, and what follows it (all of ``text`` when
    there is no such header)."""
    lines = text.split("\n", _HEADER_LINES + 1)
    for index, line in enumerate(lines[: _HEADER_LINES + 1]):
        if line.strip() in ("Output:", "Final output:"):
            return lines[:index], "\n".join(lines[index + 1 :])
    return [], text


def _header_failed(header: list[str]) -> bool:
    for line in header:
        found = _STATUS_LINE.match(line.strip())
        if found is not None and int(found.group(1)) != 0:
            return True
    return False


def mcp_result(result: object) -> tuple[str, bool]:
    """An MCP call's result text, and whether it failed (``Err``, or ``Ok`` with ``isError``)."""
    if not isinstance(result, dict):
        return ("" if result is None else text_of(result)), False
    for key in _ERR_KEYS:
        if key in result:
            error = result[key]
            return (error if isinstance(error, str) else text_of(error)), True
    for key in _OK_KEYS:
        if isinstance(ok := result.get(key), dict):
            failed = ok.get("isError") is True or ok.get("is_error") is True
            return text_of(ok.get("content")), failed
    return text_of(result.get("content")), result.get("isError") is True


def status_text(status: object) -> str:
    """A sub-agent's status in words: ``running``, ``completed: <its last message>``..."""
    if isinstance(status, str):
        return status
    if isinstance(status, dict) and len(status) == 1:
        ((kind, detail),) = status.items()
        return f"{kind}: {detail}" if isinstance(detail, str) and detail else str(kind)
    return "" if status is None else json_text(status)


def failed_status(status: object) -> bool:
    """Whether a sub-agent's status says it failed (``errored``, ``not_found``)."""
    if isinstance(status, dict) and len(status) == 1:
        status = next(iter(status))
    return isinstance(status, str) and status in _FAILED_STATUSES
