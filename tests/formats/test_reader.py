"""The reader: decoding, detection, unparsed lines — and that garbage never costs a valid record."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot import snapshot
from bot.errors import FormatError
from bot.formats import FAMILIES, FORMATS, LogFormat
from bot.formats import reader as reader_module
from bot.formats.parser import Delegating, LineParser
from bot.formats.reader import SourceReader
from bot.records import Record, Unparsed, UserText
from bot.sources.files import split_lines
from tests.conftest import CORPUS_MISSING, FIXTURES, corpus_files

# One JSON Lines file per family: the property runs over each.
LINE_FILES = [
    path
    for path in corpus_files()
    if path.name
    in {
        "banteg__takopi__claude_code_all_events.jsonl",
        "marot__spotter__short.jsonl",
        "daaain__claude-code-log__sidechain_integrated.jsonl",
        "generated__agno-3.1.10__team_delegation_stream.jsonl",
        "synthetic__seed-000__twenty_questions.jsonl",
        "synthetic__seed-004__suna_db_rows.jsonl",
        "invariantlabs-ai__explorer__code.jsonl",
        "banteg__takopi__codex_exec_json_all_formats.jsonl",
        "shun-shobon__gemicord__log.jsonl",
        "shane-kercheval__switchboard__tool-use.session.jsonl",
        "banteg__takopi__opencode_stream_success.jsonl",
        "banteg__takopi__pi_print_mode_events.jsonl",
        "reifying__cursor-hack__full_session.jsonl",
        "empathic__toolpath__stream.jsonl",
        "shane-kercheval__switchboard__apply-patch.session.jsonl",
        "shane-kercheval__switchboard__tool-use.transcript.jsonl",
        "codemie-ai__codemie-code__sample-wire.jsonl",
    }
] + [FIXTURES / "pi_session_v3.jsonl"]  # the corpus's one pi session file is too long for it


def _records(lines: list[tuple[bytes, int | None]]) -> tuple[list[Record], int]:
    """Records of ``lines`` (numbered as fed), each renumbered to its clean line number, and
    how many records were unparsed."""
    reader = SourceReader("test")
    origin = {number: clean for number, (_, clean) in enumerate(lines, start=1)}
    out: list[Record] = []
    for number, (line, _) in enumerate(lines, start=1):
        out.extend(reader.feed(line, number))
    out.extend(reader.finish())
    unparsed = sum(1 for record in out if type(record) is Unparsed)
    kept = [
        dataclasses.replace(
            record,
            origin=dataclasses.replace(
                record.origin,
                line=origin[record.line] or -1,
                session_id=_renumbered(record.session_id, origin),
            ),
        )
        for record in out
        if type(record) is not Unparsed
    ]
    return kept, unparsed


def _renumbered(session_id: str, origin: dict[int, int | None]) -> str:
    """A trace's session is named after its line (``test#3``): name it after the clean line."""
    source, _, number = session_id.partition("#")
    if source == "test" and number.isdigit():
        return f"test#{origin[int(number)]}"
    return session_id


def _clean_lines(path: Path) -> list[tuple[bytes, int | None]]:
    return [(line, number) for number, line in split_lines(path.read_bytes()) if line.strip()]


def _blank(line: bytes) -> bool:
    """The reader skips, without counting, a line of ASCII white space after an optional BOM."""
    return not line.removeprefix(b"\xef\xbb\xbf").strip()


garbage = st.one_of(
    st.binary(max_size=80).filter(lambda b: b"\n" not in b and not b.strip().startswith(b"{")),
    st.text(max_size=60).map(lambda t: t.replace("\n", " ").encode()),
    st.sampled_from([b"{", b"}", b"[1,2", b"null", b"42", b'"text"', b"[]", b"\xef\xbb\xbf{"]),
)


@pytest.mark.skipif(not corpus_files(), reason=CORPUS_MISSING)
@pytest.mark.parametrize("path", LINE_FILES, ids=[p.name for p in LINE_FILES])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_garbage_and_truncated_lines_between_valid_ones_lose_no_valid_record(
    path: Path, data: st.DataObject
) -> None:
    clean = _clean_lines(path)
    expected, unparsed = _records(clean)
    assert unparsed == 0
    noisy: list[tuple[bytes, int | None]] = []
    inserted = 0
    for line, number in clean:
        for _ in range(data.draw(st.integers(0, 2))):
            if data.draw(st.booleans()):
                noisy.append((data.draw(garbage), None))
            else:  # a truncated copy of a real line
                cut = data.draw(st.integers(1, max(1, len(line) - 1)))
                noisy.append((line[:cut], None))
            inserted += 1
        noisy.append((line, number))
    got, unparsed = _records(noisy)
    assert got == expected
    blank = sum(1 for line, origin in noisy if origin is None and _blank(line))
    assert unparsed == inserted - blank


def test_a_line_that_is_not_json_is_counted_and_skipped() -> None:
    reader = SourceReader("x")
    (record,) = reader.feed(b"hello world", 7)
    assert isinstance(record, Unparsed) and record.reason == "not JSON" and record.line == 7
    assert reader.stats.unparsed == 1


def test_json_that_no_format_understands_is_unparsed_at_the_end() -> None:
    reader = SourceReader("x")
    assert reader.feed(b'{"what": 1}', 1) == []  # held back while the format is unknown
    (record,) = reader.finish()
    assert isinstance(record, Unparsed) and record.reason == "no format recognised"


def test_lines_held_for_detection_are_parsed_once_the_format_is_known() -> None:
    reader = SourceReader("x")
    assert reader.feed(b'{"metadata": {"description": "traces"}}', 1) == []
    records = reader.feed(b'[{"role": "user", "content": "hi"}]', 2)
    assert reader.family == "openai-messages"
    assert [record.line for record in records][:1] == [1]


def test_a_bom_and_invalid_utf8_do_not_lose_the_line() -> None:
    reader = SourceReader("x", family="openai-messages")
    records = reader.feed(b'\xef\xbb\xbf{"role": "user", "content": "caf\xe9"}', 1)
    assert not any(isinstance(record, Unparsed) for record in records)
    assert "caf\ufffd" in str(records)


def test_a_line_with_invalid_utf8_is_read_with_replacement_characters_and_counted() -> None:
    reader = SourceReader("x", family="claude-stream-json")
    line = b'{"type":"user","session_id":"s","message":{"content":"caf\xe9 \xff\xfe ok"}}'
    (record,) = reader.feed(line, 1)
    assert isinstance(record, UserText)
    assert record.text == "caf\ufffd \ufffd\ufffd ok"
    assert (reader.stats.records, reader.stats.unparsed) == (1, 0)


def test_unknown_format_name_is_a_clear_error() -> None:
    with pytest.raises(FormatError, match="unknown format 'yaml'"):
        SourceReader("x", family="yaml")


def test_a_multi_line_json_document_is_read_whole() -> None:
    data = b'{\n  "history": [\n    {"role": "user", "content": "hi"}\n  ]\n}\n'
    assert list(split_lines(data)) == [(1, data)]


def test_json_lines_are_read_one_by_one() -> None:
    data = b'{"a": 1}\r\n{"b": 2}\n'
    assert list(split_lines(data)) == [(1, b'{"a": 1}'), (2, b'{"b": 2}'), (3, b"")]


class _FragileParser:
    """A parser (of no ``LineParser`` class) that trips over a value it did not foresee."""

    def __init__(self, source: str) -> None:
        self.source = source

    def parse(self, obj: object, line: int) -> list[Record] | None:
        raise TypeError("unhashable type: 'list'")

    def finish(self) -> list[Record]:
        return []


_FRAGILE = LogFormat(
    name="fragile",
    agent="Fragile",
    detect=lambda obj: True,
    parser=_FragileParser,
    reports_result=False,
    produced_by="a test",
)


def test_a_line_the_parser_trips_over_is_counted_not_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(reader_module.FAMILIES, "fragile", _FRAGILE)
    reader = SourceReader("x", family="fragile")
    (record,) = reader.feed(b'{"type": ["odd"]}', 3)
    assert isinstance(record, Unparsed)
    assert record.reason.startswith("could not be read as fragile (TypeError")
    assert reader.stats.unparsed == 1


def test_an_assistant_block_with_a_list_type_does_not_crash_the_stream_parser() -> None:
    reader = SourceReader("x", family="claude-stream-json")
    line = b'{"type":"assistant","session_id":"s","message":{"id":"m","content":[{"type":[1]}]}}'
    assert reader.feed(line, 1) is not None


FOLDER_FAMILIES = {  # corpus folder -> the family that reads its files
    "claude-stream-json": "claude-stream-json",
    "amp-stream-json": "claude-stream-json",  # Amp writes Claude Code's stream-json
    "cursor-stream-json": "cursor-stream-json",
    "claude-transcript": "claude-transcript",
    "agno-events": "agno",
    "legion-backend": "backend",
    "openai-messages": "openai-messages",
    "codex-exec-json": "codex-exec-json",
    "antigravity": "antigravity-transcript",
    "kimi": "kimi-wire",
    "codex-rollout": "codex-rollout",
    "opencode": "opencode-json",
}
# Files kept in a folder that is not their family's: named one by one.
FILE_FAMILIES = {
    "Karrq__vibe-kanban__codex.rs.legacy-extract.jsonl": "codex-exec-json",  # in codex-rollout/
    "badlogic__pi-mono__large-session.jsonl": "pi-session",  # the other pi files are pi-json
}
FAMILIES_READ = sorted(
    {*FOLDER_FAMILIES.values(), *FILE_FAMILIES.values(), "gemini-stream-json", "gemini-session",
     "pi-json"}
)  # fmt: skip
OTHERS = [(family, other) for family in FAMILIES_READ for other in FAMILIES_READ if other != family]


def family_of(path: Path) -> str | None:
    """A corpus file's family: its own where it is named; where a folder holds two families,
    the one its name says (gemini: session files are ``*.json`` and ``*.session.jsonl``, the
    rest is stream-json; pi: its events but the one session file); else its folder's (None:
    a family not read yet)."""
    if path.name in FILE_FAMILIES:
        return FILE_FAMILIES[path.name]
    if path.parent.name == "gemini":
        session = path.suffix == ".json" or path.name.endswith(".session.jsonl")
        return "gemini-session" if session else "gemini-stream-json"
    if path.parent.name == "pi":
        return "pi-json"
    return FOLDER_FAMILIES.get(path.parent.name)


@pytest.mark.skipif(not corpus_files(), reason=CORPUS_MISSING)
@pytest.mark.parametrize(("family", "other"), OTHERS, ids=[f"{f}-vs-{o}" for f, o in OTHERS])
def test_no_format_claims_a_value_of_another_familys_corpus(family: str, other: str) -> None:
    """Detection is exclusive: each value is read as ``read_records`` reads it (a whole
    document is one value), and claimed by no family but the one of its file. A pi session
    file's header is pi's ``--mode json`` first line too: neither family claims it."""
    paths = [p for p in corpus_files() if family_of(p) == other]
    values = [
        orjson.loads(raw) for path in paths for _, raw in split_lines(path.read_bytes())
        if raw.strip()
    ]  # fmt: skip
    assert values
    claimed = [value for value in values if FAMILIES[family].detect(value)]
    assert claimed == []


@pytest.mark.skipif(not corpus_files(), reason=CORPUS_MISSING)
@pytest.mark.parametrize("path", corpus_files(), ids=[p.name for p in corpus_files()])
def test_every_corpus_file_is_detected_as_the_family_named_for_it(path: Path) -> None:
    """What the values of a file are claimed as is its family (its own where a folder holds
    two), and every file's family is known: a corpus folder of a family not read would fail."""
    values = [orjson.loads(raw) for _, raw in split_lines(path.read_bytes()) if raw.strip()]
    detected = {f.name for value in values for f in FORMATS if f.detect(value)}
    assert family_of(path) is not None
    assert detected == {family_of(path)}


def test_a_parser_of_any_class_is_called_through_the_base_class() -> None:
    wrapped = Delegating(_FragileParser("x"))
    assert isinstance(wrapped, LineParser)
    assert wrapped.finish() == []
    reader = SourceReader("x", family="backend")
    restored = snapshot.loads(snapshot.dumps(reader))
    records = restored.feed(b'{"type": "user", "content": "hi", "timestamp": 1.5}', 1)
    assert [type(record).__name__ for record in records] == ["SessionStarted", "UserText"]


def test_a_repeatable_sources_lines_are_named_by_session_place_and_bytes() -> None:
    line = b'{"type":"user","content":"hi","timestamp":1.5,"session_id":"s1"}'

    def uids(reader: SourceReader, number: int, raw: bytes = line) -> set[str | None]:
        return {record.origin.uid for record in reader.feed(raw, number)}

    first, again = SourceReader("a", repeatable=True), SourceReader("b", repeatable=True)
    assert uids(first, 1) == uids(again, 1) != {None}  # the same line piped in again
    assert uids(first, 2) != uids(again, 1)  # the same text at another place
    assert uids(SourceReader("c"), 1) == {None}  # a file: its lines are never taken again
    other = line.replace(b"s1", b"s2")
    assert uids(SourceReader("d", repeatable=True), 1, other) != uids(again, 1)
