"""The table of secret kinds slacktail redacts: each a name, the literal keywords one of which
any match contains (the cheap pre-filter), and the expression that finds it.

Expressions stop at a backslash and a quote, so a secret inside a JSON string (``\\"sk-…\\"``)
or followed by an escaped newline (``…\\n``) is matched on its own; a private key block is
matched across real and escaped (``\\n``) newlines, and up to where it stops when its end is
missing (a cut log).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

MARKER = "[redacted:{kind}]"
MARKER_PREFIX = "[redacted:"

_SLASH = r"\\?/"  # "/" or JSON's "\/"
_QUOTE = r"""(?:\\*["'])?"""  # a quote, maybe escaped once or twice (JSON inside JSON)


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of secret. ``group`` is the part replaced (0: the whole match; else only the
    value, so ``password=`` or ``https://user:`` stays readable). ``check`` vets a candidate
    (e.g. high entropy); a candidate it refuses is left as it is."""

    kind: str
    keywords: tuple[str, ...]
    pattern: re.Pattern[str]
    group: int = 0
    check: Callable[[str], bool] | None = None
    anchored: bool = False  # a keyword marks where a match begins: matched there only
    # Over a whole record as JSON, matched where a pre-filter stem starts, less
    # ``json_offset``: no match means no match in any of its strings. For rules whose keyword
    # is common ("://", "token"), this keeps most records from being walked.
    in_json: re.Pattern[bytes] | None = None
    json_offset: int = 0

    @property
    def marker(self) -> str:
        return MARKER.format(kind=self.kind)


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in Counter(text).values()) if size else 0.0


def high_entropy(value: str) -> bool:
    """A value that looks generated, not a word, a name or a placeholder: at least 8
    characters, a letter and a digit, and spread out (not ``aaaa1111``)."""
    if len(value) < 8 or value.startswith(MARKER_PREFIX):
        return False
    if not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value):
        return False
    return entropy(value) >= (3.0 if len(value) >= 12 else 2.5)


def _rule(kind: str, keywords: tuple[str, ...], pattern: str, group: int = 0,
          check: Callable[[str], bool] | None = None, *, anchored: bool = True,
          in_json: str | None = None) -> Rule:  # fmt: skip
    """A rule; ``anchored``: every match starts with one of its keywords, so it is tried only
    where the pre-filter found one (else the expression searches the whole text); ``in_json``:
    its confirmation over JSON text (``Rule.in_json``), where its keyword is common."""
    confirm = re.compile(in_json.encode()) if in_json is not None else None
    return Rule(kind, keywords, re.compile(pattern), group, check, anchored, confirm)


def _words(kind: str, words: tuple[str, ...], pattern: str, group: int = 0,
           check: Callable[[str], bool] | None = None,
           confirm: str | None = None) -> Rule:  # fmt: skip
    """An anchored rule whose keywords are ``words`` in lower, Title and UPPER case; its
    stems (``STEMS``) leave out the first letter, so its JSON form is matched one before.
    ``confirm``: the expression its JSON form is made of, if not ``pattern``."""
    keywords = tuple(dict.fromkeys(
        variant for word in words for variant in (word, word[0].upper() + word[1:], word.upper())
    ))  # fmt: skip
    return Rule(kind, keywords, re.compile(pattern), group, check, anchored=True,
                in_json=_json_form(confirm or pattern), json_offset=1)  # fmt: skip


def _json_form(pattern: str) -> re.Pattern[bytes]:
    """``pattern`` as it finds the same text inside a JSON string: whitespace may be written
    as an escape (``\\n``). Patterns here say whitespace as ``_WS``, and exclude quotes,
    backslashes and control characters from what they capture (JSON would escape them)."""
    return re.compile(pattern.replace(_WS, rf"(?:{_WS}|\\[nrt])").encode())


_WS = r"[ \t\r\n]"  # JSON writes each as a two-character escape: _json_form allows it
_ASSIGNED_TO = (
    r"(?i:password|passwd|secret|token|api[_-]?key|apikey|credentials?)[A-Za-z0-9_.-]{0,40}"
    + _QUOTE
    + rf"{_WS}*(?:=>|=|:){_WS}*"
    + _QUOTE
)
_VALUE = r"""[^\s\x00-\x1f"'\\,;&<>(){}\[\]`$|]"""
_ASSIGNED = _ASSIGNED_TO + rf"({_VALUE}{{8,200}})"
# Over JSON (UTF-8 bytes), a value high_entropy could take: a letter and a digit in it (any
# byte past ASCII may be part of either). Keeps "apiKeySource": "environment" from counting.
_ASSIGNED_GENERATED = (
    _ASSIGNED_TO + rf"(?={_VALUE}*[A-Za-z\x80-\xff])(?={_VALUE}*[0-9\x80-\xff])"
    + rf"({_VALUE}{{8,200}})"
)

# No whitespace, control character, quote or backslash in the user or password: so the same
# expression finds it in JSON, where those would be escaped. No brackets either (a URL has
# none there): a marker, "[redacted:…]", is never taken for a user or a password.
_URL_PASSWORD = (
    rf":(?:{_SLASH}){{2}}[^\s\x00-\x1f/@:\"'\\\[\]]+:([^\s\x00-\x1f/@\"'\\\[\]]+)@"
)

_OPENAI_KEY = r"(?:proj-|svcacct-|admin-)?(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{20,}"
# "sk-" not inside a word ("task-"), as JSON writes what comes before it: a character as it is,
# or an escape ending in a letter or a hex digit ("\n", "\u0001") standing for one that is not.
_OPENAI_KEY_IN_JSON = (
    r"sk-(?:(?<![A-Za-z0-9_-]sk-)|(?<=\\[bfnrt]sk-)|(?<=\\u[0-9A-Fa-f]{4}sk-))" + _OPENAI_KEY
)

RULES: tuple[Rule, ...] = (
    _rule("private-key", ("PRIVATE KEY",),
          r"-----BEGIN[A-Z ]{0,30}PRIVATE KEY(?: BLOCK)?-----"
          r"(?:[A-Za-z0-9+/=\s]|\\+[nrt]|(?:Proc-Type|DEK-Info|Comment|Version):[^\n\\]*)*"
          r"(?:-----END[A-Z ]{0,30}PRIVATE KEY(?: BLOCK)?-----)?", anchored=False),
    _rule("jwt", ("eyJ",),
          r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    _rule("slack-webhook", ("hooks.slack.com",),
          rf"https?:(?:{_SLASH}){{2}}hooks\.slack\.com{_SLASH}(?:services|workflows|triggers)"
          rf"(?:{_SLASH}|[A-Za-z0-9_+-])+", anchored=False),
    _rule("discord-webhook", ("discord",),
          rf"https?:(?:{_SLASH}){{2}}(?:ptb\.|canary\.)?discord(?:app)?\.com{_SLASH}api"
          rf"{_SLASH}webhooks{_SLASH}\d+{_SLASH}[A-Za-z0-9_-]+", anchored=False),
    Rule("url-password", ("://",), re.compile(_URL_PASSWORD), 1,
         lambda value: not value.startswith(MARKER_PREFIX), anchored=True,
         in_json=re.compile(_URL_PASSWORD.encode())),
    _rule("anthropic-key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_-]{20,}",
          in_json=r"sk-ant-[A-Za-z0-9_-]{20,}"),
    _rule("openai-key", ("sk-",), r"sk-(?:(?<![A-Za-z0-9_-]sk-)|(?<=\\[nrt]sk-))" + _OPENAI_KEY,
          in_json=_OPENAI_KEY_IN_JSON),
    _rule("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
          r"gh[pousr]_[A-Za-z0-9]{36,255}"),
    _rule("github-pat", ("github_pat_",), r"github_pat_[A-Za-z0-9_]{22,255}"),
    _rule("gitlab-token", ("glpat-",), r"glpat-[A-Za-z0-9_-]{20,}"),
    _rule("slack-token", ("xoxb-", "xoxp-", "xoxa-", "xoxe-", "xoxr-", "xoxs-"),
          r"xox(?:e\.xox)?[baprse]-[A-Za-z0-9-]{10,}"),
    _rule("slack-app-token", ("xapp-",), r"xapp-\d-[A-Za-z0-9-]{10,}"),
    _rule("aws-access-key-id", ("AKIA", "ASIA", "ABIA", "ACCA"),
          r"A(?:KIA|SIA|BIA|CCA)(?<![A-Z0-9]A...)[A-Z0-9]{16}(?![A-Z0-9])"),
    _words("aws-secret-access-key", ("secret_access_key", "secretAccessKey"),
          r"(?i:secret_?access_?key)" + _QUOTE + rf"{_WS}*[=:]{_WS}*" + _QUOTE
          + r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])", 1),
    _rule("google-api-key", ("AIza",), r"AIza[0-9A-Za-z_-]{35}"),
    _rule("google-oauth-secret", ("GOCSPX-",), r"GOCSPX-[A-Za-z0-9_-]{28}"),
    _rule("stripe-key", ("sk_live_", "rk_live_", "sk_test_", "rk_test_"),
          r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    _rule("npm-token", ("npm_",), r"npm_[A-Za-z0-9]{36}"),
    _rule("huggingface-token", ("hf_",), r"hf_(?=[A-Za-z]*[0-9])[A-Za-z0-9]{34,}"),
    _rule("pypi-token", ("pypi-AgE",), r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    _rule("sendgrid-key", ("SG.",), r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    _rule("digitalocean-token", ("dop_v1_", "doo_v1_", "dor_v1_"), r"do[por]_v1_[a-f0-9]{64}"),
    _rule("shopify-token", ("shpat_", "shpss_", "shpca_", "shppa_"),
          r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
    _rule("azure-storage-key", ("AccountKey=",), r"AccountKey=([A-Za-z0-9+/]{40,}={0,2})", 1),
    _words("bearer-token", ("bearer",),
          rf"(?i:bearer){_WS}+([A-Za-z0-9._~+/-]{{16,}}=*)", 1, high_entropy),
    _words("basic-auth", ("authorization",),
          r"(?i:authorization)" + _QUOTE + rf"{_WS}*[=:]{_WS}*" + _QUOTE
          + rf"(?i:basic){_WS}+([A-Za-z0-9+/]{{12,}}={{0,2}})", 1),
    _words("secret-assignment",
              ("password", "passwd", "secret", "token", "api_key", "api-key", "apikey",
               "apiKey", "credential"),
              _ASSIGNED, 1, high_entropy, confirm=_ASSIGNED_GENERATED),
)  # fmt: skip

KINDS: tuple[str, ...] = tuple(rule.kind for rule in RULES)

# What the pre-filter over a whole record (as JSON) looks for: every keyword of every rule
# contains one of these stems (a test checks it), and they are few (under 64) so that the
# search runs as SIMD.
STEMS: tuple[str, ...] = (
    "://", "AKIA", "ASIA", "ABIA", "ACCA", "AIza", "AccountKey=", "GOCSPX-", "PRIVATE KEY",
    "SG.", "discord", "_v1_", "eyJ", "gho_", "ghp_", "ghr_", "ghs_", "ghu_", "github_pat_",
    "glpat-", "hf_", "hooks.slack.com", "npm_", "pypi-AgE", "k_live_", "k_test_", "shp",
    "sk-", "xapp-", "xox",
    "assword", "ASSWORD", "asswd", "ASSWD", "ecret", "ECRET", "oken", "OKEN", "pi_key", "PI_KEY",
    "pi-key", "PI-KEY", "pikey", "piKey", "PIKEY", "redential", "REDENTIAL", "uthorization",
    "UTHORIZATION", "earer", "EARER",
)  # fmt: skip
