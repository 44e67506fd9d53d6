"""The real browser of the local Slack's page tests, for the approvals' browser test."""

from tests.localslack.test_page_browser import browser  # noqa: F401 (a fixture)
