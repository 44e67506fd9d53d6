"""A local Slack-compatible server: the embedded default, and the oracle of slacktail's tests.

It behaves like Slack for everything slacktail uses (Web API methods, block and text limits,
thread and ts rules, rate limits with 429 and Retry-After), injects faults on demand, and serves
a page that shows its channels live. `python -m bot.localslack` runs it alone.
"""

from __future__ import annotations

from bot.localslack.faults import Faults
from bot.localslack.server import DEFAULT_TOKEN, LocalSlack, RecordedRequest

__all__ = ["DEFAULT_TOKEN", "Faults", "LocalSlack", "RecordedRequest"]
