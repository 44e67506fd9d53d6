"""Glob patterns matched in one walk of a folder: the same files ``glob`` names, hidden folders
entered only where a pattern spells them, no deeper than a pattern without ``**`` reaches."""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.sources.patterns import FilePatterns

TREE = [
    "a.jsonl",
    "p/s1.jsonl",
    "p/s1/subagents/agent-1.jsonl",
    "p/notes.txt",
    "p/.hidden.jsonl",
    "q/deep/er/run-7.jsonl",
    "q/run-1.jsonl",
    "q/run-x.jsonl",
    ".cache/x.jsonl",
    "b/u1/.system_generated/logs/transcript.jsonl",
    "b/u1/.system_generated/logs/transcript_full.jsonl",
    "g/h1/chats/session-1.json",
    "g/h1/logs.json",
    "t/x.traj",
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in TREE:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"{}\n")
    return tmp_path


def found(root: Path, *patterns: str) -> list[str]:
    return [p.relative_to(root).as_posix() for p in FilePatterns(patterns).find(root)]


def globbed(root: Path, *patterns: str) -> list[str]:
    names = {n for p in patterns for n in glob.glob(p, root_dir=root, recursive=True)}
    return sorted(n for n in names if (root / n).is_file())


@pytest.mark.parametrize(
    "patterns",
    [
        ("**/*.jsonl",),
        ("*.jsonl",),
        ("*/run-*.jsonl",),
        ("q/run-[0-9].jsonl",),
        ("q/run-[!0-9].jsonl",),
        ("q/**/run-?.jsonl",),
        ("**/.system_generated/logs/transcript.jsonl",),
        ("**/chats/session-*.json", "**/*.traj"),
        ("**/*.jsonl", "**/*.traj", "**/chats/session-*.json"),
        ("p/**",),
    ],
)
def test_the_files_named_are_those_glob_names(tree: Path, patterns: tuple[str, ...]) -> None:
    assert found(tree, *patterns) == globbed(tree, *patterns)


def test_a_hidden_folder_is_entered_only_where_a_pattern_spells_it(tree: Path) -> None:
    assert ".cache/x.jsonl" not in found(tree, "**/*.jsonl")
    assert "b/u1/.system_generated/logs/transcript.jsonl" not in found(tree, "**/*.jsonl")
    assert found(tree, "**/.system_generated/logs/transcript.jsonl") == [
        "b/u1/.system_generated/logs/transcript.jsonl"
    ]


def test_a_session_comes_before_its_subagents(tree: Path) -> None:
    names = found(tree, "p/**/*.jsonl")
    assert names == ["p/s1.jsonl", "p/s1/subagents/agent-1.jsonl"]


def test_without_double_star_the_walk_stops_at_the_patterns_depth(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entered: list[str] = []
    walk = os.walk

    def counting(top: str, onerror: object = None) -> Iterator[tuple[str, list[str], list[str]]]:
        for folder, folders, files in walk(top):
            entered.append(folder)
            yield folder, folders, files

    monkeypatch.setattr("bot.sources.patterns.os.walk", counting)
    assert found(tree, "*/run-*.jsonl") == ["q/run-1.jsonl", "q/run-x.jsonl"]
    assert not any("deep" in folder for folder in entered)


def test_a_pattern_matches_relative_paths() -> None:
    patterns = FilePatterns(["**/chats/session-*.json"])
    assert patterns.matches("tmp/abc/chats/session-2025-10-27T19-55-981c87cb.json")
    assert patterns.matches("chats/session-1.json")
    assert not patterns.matches("tmp/abc/chats/checkpoint-1.json")
    assert not patterns.matches("tmp/.abc/chats/session-1.json")
