"""Raw HTTP calls to the local Slack, for what slack_sdk never sends (forms, bad bodies)."""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlencode

from bot.localslack import LocalSlack


def call(
    slack: LocalSlack,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    method: str = "POST",
) -> tuple[int, dict[str, Any], dict[str, str]]:
    """(status, decoded JSON body, headers) of one request to `path`, sent exactly as given."""
    connection = http.client.HTTPConnection("127.0.0.1", slack.port, timeout=10)
    try:
        connection.request(method, "/" + path.lstrip("/"), body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, json.loads(response.read()), dict(response.getheaders())
    finally:
        connection.close()


def form(
    slack: LocalSlack, method: str, fields: dict[str, str], token: str | None = None
) -> dict[str, Any]:
    """A form-encoded API call (as curl or an older client sends it); the decoded answer."""
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    _, body, _ = call(slack, f"api/{method}", urlencode(fields).encode(), headers)
    return body


def admin(slack: LocalSlack, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    status, decoded, _ = call(
        slack, path, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    return status, decoded
