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


@pytest.mark.parametrize(("given", "seconds"), [("600", 600.0), ("90s", 90.0), ("10m", 600.0),
                                                ("1.5h", 5400.0), (" 2M ", 120.0)])  # fmt: skip
def test_idle_after_is_seconds_or_a_duration_with_its_unit(
    monkeypatch: pytest.MonkeyPatch, given: str, seconds: float
) -> None:
    monkeypatch.setenv("SLACKTAIL_IDLE_AFTER", given)
    assert load_settings({}).idle_after == seconds
    assert load_settings({"idle_after": given}).idle_after == seconds


def test_idle_after_is_ten_minutes_unless_told_and_never_nothing() -> None:
    assert load_settings({}).idle_after == 600.0
    for wrong in ("0", "soon", "-5m"):
        with pytest.raises(UsageError, match="idle_after"):
            load_settings({"idle_after": wrong})


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


def test_allowed_users_come_comma_separated_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SLACKTAIL_ALLOW_USERS", "U1, U2,")
    assert load_settings({}).allow_users == ("U1", "U2")
    assert load_settings({"allow_users": ("U3",)}).allow_users == ("U3",)


def test_clicks_are_received_with_an_app_token_or_a_signing_secret_and_a_port(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET"):
        monkeypatch.delenv(name, raising=False)
    assert not load_settings({}).receives_clicks
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "s")
    assert not load_settings({}).receives_clicks  # no port to receive them on
    assert load_settings({"http_port": 3000}).receives_clicks
    monkeypatch.delenv("SLACK_SIGNING_SECRET")
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-1-x")
    assert load_settings({}).receives_clicks
