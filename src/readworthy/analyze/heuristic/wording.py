"""The fixed sentences the heuristic analyzer writes, in every output language.

Keys are findings and guide parts (heuristic.py, guide.py and readers.py pick them); values are
str.format templates. Code names, paths and quotes are filled in unchanged; counts are written the
way each language writes them (12,345 / 1.2 万).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .phrases_en import EN
from .phrases_zh import ZH_CN

PHRASES: Mapping[str, Mapping[str, str]] = {"en": EN, "zh-CN": ZH_CN}

LIST_SEPARATOR: Mapping[str, str] = {"en": ", ", "zh-CN": "、"}
# Counts written with the language's grouping; other numbers (issue numbers, percentages) stay as they are.
_COUNT_KEYS = frozenset({"n", "lines", "deleted", "seen", "total", "u", "tests", "other"})


def count(language: str, n: int) -> str:
    """12345 -> "12,345" in English; in Chinese ten thousands are 万: "1.2 万"."""
    if language == "zh-CN":
        if n < 10_000:
            return str(n)
        return f"{n / 10_000:.1f}".rstrip("0").rstrip(".") + " 万"
    return f"{n:,}"


def list_sep(language: str) -> str:
    return LIST_SEPARATOR.get(language, ", ")


def then(language: str, first: str, second: str) -> str:
    """Two sentences one after the other: Chinese sets none of the space English puts between them, so a
    first sentence that ends without a full stop of its own (a quote, a code span) is given one."""
    if language != "zh-CN":
        return first + " " + second
    return first + ("" if not first or first.endswith(_ZH_ENDS) else "。") + second


_ZH_ENDS = ("。", "！", "？", "；", "：", "…")


def full_stop(language: str, text: str) -> str:
    """A Chinese sentence that ends without a full stop of its own (on a quote) is given one; English quotes
    end as written."""
    return text + "。" if language == "zh-CN" and text and not text.endswith(_ZH_ENDS) else text


def code_names(names: Sequence[str], limit: int, language: str) -> str:
    """Names in backticks, joined the language's way (`a`, `b` / `a`、`b`)."""
    return list_sep(language).join(f"`{n}`" for n in list(names)[:limit])


def phrase(language: str, key: str, **values: object) -> str:
    """A localised sentence; `{s}` in English templates pluralises by the value of `n`."""
    table = PHRASES.get(language, PHRASES["en"])
    shown = {k: count(language, v) if k in _COUNT_KEYS and isinstance(v, int) else v for k, v in values.items()}
    return table[key].format(s="" if values.get("n") == 1 else "s", ls="" if values.get("lines") == 1 else "s",
                             **shown)


def fit(text: str, limit: int) -> str:
    """`text` within `limit` characters, cut with "…" where it is longer; a code span the cut would leave
    open is dropped whole (an unclosed backtick turns the rest of the comment into code)."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if cut.count("`") % 2:
        cut = cut[: cut.rfind("`")]
    return cut.rstrip(" ,;:、，") + "…"
