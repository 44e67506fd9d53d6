"""``Redactor``: every secret of the rule table (and the settings' extra patterns) in a text
replaced by a marker naming its kind, ``[redacted:github-token]``.

Fast on text with no secret: one Aho-Corasick pass finds which rules' keywords occur, and only
those rules' expressions run. A text shorter than any secret is returned at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import orjson
from ahocorasick_rs import AhoCorasick, BytesAhoCorasick, MatchKind

from bot.redaction.rules import MARKER_PREFIX, RULES, STEMS, Rule

MIN_LENGTH = 8  # no secret (nor key=value with one) is shorter
_NAME = re.compile(r"([A-Za-z][A-Za-z0-9_-]{0,40})::")
EXTRA_KIND = "custom"
VALUE_KIND = "configured-secret"


def _in_json(word: str) -> bytes:
    """``word`` as it is written inside a JSON string (quotes and backslashes escaped)."""
    return orjson.dumps(word)[1:-1]


class PatternError(ValueError):
    """An extra pattern or allowlist entry that is not a valid expression."""


@dataclass(frozen=True, slots=True)
class Allowlist:
    """Strings never redacted: exact values, and ``re:`` expressions matched whole."""

    exact: frozenset[str]
    patterns: tuple[re.Pattern[str], ...]

    def allows(self, candidate: str) -> bool:
        return candidate in self.exact or any(p.fullmatch(candidate) for p in self.patterns)


def extra_rule(spec: str) -> Rule:
    """A settings pattern, ``REGEX`` or ``NAME::REGEX``, as a rule with no keyword (it runs on
    every text). Raises ``PatternError`` with a one-line reason."""
    named = _NAME.match(spec)
    kind, source = (named.group(1), spec[named.end() :]) if named else (EXTRA_KIND, spec)
    if not source:
        raise PatternError(f"{spec!r}: empty pattern")
    try:
        pattern = re.compile(source)
    except re.error as error:
        raise PatternError(f"{source!r} is not a valid regular expression: {error}") from None
    if pattern.search(""):
        raise PatternError(f"{source!r} matches the empty string")
    return Rule(kind, (), pattern)


def allowlist(entries: Iterable[str]) -> Allowlist:
    exact: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    for entry in entries:
        if not entry.startswith("re:"):
            exact.add(entry)
            continue
        try:
            patterns.append(re.compile(entry[3:]))
        except re.error as error:
            raise PatternError(f"allowlist {entry!r}: not a valid expression: {error}") from None
    return Allowlist(frozenset(exact), tuple(patterns))


def _value_rule(values: Sequence[str]) -> Rule | None:
    """Exact secret values (slacktail's own tokens), found by their own keywords."""
    kept = sorted({v for v in values if len(v) >= MIN_LENGTH}, key=len, reverse=True)
    if not kept:
        return None
    pattern = re.compile("|".join(map(re.escape, kept)))
    return Rule(VALUE_KIND, tuple(kept), pattern, anchored=True)


class Redactor:
    """``redact(text)``: the text with every secret replaced by its marker. Deterministic and
    idempotent: redacting redacted text changes nothing."""

    def __init__(
        self,
        extra_patterns: Sequence[str] = (),
        allow: Sequence[str] = (),
        values: Sequence[str] = (),
    ) -> None:
        value_rule = _value_rule(values)
        extras = tuple(extra_rule(spec) for spec in extra_patterns)
        self.rules: tuple[Rule, ...] = (
            ((value_rule,) if value_rule else ()) + RULES + extras
        )
        self.allowlist = allowlist(allow)
        keywords: list[str] = []
        self._owner: list[int] = []
        for index, rule in enumerate(self.rules):
            keywords.extend(rule.keywords)
            self._owner.extend([index] * len(rule.keywords))
        self._finder = AhoCorasick(keywords)
        stems = [stem for stem in STEMS if any(stem in word for word in keywords)]
        stems += [word for word in keywords if not any(stem in word for stem in stems)]
        forms = {form: stem for stem in stems for form in (stem.encode(), _in_json(stem))}
        self._json_finder = BytesAhoCorasick(forms, matchkind=MatchKind.LeftmostFirst)
        self._json_rules = [
            frozenset(self.rules[self._owner[i]] for i, word in enumerate(keywords) if stem in word)
            for stem in forms.values()
        ]
        self._always = frozenset(i for i, rule in enumerate(self.rules) if not rule.keywords)

    def may_hold_secret_json(self, data: bytes) -> bool:
        """False when JSON ``data`` (UTF-8) surely holds no secret in any of its strings: no
        keyword of any rule (as written, or as JSON escapes it), and no extra pattern to try."""
        if self._always:
            return True
        for stem, start, _ in self._json_finder.find_matches_as_indexes(data):
            for rule in self._json_rules[stem]:
                if rule.in_json is None:
                    return True
                if rule.in_json.match(data, max(0, start - rule.json_offset)):
                    return True
        return False

    def redact(self, text: str) -> str:
        if len(text) < MIN_LENGTH:
            return text
        starts = self._starts(text)
        if not starts and not self._always:
            return text
        found = text
        for index in sorted(starts.keys() | self._always):
            rule = self.rules[index]
            if not rule.anchored:
                text = self._apply(rule, text)
                continue
            if text is not found:  # an earlier rule changed the text: find the words again
                found, starts = text, self._starts(text)
            text = self._apply_at(rule, text, starts.get(index, []))
        return text

    def _starts(self, text: str) -> dict[int, list[int]]:
        """Rule index -> where its keywords start in ``text``."""
        starts: dict[int, list[int]] = {}
        owner = self._owner
        for keyword, start, _ in self._finder.find_matches_as_indexes(text, overlapping=True):
            starts.setdefault(owner[keyword], []).append(start)
        return starts

    def _apply(self, rule: Rule, text: str) -> str:
        marker = rule.marker
        group = rule.group

        def replace(match: re.Match[str]) -> str:
            whole = match.group(0)
            if not self._wanted(rule, match.group(group)):
                return whole
            if group == 0:
                return marker
            start, end = match.start(group) - match.start(), match.end(group) - match.start()
            return whole[:start] + marker + whole[end:]

        return rule.pattern.sub(replace, text)

    def _apply_at(self, rule: Rule, text: str, starts: list[int]) -> str:
        """``rule`` matched only where one of its keywords starts."""
        pieces: list[str] = []
        done = 0
        for start in sorted(starts):
            match = rule.pattern.match(text, start) if start >= done else None
            if match is None or not self._wanted(rule, match.group(rule.group)):
                continue
            pieces += (text[done : match.start(rule.group)], rule.marker)
            done = match.end(rule.group)
        return "".join([*pieces, text[done:]]) if pieces else text

    def _wanted(self, rule: Rule, secret: str) -> bool:
        if secret.startswith(MARKER_PREFIX) or self.allowlist.allows(secret):
            return False
        return rule.check is None or rule.check(secret)
