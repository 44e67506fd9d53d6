"""How approvals are set up: the README's lines match the server's names, and the command's
options are checked before anything starts."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import orjson
import pytest

from bot.app.approval_server import SERVER, TOOL
from bot.cli import main
from bot.commands import agent_env
from bot.config import load_settings

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_names_the_tool_as_claude_code_will_call_it() -> None:
    readme = README.read_text()
    (config,) = re.findall(r'^\{"mcpServers".*\}$', readme, re.MULTILINE)
    servers = orjson.loads(config)["mcpServers"]
    assert servers == {SERVER: {"command": "slacktail", "args": ["approvals"]}}
    assert f"--permission-prompt-tool mcp__{SERVER}__{TOOL}" in readme
    assert "--mcp-config slacktail-mcp.json" in readme


def test_a_timeout_that_is_not_a_duration_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["approvals", "--approval-timeout", "soon"]) == 2
    assert "a duration such as 90s or 5m" in capsys.readouterr().err


def test_a_timeout_variable_that_is_not_a_duration_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SLACKTAIL_APPROVAL_TIMEOUT", "-3m")
    assert main(["approvals"]) == 2
    assert "SLACKTAIL_APPROVAL_TIMEOUT" in capsys.readouterr().err


def test_an_agent_run_with_a_state_dir_tells_its_approvals_server_where_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SLACKTAIL_STATE_DIR", raising=False)
    env = agent_env(load_settings({"state_dir": str(tmp_path)}))
    assert env is not None and env["SLACKTAIL_STATE_DIR"] == str(tmp_path)
    assert env["PATH"] == os.environ["PATH"]  # the rest of the environment kept
    assert agent_env(load_settings({})) is None  # inherited as it is


def test_without_the_mcp_package_the_command_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # an import of it fails, as when not installed
    monkeypatch.setitem(sys.modules, "mcp.server", None)
    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)
    assert main(["approvals", "--state-dir", str(tmp_path)]) == 1
    assert "needs the mcp package (pip install mcp)" in capsys.readouterr().err
