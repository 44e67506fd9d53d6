"""slacktail's settings: flags, then environment, then an optional TOML file, then defaults.
Validated once at start-up.

Secrets (``SLACK_BOT_TOKEN``, ``SLACK_APP_TOKEN``, ``SLACK_SIGNING_SECRET``) come from the
environment only: there is no flag for them, and the TOML file may not hold them (a file is
too easily committed or shared). They are ``SecretStr``: printing the settings never shows them.
"""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)

from bot.errors import UsageError
from bot.redaction import allowlist, extra_rule
from bot.session import Verbosity
from bot.sources.lines import DEFAULT_MAX_LINE_BYTES

SLACK_API_URL = "https://slack.com/api/"
_SECRETS = ("slack_bot_token", "slack_app_token", "slack_signing_secret")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="SLACKTAIL_", extra="forbid", populate_by_name=True, frozen=True
    )

    slack_bot_token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_BOT_TOKEN", "slack_bot_token")
    )
    slack_app_token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_APP_TOKEN", "slack_app_token")
    )
    slack_signing_secret: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("SLACK_SIGNING_SECRET", "slack_signing_secret"),
    )
    slack_api_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices(
            "slack_api_url", "SLACK_API_URL", "SLACKTAIL_SLACK_API_URL"
        ),
        description="the Web API base URL; default Slack's own, or the local Slack",
    )
    channel: str | None = Field(default=None, description="channel id or name to post to")
    thread_ts: str | None = Field(default=None, description="post into this existing thread")
    broadcast_result: bool = Field(default=False, description="also send the result to the channel")
    # --- agent surfaces (issue 15) ---
    thread_status: bool = Field(
        default=True, description="show under a running session's thread what it is doing"
    )
    agent_sessions: bool = Field(
        default=False, description="the app is declared an agent: each thread is an agent "
        "session, with Slack's own Stop button while it runs",
    )
    plan_blocks: bool = Field(
        default=False, description="show the todo list as a plan of task cards"
    )
    app_home: bool = Field(default=True, description="publish the sessions in the App Home")
    # --- end of agent surfaces ---
    verbosity: Verbosity = Verbosity.NORMAL
    orphan_after_s: float = Field(default=600.0, gt=0)
    idle_after: float = Field(
        default=600.0, gt=0, description="a running session whose log is quiet this long is "
        "shown as idle: seconds, or with a unit (90s, 10m, 1h)",
    )
    since: datetime | None = Field(
        default=None, description="sessions whose last record is older are read but not posted: "
        "a duration back from now (90m, 12h, 7d) or a date and time (2026-11-01, "
        "2026-11-01T09:00Z)",
    )
    format: str | None = None
    local_slack_port: int = Field(default=0, ge=0, le=65535)
    state_dir: Path | None = Field(
        default=None, description="where state is kept (default: $XDG_STATE_HOME/slacktail)"
    )
    health_port: int | None = Field(
        default=None, ge=0, le=65535, description="serve /healthz and /metrics on this port"
    )
    health_host: str = Field(default="127.0.0.1", description="the address /healthz listens on")
    patterns: tuple[str, ...] = Field(
        default=(), description="the files to follow under a folder, as globs relative to it "
        "(default: the agents' session files)",
    )
    max_line_bytes: int = Field(
        default=DEFAULT_MAX_LINE_BYTES, ge=1024,
        description="a longer log line is counted and skipped",
    )
    rate_scale: float = Field(
        default=1.0, gt=0, description="pace this many times faster (a local Slack whose "
        "rate limits are scaled the same way); never above 1 against Slack itself",
    )
    # --- redaction and logging (issue 5) ---
    redact_patterns: tuple[str, ...] = Field(
        default=(), description="more secrets to redact: REGEX or NAME::REGEX each"
    )
    redact_allowlist: tuple[str, ...] = Field(
        default=(), description="never redacted: exact strings, or re:REGEX matched whole"
    )
    log_level: Literal["debug", "info", "warning", "error"] = "warning"
    # --- the app: controls (issue 15) ---
    allow_users: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(), description="who may use the controls: Slack user ids (comma-separated)"
    )
    allow_channel_members: bool = Field(
        default=False, description="the members of the channel may use the controls"
    )
    http_port: int | None = Field(
        default=None, ge=0, le=65535, description="receive the app's requests by HTTP on this "
        "port (with SLACK_SIGNING_SECRET; SLACK_APP_TOKEN's Socket Mode is the default)",
    )
    http_host: str = Field(
        default="127.0.0.1", description="the address the app's HTTP requests are received on "
        "(loopback: a proxy or tunnel in front; 0.0.0.0 in a container)",
    )
    sigterm_after_s: float = Field(
        default=10.0, gt=0, description="Stop: SIGTERM this long after SIGINT if the agent runs"
    )
    sigkill_after_s: float = Field(
        default=10.0, gt=0, description="Stop: SIGKILL this long after SIGTERM if the agent runs"
    )

    @field_validator("allow_users", mode="before")
    @classmethod
    def _users_comma_separated(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(user.strip() for user in value.split(",") if user.strip())
        return value

    @field_validator("redact_patterns")
    @classmethod
    def _patterns_compile(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for spec in value:
            extra_rule(spec)  # a PatternError (a ValueError) names the bad one
        return value

    @field_validator("redact_allowlist")
    @classmethod
    def _allowlist_compiles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        allowlist(value)
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _level_in_lower_case(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value
    # --- end of redaction and logging ---

    @field_validator("patterns")
    @classmethod
    def _patterns_are_relative(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in value:
            if not pattern.strip() or pattern.startswith(("/", "~")):
                raise ValueError(f"{pattern!r}: a glob relative to the followed folder, "
                                 "e.g. **/*.jsonl")  # fmt: skip
        return value

    @field_validator("since", mode="before")
    @classmethod
    def _since_a_time(cls, value: object) -> object:
        return time_back(value) if isinstance(value, str) else value

    @field_validator("idle_after", mode="before")
    @classmethod
    def _seconds_of_a_duration(cls, value: object) -> object:
        return seconds_of(value) if isinstance(value, str) else value

    @field_validator(*_SECRETS, mode="before")
    @classmethod
    def _empty_secret_is_none(cls, value: object) -> object:
        """``SLACK_BOT_TOKEN=`` (set, but empty) is no token: the local Slack is used."""
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("slack_api_url")
    @classmethod
    def _api_url_ends_with_slash(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http(s) URL, e.g. https://slack.com/api/")
        return value if value.endswith("/") else value + "/"

    @field_validator("channel")
    @classmethod
    def _channel_without_hash(cls, value: str | None) -> str | None:
        return value.lstrip("#") or None if value is not None else None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings)  # the TOML file is merged in by load_settings

    @property
    def receives_clicks(self) -> bool:
        """An app token (Socket Mode) or a signing secret and an HTTP port: the app runs, and
        the controls are shown."""
        http = self.slack_signing_secret is not None and self.http_port is not None
        return self.slack_app_token is not None or http

    @property
    def uses_local_slack(self) -> bool:
        """No token: slacktail starts its own local Slack."""
        return self.slack_bot_token is None


def load_settings(flags: dict[str, Any], config_file: Path | None = None) -> Settings:
    """Settings from ``flags`` (only those given), the environment, and ``config_file``.
    Anything invalid is one ``UsageError`` line naming the setting."""
    given = {key: value for key, value in flags.items() if value is not None}
    file_values = _read_toml(config_file) if config_file is not None else {}
    try:
        from_file = Settings.model_validate({**file_values}) if file_values else None
        settings = Settings(**given)
    except ValidationError as error:
        raise UsageError(_one_line(error)) from None
    except SettingsError as error:  # e.g. a list setting in the environment that is not JSON
        raise UsageError(f"invalid setting: {error}") from None
    if from_file is None:
        return settings
    # Flags and environment win over the file: fill in only what they left at its default.
    merged = {
        name: getattr(from_file, name)
        for name in file_values
        if name not in settings.model_fields_set
    }
    return settings.model_copy(update=merged)


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def time_back(text: str, now: datetime | None = None) -> datetime | str:
    """``"7d"``, ``"12h"``, ``"3600"`` back from ``now``; or a date and time (``2026-11-01``,
    ``2026-11-01T09:00Z``; UTC when it names no zone); any other text as it is (the field's
    own validation then says what is wrong with it)."""
    seconds = seconds_of(text)
    if isinstance(seconds, float):
        return (now or datetime.now(UTC)) - timedelta(seconds=seconds)
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return text
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def seconds_of(text: str) -> float | str:
    """``"600"``, ``"90s"``, ``"10m"``, ``"1.5h"`` in seconds; any other text as it is (the
    field's own validation then says what is wrong with it)."""
    spoken = text.strip().lower()
    unit = _UNITS.get(spoken[-1:], 0)
    number = spoken[:-1] if unit else spoken
    try:
        return float(number) * (unit or 1)
    except ValueError:
        return text


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            values = tomllib.load(file)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such settings file") from None
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise UsageError(f"{path}: not a readable TOML settings file ({error})") from None
    secrets = [name for name in values if name.lower() in _SECRETS]
    if secrets:
        raise UsageError(
            f"{path}: {', '.join(secrets)} may only come from the environment, not a file"
        )
    return {key.replace("-", "_"): value for key, value in values.items()}


def _one_line(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "settings"
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"invalid setting {where}: {first['msg']}{more}"
