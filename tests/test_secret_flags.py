"""A secret given as a flag is refused, naming the environment variable to use instead; an
agent's own options (after ``--``) are the agent's."""

from __future__ import annotations

import pytest

from bot.secret_flags import refusal


@pytest.mark.parametrize(
    ("flag", "variable"),
    [
        ("--slack-bot-token=xoxb-1", "SLACK_BOT_TOKEN"),
        ("--token", "SLACK_BOT_TOKEN"),
        ("--bot_token", "SLACK_BOT_TOKEN"),
        ("--SLACK-APP-TOKEN=xapp-1", "SLACK_APP_TOKEN"),
        ("--slack-signing-secret", "SLACK_SIGNING_SECRET"),
        ("--secret", "SLACK_SIGNING_SECRET"),
        ("--password=hunter2", "SLACK_BOT_TOKEN"),
    ],
)
def test_an_option_named_for_a_secret_is_refused_naming_the_variable(
    flag: str, variable: str
) -> None:
    said = refusal(["follow", "--channel", "agents", flag, "log.jsonl"])
    assert said is not None
    assert said.startswith(flag.split("=")[0] + ": secrets are not taken on the command line")
    assert said.endswith(f"use the {variable} environment variable")
    assert "=" not in said and "xoxb" not in said and "hunter2" not in said


def test_options_after_double_dash_are_the_agents() -> None:
    assert refusal(["run", "--channel", "agents", "--", "agent", "--token", "x"]) is None


def test_other_options_and_values_are_not_refused() -> None:
    assert refusal(["follow", "--redact-allow", "token=abc", "--channel", "tokens", "x"]) is None


def test_an_allowed_name_is_not_refused() -> None:
    assert refusal(["--token", "xoxb-local"], allowed=("--token",)) is None
