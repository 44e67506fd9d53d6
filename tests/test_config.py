from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import AliasChoices

from bot.config import Settings, load_settings
from bot.errors import UsageError
from bot.session import Verbosity
from tests.conftest import ROOT


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SLACK_BOT_TOKEN", "SLACK_API_URL", "SLACKTAIL_CHANNEL", "SLACKTAIL_VERBOSITY",
                 "SLACKTAIL_SLACK_API_URL"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)


def test_the_token_comes_from_the_environment_and_is_never_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1-secret")
    settings = load_settings({})
    assert settings.slack_bot_token is not None
    assert settings.slack_bot_token.get_secret_value() == "xoxb-1-secret"
    assert "xoxb-1-secret" not in repr(settings) and "xoxb-1-secret" not in str(settings)
    assert not settings.uses_local_slack


def test_without_a_token_the_local_slack_is_used() -> None:
    assert load_settings({}).uses_local_slack


def test_a_flag_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACKTAIL_CHANNEL", "from-env")
    assert load_settings({"channel": "#from-flag"}).channel == "from-flag"
    assert load_settings({"channel": None}).channel == "from-env"


def test_slacks_own_variable_names_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_API_URL", "http://127.0.0.1:9/api")
    assert load_settings({}).slack_api_url == "http://127.0.0.1:9/api/"


def test_the_environment_wins_over_the_settings_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "slacktail.toml"
    path.write_text('channel = "from-file"\nverbosity = "quiet"\n')
    monkeypatch.setenv("SLACKTAIL_CHANNEL", "from-env")
    settings = load_settings({}, path)
    assert settings.channel == "from-env"
    assert settings.verbosity is Verbosity.QUIET


def test_a_secret_in_the_settings_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "slacktail.toml"
    path.write_text('slack_bot_token = "xoxb-in-a-file"\n')
    with pytest.raises(UsageError, match="only come from the environment") as caught:
        load_settings({}, path)
    assert "xoxb-in-a-file" not in str(caught.value)


def test_an_invalid_value_is_one_line_naming_the_setting() -> None:
    with pytest.raises(UsageError) as caught:
        load_settings({"orphan_after_s": -1})
    message = str(caught.value)
    assert message.startswith("invalid setting orphan_after_s:") and "\n" not in message


def test_a_missing_settings_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such settings file"):
        load_settings({}, tmp_path / "absent.toml")


def test_an_api_url_must_be_http() -> None:
    with pytest.raises(UsageError, match="slack_api_url"):
        load_settings({"slack_api_url": "ftp://x"})


def test_patterns_come_from_the_environment_as_a_json_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SLACKTAIL_PATTERNS", '["**/*.log", "runs/*.json"]')
    assert load_settings({}).patterns == ("**/*.log", "runs/*.json")


def test_a_pattern_is_relative_to_the_followed_folder() -> None:
    with pytest.raises(UsageError, match="patterns"):
        load_settings({"patterns": ["/var/log/*.jsonl"]})


def test_every_setting_is_in_the_readme_under_the_variable_it_is_read_from() -> None:
    readme = (ROOT / "README.md").read_text()
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        variables = alias.choices if isinstance(alias, AliasChoices) else []
        variable = next((str(v) for v in variables if str(v).isupper()),
                        "SLACKTAIL_" + name.upper())  # fmt: skip
        assert f"`{variable}`" in readme, f"{name} ({variable}) is not in the README"


def test_an_empty_token_is_no_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "")
    assert load_settings({}).uses_local_slack
