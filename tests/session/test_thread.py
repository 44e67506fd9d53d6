"""Thread items: a text batch fed many pieces reads as if they had been joined one by one."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot import snapshot
from bot.session.thread import TEXT_CAP, TextBatch


def _joined_one_by_one(pieces: list[tuple[str, bool]]) -> tuple[str, int]:
    text, size = "", 0
    for piece, delta in pieces:
        joiner = "" if delta or not text else "\n\n"
        size += len(joiner) + len(piece)
        text = (text + joiner + piece)[:TEXT_CAP]
    return text, size


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(alphabet="ab \n", max_size=3000), st.booleans()), max_size=12
    ),
    st.integers(min_value=0, max_value=12),
)
def test_a_batch_reads_as_its_pieces_joined_and_cut_at_the_cap(
    pieces: list[tuple[str, bool]], read_after: int
) -> None:
    batch = TextBatch("text:1")
    for number, (piece, delta) in enumerate(pieces):
        batch.add(piece, delta)
        if number == read_after:
            assert batch.text == _joined_one_by_one(pieces[: number + 1])[0]
    text, size = _joined_one_by_one(pieces)
    assert (batch.text, batch.size) == (text, size)
    assert batch.is_full == (len(text) >= TEXT_CAP)


def test_a_batch_comes_back_from_a_snapshot_with_its_text() -> None:
    batch = TextBatch("text:1")
    for piece in ("Hel", "lo", " world"):
        batch.add(piece, delta=True)
    again = snapshot.loads(snapshot.dumps(batch))
    assert (again.key, again.text, again.size) == ("text:1", "Hello world", 11)
