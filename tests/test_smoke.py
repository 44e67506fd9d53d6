from bot.formats import FAMILIES


def test_every_format_family_is_registered() -> None:
    assert set(FAMILIES) == {
        "claude-stream-json",
        "claude-transcript",
        "agno",
        "backend",
        "openai-messages",
        "codex-exec-json",
        "antigravity-transcript",
        "kimi-wire",
        "cursor-stream-json",
        "gemini-stream-json",
        "gemini-session",
        "codex-rollout",
        "opencode-json",
        "pi-json",
        "pi-session",
    }
