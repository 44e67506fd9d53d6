"""How the local Slack reaches the app: Socket Mode (an `xapp-` app token; the app connects) or a
request URL it POSTs to, signed with the signing secret, as Slack does.

HTTP, as Slack sends it (docs.slack.dev, "Verifying requests from Slack", "Handling user
interaction"): an interaction is `application/x-www-form-urlencoded` with one field, `payload`,
a JSON string; an event is an `application/json` body. Both carry `X-Slack-Request-Timestamp`
and `X-Slack-Signature: v0=` + hex HMAC-SHA256(signing secret, `v0:{timestamp}:{body}`). The app
must answer 200 within 3 seconds; its body, if JSON, is its response (`response_action` for a
view submission). With Socket Mode on, Slack sends everything over the socket and never POSTs.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

from bot.localslack.model import JSON
from bot.localslack.socket_mode import Answer, SocketMode

log = logging.getLogger(__name__)

ACK_TIMEOUT_S = 3.0  # Slack's deadline for acknowledging an interaction or an event
USER_AGENT = "Slackbot 1.0 (+https://api.slack.com/robots)"


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """Slack's request signature: `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}`."""
    base = b"v0:" + timestamp.encode("ascii") + b":" + body
    return "v0=" + hmac.new(secret.encode("utf-8"), base, hashlib.sha256).hexdigest()


@dataclass
class AppSettings:
    """The app's side as configured: a Socket Mode token, or a request URL and signing secret."""

    app_token: str | None = None
    request_url: str | None = None
    signing_secret: str | None = None
    ack_timeout: float = ACK_TIMEOUT_S

    @property
    def transport(self) -> str | None:
        if self.app_token:
            return "socket_mode"
        if self.request_url:
            return "http"
        return None


class AppLink:
    """Sends interaction payloads and events to the app by the transport configured."""

    def __init__(self, socket_mode: SocketMode, wall_clock: Callable[[], float] = time.time):
        self.socket_mode = socket_mode
        self._wall_clock = wall_clock
        self._lock = threading.Lock()
        self.settings = AppSettings()

    def configure(
        self,
        *,
        app_token: str | None = None,
        request_url: str | None = None,
        signing_secret: str | None = None,
        ack_timeout: float | None = None,
    ) -> None:
        """Set the transport: an `xapp-` token for Socket Mode, or a request URL (http or https)
        and its signing secret. The values not given are left as they are."""
        if app_token and not app_token.startswith("xapp-"):
            raise ValueError("an app-level token starts with xapp-")
        if request_url and urlsplit(request_url).scheme not in ("http", "https"):
            raise ValueError("the request URL must be http:// or https://")
        if ack_timeout is not None and not 0 < ack_timeout <= 60:
            raise ValueError("ack_timeout must be between 0 and 60 seconds")
        with self._lock:
            settings = self.settings
            self.settings = AppSettings(
                app_token=settings.app_token if app_token is None else app_token or None,
                request_url=settings.request_url if request_url is None else request_url or None,
                signing_secret=(
                    settings.signing_secret if signing_secret is None else signing_secret or None
                ),
                ack_timeout=settings.ack_timeout if ack_timeout is None else ack_timeout,
            )
            if self.settings.transport == "http" and not self.settings.signing_secret:
                self.settings = settings
                raise ValueError("a request URL needs the signing secret to sign with")

    def interactive(self, payload: JSON, *, accepts_response: bool) -> Answer:
        """Deliver an interaction payload (block_actions, view_submission, view_closed)."""
        settings = self.settings
        if settings.transport == "socket_mode":
            return self.socket_mode.send(
                "interactive",
                payload,
                accepts_response=accepts_response,
                timeout=settings.ack_timeout,
            )
        body = urlencode({"payload": json.dumps(payload, ensure_ascii=False)}).encode("utf-8")
        return self._post(settings, body, "application/x-www-form-urlencoded")

    def event(self, envelope: JSON) -> Answer:
        """Deliver an Events API envelope (`event_callback`)."""
        settings = self.settings
        if settings.transport == "socket_mode":
            return self.socket_mode.send(
                "events_api", envelope, accepts_response=False, timeout=settings.ack_timeout
            )
        body = json.dumps(envelope, ensure_ascii=False).encode("utf-8")
        return self._post(settings, body, "application/json")

    def _post(self, settings: AppSettings, body: bytes, content_type: str) -> Answer:
        if settings.request_url is None or settings.signing_secret is None:
            return Answer(False, error="This app is not set up to receive interactions")
        timestamp = str(int(self._wall_clock()))
        request = urllib.request.Request(
            settings.request_url,
            data=body,
            method="POST",
            headers={
                "Content-Type": content_type,
                "User-Agent": USER_AGENT,
                "X-Slack-Request-Timestamp": timestamp,
                "X-Slack-Signature": signature(settings.signing_secret, timestamp, body),
            },
        )
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(request, timeout=settings.ack_timeout) as response:
                return Answer(True, _json_body(response.read()))
        except urllib.error.HTTPError as err:
            return Answer(False, error=f"This app responded with Status Code {err.code}")
        except TimeoutError:
            return Answer(False, error="This app took too long to respond")
        except (urllib.error.URLError, OSError) as err:
            if isinstance(getattr(err, "reason", None), TimeoutError):
                return Answer(False, error="This app took too long to respond")
            log.debug("could not reach the app at %s: %s", settings.request_url, err)
            return Answer(False, error="This app could not be reached")


def _json_body(data: bytes) -> JSON | None:
    """The app's answer, if it is a JSON object (an empty 200 is a plain acknowledgement)."""
    try:
        decoded = json.loads(data.decode("utf-8")) if data.strip() else None
    except (UnicodeDecodeError, ValueError):
        return None
    return decoded if isinstance(decoded, dict) else None
