"""Does a value read as a name from code (`kFp8StaticTensorSym`, `model.layers.0.mlp`, `Ed25519PrivateKey`)
or as random text (a key)? redact.py asks before it replaces a value assigned to a secret-sounding name.

A value is cut at separators (_ . - : /), camelCase humps and digit runs. It reads as an identifier when
words make up at least half of it, every other piece is short, and the pieces are long on average:
random text of any alphabet breaks into many short pieces that do not read as words. A word has three
or more letters, a vowel, and letter pairs that are common in English and code (random letters mostly
are not); a lower-case word must stand between separators or humps, not against digits, or every
letter run of a random lower-case key would count. bench/robustness_inputs.py counts both sides: the
look-alikes of tests/data/redaction_lookalikes.txt, and random keys (hex, base64, URL-safe, single- and
mixed-case alphanumerics, 12-48 characters) of which about 1 in 7,000, all short, reads as a name.
"""

from __future__ import annotations

import re

_IDENTIFIER_CHARS_RE = re.compile(r"^[A-Za-z0-9_.:/\-]+$")
_SEGMENT_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_FIVE_CONSONANTS_RE = re.compile(r"[b-df-hj-np-tv-xz]{5}", re.IGNORECASE)
_VOWELS = frozenset("aeiouy")
MIN_AVERAGE_PIECE = 2.5  # characters per piece: kFp8Dynamic128Sym has 2.8, random text about 1.8
MAX_OTHER_PIECE = 6  # k, Fp, 25519, v2, 8B: the pieces of a name that are not words stay short
MIN_COMMON_PAIRS = 0.75  # share of a word's letter pairs that must be common ones
# Letter pairs frequent in English and in code identifiers (about 200 of the 676).
_COMMON_PAIRS_TEXT = """
    th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou io le ve co me
    de hi ri ro ic ne ea ra ce li ch ll be ma si om ur ca el ta la ns di fo ho pe ec pr no ct us ac ot
    il tr ly nc et ut ss so rs un lo wa ge ie wh ee wi em ad ol rt po we na ul ni ts mo ow pa im mi ai
    sh ir su id os iv ia am fi ci vi pl ig tu ev ld ry mp fe bl ab gh ty op wo sa ay ex ke fr oo av ag
    if ap gr od bo sp rd do uc bu ei ov by rm ep tt oc fa ef cu rn sc gi da yo cr cl du ga qu ue ff ba
    ey ls va um pp ua up lu go ht ru ug ds lt pi rc rr eg au ck ew mu br bi pt ak pu ui rg ib tl ki rk
    ys ob mm fu ph og ms ye ud mb ip ub oi rl gu dr cc tw ft wn nu af hu nn eo vo rv nf xp gn sm fl iz
    ok ym sy yn dy
"""
_COMMON_PAIRS = frozenset(_COMMON_PAIRS_TEXT.split())


def reads_as_identifier(value: str) -> bool:
    """True for a name built of words the way code names things; False for random-looking text."""
    if not _IDENTIFIER_CHARS_RE.match(value):
        return False  # base64 `+` and `=`, the punctuation of passwords
    if not any(c.islower() for c in value):
        value = value.lower()  # VLLM_API_KEY_V2 reads like vllm_api_key_v2
    pieces = list(_SEGMENT_RE.finditer(value))
    if not pieces:
        return False
    total = sum(len(m.group()) for m in pieces)
    if len(value) / len(pieces) < MIN_AVERAGE_PIECE:  # separators count: snake_case is a naming habit
        return False
    word_chars = 0
    for match in pieces:
        piece = match.group()
        if _is_word(piece) and (piece[0].isupper() or not _touches_digit(value, match.start(), match.end())):
            word_chars += len(piece)
        elif len(piece) > MAX_OTHER_PIECE:
            return False
    return word_chars > 0 and word_chars * 2 >= total


def _is_word(piece: str) -> bool:
    if len(piece) < 3 or not piece.isalpha() or piece.isupper():
        return False  # an acronym (MXFP, API) says nothing either way
    lower = piece.lower()
    if not any(c in _VOWELS for c in lower) or _FIVE_CONSONANTS_RE.search(lower):
        return False
    pairs = [lower[i : i + 2] for i in range(len(lower) - 1)]
    return sum(p in _COMMON_PAIRS for p in pairs) >= MIN_COMMON_PAIRS * len(pairs)


def _touches_digit(value: str, start: int, end: int) -> bool:
    return (start > 0 and value[start - 1].isdigit()) or (end < len(value) and value[end].isdigit())
