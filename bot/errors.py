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


class StateError(UsageError):
    """The state directory or database cannot be used (not writable, locked by another run)."""


class StateUnavailable(SlacktailError):
    """The state database cannot be used for now (the disk is full, another process holds a
    lock on it, a read failed): nothing is set aside; trying again later may work."""

    exit_code = 75  # EX_TEMPFAIL: a service manager should start slacktail again


class Stopped(SlacktailError):
    """The user stopped slacktail at once (Ctrl-C a second time while it was delivering): what
    was not sent yet is sent at the next start (its state is saved)."""

    exit_code = 130  # as a shell reports a program ended by Ctrl-C


class FormatError(SlacktailError):
    """A log's format could not be determined or is not supported."""

    exit_code = 2


class SlackError(SlacktailError):
    """Slack answered with an error, or could not be reached. Translated from slack_sdk's
    errors at the seam (``bot.delivery.slack_api``)."""


class SlackSetupError(SlackError):
    """A mistake the user must fix (bad token, no such channel, app not in the channel):
    delivery stops with a one-line explanation."""

    exit_code = 3


class SlackUnavailable(SlackError):
    """Slack could not be reached or answered 5xx: the outcome of the call is unknown."""


class RateLimited(SlackError):
    """Slack answered 429; ``retry_after`` seconds must pass before the next call."""

    def __init__(self, method: str, retry_after: float) -> None:
        super().__init__(f"{method} rate limited for {retry_after:g}s")
        self.retry_after = retry_after


class MessageGone(SlackError):
    """The message to update no longer exists (someone deleted it)."""


class ThreadGone(SlackError):
    """A reply cannot go into its thread: the thread's first message was deleted (or its ts
    is not one Slack knows)."""


class PayloadRejected(SlackError):
    """Slack refused the message's blocks (``invalid_blocks``, ``msg_blocks_too_long``)."""


class SlackCallFailed(SlackError):
    """Any other error answer, named by Slack's error code."""
