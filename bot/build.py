"""Whether the core runs compiled (mypyc, see ``setup.py``) or as pure Python, and whether an
editable install's compiled modules are older than their sources (Python would then run the
old code: install again)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path

CORE_MODULES = ("bot.records", "bot.formats.reader", "bot.session.state", "blocks.thread")
_PACKAGES = (  # setup.py's CORE
    "bot.records", "bot.result_records", "bot.values", "bot.lenient",
    "bot.formats", "bot.session", "blocks",
)  # fmt: skip
_COMPILED = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def compiled() -> bool:
    """True when the core's modules are C extensions built by mypyc."""
    for name in CORE_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None or not spec.origin.endswith(_COMPILED):
            return False
    return True


def stale_modules(root: Path | None = None) -> list[str]:
    """Core sources changed after the compiled core was last built (none when it is not
    compiled). The build links all of the core into one library beside the packages
    (``*__mypyc*``) and keeps each module's small loader unchanged when its code did not
    change, so the newest compiled file tells when the core was built."""
    root = root or Path(__file__).resolve().parents[1]
    sources: list[Path] = []
    built: list[Path] = [path for suffix in _COMPILED for path in root.glob(f"*__mypyc*{suffix}")]
    for package in _PACKAGES:
        path = root.joinpath(*package.split("."))
        folder, pattern = (path, "*") if path.is_dir() else (path.parent, path.name)
        sources.extend(folder.glob(f"{pattern}.py") if path.is_dir() else [path.with_suffix(".py")])
        built.extend(found for suffix in _COMPILED for found in folder.glob(f"{pattern}{suffix}"))
    if not built:
        return []
    built_at = max(path.stat().st_mtime for path in built)
    return sorted(
        str(source.relative_to(root)) for source in sources
        if source.exists() and source.stat().st_mtime > built_at
    )


def description() -> str:
    return "compiled core (mypyc)" if compiled() else "pure Python core"
