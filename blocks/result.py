"""The session's result: how it ended, what it cost, what was denied, and its final answer."""

from __future__ import annotations

from blocks.figures import cost, count, duration, exit_words, plural
from blocks.markdown import to_mrkdwn
from blocks.message import Message
from blocks.sections import MessageBlocks
from blocks.text import code_block, safe_line, truncate_escaped
from bot.caps import (
    DENIAL_SHOWN,
    DENIAL_TOOL_SHOWN,
    DENIALS_SHOWN,
    ERRORS_SHOWN,
    FALLBACK_LINE,
    FINAL_ANSWER_SHOWN,
    MODELS_SHOWN,
    RESULT_ERROR_SHOWN,
    RESULT_SUBTYPE_SHOWN,
)
from bot.result_records import ResultStatus, SessionResult
from bot.session.thread import ResultItem

# Each outcome's head and word (a stopped session: someone stopped it, Ctrl-C).
_HEADS = {
    ResultStatus.SUCCEEDED: ("✅ *Session succeeded*", "succeeded"),
    ResultStatus.FAILED: ("❌ *Session failed*", "failed"),
    ResultStatus.STOPPED: ("⏹️ *Session stopped*", "stopped"),
}


def result_message(item: ResultItem) -> Message:
    result = item.result
    head, word = _HEADS.get(result.status, _HEADS[ResultStatus.FAILED])
    if item.exit is not None:  # the session ended on the agent's exit: say how
        head += f" · {exit_words(item.exit)}"
    if result.subtype and result.subtype != "success":
        head += f" · `{safe_line(result.subtype, RESULT_SUBTYPE_SHOWN)}`"
    blocks = MessageBlocks()
    blocks.section(head)
    facts = _facts(result)
    if facts:
        blocks.fields(facts)
    _add_problems(blocks, result)
    if result.text and result.text.strip() and not item.repeats_text:
        blocks.mrkdwn_sections(truncate_escaped(to_mrkdwn(result.text), FINAL_ANSWER_SHOWN))
    detail = result.error or result.text or (exit_words(item.exit) if item.exit else "")
    text = safe_line(f"Session {word}. {detail}", FALLBACK_LINE)
    return Message(item.key, text, blocks.fitted())


def _facts(result: SessionResult) -> list[tuple[str, str]]:
    """The figures the result reports, each where given and none made up for one it lacks."""
    pairs: list[tuple[str, str]] = []
    if result.duration_ms is not None:
        pairs.append(("Duration", duration(result.duration_ms / 1000)))
    if result.duration_api_ms is not None:
        pairs.append(("API time", duration(result.duration_api_ms / 1000)))
    if result.num_turns is not None:
        pairs.append(("Turns", str(result.num_turns)))
    if result.cost_usd is not None:
        pairs.append(("Cost", cost(result.cost_usd)))
    if result.premium_requests is not None:
        pairs.append(("Premium requests", str(result.premium_requests)))
    if tokens := _tokens(result):
        pairs.append(("Tokens", tokens))
    if result.models:
        pairs.append(("Models", safe_line(", ".join(result.models), MODELS_SHOWN)))
    return pairs


def _tokens(result: SessionResult) -> str:
    """``12k in / 800 out / 5.0k cached / 300 reasoning``: in and out where given (a reported
    0 too), the cached and reasoning parts of them where given and not 0; "" when none is."""
    parts: list[str] = []
    if result.input_tokens is not None:
        parts.append(f"{count(result.input_tokens)} in")
    if result.output_tokens is not None:
        parts.append(f"{count(result.output_tokens)} out")
    if result.cache_read_tokens:
        parts.append(f"{count(result.cache_read_tokens)} cached")
    if result.reasoning_tokens:
        parts.append(f"{count(result.reasoning_tokens)} reasoning")
    return " / ".join(parts)


def _add_problems(blocks: MessageBlocks, result: SessionResult) -> None:
    if result.error:
        blocks.section("*Error*\n" + code_block(result.error, RESULT_ERROR_SHOWN))
    if result.errors:
        joined = "\n".join(result.errors[:ERRORS_SHOWN])
        blocks.section("*Errors*\n" + code_block(joined, RESULT_ERROR_SHOWN))
    denials = result.permission_denials
    if denials:
        lines = [
            f"• *{safe_line(d.tool_name, DENIAL_TOOL_SHOWN)}* "
            + safe_line(d.summary or "", DENIAL_SHOWN)
            for d in denials[:DENIALS_SHOWN]
        ]
        if len(denials) > DENIALS_SHOWN:
            lines.append(f"_… {len(denials) - DENIALS_SHOWN} more_")
        title = f"🚫 *{plural(len(denials), 'permission denial')}*"
        blocks.context(title)
        blocks.mrkdwn_sections("\n".join(lines))
