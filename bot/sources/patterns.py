"""Which files under a folder a few glob patterns name, found in one walk of the folder.

A pattern is relative to the folder, ``/``-separated, as for ``glob``: ``*`` and ``?`` match
within one name, ``[...]`` one character of a set, and a ``**`` part any number of folders.
As with ``glob``, a wildcard does not match a name starting with a dot (``**`` does not enter
hidden folders), but a part spelled with its dot does (``**/.system_generated/logs/*.jsonl``).
One walk serves every pattern: the folders are walked once per scan however many patterns
there are (a ``glob`` call per pattern would walk them once each). Symbolic links to folders
are not followed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from bot.errors import InputError

RECURSIVE = "**"
# The agents' session files under a followed folder (``slacktail follow DIR``).
SESSION_FILES = (
    "**/*.jsonl",
    "**/.system_generated/logs/transcript.jsonl",
    "**/chats/session-*.json",
    "**/*.traj",
)
TWINS = {"transcript_full.jsonl": "transcript.jsonl"}  # left out when the other is beside it
GLOB_CHARACTERS = frozenset("*?[")


def is_folder_target(target: str) -> bool:
    """``target`` names a folder or is a glob (else it is one file, or ``-``)."""
    return Path(target).expanduser().is_dir() or any(c in GLOB_CHARACTERS for c in target)


def split_target(
    target: str, patterns: Sequence[str] = SESSION_FILES
) -> tuple[Path, tuple[str, ...]]:
    """The folder to watch and the glob patterns under it: ``DIR`` → ``(DIR, patterns)``,
    ``~/logs/*/run-*.jsonl`` → ``(~/logs, ("*/run-*.jsonl",))``."""
    path = Path(target).expanduser()
    if path.is_dir():
        return path, (*patterns, *_from_inside(path, patterns))
    parts = path.parts
    fixed = next((i for i, part in enumerate(parts) if GLOB_CHARACTERS & set(part)), len(parts))
    if fixed == len(parts):
        raise InputError(f"{target}: not a folder, nor a glob pattern")
    root = Path(*parts[:fixed]) if fixed else Path(".")
    if not root.is_dir():
        raise InputError(f"{root}: no such folder")
    return root, (str(Path(*parts[fixed:])),)


def _from_inside(folder: Path, patterns: Sequence[str]) -> tuple[str, ...]:
    """The patterns that name files in folders ``folder`` itself is, or is inside of: Gemini's
    ``**/chats/session-*.json`` becomes ``session-*.json`` for a followed ``…/chats``, whose
    documents the pattern, relative to it, would not name."""
    inside: list[str] = []
    for pattern in patterns:
        parts = _parts(pattern)
        fixed = parts[1:-1] if parts[:1] == [RECURSIVE] else []
        for depth in range(len(fixed), 0, -1):  # the most of them the folder's path ends with
            if folder.parts[-depth:] == tuple(fixed[:depth]):
                inside.append("/".join([*fixed[depth:], parts[-1]]))
                break
    return tuple(inside)


def left_out(path: Path) -> bool:
    """A twin file, holding what its sibling holds, is not followed beside it."""
    twin = TWINS.get(path.name)
    return twin is not None and (path.parent / twin).is_file()


class FilePatterns:
    """Glob patterns, compiled once; ``find(root)`` gives the files they name, sorted."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = tuple(patterns)
        parts = [_parts(pattern) for pattern in self.patterns]
        self._regex = re.compile("|".join(f"(?:{_regex(p)})" for p in parts))
        self._hidden = {part for each in parts for part in each if part.startswith(".")}
        deep = any(RECURSIVE in each for each in parts)
        self._depth = None if deep else max((len(each) - 1 for each in parts), default=0)

    def matches(self, relative: str) -> bool:
        """Whether a ``/``-separated path relative to the folder is named by a pattern."""
        return self._regex.fullmatch(relative) is not None

    def find(self, root: Path, unreadable: list[OSError] | None = None) -> list[Path]:
        """The files under ``root`` that a pattern names, in path order (a folder's files
        before those of its subfolders of the same name: ``s1.jsonl`` before ``s1/…``). A folder
        that cannot be listed is left out, its error added to ``unreadable``."""
        found: list[Path] = []
        top = str(root)
        keep = None if unreadable is None else unreadable.append
        for folder, folders, files in os.walk(top, onerror=keep):
            relative = os.path.relpath(folder, top)
            prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
            depth = prefix.count("/")
            if self._depth is not None and depth >= self._depth:
                folders.clear()  # no pattern goes deeper
            else:
                folders[:] = [f for f in folders if not f.startswith(".") or f in self._hidden]
            for name in files:
                if self.matches(prefix + name) and os.path.isfile(os.path.join(folder, name)):
                    found.append(root / (prefix + name))
        return sorted(found, key=str)


def _parts(pattern: str) -> list[str]:
    return [part for part in pattern.replace(os.sep, "/").split("/") if part not in ("", ".")]


def _regex(parts: list[str]) -> str:
    """A regular expression for the ``/``-joined paths a pattern's parts name."""
    out = ""
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == RECURSIVE:
            out += r"(?:[^/.][^/]*/)*" + (r"[^/.][^/]*" if last else "")
            continue
        out += _part_regex(part) + ("" if last else "/")
    return out


def _part_regex(part: str) -> str:
    """One name's pattern: a wildcard at its start does not match a leading dot."""
    out = r"(?!\.)" if part[:1] in ("*", "?", "[") else ""
    at = 0
    while at < len(part):
        char = part[at]
        at += 1
        if char == "*":
            out += "[^/]*"
        elif char == "?":
            out += "[^/]"
        elif char == "[" and (end := _class_end(part, at)) > 0:
            inside = part[at:end]
            negated = inside.startswith("!")
            body = re.escape(inside[1:] if negated else inside).replace(r"\-", "-")
            out += f"[{'^/' if negated else ''}{body}]"
            at = end + 1
        else:
            out += re.escape(char)
    return out


def _class_end(part: str, start: int) -> int:
    """Where the ``]`` closing a set that opened just before ``start`` is; -1 if none."""
    at = start + 1 if part[start : start + 1] == "!" else start
    if part[at : at + 1] == "]":
        at += 1  # a ``]`` first in the set is one of its characters
    return part.find("]", at)
