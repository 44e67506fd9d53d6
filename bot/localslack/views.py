"""Views: the modals each person has open (a stack of at most three) and the App Home published
for each person, with Slack's rules: view ids, `external_id` unique in the team, a new `hash` on
every change (`views.update`/`views.publish` with an old one is `hash_conflict`).

A stored view is Slack's view JSON (what views.open answers and what payloads carry); what the
person typed is its `state.values`; the errors an app answered to a submission are kept beside it.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import threading
import time
from collections.abc import Callable

from bot.localslack.model import APP_ID, BOT_ID, JSON, TEAM_ID, SlackError

STACK_MAX = 3  # views.push: "push_limit_reached ... Currently the limit is 3"
Listener = Callable[[JSON], None]


class Views:
    """Every open modal and published Home; thread-safe behind one lock."""

    def __init__(self, wall_clock: Callable[[], float] = time.time) -> None:
        self._wall_clock = wall_clock
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self._ids = itertools.count(1)
        self.reset()

    def reset(self) -> None:
        with self._lock:
            self._views: dict[str, JSON] = {}
            self._owners: dict[str, str] = {}  # view id -> user
            self._stacks: dict[str, list[str]] = {}  # user -> modal view ids, root first
            self._homes: dict[str, str] = {}  # user -> home view id
            self._errors: dict[str, dict[str, str]] = {}  # view id -> block_id -> error
        self._emit({"kind": "views_reset"})

    def subscribe(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.append(listener)

    # -- the methods ----------------------------------------------------------------------

    def open(self, user: str, view: JSON) -> JSON:
        """views.open: a new modal for `user` (one already open is replaced)."""
        with self._lock:
            for view_id in self._stacks.pop(user, []):
                self._forget(view_id)
            stored = self._store(user, view, root=None, previous=None)
            self._stacks[user] = [stored["id"]]
            result = copy.deepcopy(stored)
        self._emit({"kind": "view_opened", "user": user, "view_id": result["id"]})
        return result

    def push(self, user: str, view: JSON) -> JSON:
        """views.push: a modal on top of the one `user` has open."""
        with self._lock:
            stack = self._stacks.get(user)
            if not stack:
                raise SlackError("not_found")
            if len(stack) >= STACK_MAX:
                raise SlackError("push_limit_reached")
            stored = self._store(user, view, root=stack[0], previous=stack[-1])
            stack.append(stored["id"])
            result = copy.deepcopy(stored)
        self._emit({"kind": "view_pushed", "user": user, "view_id": result["id"]})
        return result

    def update(
        self, view: JSON, *, view_id: str | None, external_id: str | None, view_hash: str | None
    ) -> JSON:
        """views.update: replace an open modal (or a published Home) in place."""
        with self._lock:
            found = self._find(view_id, external_id)
            current = self._views[found]
            if view_hash is not None and view_hash != current["hash"]:
                raise SlackError("hash_conflict")
            if current["type"] != view.get("type"):
                raise SlackError("invalid_arguments", response_metadata={"messages": [
                    "[ERROR] a view cannot change its type [json-pointer:/view/type]"
                ]})  # fmt: skip
            user = self._owners[found]
            stored = self._store(
                user,
                view,
                root=current["root_view_id"],
                previous=current["previous_view_id"],
                view_id=found,
                state=current["state"],
            )
            self._errors.pop(found, None)
            result = copy.deepcopy(stored)
        self._emit({"kind": "view_updated", "user": user, "view_id": found})
        return result

    def publish(self, user: str, view: JSON, view_hash: str | None) -> JSON:
        """views.publish: `user`'s App Home, created or replaced."""
        with self._lock:
            current_id = self._homes.get(user)
            current = self._views.get(current_id) if current_id else None
            if view_hash is not None and current is not None and view_hash != current["hash"]:
                raise SlackError("hash_conflict")
            stored = self._store(user, view, root=None, previous=None, view_id=current_id)
            self._homes[user] = stored["id"]
            result = copy.deepcopy(stored)
        self._emit({"kind": "home_published", "user": user, "view_id": result["id"]})
        return result

    # -- what people do -------------------------------------------------------------------

    def close(self, user: str, view_id: str, *, everything: bool = False) -> None:
        """Take `view_id` (the top of `user`'s stack) away; `everything`: the whole stack."""
        with self._lock:
            stack = self._stacks.get(user, [])
            if view_id not in stack:
                raise SlackError("not_found")
            gone = stack if everything else stack[stack.index(view_id) :]
            for each in gone:
                self._forget(each)
            kept = [] if everything else stack[: stack.index(view_id)]
            if kept:
                self._stacks[user] = kept
            else:
                self._stacks.pop(user, None)
        self._emit({"kind": "view_closed", "user": user, "view_id": view_id})

    def set_state(self, view_id: str, values: JSON) -> JSON:
        """Record what the person entered in the view's inputs; the view as it now is."""
        with self._lock:
            view = self.get(view_id)
            self._views[view_id]["state"] = {"values": copy.deepcopy(values)}
            view["state"] = {"values": copy.deepcopy(values)}
            return view

    def set_errors(self, view_id: str, errors: dict[str, str]) -> None:
        """The errors an app answered to a submission, by block_id, shown under each input."""
        with self._lock:
            self.get(view_id)
            self._errors[view_id] = dict(errors)
        self._emit({"kind": "view_errors", "view_id": view_id})

    # -- reading --------------------------------------------------------------------------

    def get(self, view_id: str) -> JSON:
        with self._lock:
            view = self._views.get(view_id)
            if view is None:
                raise SlackError("not_found")
            return copy.deepcopy(view)

    def owner(self, view_id: str) -> str:
        with self._lock:
            if view_id not in self._owners:
                raise SlackError("not_found")
            return self._owners[view_id]

    def stack(self, user: str) -> list[JSON]:
        """`user`'s open modals, root first (the last one is the one shown)."""
        with self._lock:
            return [copy.deepcopy(self._views[v]) for v in self._stacks.get(user, [])]

    def errors(self, view_id: str) -> dict[str, str]:
        with self._lock:
            return dict(self._errors.get(view_id, {}))

    def home(self, user: str) -> JSON | None:
        with self._lock:
            view_id = self._homes.get(user)
            return copy.deepcopy(self._views[view_id]) if view_id else None

    # -- inside ---------------------------------------------------------------------------

    def _find(self, view_id: str | None, external_id: str | None) -> str:
        if view_id:
            if view_id not in self._views:
                raise SlackError("not_found")
            return view_id
        if not external_id:
            raise SlackError("not_found")
        found = next(
            (key for key, view in self._views.items() if view["external_id"] == external_id),
            None,
        )
        if found is None:
            raise SlackError("not_found")
        return found

    def _store(
        self,
        user: str,
        view: JSON,
        *,
        root: str | None,
        previous: str | None,
        view_id: str | None = None,
        state: JSON | None = None,
    ) -> JSON:
        external_id = str(view.get("external_id") or "")
        if external_id and any(
            v["external_id"] == external_id and key != view_id for key, v in self._views.items()
        ):
            raise SlackError("duplicate_external_id")
        view_id = view_id or f"V0LOCAL{next(self._ids):04d}"
        is_modal = view.get("type") == "modal"
        stored: JSON = {
            "id": view_id,
            "team_id": TEAM_ID,
            "type": view.get("type"),
            "blocks": copy.deepcopy(view.get("blocks") or []),
            "private_metadata": str(view.get("private_metadata") or ""),
            "callback_id": str(view.get("callback_id") or ""),
            "state": copy.deepcopy(state) if state else {"values": {}},
            "hash": self._hash(view_id),
            "title": copy.deepcopy(view.get("title")),
            "clear_on_close": bool(view.get("clear_on_close", False)),
            "notify_on_close": bool(view.get("notify_on_close", False)),
            "close": copy.deepcopy(view.get("close")) if is_modal else None,
            "submit": copy.deepcopy(view.get("submit")) if is_modal else None,
            "previous_view_id": previous,
            "root_view_id": root or view_id,
            "app_id": APP_ID,
            "external_id": external_id,
            "app_installed_team_id": TEAM_ID,
            "bot_id": BOT_ID,
        }
        if "submit_disabled" in view:
            stored["submit_disabled"] = bool(view["submit_disabled"])
        self._views[view_id] = stored
        self._owners[view_id] = user
        return stored

    def _hash(self, view_id: str) -> str:
        """A new hash for every version of a view, as Slack's (`"1569362015.55b5e41b"`)."""
        digest = hashlib.sha1(f"{view_id}:{next(self._ids)}".encode()).hexdigest()[:8]
        return f"{int(self._wall_clock())}.{digest}"

    def _forget(self, view_id: str) -> None:
        self._views.pop(view_id, None)
        self._owners.pop(view_id, None)
        self._errors.pop(view_id, None)

    def _emit(self, event: JSON) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(event)
