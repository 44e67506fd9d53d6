"""End to end against the local Slack: a log full of secrets and of mention/link injections
is followed with ``slacktail follow --once``, and every request body the local Slack received
is scanned. No secret, no part of one, no mention and no link from the log gets through."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from bot.cli import main
from bot.localslack import LocalSlack
from tests.conftest import WORKSPACE_TOKEN
from tests.fixtures.secrets.fake import SESSION, secret_log

TOKEN = WORKSPACE_TOKEN
INJECTIONS = ("<!channel>", "<!here>", "<!everyone>", "<@U024BE7LH>", "<#C0123ABCD>",
              "<!subteam^S0123ABC>", "<https://evil.example/login|click for your prize>",
              "<mailto:bob@evil.example|mail>", "<!date^1392734382^{date}|x>")  # fmt: skip
# What Slack would turn into a mention, a link or a special command, in any mrkdwn text
# (slacktail's own dates, <!date^…>, excepted; the log's date is not).
_ACTIVE = re.compile(r"<[@#]|<!(?!date\^(?!1392734382)\d+\^)|<(?:https?|mailto):[^>]*evil\.")


@pytest.fixture
def slack(workspace: LocalSlack) -> LocalSlack:
    return workspace


def _follow(slack: LocalSlack, log: Path, lines: list[bytes]) -> list[dict[str, Any]]:
    """Follow the log to its end; the JSON bodies of every post and update received."""
    log.write_bytes(b"\n".join(lines) + b"\n")
    assert main(["follow", "--once", "--channel", "agents", str(log)]) == 0
    writes = [r for r in slack.requests if r.method in ("chat.postMessage", "chat.update")]
    assert writes, "nothing was posted"
    return [orjson.loads(request.body) for request in writes]


def test_no_secret_of_the_corpus_reaches_slack(slack: LocalSlack, tmp_path: Path) -> None:
    lines, secrets = secret_log()
    _follow(slack, tmp_path / "secrets.jsonl", lines)
    received = "\n".join(request.body for request in slack.requests)
    stored = orjson.dumps(slack.channel_messages()).decode()
    assert "[redacted:" in received
    for fake in secrets:
        for where in (received, stored):
            assert fake.probe not in where, fake.kind
            assert orjson.dumps(fake.probe).decode()[1:-1] not in where, fake.kind


def _injection_log() -> list[bytes]:
    text = " ".join(INJECTIONS)

    def line(kind: str, **fields: Any) -> bytes:
        return orjson.dumps({"type": kind, "session_id": SESSION, **fields})

    use = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": f"echo {text}"}}
    todo = {"type": "tool_use", "id": "t2", "name": "TodoWrite",
            "input": {"todos": [{"content": text, "status": "pending", "activeForm": text}]}}
    return [
        line("system", subtype="init", cwd=f"/w/{text}", model=text, tools=["Bash"]),
        line("assistant", message={"id": "m1", "role": "assistant",
                                   "content": [{"type": "text", "text": f"Hi {text}"}]}),
        line("assistant", message={"id": "m2", "role": "assistant", "content": [use]}),
        line("user", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": text, "is_error": True}]}),
        line("assistant", message={"id": "m3", "role": "assistant", "content": [todo]}),
        line("user", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": text}]}),
        line("result", subtype="success", is_error=False, result=f"done {text}",
             duration_ms=10, num_turns=1),
    ]  # fmt: skip


def _mrkdwn_texts(value: Any) -> Iterator[str]:
    """Every text Slack parses as mrkdwn: text objects that are not plain_text."""
    if isinstance(value, dict):
        if value.get("type") != "plain_text" and isinstance(value.get("text"), str):
            yield value["text"]
        for item in value.values():
            yield from _mrkdwn_texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _mrkdwn_texts(item)


def test_no_injected_mention_or_link_becomes_active(slack: LocalSlack, tmp_path: Path) -> None:
    bodies = _follow(slack, tmp_path / "injections.jsonl", _injection_log())
    texts = [text for body in bodies for text in _mrkdwn_texts(body)]
    assert any("&lt;!channel&gt;" in text for text in texts)  # shown, as literal text
    for text in texts:
        assert not _ACTIVE.search(text), text


def test_every_post_and_update_carries_the_safe_flags(slack: LocalSlack, tmp_path: Path) -> None:
    for body in _follow(slack, tmp_path / "injections.jsonl", _injection_log()):
        assert body["parse"] == "none" and body["link_names"] is False
        assert body["unfurl_links"] is False and body["unfurl_media"] is False
