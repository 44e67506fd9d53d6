"""`LocalSlack`: the local Slack-compatible server (Web API, page, admin endpoints) on 127.0.0.1.

    with LocalSlack(token="xoxb-test") as slack:
        client = slack_sdk.WebClient(token="xoxb-test", base_url=slack.base_url)

Routes: `/api/<method>` (GET or POST, as slack_sdk calls them), `/` (the page), `/_state`,
`/_events` (SSE), `GET|POST /_admin/faults`, `POST /_admin/limits`, `POST /_admin/reset`,
`POST /_admin/app` (the app's transport); for an interactive app: `/link/` (the Socket Mode
WebSocket), `POST /actions/...` (response URLs), `POST /_page/click|submit|close|home` (what the
page's person does).

The app is reached by Socket Mode (`app_token`, an `xapp-` token; the app connects with
slack_sdk's SocketModeClient or bolt's SocketModeHandler) or by signed POSTs to `request_url`
(`signing_secret`). Tests act as a person: `click`, `submit_view`, `close_view`, `open_home`,
and read what that person sees: `modal`, `home`, `ephemerals`, `warnings`, `status`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from bot.localslack.agents import Agents
from bot.localslack.api import Api, ApiRequest, ApiResponse, error, parse_request
from bot.localslack.api_app import APP_TOKEN_METHODS, AppApi
from bot.localslack.app_link import AppLink
from bot.localslack.app_surface import AppSurface
from bot.localslack.ephemeral import Ephemerals
from bot.localslack.faults import Faults
from bot.localslack.interactions import Interactions
from bot.localslack.model import HUMAN_USER_ID, JSON, SlackError
from bot.localslack.page import EventBus
from bot.localslack.rates import Clock, RateLimiter
from bot.localslack.routes import HttpServer, Routes
from bot.localslack.socket_mode import SocketMode
from bot.localslack.views import Views
from bot.localslack.workspace import Workspace

log = logging.getLogger(__name__)

DEFAULT_TOKEN = "xoxb-local-slack"


@dataclass
class RecordedRequest:
    """One API call as it reached the server (the token removed from it)."""

    method: str
    params: dict[str, Any]
    body: str
    content_type: str
    status: int = 0  # HTTP status answered; 0 when the connection was dropped instead
    error: str | None = None  # Slack's `error`, if the call was refused
    at: float = field(default_factory=time.time)


class LocalSlack(AppSurface):
    """A Slack workspace on 127.0.0.1 that behaves like Slack for what slacktail uses."""

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        rate_limits: bool = True,
        scale: float = 1.0,
        clock: Clock = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        faults: Faults | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        max_recorded: int = 10_000,
        legend: Sequence[tuple[str, str]] = (),
        app_token: str | None = None,
        request_url: str | None = None,
        signing_secret: str | None = None,
    ) -> None:
        if not host.startswith("127."):
            raise ValueError("the local Slack listens on the loopback interface only")
        self.token = token
        self.host, self.port = host, port
        self.workspace = Workspace(wall_clock)
        self.api = Api(self.workspace, token)
        self.limiter = RateLimiter(clock=clock, enabled=rate_limits, scale=scale)
        self.faults = faults or Faults()
        self.legend = [list(row) for row in legend]  # (emoji, meaning) rows shown on the page
        self.events = EventBus()
        self.workspace.subscribe(self.events.publish)
        self.views = Views(wall_clock)
        self._ephemerals = Ephemerals()
        self.socket_mode = SocketMode(on_change=self.events.publish)
        self.link = AppLink(self.socket_mode, wall_clock)
        self.interactions = Interactions(
            self.workspace, self.views, self._ephemerals, self.link,
            clock=clock, wall_clock=wall_clock,
        )  # fmt: skip
        for store in (self.views, self._ephemerals, self.interactions):
            store.subscribe(self.events.publish)
        app_api = AppApi(
            self.workspace, self.views, self._ephemerals, self.interactions, self.socket_mode,
            base_url=lambda: self.page_url,
        )  # fmt: skip
        self.api.methods.update(app_api.methods)
        self.agents = Agents(self.workspace, clock)
        self.agents.subscribe(self.events.publish)
        self.api.methods.update(self.agents.methods)
        self.api.app_token_methods = APP_TOKEN_METHODS
        self.configure_app(
            app_token=app_token, request_url=request_url, signing_secret=signing_secret
        )
        self._recorded: deque[RecordedRequest] = deque(maxlen=max_recorded)
        self._lock = threading.Lock()
        self._injected_429 = 0
        self._stopping = threading.Event()
        self._httpd: HttpServer | None = None
        self._thread: threading.Thread | None = None

    # -- life ---------------------------------------------------------------------------

    def start(self) -> str:
        """Listen (port 0: a free port) and serve in a thread; returns the API base URL."""
        if self._httpd is not None:
            return self.base_url
        self._stopping.clear()
        self.events.reopen()
        httpd = HttpServer((self.host, self.port), Routes)
        httpd.app = self
        self.port = httpd.server_address[1]
        self.api.url = self.page_url
        self.interactions.base_url = self.page_url
        self.socket_mode.reopen()
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="localslack"
        )
        self._thread.start()
        return self.base_url

    def stop(self) -> None:
        """Stop serving, end open streams and slow answers, and join every thread."""
        httpd, thread = self._httpd, self._thread
        if httpd is None or thread is None:
            return
        self._stopping.set()
        self.events.close()
        self.socket_mode.close()
        httpd.shutdown()
        httpd.server_close()
        thread.join()
        self._httpd = self._thread = None

    def __enter__(self) -> LocalSlack:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """What `slack_sdk.WebClient(base_url=...)` takes."""
        return f"http://{self.host}:{self.port}/api/"

    @property
    def page_url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    # -- for tests ------------------------------------------------------------------------

    def channel_messages(self, channel: str = "agents") -> list[JSON]:
        """A channel's messages (id, `#name` or name), oldest first, metadata included."""
        return self.workspace.channel_messages(channel)

    def thread(self, channel: str, ts: str) -> list[JSON]:
        """A thread's parent then replies, oldest first, metadata included."""
        return self.workspace.thread(channel, ts)

    def channel_id(self, channel: str = "agents") -> str:
        return self.workspace.channel_id(channel, by_name=True)

    def create_channel(self, name: str, *, is_member: bool = True) -> str:
        return self.workspace.create_channel(name, is_member=is_member)

    def post_as_user(self, channel: str, text: str, thread_ts: str | None = None) -> str:
        """Post as a person (not the bot): a message the bot may not update or delete."""
        return str(
            self.workspace.post(channel, user=HUMAN_USER_ID, text=text, thread_ts=thread_ts)["ts"]
        )

    @property
    def requests(self) -> list[RecordedRequest]:
        """The API calls received (the latest `max_recorded`), oldest first."""
        with self._lock:
            return list(self._recorded)

    @property
    def rate_limited(self) -> Counter[str]:
        """429s answered by the rate limits, per method (injected bursts not included)."""
        return self.limiter.refused_counts()

    @property
    def answered_429(self) -> int:
        """Every 429 answered: rate limits and injected bursts."""
        with self._lock:
            return self.limiter.refused_total + self._injected_429

    def reset(self) -> None:
        """Empty the workspace and forget faults, rate-limit state and recorded calls."""
        self.workspace.reset()
        self.views.reset()
        self._ephemerals.reset()
        self.interactions.reset()
        self.agents.reset()
        self.faults.reset()
        self.limiter.reset()
        with self._lock:
            self._recorded.clear()
            self._injected_429 = 0

    # -- handling -----------------------------------------------------------------------

    def handle_api(
        self, method: str, content_type: str, body: bytes, query: str, authorization: str
    ) -> tuple[ApiResponse, bool, float]:
        """One API call: (response, whether to drop the connection instead, delay seconds)."""
        decision = self.faults.decide(method)
        try:
            request = parse_request(method, content_type, body, query, authorization)
        except SlackError as err:
            response = error(err.code)
            self._record(method, {}, body, content_type, response)
            return response, False, decision.delay
        drop = False
        if decision.status == HTTPStatus.TOO_MANY_REQUESTS:
            response = _ratelimited(decision.retry_after)
            with self._lock:
                self._injected_429 += 1
        elif decision.status is not None:
            response = ApiResponse(decision.status, {"ok": False, "error": "internal_error"})
        else:
            refused = self.api.authorize(request) or self._limited(request)
            response = refused or self.api.handle(request)
            drop = refused is None and response.ok and self.faults.take_drop(method)
        self._record(method, request.params, body, content_type, response)
        return response, drop, decision.delay

    def _limited(self, request: ApiRequest) -> ApiResponse | None:
        params = request.params
        channel = str(params.get("channel") or params.get("channel_id") or "")
        with contextlib.suppress(SlackError):  # an unknown channel is the method's to refuse
            channel = self.workspace.channel_id(channel, by_name=True)
        thread = str(params.get("thread_ts") or "")
        retry_after = self.limiter.check(request.method, channel=channel, thread=thread)
        return None if retry_after is None else _ratelimited(retry_after)

    def _record(
        self,
        method: str,
        params: dict[str, Any],
        body: bytes,
        content_type: str,
        response: ApiResponse,
    ) -> None:
        text = body.decode("utf-8", "replace").replace(self.token, "xoxb-REDACTED")
        if self.api.app_token:
            text = text.replace(self.api.app_token, "xapp-REDACTED")
        entry = RecordedRequest(
            method,
            {k: v for k, v in params.items() if k != "token"},
            text,
            content_type,
            status=response.status,
            error=None if response.ok else str(response.body.get("error")),
        )
        with self._lock:
            self._recorded.append(entry)

    def wait(self, seconds: float) -> None:
        """Sleep for a slow answer; cut short when the server stops."""
        self._stopping.wait(seconds)

    def admin(self, path: str, body: bytes) -> tuple[int, JSON]:
        try:
            decoded = json.loads(body.decode("utf-8")) if body.strip() else {}
        except (UnicodeDecodeError, ValueError):
            return 400, {"ok": False, "error": "invalid_json"}
        try:
            if path == "/_admin/faults":
                self.faults.configure_from_json(decoded)
                return 200, {"ok": True, "faults": self.faults.state()}
            if path == "/_admin/limits":
                if not isinstance(decoded, dict) or set(decoded) - {"enabled", "scale"}:
                    raise ValueError('expected {"enabled": bool, "scale": number}')
                self.limiter.configure(enabled=decoded.get("enabled"), scale=decoded.get("scale"))
                return 200, {"ok": True}
            if path == "/_admin/reset":
                self.reset()
                return 200, {"ok": True}
            if path == "/_admin/app":
                known = {"app_token", "request_url", "signing_secret", "ack_timeout"}
                if not isinstance(decoded, dict) or set(decoded) - known:
                    raise ValueError(f"expected an object with some of {sorted(known)}")
                timeout = decoded.pop("ack_timeout", None)
                if not all(isinstance(v, str) for v in decoded.values()) or not isinstance(
                    timeout, (int, float, type(None))
                ):
                    raise ValueError("the app's settings are strings; ack_timeout a number")
                self.configure_app(**decoded, ack_timeout=timeout)
                return 200, {"ok": True, "transport": self.link.settings.transport}
            if path == "/_admin/disconnect":
                return 200, {"ok": True, "disconnected": self.disconnect_sockets()}
        except (TypeError, ValueError) as err:
            return 400, {"ok": False, "error": str(err)}
        return 404, {"ok": False, "error": "not_found"}


def _ratelimited(retry_after: int) -> ApiResponse:
    return ApiResponse(
        HTTPStatus.TOO_MANY_REQUESTS,
        {"ok": False, "error": "ratelimited"},
        {"Retry-After": str(retry_after)},
    )
