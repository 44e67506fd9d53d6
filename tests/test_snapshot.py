"""The core's snapshot: every field of every class it may hold is in its schema (a new field
fails here until the schema is bumped), values come back as they were (shared objects shared),
it holds nothing of the build, and garbage is refused with ``SnapshotError``, never a crash."""

from __future__ import annotations

import ast
import hashlib
import math
from collections import OrderedDict
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest

from bot import snapshot
from bot.formats import FORMATS
from bot.formats.reader import SourceReader
from bot.records import Origin, ToolCall
from bot.session import SessionBook
from bot.snapshot_classes import BUILT, CLASSES, ENUM, FIELDS, SCHEMA, SCHEMA_DIGEST, Entry
from bot.sources.files import read_bytes, split_lines
from tests.conftest import corpus_files

ROOT = Path(__file__).resolve().parents[1]
CORE = [ROOT / "bot/records.py", *sorted((ROOT / "bot/session").glob("*.py")),
        *sorted((ROOT / "bot/formats").glob("*.py"))]  # fmt: skip
# Classes marked serializable that hold no state of their own, or only for the length of a call.
NOT_STATE = {"bot.formats.parser.LineParser", "bot.formats.parser.Delegating",
             "bot.formats.agno_runs._Walk", "bot.records.Record"}  # fmt: skip
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _source_fields(cls: type) -> list[str]:
    """The fields a class's source gives it: annotated in its body (a dataclass's), or set on
    ``self`` in its methods, its bases' first."""
    fields: list[str] = []
    for klass in reversed(cls.__mro__):
        if klass.__module__.split(".")[0] not in ("bot", "blocks"):
            continue
        source = ROOT.joinpath(*klass.__module__.split(".")).with_suffix(".py")
        tree = ast.parse(source.read_text())  # (compiled, a module's source is not at hand)
        body = next(node for node in tree.body
                    if isinstance(node, ast.ClassDef) and node.name == klass.__name__)  # fmt: skip
        for name in _class_fields(body):
            if name not in fields:
                fields.append(name)
    return fields


def _class_fields(body: ast.ClassDef) -> list[str]:
    names = [node.target.id for node in body.body
             if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
             and not _constant(node.annotation)]  # fmt: skip
    for method in body.body:
        if not isinstance(method, ast.FunctionDef):
            continue
        for node in ast.walk(method):
            for target in _targets(node):
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "self" and target.attr not in names):  # fmt: skip
                    names.append(target.attr)
    return names


def _constant(annotation: ast.expr) -> bool:
    return any(word in ast.unparse(annotation) for word in ("ClassVar", "Final"))


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        found = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        found = [node.target]
    else:
        return []
    return [e for t in found for e in (t.elts if isinstance(t, ast.Tuple) else [t])]


@pytest.mark.parametrize("entry", [e for e in CLASSES if e.kind is not ENUM], ids=lambda e: e.tag)
def test_an_entry_names_every_field_its_class_has(entry: Entry) -> None:
    assert list(entry.fields) == _source_fields(entry.cls), (
        f"{entry.tag}: its fields changed; update bot/snapshot_classes.py and bump SCHEMA"
    )


def test_the_schema_digest_is_that_of_the_entries_so_a_change_bumps_the_schema() -> None:
    described = "\n".join(f"{e.tag} {e.kind} {' '.join(e.fields)}" for e in CLASSES)
    digest = hashlib.blake2b(f"{SCHEMA}\n{described}".encode(), digest_size=8).hexdigest()
    assert digest == SCHEMA_DIGEST, (
        f"the snapshot's classes changed: bump SCHEMA (now {SCHEMA}), then set SCHEMA_DIGEST "
        f"to the digest this test computes ({digest}) in bot/snapshot_classes.py"
    )


def test_every_class_of_the_core_marked_serializable_is_in_the_schema() -> None:
    registered = {f"{e.cls.__module__}.{e.cls.__qualname__}" for e in CLASSES}
    for path in CORE:
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef) and any(
                "serializable=True" in ast.unparse(d) for d in node.decorator_list
            ):
                name = f"{module}.{node.name}"
                assert name in registered or name in NOT_STATE, f"{name} is not in the schema"


@pytest.mark.parametrize("log_format", FORMATS, ids=lambda f: f.name)
def test_every_formats_parser_is_in_the_schema(log_format: Any) -> None:
    parser = log_format.parser("x.jsonl")
    assert any(type(parser) is e.cls for e in CLASSES), f"{type(parser)} is not in the schema"


@pytest.mark.parametrize("entry", [e for e in CLASSES if e.kind == FIELDS], ids=lambda e: e.tag)
def test_a_class_read_by_its_fields_is_made_without_its_constructor(entry: Entry) -> None:
    # Compiled, a class's ``__new__`` calls its ``__init__`` unless the class allows interpreted
    # subclasses (or is marked serializable): the snapshot could not make it from its fields.
    made = entry.cls.__new__(entry.cls)
    assert type(made) is entry.cls


def test_frozen_classes_are_built_from_their_fields_in_order() -> None:
    for entry in CLASSES:
        if entry.kind is BUILT:
            assert list(entry.fields) == list(entry.cls.__dataclass_fields__), entry.tag


def _again(value: object) -> Any:
    return snapshot.loads(snapshot.dumps(value))


def test_plain_values_come_back_as_they_were() -> None:
    at = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    value = {
        "tuple": (1, "a", None), "set": {1, 2}, "nested": [[{"$not": "a tag"}]],
        "keys": {1: "one", ("a", 2): "pair"}, "ordered": OrderedDict([("b", 1), ("a", 2)]),
        "times": [at, at.replace(tzinfo=None), at.astimezone(timezone(timedelta(hours=2)))],
        "numbers": [2**70, -(2**70), 1.0, 0.1, True, math.inf], "bytes": b"\x00\xff",
        "long": ["x" * 40, "x" * 40, "y" * 23],
    }  # fmt: skip
    again = _again(value)
    assert again == value
    assert type(again["ordered"]) is OrderedDict and type(again["tuple"]) is tuple
    assert [t.tzinfo for t in again["times"]] == [t.tzinfo for t in value["times"]]
    assert type(again["numbers"][2]) is float and type(again["numbers"][4]) is bool
    assert math.isnan(_again(math.nan))


def test_an_object_held_twice_comes_back_as_one_object() -> None:
    origin = Origin("s", NOW, 1)
    call = ToolCall(origin, call_id="c1", name="Bash", input={"command": "ls"})
    shared: list[object] = []
    shared.append(shared)
    again = _again({"calls": [call, call], "origin": origin, "cycle": shared})
    assert again["calls"][0] is again["calls"][1] and again["calls"][0].origin is again["origin"]
    assert again["calls"][0] == call
    assert again["cycle"][0] is again["cycle"]


def test_a_class_not_in_the_schema_is_not_written() -> None:
    class Stranger:
        pass

    with pytest.raises(TypeError, match=r"bot/snapshot_classes\.py"):
        snapshot.dumps([Stranger()])


@pytest.mark.parametrize(
    "garbage",
    [b"", b"[1, 2", b"\xff", b'{"$r": 3}', b'{"$r": -1}', b'{"$Stranger": []}',
     b'{"$ToolCall": [1]}', b'{"$ToolStatus": "no such status"}', b'{"$u": "soon"}',
     b'{"$dt": "yesterday"}', b'{"$od": [[1]]}', b'{"$i": "many"}', b'{"$b": "!!"}',
     b'{"$SessionBook": [1, 2]}', b'{"$t": 5}', b'{"$u": 1e300}'],
)  # fmt: skip
def test_garbage_is_refused_with_a_snapshot_error(garbage: bytes) -> None:
    with pytest.raises(snapshot.SnapshotError):
        snapshot.loads(garbage)


def _tags(plain: Any) -> set[str]:
    if isinstance(plain, list):
        return {tag for item in plain for tag in _tags(item)}
    if not isinstance(plain, dict):
        return set()
    found = {key for key in plain if len(plain) == 1 and key.startswith("$")}
    return found | {tag for item in plain.values() for tag in _tags(item)}


def test_a_snapshot_of_the_corpus_holds_nothing_of_the_build() -> None:
    book, builtin = SessionBook(), {"$r", "$t", "$set", "$od", "$d", "$u", "$dt", "$i", "$f", "$b"}
    readers = {}
    for path in corpus_files()[:40]:
        reader = readers[path.name] = SourceReader(path.name)
        for number, line in split_lines(read_bytes(path)):
            for record in reader.feed(line, number):
                book.apply(record, NOW)
    data = snapshot.dumps({"book": book, "readers": readers})
    assert _tags(orjson.loads(data)) <= builtin | {f"${e.tag}" for e in CLASSES}
