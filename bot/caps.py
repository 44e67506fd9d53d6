"""Every display cap, each defined once: how much of a text the session keeps, and how much of
it a message shows. The session (`bot/session`), the message builders (`blocks/`) and redaction
(`bot/redaction`) all read these; the module imports nothing, so it sits below them all.
Slack's own limits are not caps of ours: they are in `blocks/limits.py`."""

from __future__ import annotations

from typing import Final

# What the session keeps of a text: what its message shows, and a little more; the rest of
# the text is counted, not kept.
TEXT_CAP: Final = 9000  # consecutive assistant text (a text message)
USER_TEXT_CAP: Final = 2900  # a user's turn
NOTICE_CAP: Final = 1000  # a notice
RESULT_TEXT_CAP: Final = 4000  # a session's final answer (shown: `FINAL_ANSWER_SHOWN`)
PROMPT_CAP: Final = 500  # the first prompt (the root shows `PROMPT_LINES` of it)
SUMMARY_LIMIT: Final = 200  # a tool call's one-line summary of its input
PREVIEW_LIMIT: Final = 600  # a failed call's output (shown: `ERROR_PREVIEW`, as a code block)
OK_PREVIEW_LIMIT: Final = 200  # a call's output (shown: one line of `RESULT_PREVIEW`)
ANSWER_KEPT: Final = 3000  # a delegated member's answer (shown: `DELEGATED_ANSWER_SHOWN`)
EARLY_OUTPUT_CAP: Final = 100_000  # a result that came before its call (its preview is shorter)
NARRATION_LIMIT: Final = 300  # assistant text this short, between tool calls, joins their group

# What a message shows.
FINAL_ANSWER_SHOWN: Final = 3000  # of a session's final answer (the result message)
DELEGATED_ANSWER_SHOWN: Final = 2500  # of a delegated member's answer
ERROR_PREVIEW: Final = 500  # of a failed call's output
RESULT_PREVIEW: Final = 160  # of a call's output, as one line
PROMPT_LINES: Final = 2  # lines of the first prompt the root shows
PROMPT_LINE: Final = 150  # characters of each
TODOS_SHOWN: Final = 60  # items of a todo list
DENIALS_SHOWN: Final = 10  # permission denials listed in the result message
