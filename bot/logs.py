"""What slacktail says about itself: one structured line per notable event (JSON on stderr,
never one per record; the events are listed in ``bot.events``), and Python's logging, for debug
diagnostics (slacktail's modules, slack_sdk), at the level the settings ask for.

Never a secret, at any level: every event line, log line and traceback goes through the same
``Redactor`` as what is posted, which also knows slacktail's own tokens by value. slack_sdk at
DEBUG writes whole request and response bodies (it hides only the Authorization header): they
pass the same filter.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import TYPE_CHECKING, TextIO

import orjson

from bot.redaction import Redactor

if TYPE_CHECKING:  # the settings' pydantic is not imported for a command that has none
    from bot.config import Settings
    from bot.events import Event  # 24 ms to import: preview writes no event

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
          "error": logging.ERROR}  # fmt: skip
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class EventLog:
    """``event(SessionStarted(session=..., ...))`` writes one JSON line: ``at`` (the time),
    ``event`` (its name), then its fields. ``None`` stream: quiet. With a ``redactor``, each
    line is redacted before it is written."""

    def __init__(
        self, stream: TextIO | None = sys.stderr, redactor: Redactor | None = None
    ) -> None:
        self.stream = stream
        self.redactor = redactor

    def event(self, event: Event) -> None:
        if self.stream is None:
            return
        line = {"at": round(time.time(), 3), "event": event.name, **event.fields()}
        self.stream.write(self.redacted(orjson.dumps(line, default=str).decode()) + "\n")
        self.stream.flush()

    def redacted(self, text: str) -> str:
        """``text`` as it may be written out (a traceback, an error message)."""
        if self.redactor is None:
            self.redactor = Redactor()  # the rule table alone, until settings give more
        return self.redactor.redact(text)


def own_secrets(settings: Settings) -> list[str]:
    """slacktail's own tokens, as configured (to be redacted by value wherever they appear)."""
    secrets = (settings.slack_bot_token, settings.slack_app_token, settings.slack_signing_secret)
    return [secret.get_secret_value() for secret in secrets if secret is not None]


def redactor_for(settings: Settings) -> Redactor:
    """The redactor for everything slacktail writes: the rule table, the settings' extra
    patterns and allowlist, and slacktail's own tokens."""
    return Redactor(settings.redact_patterns, settings.redact_allowlist, own_secrets(settings))


class RedactingFormatter(logging.Formatter):
    """Formats as usual, then redacts the whole line: message, arguments and traceback."""

    def __init__(self, redactor: Redactor, fmt: str = _FORMAT) -> None:
        super().__init__(fmt)
        self.redactor = redactor

    def format(self, record: logging.LogRecord) -> str:
        return self.redactor.redact(super().format(record))


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a line is written (as logging's own last
    resort does), not to the stream it was when set up."""

    def __init__(self) -> None:
        logging.Handler.__init__(self)

    @property
    def stream(self) -> TextIO:
        return sys.stderr


def with_logging(settings: Settings, log: EventLog) -> Settings:
    """Set up logging on stderr at the settings' level with every line redacted, and make
    ``log`` redact its events the same way; returns ``settings``."""
    redactor = redactor_for(settings)
    log.redactor = redactor
    handler = _Stderr()
    handler.setFormatter(RedactingFormatter(redactor))
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h.formatter, RedactingFormatter)]:
        root.removeHandler(old)  # set up again (tests run main more than once)
    root.addHandler(handler)
    root.setLevel(LEVELS[settings.log_level])
    return settings
