"""Secrets out of everything slacktail shows: a rule table (``rules``), the ``Redactor`` that
applies it to a text, and ``redact_record`` for a whole record. Pure: no I/O, no clock."""

from bot.redaction.records import bounded_redact, redact_record, redact_value
from bot.redaction.redactor import PatternError, Redactor, allowlist, extra_rule
from bot.redaction.rules import KINDS, MARKER, RULES, Rule

__all__ = [
    "KINDS",
    "MARKER",
    "RULES",
    "PatternError",
    "Redactor",
    "Rule",
    "allowlist",
    "bounded_redact",
    "extra_rule",
    "redact_record",
    "redact_value",
]
