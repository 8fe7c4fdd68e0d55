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

import math
import re
from collections import Counter
from collections.abc import Callable

from .identifiers import reads_as_identifier

# Known shapes. Group names are the kinds shown in the replacement.
_TOKEN_RE = re.compile(
    "|".join(
        (
            r"(?P<aws_access_key>\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b)",
            r"(?P<gcp_api_key>\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-]))",
            r"(?P<gcp_oauth_token>\bya29\.[0-9A-Za-z_\-]{20,})",
            r"(?P<github_token>\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b)",
            r"(?P<github_pat>\bgithub_pat_[A-Za-z0-9_]{22,255}\b)",
            (
                r"(?P<openai_key>\bsk-(?:proj-|svcacct-|admin-|ant-(?:api\d\d-)?)?(?=[A-Za-z0-9_\-]*\d)"
                r"(?=[A-Za-z0-9_\-]*[A-Za-z])[A-Za-z0-9_\-]{20,}(?![A-Za-z0-9_\-]))"
            ),
            r"(?P<slack_token>\bxox[abposre]-[A-Za-z0-9\-]{10,})",
            r"(?P<slack_webhook>https://hooks\.slack\.com/services/[A-Za-z0-9_/]{20,})",
            r"(?P<stripe_key>\b(?:sk|rk)_live_[A-Za-z0-9]{20,})",
            r"(?P<huggingface_token>\bhf_[A-Za-z]{34,})",
            r"(?P<npm_token>\bnpm_[A-Za-z0-9]{36}\b)",
            r"(?P<jwt>\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,})",
        )
    )
)
# A PEM private key block; inside a diff every line carries a +/-/space prefix, inside JSON the
# newlines are literal "\n". An unterminated block (truncated diff) is redacted to its last base64 line.
_PRIVATE_KEY_RE = re.compile(
    r"-----BEGIN (?P<label>[A-Z0-9 ]*?)PRIVATE KEY( BLOCK)?-----"
    r"(?:[\s\S]*?-----END (?P=label)PRIVATE KEY( BLOCK)?-----|(?:(?:\\n|\s|[+\- ])*[A-Za-z0-9+/=]{8,})*)"
)
_KEY_MATERIAL_RE = re.compile(r"[A-Za-z0-9+/]{16,}")
# NAME = value, NAME: value, "name": "value", --name value; the name says it is a secret.
_ASSIGNMENT_RE = re.compile(
    r"""(?P<name>\b[A-Za-z0-9_.\-]*?(?:api[_\-]?key|access[_\-]?key|secret|token|passw(?:or)?d|passwd|pwd|"""
    r"""credentials?|private[_\-]?key|client[_\-]?secret|auth[_\-]?key|_key|-key)\b["']?)"""
    r"""(?P<sep>\s*(?::=|=>|=|:)\s*|\s+)"""
    r"""(?:(?P<quote>["'`])(?P<qvalue>[^"'`\n]{6,200})(?P=quote)|(?P<value>[^\s"'`,;)\]}]{6,200}))""",
    re.IGNORECASE,
)
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


# Substrings every match of _TOKEN_RE / _ASSIGNMENT_RE contains. Scanning for them with str.find
# (C speed) and running the regexes only on the lines that have one keeps a 6 MB diff under 0.2 s;
# the regexes alone would try every position of the text.
_TOKEN_NEEDLES = ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA", "AIza", "ya29.",
                  "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "sk-", "xox", "hooks.slack.com",
                  "_live_", "hf_", "npm_", "eyJ")
_ASSIGNMENT_NEEDLES = ("key", "secret", "token", "passw", "pwd", "credential")


def redact_secrets(text: str) -> tuple[str, int]:
    """Replace likely secrets with `[REDACTED:<kind>]`; return the new text and how many were replaced."""
    if not text:
        return text, 0
    count = 0

    def _private_key(match: re.Match[str]) -> str:
        nonlocal count
        if not _KEY_MATERIAL_RE.search(match.group(0), match.group(0).find("-----", 5)):
            return match.group(0)  # the marker alone, as code that parses PEM names it: nothing secret
        count += 1
        return "[REDACTED:private_key]"

    if "PRIVATE KEY" in text:
        text = _PRIVATE_KEY_RE.sub(_private_key, text)

    def _token(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"[REDACTED:{match.lastgroup}]"

    text = _sub_on_candidate_lines(text, text, _TOKEN_NEEDLES, _TOKEN_RE, _token)

    def _assignment(match: re.Match[str]) -> str:
        nonlocal count
        quote, name = match.group("quote") or "", match.group("name")
        value = match.group("qvalue") if quote else match.group("value")
        if not _looks_secret(name, value, quoted=bool(quote), sep=match.group("sep")):
            return match.group(0)
        count += 1
        return f"{name}{match.group('sep')}{quote}[REDACTED:assignment]{quote}"

    text = _sub_on_candidate_lines(text, text.lower(), _ASSIGNMENT_NEEDLES, _ASSIGNMENT_RE, _assignment)
    return text, count


def _sub_on_candidate_lines(
    text: str, haystack: str, needles: tuple[str, ...], pattern: re.Pattern[str], repl: Callable[[re.Match[str]], str]
) -> str:
    """pattern.sub(repl) restricted to the lines of `text` where `haystack` (same length) holds a needle."""
    if len(haystack) != len(text):  # a few characters change length when lowercased (İ): no shortcut
        return pattern.sub(repl, text)
    spans: set[tuple[int, int]] = set()
    for needle in needles:
        pos = haystack.find(needle)
        while pos >= 0:
            start = haystack.rfind("\n", 0, pos) + 1
            end = haystack.find("\n", pos)
            end = len(haystack) if end < 0 else end
            spans.add((start, end))
            pos = haystack.find(needle, end)
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
