from bot.formats import FAMILIES


def test_every_format_family_is_registered() -> None:
    assert set(FAMILIES) == {
        "claude-stream-json",
        "claude-transcript",
        "agno",
        "backend",
        "openai-messages",
        "opencode-json",
        "pi-json",
        "pi-session",
    }
