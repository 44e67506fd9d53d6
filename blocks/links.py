"""Whether a Markdown link may become a Slack link: its target is a web URL, and its label
does not read as a different one (a label showing one site while the link opens another)."""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import urlsplit

# Text that reads as a URL or a domain name (or an IPv4 address), with an optional port and path.
_URLISH: Final = re.compile(
    r"[a-z][a-z0-9+.-]*://\S*"
    r"|(?:(?:[\w-]++\.)++(?:[^\W\d_]{2,}|xn--[\w-]+)|\d{1,3}(?:\.\d{1,3}){3})"
    r"(?::\d+)?(?:[/?#]\S*)?",
    re.IGNORECASE,
)


def is_web_url(url: str) -> bool:
    """An http(s) URL with a host."""
    if not url.lower().startswith(("http://", "https://")):
        return False
    try:
        return bool(urlsplit(url).hostname)
    except ValueError:
        return False


def is_deceptive(label: str, url: str) -> bool:
    """A label that reads as a URL or domain other than the link's target: a different host,
    or, when the label names more than a host, a different path, query or fragment."""
    if not _URLISH.fullmatch(label):
        return False
    try:
        shown_host, shown_rest = _host_and_rest(label if "://" in label else f"http://{label}")
        target_host, target_rest = _host_and_rest(url)
    except ValueError:
        return True
    return shown_host != target_host or (bool(shown_rest) and shown_rest != target_rest)


def _host_and_rest(url: str) -> tuple[str, str]:
    """(host[:port] without `www.`, path?query#fragment without a trailing slash)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").removeprefix("www.")
    port = f":{parts.port}" if parts.port is not None else ""
    query = f"?{parts.query}" if parts.query else ""
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    return host + port, (parts.path + query + fragment).rstrip("/")
