"""Redaction settings from flags, the environment and the TOML file; a bad one is one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.config import load_settings
from bot.errors import UsageError
from bot.logs import redactor_for


def test_patterns_and_allowlist_come_from_flags_env_and_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "slacktail.toml"
    config.write_text('redact_patterns = ["file::FILE-[0-9]{4}"]\nredact_allowlist = ["keep-me"]\n')
    monkeypatch.setenv("SLACKTAIL_REDACT_ALLOWLIST", '["re:AKIA0{16}"]')
    settings = load_settings({"redact_patterns": ["flag::FLAG-[0-9]{4}"]}, config)
    assert settings.redact_patterns == ("flag::FLAG-[0-9]{4}",)  # the flag wins over the file
    assert settings.redact_allowlist == ("re:AKIA0{16}",)  # the environment wins over the file
    redactor = redactor_for(settings)
    assert redactor.redact("FLAG-1234 FILE-1234 AKIA" + "0" * 16) == (
        "[redacted:flag] FILE-1234 AKIA" + "0" * 16
    )


@pytest.mark.parametrize(
    "flags", [{"redact_patterns": ["(oops"]}, {"redact_allowlist": ["re:[z-a]"]}]
)
def test_an_invalid_expression_is_a_one_line_usage_error(flags: dict[str, list[str]]) -> None:
    with pytest.raises(UsageError) as raised:
        load_settings(flags)
    assert str(raised.value).startswith("invalid setting redact_")
    assert "\n" not in str(raised.value)


def test_an_environment_list_that_is_not_json_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SLACKTAIL_REDACT_PATTERNS", "not json")
    with pytest.raises(UsageError, match="redact_patterns"):
        load_settings({})


def test_a_bad_pattern_flag_exits_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["follow", "--once", "--redact-pattern", "(oops", "--channel", "x", "-"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("slacktail: error: invalid setting redact_patterns")
    assert "\n" not in err


def test_log_level_comes_from_a_flag_or_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings({}).log_level == "warning"
    monkeypatch.setenv("SLACKTAIL_LOG_LEVEL", "DEBUG")
    assert load_settings({}).log_level == "debug"
    assert load_settings({"log_level": "error"}).log_level == "error"
