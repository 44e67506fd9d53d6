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

# What a message shows of a line: a name, a field, a summary.
FALLBACK_LINE: Final = 300  # a message's notification text (its `text`)
TEXT_FALLBACK_LINE: Final = 280  # an assistant text message's notification text
TOOL_NAME_SHOWN: Final = 80  # a tool call's name (its line, its Full output page)
CALL_SUMMARY_SHOWN: Final = 220  # a tool call's summary of its input, on its line
OUTPUT_SUMMARY_SHOWN: Final = 400  # a tool call's summary on its Full output page
WHY_SHOWN: Final = 300  # why a call's whole output cannot be shown
NARRATION_SHOWN: Final = 2000  # a narration between tool calls
LATEST_SHOWN: Final = 120  # the latest narration, under a group of tool calls
MEMBER_SHOWN: Final = 100  # a delegation's lead and member names
TASK_SHOWN: Final = 400  # a delegation's task
CHILD_CALLS_SHOWN: Final = 200  # the names of a delegated member's tool calls
NOTICE_SHOWN: Final = 2500  # a notice's text (and a thinking block's)
NOTICE_LABEL_SHOWN: Final = 60  # a notice's label
USER_TEXT_SHOWN: Final = 2800  # a user's turn
RESULT_SUBTYPE_SHOWN: Final = 80  # a session result's subtype
MODELS_SHOWN: Final = 300  # the models listed in the result message
RESULT_ERROR_SHOWN: Final = 1500  # a session result's error (and its errors, joined)
ERRORS_SHOWN: Final = 10  # errors listed in the result message
DENIAL_TOOL_SHOWN: Final = 60  # a permission denial's tool name
DENIAL_SHOWN: Final = 200  # a permission denial's summary
INFO_SHOWN: Final = 200  # the root's agent, model and session id
CWD_SHOWN: Final = 300  # the root's working directory
VERSION_SHOWN: Final = 100  # the root's agent version
TODO_SHOWN: Final = 300  # a todo's text
AGENT_SHOWN: Final = 60  # an agent's name on the Home tab
APPROVAL_TOOL_SHOWN: Final = 100  # the tool an approval request is for
APPROVER_SHOWN: Final = 40  # who decided an approval request

# What a message, a view or a page shows, moved here from the message builders.
TEXT_SHOWN: Final = 9000  # of consecutive assistant text (a text message's body)
APPROVAL_SHOWN: Final = 500  # of what an approval request asks to run
HOME_SESSIONS: Final = 45  # sessions on the Home tab: two blocks each, under Slack's 100
HOME_TITLE_SHOWN: Final = 120  # a session's title on the Home tab
HOME_DOING_SHOWN: Final = 150  # what a session is doing, on the Home tab
TASK_TITLE_LIMIT: Final = 150  # a todo's title in a plan's task list
STATUS_LIMIT: Final = 120  # characters of the status line under a thread
CALL_ID_MAX: Final = 200  # a call id longer than this gets no Full output button
OUTPUT_PAGE_CHARS: Final = 12_000  # characters of a call's output on one Full output page
