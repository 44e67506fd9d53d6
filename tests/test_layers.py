"""The pipeline runs one way (sources → formats → session → blocks → delivery): no module imports
against it. Read from the sources' import statements (every one, a function's own too).

A stage imports the bottom layer (records, the helpers on values, lenient JSON, redaction, the
errors), its own modules, and the one stage whose output it takes: blocks read the session's
state, delivery sends blocks' messages. Formats hand the session records only, which are at
the bottom, so the session imports no format. The bottom imports nothing but the bottom. The
edges (the CLI, the follower, the app...) put the stages together and may import any."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOTTOM = (
    "bot.records", "bot.result_records", "bot.values", "bot.lenient", "bot.redaction",
    "bot.errors", "bot.caps", "bot.controls",
)  # fmt: skip
# Each stage, and the stages beside the bottom whose modules it may import.
STAGES: dict[str, tuple[str, ...]] = {
    "bot.sources": (),
    "bot.formats": (),
    "bot.session": (),
    "blocks": ("bot.session",),
    "bot.delivery": ("blocks",),
}
# The pure core: it imports no edge module (the app, the follower, config, logs, I/O).
CORE = ("bot.formats", "bot.session", "blocks")
PACKAGES = ("bot", "blocks")


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _layer_of(module: str) -> str | None:
    """The stage or bottom module that ``module`` belongs to; None for an edge module."""
    for layer in (*BOTTOM, *STAGES):
        if _in(module, layer):
            return layer
    return None


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every import of the project's own modules in ``path``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            # ``from bot import events`` imports the module bot.events.
            found.extend((node.lineno, name) for name in names[1:] if node.module in PACKAGES)
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
    return [(line, name) for line, name in found if name.split(".")[0] in PACKAGES]


def against_the_direction(path: Path) -> list[str]:
    """The imports of ``path`` that go against the pipeline, as ``file:line imports module``."""
    layer = _layer_of(_module_of(path))
    if layer is None:
        return []
    allowed = (*BOTTOM, layer) if layer in BOTTOM else (*BOTTOM, layer, *STAGES[layer])
    wrong: list[str] = []
    for line, module in _imports(path):
        if module in PACKAGES:  # ``from bot import x``: judged by x
            continue
        target = _layer_of(module)
        if (target is None and layer in BOTTOM + CORE) or (
            target is not None and target not in allowed
        ):
            wrong.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return wrong


def _sources() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def _judged(
    module: str, source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    """What ``against_the_direction`` says of ``source`` written as ``module`` of a tree."""
    path = tmp_path / module
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source, encoding="utf-8")
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    return against_the_direction(path)


def test_no_module_imports_against_the_pipeline() -> None:
    wrong = [entry for path in _sources() for entry in against_the_direction(path)]
    assert wrong == []


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("bot/session/x.py", "from bot.formats.common import text_of\n"),
        ("blocks/x.py", "def f() -> None:\n    from bot.delivery import deliverer\n"),
        ("bot/formats/x.py", "from bot.session import Session\n"),
        ("bot/sources/x.py", "import bot.formats.reader\n"),
        ("bot/redaction/x.py", "from bot.session.thread import TEXT_CAP\n"),
        ("bot/values.py", "from bot import follower\n"),
        ("blocks/x.py", "from bot.app.slack_app import ControlsApp\n"),
        ("bot/session/x.py", "from bot.config import Settings\n"),
    ],
)
def test_an_import_against_the_pipeline_is_found(
    module: str, source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(_judged(module, source, tmp_path, monkeypatch)) == 1


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("blocks/x.py", "from bot.session import Session\n"),
        ("bot/delivery/x.py", "from blocks.message import Message\n"),
        ("bot/session/x.py", "from bot.records import ToolCall\nfrom bot.values import clip\n"),
        ("bot/follower.py", "from bot.formats.reader import SourceReader\n"),
        ("bot/delivery/x.py", "from bot.logs import EventLog\n"),
        ("blocks/x.py", "from bot.controls import STOP\n"),
    ],
)
def test_an_import_along_the_pipeline_is_allowed(
    module: str, source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _judged(module, source, tmp_path, monkeypatch) == []
