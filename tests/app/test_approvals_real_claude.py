"""Approvals with the real Claude Code: ``claude -p … --mcp-config … --permission-prompt-tool
mcp__slacktail__approve``, as the README says, against a stand-in Messages API that asks for one
Bash call needing permission; our ``slacktail approvals`` puts it on the desk, a decision there
goes back, and Claude Code runs the call (allow) or tells the model it was denied (deny).

Skipped where ``claude`` is not installed (``npm install @anthropic-ai/claude-code``; or name
the binary in ``SLACKTAIL_TEST_CLAUDE``): no network is used, the API is local."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest

from bot.app.approval_server import SERVER, TOOL
from bot.app.desk import ALLOW, DENY, Desk
from tests.app.messages_api import CALL_ID, messages_api
from tests.conftest import wait_until

CLAUDE = os.environ.get("SLACKTAIL_TEST_CLAUDE") or shutil.which("claude")
pytestmark = pytest.mark.skipif(CLAUDE is None, reason="claude (Claude Code) is not installed")
pytest.importorskip("mcp", reason="slacktail approvals needs the mcp package (pip install mcp)")
ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 60.0


def claude_asks(tmp_path: Path, decision: str) -> list[dict[str, object]]:
    """Claude Code run as the README says, its one request decided ``decision`` on the desk;
    the stream-json lines it printed."""
    state, work = tmp_path / "state", tmp_path / "work"
    work.mkdir()
    server = {"command": sys.executable, "args": ["-m", "bot.cli", "approvals", "--state-dir",
              str(state)], "env": {"PYTHONPATH": str(ROOT), "SLACKTAIL_COMPILE": "0"}}  # fmt: skip
    config = tmp_path / "slacktail-mcp.json"
    config.write_bytes(orjson.dumps({"mcpServers": {SERVER: server}}))
    decided: list[str] = []

    def decide() -> None:
        state.mkdir(exist_ok=True)
        desk = Desk.open(state)
        if wait_until(lambda: bool(desk.changed_since(0)), WAIT_S):
            (request,) = desk.changed_since(0)
            desk.decide(request.id, decision, by="U0TESTER")
            decided.append(request.tool)
        desk.close()

    decider = threading.Thread(target=decide, daemon=True)
    decider.start()
    with messages_api() as base_url:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path / "home"),
               "ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "sk-ant-stand-in",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
               "DISABLE_AUTOUPDATER": "1"}  # fmt: skip
        run = subprocess.run(
            [str(CLAUDE), "-p", "make a file", "--output-format", "stream-json", "--verbose",
             "--mcp-config", str(config), "--permission-prompt-tool", f"mcp__{SERVER}__{TOOL}"],
            cwd=work, env=env, capture_output=True, timeout=WAIT_S * 2, check=False,
        )  # fmt: skip
    decider.join(WAIT_S)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert decided == ["Bash"]
    return [orjson.loads(line) for line in run.stdout.splitlines() if line.startswith(b"{")]


def test_an_approval_in_slack_lets_claude_code_run_the_call(tmp_path: Path) -> None:
    lines = claude_asks(tmp_path, ALLOW)
    assert (tmp_path / "work" / "created-by-bash.txt").exists()
    assert lines[-1]["type"] == "result" and lines[-1]["permission_denials"] == []


def test_a_denial_in_slack_is_what_claude_code_tells_the_model(tmp_path: Path) -> None:
    lines = claude_asks(tmp_path, DENY)
    assert not (tmp_path / "work" / "created-by-bash.txt").exists()
    said = orjson.dumps(lines).decode()
    assert "Denied in Slack by U0TESTER." in said
    denials = lines[-1]["permission_denials"]
    assert isinstance(denials, list) and [d["tool_use_id"] for d in denials] == [CALL_ID]
