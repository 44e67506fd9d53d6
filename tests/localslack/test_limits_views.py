"""Slack's limits on views (modals and the App Home): each accepted at the limit and refused one
past it, with a JSON pointer under /view."""

from __future__ import annotations

from typing import Any

import pytest

from bot.localslack.limits_views import view_errors

Plain = dict[str, str]


def plain(text: str) -> Plain:
    return {"type": "plain_text", "text": text}


def modal(**extra: Any) -> dict[str, Any]:
    return {"type": "modal", "title": plain("Full output"), "blocks": [], **extra}


def divider() -> dict[str, str]:
    return {"type": "divider"}


TEXT_INPUT = {"type": "input", "label": plain("Why"),
              "element": {"type": "plain_text_input", "action_id": "t"}}  # fmt: skip


@pytest.mark.parametrize(
    ("build", "limit", "refusal"),
    [
        (lambda n: modal(title=plain("t" * n)), 24,
         "must be less than 25 characters [json-pointer:/view/title/text]"),
        (lambda n: modal(close=plain("c" * n)), 24,
         "must be less than 25 characters [json-pointer:/view/close/text]"),
        (lambda n: modal(submit=plain("s" * n)), 24,
         "must be less than 25 characters [json-pointer:/view/submit/text]"),
        (lambda n: modal(blocks=[divider()] * n), 100,
         "no more than 100 items allowed [json-pointer:/view/blocks]"),
        (lambda n: modal(private_metadata="p" * n), 3000,
         "must be less than 3001 characters [json-pointer:/view/private_metadata]"),
        (lambda n: modal(callback_id="c" * n), 255,
         "must be less than 256 characters [json-pointer:/view/callback_id]"),
        (lambda n: {"type": "home", "blocks": [divider()] * n}, 100,
         "no more than 100 items allowed [json-pointer:/view/blocks]"),
    ],
)  # fmt: skip
def test_each_view_limit_is_accepted_at_the_limit_and_refused_one_past_it(
    build: Any, limit: int, refusal: str
) -> None:
    kinds = ("modal", "home")
    assert view_errors(build(limit), kinds) is None
    assert view_errors(build(limit + 1), kinds) == ("invalid_arguments", [refusal])


@pytest.mark.parametrize(
    ("view", "kinds", "refusal"),
    [
        (modal(), ("home",), "must be a valid enum value [json-pointer:/view/type]"),
        ({"type": "modal", "blocks": []}, ("modal",),
         "missing required field: title [json-pointer:/view]"),
        (modal(title={"type": "mrkdwn", "text": "*t*"}), ("modal",),
         "must be a valid enum value [json-pointer:/view/title/type]"),
        (modal(blocks=[TEXT_INPUT]), ("modal",),
         "submit is required when the view has an input block [json-pointer:/view]"),
        ({"type": "home", "blocks": [], "title": plain("t")}, ("home",),
         "unsupported property: title [json-pointer:/view/title]"),
        (modal(blocks=[{"type": "header", "text": plain("h" * 151)}]), ("modal",),
         "must be less than 151 characters [json-pointer:/view/blocks/0/text/text]"),
        (modal(notify_on_close="yes"), ("modal",),
         "must be a boolean [json-pointer:/view/notify_on_close]"),
        ({"type": "modal", "title": plain("t")}, ("modal",),
         "missing required field: blocks [json-pointer:/view]"),
    ],
)  # fmt: skip
def test_malformed_views_are_refused_with_a_pointer(
    view: dict[str, Any], kinds: tuple[str, ...], refusal: str
) -> None:
    refused = view_errors(view, kinds)
    assert refused is not None and refusal in refused[1]


def test_a_modal_with_inputs_and_a_submit_is_accepted() -> None:
    view = modal(blocks=[TEXT_INPUT], submit=plain("Deny"), close=plain("Cancel"),
                 notify_on_close=True, external_id="x")  # fmt: skip
    assert view_errors(view, ("modal",)) is None


def test_a_view_past_250_kb_is_too_large() -> None:
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3000}}] * 90
    assert view_errors(modal(blocks=blocks), ("modal",)) == ("view_too_large", [])
    assert view_errors("not a view", ("modal",)) == (
        "invalid_arguments",
        ["must be an object [json-pointer:/view]"],
    )
