from bot.delivery.ledger import Ledger


def test_forgetting_a_thread_forgets_its_messages_reaction_and_posts_only() -> None:
    ledger = Ledger()
    for session in ("a", "b"):
        ledger.record(session, "root", f"{session}.1", b"r")
        ledger.record(session, "tools:1", f"{session}.2", b"t")
        ledger.set_reaction(session, "hourglass")
        ledger.begin_post(session, "text:2")
    ledger.forget_thread("a")
    assert ledger.thread_of("a") is None and ledger.sent("a", "tools:1") is None
    assert ledger.reaction_of("a") is None and not ledger.in_doubt("a", "text:2")
    assert ledger.thread_of("b") == "b.1" and ledger.sent("b", "tools:1") is not None
    assert ledger.reaction_of("b") == "hourglass" and ledger.in_doubt("b", "text:2")


def test_forgetting_a_message_keeps_the_rest_of_its_thread() -> None:
    ledger = Ledger()
    ledger.record("a", "root", "1.1", b"r")
    ledger.record("a", "text:1", "1.2", b"x")
    ledger.forget("a", "text:1")
    ledger.forget("never", "root")  # a session the ledger never saw: nothing to forget
    assert ledger.sent("a", "text:1") is None and ledger.thread_of("a") == "1.1"
