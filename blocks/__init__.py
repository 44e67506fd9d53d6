"""Pure builders from session state to Slack Block Kit messages, one module per message kind."""
