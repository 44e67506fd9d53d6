"""Delivery against the local Slack, through the real slack_sdk client. One fake clock drives
both the server's rate limits and delivery's pacing (its ``sleep`` moves the clock), so the
tests run at Slack's real rates without waiting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from blocks.message import Message
from bot.delivery import Delivery, SlackApi
from bot.errors import SlackSetupError
from bot.localslack import LocalSlack
from bot.localslack.model import HUMAN_USER_ID
from bot.store import Store
from tests.conftest import FakeClock, Logged
from tests.delivery.conftest import TOKEN


@pytest.fixture
def logged() -> Logged:
    return Logged()


@pytest.fixture
def delivery(slack: LocalSlack, clock: FakeClock, logged: Logged) -> Delivery:
    api = SlackApi(TOKEN, slack.base_url)
    return Delivery(api, slack.channel_id(), clock=clock, sleep=clock.sleep, log=logged.log)


def message(key: str, text: str, *, final: bool = False) -> Message:
    block = {"type": "section", "text": {"type": "mrkdwn", "text": text}}
    return Message(key, text, (block,), final)


def channel_texts(slack: LocalSlack) -> list[tuple[str, list[str]]]:
    """What a person sees: each top-level message's text and its replies' texts."""
    out = []
    for root in slack.channel_messages():
        replies = slack.thread(slack.channel_id(), root["ts"])[1:]
        out.append((root["text"], [reply["text"] for reply in replies]))
    return out


def calls(slack: LocalSlack, method: str) -> list[dict[str, Any]]:
    found = []
    for request in slack.requests:
        if request.method == method:
            body = orjson.loads(request.body) if request.content_type.endswith("json") else {}
            found.append({**request.params, **body})
    return found


def test_a_sessions_messages_form_one_thread_started_by_its_root(
    slack: LocalSlack, delivery: Delivery
) -> None:
    delivery.want("s1", [message("root", "Session"), message("text:1", "Hi"),
                         message("tools:2", "Bash")])  # fmt: skip
    assert delivery.flush()
    assert channel_texts(slack) == [("Session", ["Hi", "Bash"])]


def test_a_changed_message_is_updated_in_place_and_an_unchanged_one_is_not_sent(
    slack: LocalSlack, delivery: Delivery
) -> None:
    delivery.want("s1", [message("root", "Session"), message("tools:1", "⏳ Bash")])
    delivery.flush()
    first_ts = slack.thread(slack.channel_id(), slack.channel_messages()[0]["ts"])[1]["ts"]
    delivery.want("s1", [message("root", "Session"), message("tools:1", "✅ Bash")])
    delivery.flush()
    reply = slack.thread(slack.channel_id(), slack.channel_messages()[0]["ts"])[1]
    assert (reply["ts"], reply["text"]) == (first_ts, "✅ Bash")
    assert len(calls(slack, "chat.update")) == 1  # the root did not change: not sent


def test_only_the_latest_state_of_a_message_is_sent(slack: LocalSlack, delivery: Delivery) -> None:
    delivery.want("s1", [message("root", "v1")])
    delivery.want("s1", [message("root", "v2")])
    delivery.flush()
    assert [c["text"] for c in calls(slack, "chat.postMessage")] == ["v2"]


def test_final_states_go_before_intermediate_updates(
    slack: LocalSlack, delivery: Delivery
) -> None:
    delivery.want("s1", [message("root", "r"), message("a", "a1"), message("b", "b1")])
    delivery.flush()
    delivery.want("s1", [message("root", "r"), message("a", "a2"),
                         message("b", "b2", final=True)])  # fmt: skip
    delivery.flush()
    assert [c["text"] for c in calls(slack, "chat.update")] == ["b2", "a2"]


def test_every_post_and_update_turns_off_unfurling_parsing_and_link_names(
    slack: LocalSlack, delivery: Delivery
) -> None:
    delivery.want("s1", [message("root", "<https://x.test|x>")])
    delivery.flush()
    delivery.want("s1", [message("root", "changed")])
    delivery.flush()
    for call in calls(slack, "chat.postMessage") + calls(slack, "chat.update"):
        assert (call["unfurl_links"], call["unfurl_media"], call["parse"], call["link_names"]) == (
            False, False, "none", False,
        )  # fmt: skip


def test_the_root_reaction_follows_the_session(slack: LocalSlack, delivery: Delivery) -> None:
    delivery.want("s1", [message("root", "r")], reaction="hourglass_flowing_sand")
    delivery.flush()
    delivery.want("s1", [message("root", "r")], reaction="white_check_mark")
    delivery.flush()
    root = slack.channel_messages()[0]
    assert [r["name"] for r in root.get("reactions", [])] == ["white_check_mark"]


def test_a_reaction_wanted_back_before_its_change_went_out_stays_as_slack_shows_it(
    slack: LocalSlack, delivery: Delivery
) -> None:
    delivery.want("s1", [message("root", "running")], reaction="hourglass_flowing_sand")
    delivery.flush()
    delivery.want("s1", [message("root", "idle")], reaction="zzz")  # not sent yet...
    delivery.want("s1", [message("root", "running")], reaction="hourglass_flowing_sand")
    assert delivery.pending == 0  # ...and no longer wanted
    delivery.flush()
    root = slack.channel_messages()[0]
    assert [r["name"] for r in root.get("reactions", [])] == ["hourglass_flowing_sand"]


def test_posts_keep_to_one_a_second_and_slack_never_answers_429(
    slack: LocalSlack, delivery: Delivery, clock: FakeClock
) -> None:
    started = clock.now
    delivery.want("s1", [message("root", "r"), *(message(f"m{i}", f"{i}") for i in range(20))])
    delivery.flush()
    assert slack.answered_429 == 0
    assert clock.now - started >= 19  # 21 posts at one a second


def test_updates_share_one_budget_and_slack_never_answers_429(
    slack: LocalSlack, delivery: Delivery
) -> None:
    keys = [f"m{i}" for i in range(30)]
    delivery.want("s1", [message("root", "r"), *(message(k, "1") for k in keys)])
    delivery.flush()
    for version in range(2, 5):
        delivery.want("s1", [message("root", "r"), *(message(k, str(version)) for k in keys)])
        delivery.flush()
    assert slack.answered_429 == 0
    assert len(calls(slack, "chat.update")) == 90


def test_a_429_burst_is_waited_out_with_retry_after(
    slack: LocalSlack, delivery: Delivery, clock: FakeClock, logged: Logged
) -> None:
    slack.faults.configure(ratelimit_bursts={"chat.postMessage": 2}, retry_after=7)
    started = clock.now
    delivery.want("s1", [message("root", "r")])
    assert delivery.flush()
    assert channel_texts(slack) == [("r", [])]
    assert clock.now - started >= 14
    assert delivery.counts.rate_limited == 2
    said = [(event["retry_after"], str(event["method"])) for event in logged.named("rate_limited")]
    assert len(said) == 2 and all(after == 7.0 and "chat.postMessage" in m for after, m in said)


def test_server_errors_are_retried_and_the_message_posted_once(
    slack: LocalSlack, delivery: Delivery, logged: Logged
) -> None:
    slack.faults.configure(error_rate=0.5, seed=3)
    delivery.want("s1", [message("root", "r"), *(message(f"m{i}", f"{i}") for i in range(10))])
    assert delivery.flush()
    slack.faults.reset()
    assert channel_texts(slack) == [("r", [str(i) for i in range(10)])]
    assert delivery.counts.retries > 0
    retries = logged.named("retry")
    assert len(retries) == delivery.counts.retries  # one line for each
    assert all(float(str(event["after_s"])) > 0 for event in retries)


def test_a_post_whose_answer_was_lost_is_found_not_posted_twice(
    slack: LocalSlack, delivery: Delivery
) -> None:
    slack.faults.configure(drop_after_store={"chat.postMessage": 2})
    delivery.want("s1", [message("root", "r"), message("text:1", "hello")])
    assert delivery.flush()
    assert channel_texts(slack) == [("r", ["hello"])]


def test_refused_blocks_are_replaced_by_a_smaller_payload(
    slack: LocalSlack, delivery: Delivery, logged: Logged
) -> None:
    bad = Message("text:1", "the text", ({"type": "section", "text": {"type": "mrkdwn",
                                                                     "text": "x" * 3001}},))
    delivery.want("s1", [message("root", "r"), bad])
    assert delivery.flush()
    assert channel_texts(slack) == [("r", ["the text"])]
    assert delivery.counts.fallbacks == 1
    (fallback,) = logged.named("fallback_payload")
    assert (fallback["session"], fallback["key"]) == ("s1", "text:1")


def test_a_deleted_message_is_posted_again_and_its_new_ts_kept(
    slack: LocalSlack, delivery: Delivery, logged: Logged
) -> None:
    delivery.want("s1", [message("root", "r"), message("tools:1", "⏳")])
    delivery.flush()
    root_ts = slack.channel_messages()[0]["ts"]
    old = slack.thread(slack.channel_id(), root_ts)[1]["ts"]
    slack.api.chat_delete({"channel": slack.channel_id(), "ts": old, "token": TOKEN})
    delivery.want("s1", [message("root", "r"), message("tools:1", "✅")])
    delivery.flush()
    replies = slack.thread(slack.channel_id(), root_ts)[1:]
    assert [(r["text"], r["ts"] != old) for r in replies] == [("✅", True)]
    assert delivery.ledger.sent("s1", "tools:1").ts == replies[0]["ts"]  # type: ignore[union-attr]
    deleted = {"event": "message_deleted", "session": "s1", "key": "tools:1"}
    assert logged.named("message_deleted") == [deleted]


def test_a_bad_token_stops_with_how_to_fix_it(slack: LocalSlack) -> None:
    with pytest.raises(SlackSetupError, match=r"invalid_auth: .*SLACK_BOT_TOKEN"):
        SlackApi("xoxb-wrong", slack.base_url).check_auth()


def test_an_unknown_channel_stops_with_how_to_fix_it(slack: LocalSlack) -> None:
    with pytest.raises(SlackSetupError, match="#nowhere: no such channel"):
        SlackApi(TOKEN, slack.base_url).find_channel("#nowhere")


def test_a_channel_without_the_app_stops_with_how_to_fix_it(slack: LocalSlack) -> None:
    slack.create_channel("private-room", is_member=False)
    with pytest.raises(SlackSetupError, match="/invite"):
        SlackApi(TOKEN, slack.base_url).find_channel("private-room")


def test_with_a_thread_ts_everything_goes_into_that_existing_thread(
    slack: LocalSlack, clock: FakeClock
) -> None:
    existing = slack.post_as_user("agents", "Nightly run starts here")
    delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                        sleep=clock.sleep, thread_ts=existing)  # fmt: skip
    delivery.want("s1", [message("root", "Session"), message("text:1", "Hi")])
    assert delivery.flush()
    assert channel_texts(slack) == [("Nightly run starts here", ["Session", "Hi"])]


def test_broadcast_result_sends_the_result_to_the_channel_too(
    slack: LocalSlack, clock: FakeClock
) -> None:
    delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                        sleep=clock.sleep, broadcast_result=True)  # fmt: skip
    delivery.want("s1", [message("root", "Session"), message("text:1", "Hi"),
                         message("result", "Done")])  # fmt: skip
    assert delivery.flush()
    posts = calls(slack, "chat.postMessage")
    broadcast = {c["text"]: c.get("reply_broadcast", False) for c in posts}
    assert broadcast == {"Session": False, "Hi": False, "Done": True}


def test_a_post_in_flight_when_the_last_run_died_is_found_not_posted_twice(
    slack: LocalSlack, clock: FakeClock, tmp_path: Path
) -> None:
    api = SlackApi(TOKEN, slack.base_url)
    store = Store.open(tmp_path)
    ledger = store.ledger("T/C/")
    ledger.begin_post("s1", "root")  # the last run wrote this, posted, and was killed
    api.post(slack.channel_id(), message("root", "r").payload(), thread_ts=None,
             key={"session": "s1", "key": "root"})  # fmt: skip
    store.close()

    ledger = Store.open(tmp_path).ledger("T/C/")
    restarted = Delivery(api, slack.channel_id(), clock=clock, sleep=clock.sleep, ledger=ledger)
    restarted.want("s1", [message("root", "r"), message("text:1", "hello")])
    assert restarted.flush()
    assert channel_texts(slack) == [("r", ["hello"])]
    assert not ledger.in_doubt("s1", "root") and ledger.thread_of("s1") is not None


def _delete_root(slack: LocalSlack) -> str:
    """A person deletes the first thread's root (a tombstone stays: it has replies)."""
    root_ts = str(slack.channel_messages()[0]["ts"])
    slack.api.chat_delete({"channel": slack.channel_id(), "ts": root_ts, "token": TOKEN})
    return root_ts


def _live_threads(slack: LocalSlack) -> list[tuple[str, list[str]]]:
    deleted = "This message was deleted."
    return [(root, replies) for root, replies in channel_texts(slack) if root != deleted]


def test_a_reply_to_a_deleted_root_starts_the_thread_again_with_every_reply(
    slack: LocalSlack, delivery: Delivery, logged: Logged
) -> None:
    first = [message("root", "Session"), message("text:1", "Hi"), message("tools:2", "⏳ Bash")]
    delivery.want("s1", first)
    delivery.flush()
    old_root = _delete_root(slack)
    delivery.want("s1", [*first, message("text:3", "More")])
    delivery.flush()  # the new reply cannot go: the thread is lost
    assert delivery.take_lost_threads() == {"s1"}
    assert delivery.ledger.thread_of("s1") is None
    delivery.want("s1", [*first, message("text:3", "More")])  # the follower renders it whole
    assert delivery.flush()
    assert _live_threads(slack) == [("Session", ["Hi", "⏳ Bash", "More"])]
    assert delivery.ledger.thread_of("s1") != old_root
    assert delivery.counts.restarts == 1
    (restarted,) = logged.named("thread_restarted")
    assert restarted["session"] == "s1" and restarted["reason"]


def test_an_update_of_a_deleted_root_starts_the_thread_again(
    slack: LocalSlack, delivery: Delivery
) -> None:
    delivery.want("s1", [message("root", "Running"), message("text:1", "Hi")])
    delivery.flush()
    _delete_root(slack)
    delivery.want("s1", [message("root", "Done", final=True), message("text:1", "Hi")])
    delivery.flush()
    assert delivery.take_lost_threads() == {"s1"}
    delivery.want("s1", [message("root", "Done", final=True), message("text:1", "Hi")])
    assert delivery.flush()
    assert _live_threads(slack) == [("Done", ["Hi"])]


def test_another_sessions_thread_does_not_notice_a_deleted_root(
    slack: LocalSlack, delivery: Delivery
) -> None:
    delivery.want("s1", [message("root", "One"), message("text:1", "a")])
    delivery.want("s2", [message("root", "Two"), message("text:1", "b")])
    delivery.flush()
    _delete_root(slack)  # s1's
    delivery.want("s1", [message("root", "One"), message("text:1", "a"), message("text:2", "c")])
    delivery.want("s2", [message("root", "Two"), message("text:1", "b"), message("text:2", "d")])
    delivery.flush()
    assert delivery.take_lost_threads() == {"s1"}
    assert ("Two", ["b", "d"]) in channel_texts(slack)
    assert delivery.ledger.thread_of("s2") is not None


def test_a_deleted_thread_named_by_thread_ts_is_the_users_to_fix(
    slack: LocalSlack, clock: FakeClock
) -> None:
    existing = slack.post_as_user("agents", "Nightly run starts here")
    delivery = Delivery(SlackApi(TOKEN, slack.base_url), slack.channel_id(), clock=clock,
                        sleep=clock.sleep, thread_ts=existing)  # fmt: skip
    delivery.want("s1", [message("root", "Session")])
    delivery.flush()
    slack.workspace.delete(slack.channel_id(), existing, user=HUMAN_USER_ID)
    delivery.want("s1", [message("root", "Session"), message("text:1", "Hi")])
    with pytest.raises(SlackSetupError, match="--thread-ts"):
        delivery.flush()


def test_after_a_restart_a_root_deleted_meanwhile_starts_its_thread_again_and_is_kept(
    slack: LocalSlack, clock: FakeClock, tmp_path: Path
) -> None:
    api = SlackApi(TOKEN, slack.base_url)
    store = Store.open(tmp_path)
    first = Delivery(api, slack.channel_id(), clock=clock, sleep=clock.sleep,
                     ledger=store.ledger("T/C/"))  # fmt: skip
    first.want("s1", [message("root", "Running"), message("text:1", "Hi")], "hourglass")
    first.flush()
    store.close()
    _delete_root(slack)  # while slacktail was down

    store = Store.open(tmp_path)
    again = Delivery(api, slack.channel_id(), clock=clock, sleep=clock.sleep,
                     ledger=store.ledger("T/C/"))  # fmt: skip
    wanted = [message("root", "Done", final=True), message("text:1", "Hi")]
    again.want("s1", wanted, "white_check_mark")
    again.flush()
    assert again.take_lost_threads() == {"s1"}
    again.want("s1", wanted, "white_check_mark")
    assert again.flush()
    assert _live_threads(slack) == [("Done", ["Hi"])]
    new_root = again.ledger.thread_of("s1")
    store.close()
    assert Store.open(tmp_path).ledger("T/C/").thread_of("s1") == new_root


def test_a_reaction_on_a_root_whose_ts_was_tampered_with_starts_the_thread_again(
    slack: LocalSlack, delivery: Delivery
) -> None:
    root = message("root", "Session")
    delivery.want("s1", [root], "hourglass_flowing_sand")
    delivery.flush()
    sent = delivery.ledger.sent("s1", "root")
    assert sent is not None
    delivery.ledger.record("s1", "root", "1234567890.000001", sent.digest)  # Slack has no such ts
    delivery.want("s1", [root], "white_check_mark")  # only the reaction changes
    delivery.flush()
    assert delivery.take_lost_threads() == {"s1"}
    delivery.want("s1", [root], "white_check_mark")
    assert delivery.flush()
    assert [m["text"] for m in slack.channel_messages()] == ["Session", "Session"]
    assert calls(slack, "reactions.add")[-1]["name"] == "white_check_mark"
