"""Secrets out of PR material before anything is counted, sent to the model or printed.

Known token shapes (cloud keys, GitHub/OpenAI/Slack tokens, private key blocks) are replaced
wherever they appear; values assigned to secret-sounding names (*_KEY, *_TOKEN, *_SECRET,
PASSWORD ...) are replaced when they look random enough to be real, and not when they read as code:
a name built of words (`kFp8StaticTensorSym`, `tool_message_v2_content`, `Ed25519PrivateKey`), a type
(`BTreeMap<u32, Token>`), a format template, a message about passwords. A fixed `[REDACTED:<kind>]`
stands in, so the model still sees that something was there, and the count goes to the coverage
footer ("2 secrets redacted").
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Callable

from .identifiers import reads_as_identifier
from .sanitize import lower_keeping_offsets

# Known shapes. Group names are the kinds shown in the replacement. A shape whose characters can run on
# (`sk-sk-sk-…`, `eyJ-eyJ-…`) starts only where such a run starts, so a long run is read once, not once
# from each of its positions.
_TOKEN_RE = re.compile(
    "|".join(
        (
            r"(?P<aws_access_key>\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b)",
            r"(?P<gcp_api_key>\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-]))",
            r"(?P<gcp_oauth_token>\bya29\.[0-9A-Za-z_\-]{20,})",
            r"(?P<github_token>\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b)",
            r"(?P<github_pat>\bgithub_pat_[A-Za-z0-9_]{22,255}\b)",
            (
                r"(?P<openai_key>(?<![A-Za-z0-9_\-])sk-(?:proj-|svcacct-|admin-|ant-(?:api\d\d-)?)?"
                r"(?=[A-Za-z0-9_\-]{0,255}\d)(?=[A-Za-z0-9_\-]{0,255}[A-Za-z])[A-Za-z0-9_\-]{20,}"
                r"(?![A-Za-z0-9_\-]))"
            ),
            r"(?P<slack_token>\bxox[abposre]-[A-Za-z0-9\-]{10,})",
            r"(?P<slack_webhook>https://hooks\.slack\.com/services/[A-Za-z0-9_/]{20,})",
            r"(?P<stripe_key>\b(?:sk|rk)_live_[A-Za-z0-9]{20,})",
            r"(?P<huggingface_token>\bhf_[A-Za-z]{34,})",
            r"(?P<npm_token>\bnpm_[A-Za-z0-9]{36}\b)",
            r"(?P<jwt>(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,})",
        )
    )
)
# A PEM private key block; inside a diff every line carries a +/-/space prefix, inside JSON the
# newlines are literal "\n". An unterminated block (truncated diff) is redacted to its last base64 line.
# The block's END is looked up (private_key_spans), not scanned for from every BEGIN: a text of many
# unterminated BEGIN lines would otherwise be read once per line.
_PRIVATE_KEY_BEGIN_RE = re.compile(r"-----BEGIN (?P<label>[A-Z0-9 ]{0,64}?)PRIVATE KEY(?: BLOCK)?-----")
_PRIVATE_KEY_END_RE = re.compile(r"-----END (?P<label>[A-Z0-9 ]{0,64}?)PRIVATE KEY(?: BLOCK)?-----")
_KEY_LINES_RE = re.compile(r"(?:(?:\\n|\s|[+\- ])*[A-Za-z0-9+/=]{8,})*")
_KEY_MATERIAL_RE = re.compile(r"[A-Za-z0-9+/]{16,}")
# NAME = value, NAME: value, "name": "value", --name value; the name says it is a secret. Found from
# the word at the name's end (_SECRET_WORD_RE, over a lowered copy: a case-insensitive pattern
# cannot skip ahead), then the rest is matched from there (_AFTER_NAME_RE) and the name walked back
# (_name_start, at most NAME_MAX characters): each character is read a bounded number of times, where
# a pattern starting with the name would re-read a long dotted run from each of its positions.
_SECRET_WORD_RE = re.compile(
    r"(?:api[_\-]?key|access[_\-]?key|secret|token|passw(?:or)?d|passwd|pwd|credentials?|private[_\-]?key"
    r"|client[_\-]?secret|auth[_\-]?key|_key|-key)\b"
)
_AFTER_NAME_RE = re.compile(
    r"""(?P<close>["']?)(?P<sep>[^\S\n]*(?::=|=>|=|:)[^\S\n]*|[^\S\n]+)"""
    r"""(?:(?P<quote>["'`])(?P<qvalue>[^"'`\n]{6,200})(?P=quote)|(?P<value>[^\s"'`,;)\]}]{6,200}))"""
)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
NAME_MAX = 128  # characters of a name before its secret word: VLLM_ROCM_CUSTOM_..._API_KEY is far shorter
_PLACEHOLDER_RE = re.compile(
    r"REDACTED|x{4,}|\*{3,}|\.{3}|<[^>]*>|\$\{|\{\{|%\(|your[_\-]|example|dummy|placeholder|changeme|"
    r"abc123|123456|"
    r"^\$\w+$|^(?:none|null|true|false|nil|undefined|required|optional|string|str|bytes|int)$",
    re.IGNORECASE,
)
_CODE_REFERENCE_RE = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?:\(.*|\[.*)?$")
_PASSWORD_NAME_RE = re.compile(r"passw(?:or)?d|passwd|pwd", re.IGNORECASE)
_PASSWORD_WORD_RE = re.compile(r"passw|kennwort|contrase|mot de passe", re.IGNORECASE)
# `{}`, `{name}`, `%s`: a format template the code fills in, not a value
_TEMPLATE_RE = re.compile(r"\{\w*\}|%[sd]")


# Substrings every match of _TOKEN_RE contains. Scanning for them with str.find (C speed) and running
# the pattern only on the lines that have one keeps a 6 MB diff fast; the pattern alone would try every
# position of the text.
_TOKEN_NEEDLES = ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA", "AIza", "ya29.",
                  "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "sk-", "xox", "hooks.slack.com",
                  "_live_", "hf_", "npm_", "eyJ")


def redact_secrets(text: str) -> tuple[str, int]:
    """Replace likely secrets with `[REDACTED:<kind>]`; return the new text and how many were replaced.
    Time is linear in the text: no pattern here re-reads a run of characters from each of its positions."""
    if not text:
        return text, 0
    count = 0
    if "PRIVATE KEY" in text:
        text, count = _redact_private_keys(text)

    def _token(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"[REDACTED:{match.lastgroup}]"

    text = _sub_on_candidate_lines(text, _TOKEN_NEEDLES, _TOKEN_RE, _token)
    text, assigned = _redact_assignments(text)
    return text, count + assigned


def _redact_private_keys(text: str) -> tuple[str, int]:
    """Each BEGIN ... PRIVATE KEY block through its END (the same label), or, unterminated, through the
    base64 lines after it. A marker with no key material after it (code that parses PEM) stays."""
    starts: dict[str, list[int]] = {}  # label -> where each END marker starts, in order
    ends: dict[str, list[int]] = {}  # ... and where it ends
    for match in _PRIVATE_KEY_END_RE.finditer(text):
        starts.setdefault(match.group("label"), []).append(match.start())
        ends.setdefault(match.group("label"), []).append(match.end())
    pieces: list[str] = []
    pos = count = 0
    for begin in _PRIVATE_KEY_BEGIN_RE.finditer(text):
        if begin.start() < pos:
            continue  # inside the block just redacted
        label = begin.group("label")
        after = bisect.bisect_left(starts.get(label, []), begin.end())
        if after < len(starts.get(label, [])):
            end = ends[label][after]
        else:
            lines = _KEY_LINES_RE.match(text, begin.end())
            end = lines.end() if lines else begin.end()
        if not _KEY_MATERIAL_RE.search(text, begin.end(), end):
            continue
        pieces.append(text[pos : begin.start()])
        pieces.append("[REDACTED:private_key]")
        count += 1
        pos = end
    if not count:
        return text, 0
    pieces.append(text[pos:])
    return "".join(pieces), count


def _redact_assignments(text: str) -> tuple[str, int]:
    """Values assigned to secret-sounding names, when they look like a real secret (_looks_secret)."""
    lowered = lower_keeping_offsets(text)  # "x" for İ: a letter in no secret word
    pieces: list[str] = []
    pos = count = 0
    search_from = 0
    while (word := _SECRET_WORD_RE.search(lowered, search_from)) is not None:
        after = _AFTER_NAME_RE.match(text, word.end())
        if after is None:
            search_from = word.start() + 1
            continue
        start = _name_start(text, word.start(), pos)
        name = text[start : word.end()] + after.group("close")
        quote, sep = after.group("quote") or "", after.group("sep")
        value = after.group("qvalue") if quote else after.group("value")
        search_from = after.end()
        if not _looks_secret(name, value, quoted=bool(quote), sep=sep):
            continue
        pieces.append(text[pos:start])
        pieces.append(f"{name}{sep}{quote}[REDACTED:assignment]{quote}")
        count += 1
        pos = after.end()
    if not count:
        return text, 0
    pieces.append(text[pos:])
    return "".join(pieces), count


def _name_start(text: str, word_start: int, floor: int) -> int:
    """Where the name ending in a secret word starts: back over name characters (at most NAME_MAX,
    never before `floor`), then forward to its first letter, digit or underscore (`--api-key`)."""
    start = word_start
    limit = max(floor, word_start - NAME_MAX)
    while start > limit and text[start - 1] in _NAME_CHARS:
        start -= 1
    while start < word_start and text[start] in ".-":
        start += 1
    return start


def _sub_on_candidate_lines(
    text: str, needles: tuple[str, ...], pattern: re.Pattern[str], repl: Callable[[re.Match[str]], str]
) -> str:
    """pattern.sub(repl) restricted to the lines of `text` that hold a needle."""
    spans: set[tuple[int, int]] = set()
    for needle in needles:
        pos = text.find(needle)
        while pos >= 0:
            start = text.rfind("\n", 0, pos) + 1
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            spans.add((start, end))
            pos = text.find(needle, end)
    if not spans:
        return text
    pieces: list[str] = []
    last = 0
    for start, end in sorted(spans):
        pieces.append(text[last:start])
        pieces.append(pattern.sub(repl, text[start:end]))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _looks_secret(name: str, value: str, *, quoted: bool, sep: str) -> bool:
    if _PLACEHOLDER_RE.search(value) or _TEMPLATE_RE.search(value):
        return False
    if not sep.strip() and not quoted:
        return False  # "token value" in prose: too ambiguous without an = or :
    if not quoted and _CODE_REFERENCE_RE.match(value) and (
        not _mixed(value) or "[" in value or ("." in value and reads_as_identifier(value.rsplit(".", 1)[1]))
    ):
        return False  # api_key = args.api_key, key = keys[3], public_key: x25519.X25519PublicKey
    if not quoted and ("<" in value or ">" in value):
        return False  # a type: id_to_token: BTreeMap<u32, Token>
    if "(" in value or value.startswith(("http://", "https://", "/", "./", "~")):
        return False
    if _PASSWORD_NAME_RE.search(name) and quoted and len(value) >= 6:
        # any literal password is one too many, spaces and all; a label or message about one is not
        return not (_PASSWORD_WORD_RE.search(value) and (" " in value or reads_as_identifier(value)
                                                           or value.isalpha()))
    if " " in value:
        return False  # a sentence, not a key
    if reads_as_identifier(value):
        return False  # kFp8StaticTensorSym, model.layers.0.mlp, Ed25519PrivateKey
    return len(value) >= 12 and _mixed(value) and shannon_entropy(value) >= 3.3


def _mixed(value: str) -> bool:
    """Letters and digits both present: random keys almost always are, identifiers rarely."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def shannon_entropy(value: str) -> float:
    """Bits per character; random base64/hex keys score 3.5-6, words and identifiers 2.5-3.5."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())
