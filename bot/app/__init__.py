"""slacktail as a Slack app (slack_bolt): the controls people use from a session's thread.

`controls` is the contract between the app (which receives a click, acknowledges it, checks who
may act and finds the process that owns the session) and each control (Stop, Full output,
Approve / Deny), which only carries the click out.
"""
