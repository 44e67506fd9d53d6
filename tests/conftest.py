"""Shared test fixtures: where the corpus and seeds are, and small helpers to read them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SLACKTAIL_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "corpus"
SEEDS = SHARED / "seeds"
FIXTURES = Path(__file__).resolve().parent / "fixtures"

CORPUS_MISSING = (
    f"the shared corpus is not at {CORPUS} (set SLACKTAIL_SHARED to the folder holding corpus/)"
)


def corpus_file(family_dir: str, name: str) -> Path:
    """A corpus file's path; skips the test with a clear reason where the corpus is absent."""
    path = CORPUS / family_dir / name
    if not path.exists():
        pytest.skip(f"{CORPUS_MISSING}: {family_dir}/{name} not found")
    return path


def corpus_files() -> list[Path]:
    """Every data file of the corpus (empty where it is absent)."""
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.glob("*/*") if p.is_file() and p.suffix != ".md")
