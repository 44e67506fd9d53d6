"""The data model alone: ts values, threads, own messages, reactions, metadata, paging."""

from __future__ import annotations

import threading

import pytest

from bot.localslack.model import (
    BOT_USER_ID,
    HUMAN_USER_ID,
    SlackError,
    decode_cursor,
    encode_cursor,
    format_ts,
    is_ts,
    ts_micros,
)
from bot.localslack.workspace import Workspace


def fixed(now: float) -> Workspace:
    return Workspace(wall_clock=lambda: now)


def test_ts_has_slacks_format_seconds_dot_six_digits() -> None:
    ts = fixed(1700000000.0001).post("agents", text="hi")["ts"]
    assert ts == "1700000000.000100"
    assert is_ts(ts)


def test_ts_strictly_increase_within_a_channel_even_when_the_clock_stands_still() -> None:
    ws = fixed(1700000000.0)
    stamps = [ws.post("agents", text=str(i))["ts"] for i in range(5)]
    assert stamps == sorted(stamps, key=lambda ts: ts_micros(ts) or 0) and len(set(stamps)) == 5
    assert stamps[:2] == ["1700000000.000000", "1700000000.000001"]


def test_ts_helpers_round_trip_and_refuse_garbage() -> None:
    assert format_ts(ts_micros("1700000000.5") or 0) == "1700000000.500000"
    assert ts_micros("soon") is None and ts_micros("-1") is None
    assert not is_ts("0") and not is_ts("1700000000") and not is_ts("abc.def")
    assert decode_cursor(encode_cursor("1700000000.000001")) == 1700000000000001
    with pytest.raises(SlackError, match="invalid_cursor"):
        decode_cursor("bm9wZQ==")


def test_default_channel_is_agents_and_names_resolve_with_or_without_hash() -> None:
    ws = Workspace()
    agents = ws.channel_id("agents", by_name=True)
    assert ws.channel_id("#agents", by_name=True) == agents
    assert ws.channel_info(agents)["name"] == "agents"
    with pytest.raises(SlackError, match="channel_not_found"):
        ws.channel_id("agents")  # by id only, unless names are allowed


def test_create_channel_returns_the_existing_id_for_a_known_name() -> None:
    ws = Workspace()
    first = ws.create_channel("#builds")
    assert ws.create_channel("builds") == first
    assert [c["name"] for c in ws.channels()] == ["agents", "builds"]
    with pytest.raises(SlackError):
        ws.create_channel("Not A Name")


def test_a_reply_joins_its_parents_thread_and_stays_out_of_the_channel() -> None:
    ws = Workspace()
    root = ws.post("agents", text="root")["ts"]
    first = ws.post("agents", text="one", thread_ts=root)
    second = ws.post("agents", text="two", thread_ts=root)
    assert first["thread_ts"] == root and first["parent_user_id"] == BOT_USER_ID
    [parent] = ws.channel_messages("agents")
    assert parent["reply_count"] == 2 and parent["latest_reply"] == second["ts"]
    assert parent["reply_users"] == [BOT_USER_ID] and parent["thread_ts"] == root
    assert [m["text"] for m in ws.thread("agents", root)] == ["root", "one", "two"]


def test_a_broadcast_reply_also_shows_in_the_channel() -> None:
    ws = Workspace()
    root = ws.post("agents", text="root")["ts"]
    ws.post("agents", text="done", thread_ts=root, broadcast=True)
    messages = ws.channel_messages("agents")
    assert [m["text"] for m in messages] == ["root", "done"]
    assert messages[1]["subtype"] == "thread_broadcast"


@pytest.mark.parametrize(
    ("thread_ts", "code"),
    [("0", "invalid_thread_ts"), ("1.000001", "thread_not_found"), ("x", "invalid_thread_ts")],
)
def test_a_reply_needs_an_existing_parent(thread_ts: str, code: str) -> None:
    with pytest.raises(SlackError, match=code):
        Workspace().post("agents", text="lost", thread_ts=thread_ts)


def test_a_reply_to_a_reply_is_refused() -> None:
    ws = Workspace()
    root = ws.post("agents", text="root")["ts"]
    reply = ws.post("agents", text="r", thread_ts=root)["ts"]
    with pytest.raises(SlackError, match="thread_not_found"):
        ws.post("agents", text="nested", thread_ts=reply)


def test_a_reply_to_a_parent_in_another_channel_is_refused() -> None:
    ws = Workspace()
    ws.create_channel("other")
    root = ws.post("agents", text="root")["ts"]
    with pytest.raises(SlackError, match="thread_not_found"):
        ws.post("other", text="wrong channel", thread_ts=root)


def test_only_the_bots_own_messages_can_be_updated_or_deleted() -> None:
    ws = Workspace()
    agents = ws.channel_id("agents", by_name=True)
    theirs = ws.post("agents", user=HUMAN_USER_ID, text="a person")["ts"]
    with pytest.raises(SlackError, match="cant_update_message"):
        ws.update(agents, theirs, text="mine now", blocks=None)
    with pytest.raises(SlackError, match="cant_delete_message"):
        ws.delete(agents, theirs)


def test_update_with_blocks_leaves_no_edited_mark_and_text_alone_removes_blocks() -> None:
    ws = Workspace()
    agents = ws.channel_id("agents", by_name=True)
    blocks = [{"type": "divider"}]
    ts = ws.post("agents", text="t", blocks=blocks)["ts"]
    updated = ws.update(agents, ts, text="t2", blocks=[{"type": "divider", "block_id": "b"}])
    assert "edited" not in updated and updated["blocks"][0]["block_id"] == "b"
    plain = ws.update(agents, ts, text="plain now", blocks=None)
    assert "blocks" not in plain and plain["edited"]["user"] == BOT_USER_ID


def test_update_with_blocks_only_keeps_the_text() -> None:
    ws = Workspace()
    agents = ws.channel_id("agents", by_name=True)
    ts = ws.post("agents", text="fallback", blocks=[{"type": "divider"}])["ts"]
    assert ws.update(agents, ts, text=None, blocks=[{"type": "divider"}])["text"] == "fallback"


def test_deleting_a_parent_with_replies_leaves_a_tombstone_that_takes_no_replies() -> None:
    ws = Workspace()
    agents = ws.channel_id("agents", by_name=True)
    root = ws.post("agents", text="root")["ts"]
    reply = ws.post("agents", text="r", thread_ts=root)["ts"]
    ws.delete(agents, root)
    [tombstone] = ws.channel_messages("agents")
    assert tombstone["subtype"] == "tombstone" and tombstone["reply_count"] == 1
    with pytest.raises(SlackError, match="cannot_reply_to_message"):
        ws.post("agents", text="late", thread_ts=root)
    with pytest.raises(SlackError, match="message_not_found"):
        ws.update(agents, root, text="back", blocks=None)
    ws.delete(agents, reply)
    assert ws.channel_messages("agents") == []


def test_deleting_a_reply_takes_it_out_of_the_thread() -> None:
    ws = Workspace()
    agents = ws.channel_id("agents", by_name=True)
    root = ws.post("agents", text="root")["ts"]
    reply = ws.post("agents", text="r", thread_ts=root)["ts"]
    ws.delete(agents, reply)
    assert [m["text"] for m in ws.thread("agents", root)] == ["root"]
    assert "reply_count" not in ws.channel_messages("agents")[0]


def test_reactions_count_users_per_name_and_refuse_repeats() -> None:
    ws = Workspace()
    agents = ws.channel_id("agents", by_name=True)
    ts = ws.post("agents", text="x")["ts"]
    ws.add_reaction(agents, ts, "eyes")
    ws.add_reaction(agents, ts, "eyes", user=HUMAN_USER_ID)
    assert ws.message(agents, ts)["reactions"] == [
        {"name": "eyes", "users": [BOT_USER_ID, HUMAN_USER_ID], "count": 2}
    ]
    with pytest.raises(SlackError, match="already_reacted"):
        ws.add_reaction(agents, ts, "eyes")
    ws.remove_reaction(agents, ts, "eyes")
    with pytest.raises(SlackError, match="no_reaction"):
        ws.remove_reaction(agents, ts, "eyes")


def test_a_message_takes_at_most_23_different_reactions() -> None:
    ws = Workspace()
    agents = ws.channel_id("agents", by_name=True)
    ts = ws.post("agents", text="x")["ts"]
    for i in range(23):
        ws.add_reaction(agents, ts, f"emoji{i}")
    with pytest.raises(SlackError, match="too_many_emoji"):
        ws.add_reaction(agents, ts, "one_more")


def test_metadata_is_returned_only_when_asked_for() -> None:
    ws = Workspace()
    agents = ws.channel_id("agents", by_name=True)
    metadata = {"event_type": "slacktail_message", "event_payload": {"key": "root"}}
    posted = ws.post("agents", text="x", metadata=metadata)
    assert "metadata" not in posted
    assert "metadata" not in ws.history(agents)[0][0]
    assert ws.history(agents, include_metadata=True)[0][0]["metadata"] == metadata


def test_history_pages_newest_first_and_respects_bounds() -> None:
    ws = fixed(1700000000.0)
    agents = ws.channel_id("agents", by_name=True)
    stamps = [ws.post("agents", text=str(i))["ts"] for i in range(5)]
    page, more = ws.history(agents, limit=2)
    assert [m["ts"] for m in page] == stamps[:2:-1] and more
    rest, more = ws.history(agents, limit=10, cursor=ts_micros(page[-1]["ts"]))
    assert [m["ts"] for m in rest] == stamps[2::-1] and not more
    middle, _ = ws.history(agents, oldest=ts_micros(stamps[1]), latest=ts_micros(stamps[3]))
    assert [m["ts"] for m in middle] == [stamps[2]]
    both, _ = ws.history(
        agents, oldest=ts_micros(stamps[1]), latest=ts_micros(stamps[3]), inclusive=True
    )
    assert [m["ts"] for m in both] == stamps[3:0:-1]


def test_replies_page_oldest_first_with_the_parent_on_the_first_page_only() -> None:
    ws = Workspace()
    agents = ws.channel_id("agents", by_name=True)
    root = ws.post("agents", text="root")["ts"]
    for i in range(3):
        ws.post("agents", text=str(i), thread_ts=root)
    page, more = ws.replies(agents, root, limit=2)
    assert [m["text"] for m in page] == ["root", "0"] and more
    rest, more = ws.replies(agents, root, limit=2, cursor=ts_micros(page[-1]["ts"]))
    assert [m["text"] for m in rest] == ["1", "2"] and not more


def test_replies_to_a_replys_ts_answer_that_reply_alone() -> None:
    ws = Workspace()
    agents = ws.channel_id("agents", by_name=True)
    root = ws.post("agents", text="root")["ts"]
    reply = ws.post("agents", text="r", thread_ts=root)["ts"]
    assert [m["text"] for m in ws.replies(agents, reply)[0]] == ["r"]


def test_assistant_status_clears_when_the_bot_replies_or_after_two_minutes() -> None:
    now = [1700000000.0]
    ws = Workspace(wall_clock=lambda: now[0])
    agents = ws.channel_id("agents", by_name=True)
    root = ws.post("agents", text="root")["ts"]
    ws.set_status(agents, root, "is running Bash…", [])
    assert ws.statuses(agents) == {root: "is running Bash…"}
    ws.post("agents", text="r", thread_ts=root)
    assert ws.statuses(agents) == {}
    ws.set_status(agents, root, "is thinking…", [])
    now[0] += 120
    assert ws.statuses(agents) == {}


def test_a_status_says_when_it_ends_for_the_page() -> None:
    ws = Workspace(wall_clock=lambda: 1700000000.0)
    agents = ws.channel_id("agents", by_name=True)
    root = ws.post("agents", text="root")["ts"]
    ws.set_status(agents, root, "is thinking…", ["reading", "writing"])
    expected = {"status": "is thinking…", "loading_messages": ["reading", "writing"],
                "expires_at": 1700000120.0}  # fmt: skip
    assert ws.status("agents", root) == expected
    assert ws.snapshot()["channels"][0]["status_details"] == {root: expected}
    assert ws.status("agents", "1.000001") is None


def test_listeners_hear_every_change() -> None:
    ws = Workspace()
    heard: list[str] = []
    ws.subscribe(lambda event: heard.append(event["kind"]))
    agents = ws.channel_id("agents", by_name=True)
    ts = ws.post("agents", text="x")["ts"]
    ws.update(agents, ts, text="y", blocks=None)
    ws.add_reaction(agents, ts, "x")
    ws.delete(agents, ts)
    assert heard == ["message_posted", "message_updated", "reaction_added", "message_deleted"]


def test_concurrent_posts_get_distinct_increasing_ts() -> None:
    ws = fixed(1700000000.0)

    def post_many() -> None:
        for _ in range(200):
            ws.post("agents", text="x")

    threads = [threading.Thread(target=post_many) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stamps = [m["ts"] for m in ws.channel_messages("agents")]
    assert len(set(stamps)) == 800
    assert stamps == sorted(stamps, key=lambda ts: ts_micros(ts) or 0)
