"""slacktail: post what AI agents are doing to Slack, one thread per session."""

__version__ = "0.1.0"
