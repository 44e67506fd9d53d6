"""Delivery: the only stage that talks to Slack. It reconciles each session's desired
messages with what was sent, within Slack's rate limits, retrying without ever posting twice."""

from bot.delivery.deliverer import Delivery
from bot.delivery.ledger import Ledger
from bot.delivery.pacing import Pacing
from bot.delivery.slack_api import SlackApi

__all__ = ["Delivery", "Ledger", "Pacing", "SlackApi"]
