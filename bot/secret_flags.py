"""Secrets are never taken on the command line: other users see a process's arguments, and the
shell keeps them in its history. An option named like one (``--slack-bot-token=…``,
``--token``, ``--signing-secret``…) is refused with the environment variable to use instead,
and its value is never repeated (argparse's own error would print it back)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

SECRET_WORDS = ("token", "secret", "password")


def refusal(argv: Sequence[str], allowed: Collection[str] = ()) -> str | None:
    """The line refusing the first option before ``--`` that names a secret (``allowed``
    names are not refused); None when there is none."""
    for arg in argv:
        if arg == "--":  # what follows is an agent's command line, not ours
            return None
        name = arg.split("=", 1)[0]
        if not name.startswith("-") or name in allowed:
            continue
        words = name.lstrip("-").lower().replace("_", "-")
        if any(word in words for word in SECRET_WORDS):
            return (f"{name}: secrets are not taken on the command line (other users and the "
                    f"shell's history see them): use the {variable_for(words)} environment "
                    "variable")  # fmt: skip
    return None


def variable_for(words: str) -> str:
    """The environment variable that holds the secret an option's name speaks of."""
    if "app" in words:
        return "SLACK_APP_TOKEN"
    if "signing" in words or "secret" in words:
        return "SLACK_SIGNING_SECRET"
    return "SLACK_BOT_TOKEN"
