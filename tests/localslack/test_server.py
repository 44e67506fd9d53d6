"""The server's life and the accessors tests use."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading

import pytest
from slack_sdk import WebClient

from bot.localslack import LocalSlack
from bot.localslack.__main__ import local_slack_of, parser, run
from bot.localslack.model import HUMAN_USER_ID

from .conftest import TOKEN
from .helpers import form


def server_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "localslack"]


def test_start_answers_a_loopback_base_url_on_a_free_port() -> None:
    with LocalSlack(token=TOKEN) as one, LocalSlack(token=TOKEN) as two:
        assert one.base_url.startswith("http://127.0.0.1:") and one.base_url.endswith("/api/")
        assert one.port != two.port and one.port > 0
        assert one.page_url == one.base_url.removesuffix("api/")


def test_stop_joins_the_server_thread_and_can_be_called_twice() -> None:
    server = LocalSlack(token=TOKEN)
    server.start()
    assert len(server_threads()) == 1
    server.stop()
    server.stop()
    assert server_threads() == []


def test_only_loopback_addresses_are_accepted() -> None:
    with pytest.raises(ValueError):
        LocalSlack(host="0.0.0.0")


def test_requests_are_recorded_without_the_token(slack: LocalSlack, client: WebClient) -> None:
    client.chat_postMessage(
        channel="#agents", text="hello", metadata={"event_type": "k", "event_payload": {}}
    )
    form(slack, "chat.postMessage", {"token": TOKEN, "channel": "agents", "text": "form"})
    posted, formed = slack.requests
    assert posted.method == "chat.postMessage" and posted.status == 200
    assert posted.params["metadata"] == {"event_type": "k", "event_payload": {}}
    assert formed.params == {"channel": "agents", "text": "form"}
    assert all(TOKEN not in r.body and TOKEN not in str(r.params) for r in slack.requests)


def test_refused_requests_are_recorded_with_their_error(
    slack: LocalSlack, client: WebClient
) -> None:
    form(slack, "chat.postMessage", {"channel": "agents", "text": "no token"})
    [request] = slack.requests
    assert (request.status, request.error) == (200, "not_authed")


def test_the_record_of_requests_is_bounded() -> None:
    with LocalSlack(token=TOKEN, max_recorded=3) as server:
        client = WebClient(token=TOKEN, base_url=server.base_url)
        for _ in range(5):
            client.auth_test()
        assert len(server.requests) == 3


def test_a_person_can_post_into_a_thread_for_tests(slack: LocalSlack, client: WebClient) -> None:
    root = client.chat_postMessage(channel="#agents", text="root")["ts"]
    slack.post_as_user("agents", "a question", thread_ts=root)
    [parent, reply] = slack.thread("agents", root)
    assert reply["user"] == HUMAN_USER_ID and parent["reply_users"] == [HUMAN_USER_ID]


def test_reset_empties_every_channel(slack: LocalSlack, client: WebClient) -> None:
    slack.create_channel("builds")
    client.chat_postMessage(channel="#builds", text="x")
    slack.reset()
    assert [c["name"] for c in client.conversations_list()["channels"]] == ["agents"]


def test_the_module_entry_prints_where_to_find_it_and_stops(
    capsys: pytest.CaptureFixture[str],
) -> None:
    stop = threading.Event()
    stop.set()  # serve, print, and stop at once
    assert run(["--scale", "10", "--token", "xoxb-cli"], stop=stop) == 0
    out = capsys.readouterr().out
    assert "local Slack: http://127.0.0.1:" in out
    assert "SLACK_API_URL=http://127.0.0.1:" in out and "/api/" in out
    assert "SLACK_BOT_TOKEN=xoxb-cli" in out
    assert server_threads() == []


def test_the_module_entry_reports_a_port_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        stop = threading.Event()
        stop.set()
        assert run(["--port", str(taken.getsockname()[1])], stop=stop) == 1
    assert "cannot listen" in capsys.readouterr().err


def test_the_module_entry_refuses_a_bad_scale() -> None:
    assert run(["--scale", "0"]) == 2


def test_python_dash_m_shows_its_help() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot.localslack", "--help"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0 and "--no-rate-limits" in done.stdout


def test_a_restarted_server_keeps_its_port_and_its_messages() -> None:
    server = LocalSlack(token=TOKEN)
    try:
        server.start()
        port = server.port
        WebClient(token=TOKEN, base_url=server.base_url).chat_postMessage(
            channel="#agents", text="kept"
        )
        server.stop()
        server.start()
        assert server.port == port
        client = WebClient(token=TOKEN, base_url=server.base_url)
        history = client.conversations_history(channel=server.channel_id())
        assert [m["text"] for m in history["messages"]] == ["kept"]
    finally:
        server.stop()


def test_the_module_entry_makes_the_channels_asked_for_and_puts_its_faults_in_force() -> None:
    args = parser().parse_args([
        "--channel", "builds", "--channel", "#ops", "--error-rate", "0.5", "--error-status", "503",
        "--error-method", "chat.update", "--ratelimit-burst", "chat.postMessage=2",
        "--retry-after", "3", "--delay", "0.5", "--drop-after-store", "chat.postMessage=1",
        "--no-rate-limits",
    ])  # fmt: skip
    slack = local_slack_of(args, legend=[("⏳", "session: running")])
    channels = {channel["name"] for channel in slack.workspace.snapshot()["channels"]}
    assert {"agents", "builds", "ops"} <= channels
    assert slack.faults.state() == {
        "error_rate": 0.5, "error_status": 503, "error_methods": ["chat.update"],
        "ratelimit_bursts": {"chat.postMessage": 2}, "retry_after": 3, "delay": 0.5,
        "delay_methods": [], "drop_after_store": {"chat.postMessage": 1},
        "injected": {"5xx": 0, "429": 0, "delay": 0, "drop": 0},
    }  # fmt: skip
    assert not slack.limiter.enabled
    assert slack.legend == [["⏳", "session: running"]]


def test_the_module_entry_refuses_a_fault_out_of_range_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["--error-rate", "2"]) == 2
    assert capsys.readouterr().err == (
        "python -m bot.localslack: error: error_rate must be between 0 and 1\n"
    )


def test_the_module_entry_documents_its_fault_switches() -> None:
    help_text = parser().format_help()
    for switch in ("--channel", "--error-rate", "--ratelimit-burst", "--drop-after-store",
                   "--delay", "--retry-after", "--seed", "POST /_admin/faults"):  # fmt: skip
        assert switch in help_text


def test_the_module_entry_sets_up_the_apps_transport_and_prints_its_credentials(
    capsys: pytest.CaptureFixture[str],
) -> None:
    stop = threading.Event()
    stop.set()
    assert run(["--socket-mode"], stop=stop) == 0
    assert "SLACK_APP_TOKEN=xapp-" in capsys.readouterr().out
    slack = local_slack_of(parser().parse_args(["--request-url", "http://127.0.0.1:3000/slack"]))
    assert slack.link.settings.transport == "http" and slack.link.settings.signing_secret
    assert run(["--request-url", "http://127.0.0.1:3000/slack"], stop=stop) == 0
    assert "SLACK_SIGNING_SECRET=" in capsys.readouterr().out
    assert run(["--request-url", "ftp://nope"], stop=stop) == 2
    assert "http" in capsys.readouterr().err


def test_stopping_ends_the_apps_socket_mode_connections(slack: LocalSlack) -> None:
    from .apps import APP_TOKEN, SocketApp

    slack.configure_app(app_token=APP_TOKEN)
    app = SocketApp(slack)
    app.connect()
    try:
        slack.stop()  # joins every handler thread: the WebSocket's too
        assert slack.socket_mode.connections == 0 and server_threads() == []
    finally:
        app.client.auto_reconnect_enabled = False
        app.client.close()
