"""The App Home's part of the app: a person opening the Home tab (``app_home_opened``) gets the
sessions this process follows, kept current by ``bot.delivery.home.HomePublisher``."""

from __future__ import annotations

from typing import Any

from slack_bolt import App

from bot.delivery.home import HomePublisher


def home_opened(home: HomePublisher) -> Any:
    """The listener of ``app_home_opened``: the person who opened the Home tab sees it."""

    def opened(event: dict[str, Any]) -> None:
        user = event.get("user")
        if event.get("tab", "home") == "home" and isinstance(user, str) and user:
            home.opened(user)

    return opened


def register_home(app: App, home: HomePublisher) -> None:
    """Listen on ``app`` for people opening the Home tab (the lead wires this into the app)."""
    app.event("app_home_opened")(home_opened(home))
