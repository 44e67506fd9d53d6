"""Golden previews: one log of each family at each verbosity, rendered by ``slacktail
preview`` as plain text and committed beside this file (``tests/goldens/``), so that a change
of what a thread shows is seen as a diff in review.

After a change that means to alter what threads show, write the goldens anew and read the diff:
``SLACKTAIL_WRITE_GOLDENS=1 python3 -m pytest -q tests/test_goldens.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.preview import build_preview, preview_text
from bot.session import SessionSettings, Verbosity
from tests.conftest import CORPUS, CORPUS_MISSING, FIXTURES

GOLDENS = Path(__file__).resolve().parent / "goldens"
WRITE = os.environ.get("SLACKTAIL_WRITE_GOLDENS") == "1"

_CORPUS_LOGS = {
    "claude-stream-json": "ariel-frischer__claude-clean__claude-stream-json-simple.jsonl",
    "amp": "empathic__toolpath__stream.jsonl",
    "claude-transcript": "marot__spotter__short.jsonl",
    "agno": "generated__agno-3.1.10__team_delegation_stream.jsonl",
    "backend": "synthetic__seed-000__twenty_questions.jsonl",
    "openai-messages": "SWE-agent__SWE-agent__function_calling_simple.traj",
    "codex-exec-json": "banteg__takopi__codex_exec_json_all_formats.jsonl",
    "codex-rollout": "shane-kercheval__switchboard__apply-patch.session.jsonl",
    "cursor-stream-json": "reifying__cursor-hack__full_session.jsonl",
    "gemini-stream-json": "shane-kercheval__switchboard__tool-use.stream.jsonl",
    "gemini-session": "jnarowski__agentcmd__session-2025-10-29T10-36-453aa339.json",
    "opencode-json": "banteg__takopi__opencode_stream_success.jsonl",
    "pi-json": "banteg__takopi__pi_print_mode_events.jsonl",
    "antigravity-transcript": "shane-kercheval__switchboard__tool-use.transcript.jsonl",
    "kimi-wire": "codemie-ai__codemie-code__sample-wire.jsonl",
}
# family (or dialect) -> one log of it: a short corpus file where the corpus has one
LOGS = {family: next(CORPUS.glob(f"*/{name}"), CORPUS / name) for family, name in
        _CORPUS_LOGS.items()} | {"pi-session": FIXTURES / "pi_session_v3.jsonl"}  # fmt: skip
CASES = [(family, verbosity) for family in LOGS for verbosity in Verbosity]


def rendered(path: Path, verbosity: Verbosity) -> str:
    """The plain-text preview, with the folders the log came from left out of it (a session
    named after its file would otherwise carry this machine's path)."""
    text = preview_text(build_preview([path], settings=SessionSettings(verbosity=verbosity)))
    return text.replace(str(path.parent) + os.sep, "").replace(str(path.parent), "") + "\n"


@pytest.mark.parametrize(("family", "verbosity"), CASES, ids=[f"{f}-{v}" for f, v in CASES])
def test_the_preview_of_each_family_is_its_golden(family: str, verbosity: Verbosity) -> None:
    path = LOGS[family]
    if not path.exists():
        pytest.skip(f"{CORPUS_MISSING}: {path.name} not found")
    golden = GOLDENS / f"{family}.{verbosity.value}.txt"
    text = rendered(path, verbosity)
    if WRITE:
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"{golden.name} is missing: write it (see this module's docstring)"
    assert text == golden.read_text(encoding="utf-8")
