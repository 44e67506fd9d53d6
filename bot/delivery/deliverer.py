"""Reconciling what each session's thread should show with what Slack shows.

``want()`` records the latest desired messages of a session (a newer state replaces an older
one still waiting: coalescing is free). ``step()`` sends one call when its budget allows, in
this order: new messages (the root first: it starts the thread), then updates that bring a
message to its final state, then other updates, the change that has waited longest first, then
reactions. An unchanged message is never sent again.

A running session's root only repeats what its thread shows (counts, elapsed minutes), and
updates share one budget: a root's change waits ``ROOT_WAIT_S`` before it may go, and then
ranks as if made ``ROOT_YIELD_S`` later (both in ``wanted``), so the thread's own messages,
which people read, go first; when the session ends its root goes at once. ``flush()`` sends
everything without waiting.

Retries (5xx, connection errors) back off with tenacity. A post whose outcome is unknown is
looked up in the thread by the key in its metadata before it is sent again, so a message is
never posted twice. A payload Slack refuses is replaced by a smaller one; a deleted message is
posted again. A session whose root was deleted (its replies cannot go into the thread any more)
has its thread started again: a new root, its replies posted again under it (``lost_threads``
names the sessions to render again whole); the other sessions are not touched.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from blocks.message import Message
from bot import events
from bot.delivery.counts import Counts, added
from bot.delivery.ledger import Ledger, digest
from bot.delivery.pacing import Bucket, Pacing
from bot.delivery.slack_api import SlackApi
from bot.delivery.wanted import Wanted, due_of
from bot.errors import (
    MessageGone,
    PayloadRejected,
    RateLimited,
    SlackSetupError,
    SlackUnavailable,
    ThreadGone,
)
from bot.logs import EventLog

Clock = Callable[[], float]
FALLBACK_TEXT = 2900
OUTAGE_FIRST_PAUSE = 2.0  # after a call's retries ran out: nothing goes for this long,
OUTAGE_MAX_PAUSE = 30.0  # ...doubling while Slack stays away, up to this
STOP_CHECK_S = 0.25  # a flush that may be stopped asks whether to stop at least this often


class Delivery:
    """Keeps the threads of one channel current."""

    def __init__(
        self,
        api: SlackApi,
        channel: str,
        *,
        pacing: Pacing | None = None,
        ledger: Ledger | None = None,
        clock: Clock = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        thread_ts: str | None = None,
        broadcast_result: bool = False,
        log: EventLog | None = None,
        attempts: int = 3,
    ) -> None:
        self.api, self.channel = api, channel
        self.pacing = pacing or Pacing()
        self.ledger = ledger or Ledger()
        self.clock, self.sleep = clock, sleep
        self.thread_ts, self.broadcast_result = thread_ts, broadcast_result
        self.log = log or EventLog(None)
        self.attempts = attempts
        self.counts = Counts()
        self._wanted: dict[tuple[str, str], Wanted] = {}
        self._reactions: dict[str, str] = {}  # session -> the reaction its root should have
        self._order = 0
        self._outage_pause = 0.0  # while Slack is away: the pause after the last failed call
        self.outage_since: float | None = None  # when Slack went away (clock seconds)
        self.lost_threads: set[str] = set()  # sessions whose thread starts again: render whole
        self.forgotten: set[str] = set()  # sessions a message of which was deleted: render whole
        self.posted: dict[str, int] = {}  # posts per session (one clears its thread's status)

    # --- what should be -------------------------------------------------------------------

    def want(
        self, session_id: str, messages: Iterable[Message], reaction: str | None = None
    ) -> None:
        """The session's thread should now look like ``messages`` (root first; those not given
        are as they were), each compared as it comes and dropped when Slack shows it already."""
        now = self.clock()
        for message in messages:
            payload = message.payload()
            fingerprint = digest(payload)
            sent = self.ledger.sent(session_id, message.key)
            key = (session_id, message.key)
            if sent is not None and sent.digest == fingerprint:
                self._wanted.pop(key, None)
                continue
            waiting = self._wanted.get(key)
            order, since = (waiting.order, waiting.since) if waiting else (self._next_order(), now)
            doubt = (waiting is not None and waiting.in_doubt) or (
                sent is None and self.ledger.in_doubt(session_id, message.key)
            )
            self._wanted[key] = Wanted(session_id, message.key, payload, fingerprint,
                                       message.final, order, since, doubt)  # fmt: skip
        if reaction is None:
            return
        if self.ledger.reaction_of(session_id) != reaction:
            self._reactions[session_id] = reaction
        else:  # Slack shows it already: a change wanted before (and not yet sent) is not
            self._reactions.pop(session_id, None)

    def _next_order(self) -> int:
        self._order += 1
        return self._order

    def update_may_go(self) -> bool:
        """Whether the shared update budget has room now: what is rendered now goes at once."""
        return self.pacing.updates.wait(self.clock()) <= 0

    @property
    def pending(self) -> int:
        return len(self._wanted) + len(self._reactions)

    def lag_s(self) -> float:
        """How long the oldest change not yet in Slack has waited (0: none waits)."""
        oldest = min((wanted.since for wanted in self._wanted.values()), default=None)
        return 0.0 if oldest is None else max(0.0, self.clock() - oldest)

    def waiting_for(self, session_id: str) -> bool:
        """Whether something of this session's thread is still to be sent."""
        return session_id in self._reactions or any(
            wanted_session == session_id for wanted_session, _ in self._wanted
        )

    # --- sending --------------------------------------------------------------------------

    def step(self, *, hurry: bool = False) -> float | None:
        """Send one call if one may go now (``hurry``: a root need not wait to be due).
        Returns 0 after a call, the seconds until the next call may go, or None when nothing
        is waiting."""
        now = self.clock()
        choices, due_in = self._choices(now, hurry)
        if not choices:
            return due_in
        waits = [] if due_in is None else [due_in]
        for bucket, send in choices:
            wait = bucket.wait(now)
            if wait <= 0:
                bucket.take(now)
                try:
                    send()
                    self._slack_answered()
                except RateLimited as error:
                    self._slack_answered()
                    bucket.pause(self.clock(), error.retry_after)
                    self.counts = added(self.counts, rate_limited=1)
                    self.log.event(events.RateLimited(str(error), error.retry_after))
                except SlackUnavailable as error:  # retries ran out: keep it, try again later
                    return self._slack_away(str(error))
                return 0.0
            waits.append(wait)
        return min(waits)

    def _slack_away(self, error: str) -> float:
        """Slack cannot be reached: every budget pauses (doubling while it stays away) and
        the loop goes on reading; what must be sent stays wanted, the latest state of each
        message only."""
        now = self.clock()
        self.counts = added(self.counts, gave_up=1)
        if self.outage_since is None:
            self.outage_since = now
        pause = min(OUTAGE_MAX_PAUSE, max(OUTAGE_FIRST_PAUSE, self._outage_pause * 2))
        self._outage_pause = pause
        for bucket in self.pacing.all():
            bucket.pause(now, pause)
        self.log.event(events.SlackUnavailable(error, pause, waiting=self.pending))
        return pause

    def _slack_answered(self) -> None:
        if self.outage_since is not None:
            away = round(self.clock() - self.outage_since, 1)
            self.log.event(events.SlackBack(away, self.pending))
        self.outage_since, self._outage_pause = None, 0.0

    def flush(
        self, deadline_s: float | None = None, stop: Callable[[], bool] | None = None
    ) -> bool:
        """Send everything waiting (pacing by sleeping); True when nothing is left. It gives up
        after ``deadline_s``, or as soon as ``stop()`` says so (asked at least every
        ``STOP_CHECK_S`` while it waits)."""
        started = self.clock()
        while True:
            wait = self.step(hurry=True)
            if wait is None:
                return True
            if deadline_s is not None and self.clock() - started > deadline_s:
                return False
            if stop is not None and stop():
                return False
            if wait > 0:
                self.sleep(wait if stop is None else min(wait, STOP_CHECK_S))

    def _choices(
        self, now: float, hurry: bool
    ) -> tuple[list[tuple[Bucket, Callable[[], None]]], float | None]:
        """At most one candidate per budget, the most urgent first; and the seconds until an
        update that is not yet due will be (None: there is none)."""
        choices: list[tuple[Bucket, Callable[[], None]]] = []
        post = self._next_post()
        if post is not None:
            choices.append((self.pacing.for_posts(self.channel), lambda: self._post(post)))
        update, due_in = self._next_update(now, hurry)
        if update is not None:
            choices.append((self.pacing.updates, lambda: self._update(update)))
        if self._reactions:
            session_id = next(iter(self._reactions))
            if self.ledger.thread_of(session_id) is not None:
                choices.append((self.pacing.reactions, lambda: self._react(session_id)))
        return choices, due_in

    def _next_post(self) -> Wanted | None:
        best: Wanted | None = None
        for wanted in self._wanted.values():
            if self.ledger.sent(wanted.session_id, wanted.key) is not None:
                continue
            if wanted.key != "root" and self.ledger.thread_of(wanted.session_id) is None:
                continue  # the thread starts with its root
            if best is None or wanted.order < best.order:
                best = wanted
        return best

    def _next_update(self, now: float, hurry: bool) -> tuple[Wanted | None, float | None]:
        """The most urgent update that is due (final states first, then the longest waiting),
        and the seconds until the next one not yet due will be."""
        best: tuple[bool, float, int] | None = None
        chosen: Wanted | None = None
        due_in: float | None = None
        for wanted in self._wanted.values():
            if self.ledger.sent(wanted.session_id, wanted.key) is None:
                continue
            due, ranked_at = due_of(wanted)
            if due > now and not hurry:
                due_in = due - now if due_in is None else min(due_in, due - now)
                continue
            rank = (not wanted.final, ranked_at, wanted.order)
            if best is None or rank < best:
                best, chosen = rank, wanted
        return chosen, due_in

    # --- calls ----------------------------------------------------------------------------

    def _post(self, wanted: Wanted) -> None:
        key = {"session": wanted.session_id, "key": wanted.key}
        if wanted.key == "root":
            thread = self.thread_ts
        else:
            thread = self.thread_ts or self.ledger.thread_of(wanted.session_id)
        broadcast = self.broadcast_result and wanted.key.startswith("result")
        try:
            for attempt in self._retrying():
                with attempt:
                    found = (
                        self.api.find_posted(self.channel, thread, key) if wanted.in_doubt else None
                    )
                    if not wanted.in_doubt:
                        self.ledger.begin_post(wanted.session_id, wanted.key)
                    wanted.in_doubt = True  # from here on, a failed try may have been stored
                    ts = found or self._post_payload(wanted, thread, key, broadcast)
        except ThreadGone as error:
            self._thread_gone(wanted.session_id, str(error))
            return
        self.ledger.record(wanted.session_id, wanted.key, ts, wanted.digest)
        self._wanted.pop((wanted.session_id, wanted.key), None)
        self.counts = added(self.counts, posts=1)
        self.posted[wanted.session_id] = self.posted.get(wanted.session_id, 0) + 1

    def _post_payload(
        self, wanted: Wanted, thread: str | None, key: dict[str, str], broadcast: bool
    ) -> str:
        try:
            return self.api.post(self.channel, wanted.payload, thread_ts=thread, key=key,
                                 broadcast=broadcast)  # fmt: skip
        except PayloadRejected as error:
            self._note_fallback(wanted, str(error))
            return self.api.post(self.channel, _fallback(wanted.payload), thread_ts=thread,
                                 key=key, broadcast=broadcast)  # fmt: skip

    def _update(self, wanted: Wanted) -> None:
        sent = self.ledger.sent(wanted.session_id, wanted.key)
        assert sent is not None
        try:
            for attempt in self._retrying():
                with attempt:
                    self._update_payload(wanted, sent.ts)
        except MessageGone:
            if wanted.key == "root" and self.thread_ts is None:
                self._thread_gone(wanted.session_id, "its root was deleted")
                return
            self.log.event(events.MessageDeleted(wanted.session_id, wanted.key))
            self.ledger.forget(wanted.session_id, wanted.key)  # posted again as new
            self.forgotten.add(wanted.session_id)  # at the session's next render
            return
        self.ledger.record(wanted.session_id, wanted.key, sent.ts, wanted.digest)
        self._wanted.pop((wanted.session_id, wanted.key), None)
        self.counts = added(self.counts, updates=1)

    def _thread_gone(self, session_id: str, why: str) -> None:
        """The session's thread cannot be written to: start it again (a new root, the replies
        posted again under it). Into a thread the user named (``--thread-ts``) nothing can be
        posted any more: that is the user's to fix."""
        if self.thread_ts is not None:
            raise SlackSetupError(f"the thread {self.thread_ts} (--thread-ts) is gone: {why}")
        self.log.event(events.ThreadRestarted(session_id, why))
        self.ledger.forget_thread(session_id)
        for entry in [entry for entry in self._wanted if entry[0] == session_id]:
            del self._wanted[entry]
        self._reactions.pop(session_id, None)
        self.lost_threads.add(session_id)
        self.counts = added(self.counts, restarts=1)

    def take_lost_threads(self) -> set[str]:
        """The sessions whose threads start again (each to be wanted again whole), once."""
        lost, self.lost_threads = self.lost_threads, set()
        return lost

    def take_forgotten(self) -> set[str]:
        """The sessions a message of which was deleted since this was last asked: their next
        render builds every message (the deleted one is posted again), once."""
        forgotten, self.forgotten = self.forgotten, set()
        return forgotten

    def _update_payload(self, wanted: Wanted, ts: str) -> None:
        try:
            self.api.update(self.channel, ts, wanted.payload)
        except PayloadRejected as error:
            self._note_fallback(wanted, str(error))
            self.api.update(self.channel, ts, _fallback(wanted.payload))

    def _react(self, session_id: str) -> None:
        ts = self.ledger.thread_of(session_id)
        assert ts is not None
        wanted = self._reactions[session_id]
        previous = self.ledger.reaction_of(session_id)
        try:
            for attempt in self._retrying():
                with attempt:
                    if previous is not None:
                        self.api.react(self.channel, ts, previous, add=False)
                    self.api.react(self.channel, ts, wanted, add=True)
        except MessageGone:
            self._thread_gone(session_id, "its root was deleted")
            return
        self.ledger.set_reaction(session_id, wanted)
        del self._reactions[session_id]
        self.counts = added(self.counts, reactions=1)

    def _retrying(self) -> Retrying:
        return Retrying(
            retry=retry_if_exception_type(SlackUnavailable),
            wait=wait_exponential(multiplier=0.5, max=8),
            stop=stop_after_attempt(self.attempts),
            sleep=self._sleep_for_retry,
            reraise=True,
        )

    def _sleep_for_retry(self, seconds: float) -> None:
        self.counts = added(self.counts, retries=1)
        self.log.event(events.Retry(round(seconds, 2)))
        self.sleep(seconds)

    def _note_fallback(self, wanted: Wanted, error: str) -> None:
        self.counts = added(self.counts, fallbacks=1)
        self.log.event(events.FallbackPayload(wanted.session_id, wanted.key, error))


def _fallback(payload: dict[str, Any]) -> dict[str, Any]:
    """The same message, smaller: its (already escaped) fallback text in one section."""
    text = str(payload.get("text") or "…")[:FALLBACK_TEXT]
    return {"text": text, "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]}
