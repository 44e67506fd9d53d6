"""Which Markdown links may become Slack links."""

from __future__ import annotations

import pytest

from blocks.links import is_deceptive, is_web_url


@pytest.mark.parametrize(
    ("url", "web"),
    [
        ("https://example.com/a", True),
        ("HTTP://example.com", True),
        ("https://", False),
        ("javascript:alert(1)", False),
        ("ftp://example.com", False),
        ("http://[::1", False),  # urlsplit refuses it
    ],
)
def test_only_http_urls_with_a_host_are_web_urls(url: str, web: bool) -> None:
    assert is_web_url(url) is web


@pytest.mark.parametrize(
    ("label", "url", "deceptive"),
    [
        ("the docs", "https://evil.test", False),  # a label that is not a URL says nothing
        ("example.com", "https://www.example.com/", False),
        ("example.com", "https://evil.test", True),
        ("https://example.com/login", "https://example.com/logout", True),
        ("example.com/a/", "https://example.com/a", False),
        ("10.0.0.1", "http://10.0.0.2", True),
    ],
)
def test_a_label_naming_another_site_or_page_is_deceptive(
    label: str, url: str, deceptive: bool
) -> None:
    assert is_deceptive(label, url) is deceptive
