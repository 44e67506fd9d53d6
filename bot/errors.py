"""slacktail's errors: one small hierarchy. Library errors are translated into these at the seam."""

from __future__ import annotations


class SlacktailError(Exception):
    """Base of every error slacktail raises on purpose. Its message is one line for the user."""

    exit_code = 1


class UsageError(SlacktailError):
    """The user asked for something that cannot be done as asked (a missing file, a bad flag)."""

    exit_code = 2


class InputError(UsageError):
    """An input file is missing or unreadable."""


class FormatError(SlacktailError):
    """A log's format could not be determined or is not supported."""

    exit_code = 2
