"""A burst of Claude Code stream-json lines on a timeline, for ``benchmarks.lag``.

Each session is written as ``claude -p --output-format stream-json --verbose`` writes it: an
``init``, then turns of the agent: sometimes a remark or a longer text, then one to eight tool
calls at once (each its own ``assistant`` line, as the CLI writes parallel calls), each call's
``tool_result`` 0.1–3 s after it (a command 0.5–3 s, a read or search 0.1–1 s), the next turn
once every result is in and the model has thought a little; a ``result`` at the end. Every
call's summary (command, path, pattern) and every text holds a unique mark (``c00042``,
``note-0001-0007``) so that a benchmark can tell when a message first shows it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

MODEL = "claude-sonnet-4-5-20250929"
TOOLS = ("Bash", "Read", "Grep", "Glob", "Edit")
RESULT_DELAY_S = {"Bash": (0.5, 3.0)}  # the others: FAST_RESULT_S
FAST_RESULT_S = (0.1, 1.0)
CALLS_AT_ONCE = {1: 30, 2: 20, 3: 20, 4: 15, 6: 10, 8: 5}  # calls per turn: weight
SPACING_S = 0.03  # between the lines of one turn's parallel calls
MIN_THINK_S = 0.1
TEXT_CHANCE = {"remark": 0.3, "long": 0.03}  # per turn
ERROR_CHANCE = 0.05


@dataclass(frozen=True, slots=True)
class Shows:
    """What a line makes visible: a call's ``start`` or ``result``, or a ``text``."""

    kind: str
    mark: str


@dataclass(frozen=True, slots=True)
class Timed:
    at: float  # seconds from the start of the burst
    data: bytes
    shows: tuple[Shows, ...] = ()


@dataclass(frozen=True)
class Burst:
    calls: int = 2000
    sessions: int = 2
    pace: float = 4.5  # tool calls a second, all sessions together
    seed: int = 1


def burst_lines(burst: Burst) -> list[Timed]:
    """Every line of every session, in the order of writing."""
    rng = random.Random(burst.seed)
    think = think_s(burst)
    lines: list[Timed] = []
    first = 0
    for index in range(burst.sessions):
        calls = burst.calls // burst.sessions + (index < burst.calls % burst.sessions)
        writer = SessionWriter(index, first, rng, think)
        lines.extend(writer.lines(calls, start=index * 0.4))
        first += calls
    return sorted(lines, key=lambda line: line.at)


def think_s(burst: Burst, samples: int = 20_000) -> float:
    """The model's mean thinking time between turns that gives ``pace``: a session's turn
    lasts as long as its slowest call, plus this; at least ``MIN_THINK_S``."""
    rng = random.Random(0)
    calls = slowest = 0.0
    for _ in range(samples):
        at_once = calls_at_once(rng)
        calls += at_once
        slowest += max(result_delay(rng, rng.choice(TOOLS)) for _ in range(at_once))
    per_turn = calls / samples
    turn_s = per_turn * burst.sessions / burst.pace
    return max(MIN_THINK_S, turn_s - slowest / samples - per_turn * SPACING_S)


def calls_at_once(rng: random.Random) -> int:
    return rng.choices(list(CALLS_AT_ONCE), weights=list(CALLS_AT_ONCE.values()))[0]


def result_delay(rng: random.Random, tool: str) -> float:
    return rng.uniform(*RESULT_DELAY_S.get(tool, FAST_RESULT_S))


class SessionWriter:
    """One session's lines."""

    def __init__(self, index: int, first_call: int, rng: random.Random, think: float) -> None:
        self.sid = f"bench{index:04d}-4e4c-4265-b0b2-0e42f2a13909"
        self.rng, self.think = rng, think
        self.next_call = first_call
        self.notes = 0
        self.messages = 0
        self.out: list[Timed] = []

    def lines(self, calls: int, start: float) -> list[Timed]:
        self.emit(start, init_line(self.sid))
        now, turns = start + 0.2, 0
        while calls > 0:
            at_once = min(calls, calls_at_once(self.rng))
            now = self.turn(now, at_once)
            calls, turns = calls - at_once, turns + 1
        self.emit(now, self.assistant([{"type": "text", "text": "All done."}]))
        self.emit(now + 0.05, result_line(self.sid, turns, now - start))
        return self.out

    def turn(self, now: float, at_once: int) -> float:
        """One turn; when the next may start."""
        now += self.rng.uniform(0.5, 1.5) * self.think
        now = self.maybe_text(now)
        ends = []
        for offset in range(at_once):
            at = now + offset * SPACING_S
            ends.append(self.call(at))
        return max(ends)

    def maybe_text(self, now: float) -> float:
        roll = self.rng.random()
        if roll < TEXT_CHANCE["long"]:
            return self.text(now, long_text)
        if roll < TEXT_CHANCE["long"] + TEXT_CHANCE["remark"]:
            return self.text(now, remark)
        return now

    def text(self, now: float, words: Callable[[str], str]) -> float:
        self.notes += 1
        mark = f"note-{self.sid[5:9]}-{self.notes:04d}"
        self.emit(now, self.assistant([{"type": "text", "text": words(mark)}]), Shows("text", mark))
        return now + SPACING_S

    def call(self, at: float) -> float:
        """A tool call at ``at`` and its result; when the result is written."""
        self.next_call += 1
        mark = f"c{self.next_call:05d}"
        call_id = f"toolu_01{mark}{self.sid[:8]}"
        name = self.rng.choice(TOOLS)
        use = {"type": "tool_use", "id": call_id, "name": name, "input": tool_input(name, mark)}
        self.emit(at, self.assistant([use]), Shows("start", mark))
        done = at + result_delay(self.rng, name)
        failed = self.rng.random() < ERROR_CHANCE
        self.emit(done, result_of(self.sid, call_id, failed), Shows("result", mark))
        return done

    def assistant(self, content: list[dict[str, Any]]) -> bytes:
        self.messages += 1
        return line({
            "type": "assistant",
            "message": {"model": MODEL, "id": f"msg_01{self.sid[:8]}{self.messages:06d}",
                        "type": "message", "role": "assistant", "content": content,
                        "stop_reason": None, "stop_sequence": None,
                        "usage": {"input_tokens": 3, "output_tokens": 1}},
            "parent_tool_use_id": None, "session_id": self.sid, "uuid": self.uuid(),
        })  # fmt: skip

    def uuid(self) -> str:
        return f"{self.rng.getrandbits(128):032x}"

    def emit(self, at: float, data: bytes, *shows: Shows) -> None:
        self.out.append(Timed(at, data, shows))


def line(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj) + b"\n"


def init_line(sid: str) -> bytes:
    return line({
        "type": "system", "subtype": "init", "cwd": f"/home/dev/{sid[:9]}", "session_id": sid,
        "tools": ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "TodoWrite"],
        "mcp_servers": [], "model": MODEL, "permissionMode": "bypassPermissions",
        "apiKeySource": "none", "claude_code_version": "2.0.25", "output_style": "default",
        "uuid": f"{sid[:8]}-04dc-4b9c-bcee-b1f95a3f37f4",
    })  # fmt: skip


def tool_input(name: str, mark: str) -> dict[str, Any]:
    path = f"/home/dev/app/src/{mark}.py"
    if name == "Bash":
        return {"command": f"pytest -q tests/test_{mark}.py", "description": "Run the tests"}
    if name == "Grep":
        return {"pattern": f"def {mark}_", "path": "/home/dev/app/src"}
    if name == "Glob":
        return {"pattern": f"**/{mark}*.py"}
    if name == "Edit":
        return {"file_path": path, "old_string": "x = 1", "new_string": "x = 2"}
    return {"file_path": path}


def result_of(sid: str, call_id: str, failed: bool) -> bytes:
    output = "Exit code 1\nFAILED tests - AssertionError" if failed else "12 passed in 0.41s"
    return line({
        "type": "user",
        "message": {"role": "user", "content": [{"tool_use_id": call_id, "type": "tool_result",
                                                 "content": output, "is_error": failed}]},
        "parent_tool_use_id": None, "session_id": sid, "uuid": f"{call_id}-result",
    })  # fmt: skip


def result_line(sid: str, turns: int, seconds: float) -> bytes:
    return line({
        "type": "result", "subtype": "success", "is_error": False,
        "duration_ms": int(seconds * 1000), "duration_api_ms": int(seconds * 700),
        "num_turns": turns, "result": "All done.", "session_id": sid, "total_cost_usd": 1.25,
        "usage": {"input_tokens": 1200, "output_tokens": 45000}, "permission_denials": [],
        "uuid": f"{sid[:8]}-result",
    })  # fmt: skip


def remark(mark: str) -> str:
    return f"Now let me check the next part ({mark})."


def long_text(mark: str) -> str:
    body = "The tests show where the parser loses its place; the fix is in the reader. " * 5
    return f"## Findings ({mark})\n\n{body}\n\n- first\n- second"
