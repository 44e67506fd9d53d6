"""``slacktail preview`` shows no secret either: records and messages are redacted as when
posting."""

from __future__ import annotations

from pathlib import Path

import orjson

from bot.preview import build_preview, preview_document, preview_text
from tests.fixtures.secrets.fake import secret_log


def test_the_preview_of_a_log_full_of_secrets_shows_none(tmp_path: Path) -> None:
    lines, secrets = secret_log()
    log = tmp_path / "secrets.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")
    preview = build_preview([log])
    shown = preview_text(preview) + orjson.dumps(preview_document(preview)).decode()
    assert "[redacted:" in shown
    for fake in secrets:
        assert fake.probe not in shown, fake.kind
