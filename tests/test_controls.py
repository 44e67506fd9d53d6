import pytest

from bot.controls import VALUE_LIMIT, button_value, read_value


def test_a_button_value_gives_back_its_session_and_fields() -> None:
    assert read_value(button_value("s-1", call="toolu_1")) == ("s-1", {"call": "toolu_1"})


def test_a_value_that_is_not_ours_is_not_read() -> None:
    assert read_value("not json") is None
    assert read_value('{"call": "x"}') is None
    assert read_value('{"session": "s", "n": 3}') is None


def test_a_value_longer_than_slack_takes_is_refused() -> None:
    with pytest.raises(ValueError):
        button_value("s", call="x" * VALUE_LIMIT)
