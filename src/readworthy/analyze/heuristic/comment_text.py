"""A comment block as one text: how its lines join into sentences, without its separator rules and banners.

Authors wrap comments at a column, not at sentence ends, and often leave out the full stop of a line that
ends a sentence or is a heading. The design points quote these blocks, so they must read as prose.
"""

from __future__ import annotations

import re

from ...languages import HASH_COMMENTS, SLASH_COMMENTS, extension

_RULE = re.compile(r"[-=*#~_\u2500-\u257f]{3,}")  # ASCII rules and box-drawing ones (`────`)


def join_comment(lines: list[str]) -> str:
    """One text from the lines of a comment block: separator rules dropped, a short heading line kept apart.
    A titled banner (`#### DEV IMAGE ####`) names a section of the file, not what follows it: the block
    starts after the last one, which is kept only when nothing follows it."""
    texts = [_RULE.sub(" ", _plain_doc(line)).strip() for line in lines if not _DOC_BLOCK_TAG.match(line)]
    lines = [line for line in lines if not _DOC_BLOCK_TAG.match(line)]
    banners = [i for i, line in enumerate(lines) if texts[i] and _RULE.search(line)]
    if banners:
        last = banners[-1]
        texts = texts[last + 1:] if any(texts[last + 1:]) else texts[last:]
    out: list[str] = []
    for line in texts:
        if not line:
            continue
        if out and out[-1][-1:] not in ".:;!?," and line[:1].isupper() and (
                _heading(out) or _starts_sentence(out[-1], line)):
            out[-1] += "."  # "Rust build inputs" above "Keep these separate ..." is a heading
        out.append(line)
    return " ".join(out)


# Javadoc / JSDoc markup, read as the rendered page shows it: `{@link Foo#bar}` is the name `Foo.bar`, `<p>`
# breaks a paragraph, `@deprecated` starts a sentence; `@param` / `@return` / `@throws` lines document one
# parameter each, not the decision
_DOC_INLINE = re.compile(r"\{@(?:link|linkplain|code|literal|value)\s+([^}]*)\}")
_DOC_HTML = re.compile(r"</?(?:p|br|ul|ol|li|em|b|i|strong|tt|code|pre)\s*/?>", re.IGNORECASE)
_DOC_BLOCK_TAG = re.compile(r"^\s*@(?:param|return|returns|throws|exception|see|since|author|version|serial)\b")


def _plain_doc(line: str) -> str:
    line = _DOC_INLINE.sub(lambda m: "`" + m.group(1).strip().lstrip("#").replace("#", ".") + "`", line)
    line = _DOC_HTML.sub(" ", line)
    return re.sub(r"^(\s*)@deprecated\b\s*", r"\1Deprecated: ", line)


def _heading(lines: list[str]) -> bool:
    """Whether the last of these lines stands alone as a heading: short, capitalised, the first line or
    one after a finished sentence, and not ending on a word a sentence goes on after. A short tail of a
    wrapped sentence ("unlike casting both operands. `torch.mm(...)` is") is none."""
    last = lines[-1]
    opens = len(lines) == 1 or lines[-2][-1:] in ".:;!?"
    return (opens and len(last.split()) <= 6 and last[:1].isupper()
            and last.split()[-1].strip("`()").lower() not in _GOES_ON)


# Words a comment line ending a sentence never ends on: the sentence goes on in the next line.
_GOES_ON = frozenset({"a", "an", "the", "of", "to", "by", "for", "with", "in", "on", "at", "from", "into", "as",
                      "and", "or", "but", "nor", "is", "are", "was", "be", "that", "than", "via", "per", "if",
                      "when", "which", "this", "these", "its", "their", "our", "not", "so"})
_CAPITALISED_WORD = re.compile(r"[A-Z][a-z]+\b(?![.(\[`'_])")


def _starts_sentence(previous: str, line: str) -> bool:
    """Whether `line` starts a new sentence after `previous`, a line with no closing punctuation: it begins
    with a plain capitalised word (`Keep`, `This`; not `None`, `FlashInfer` or `Foo.bar`), and `previous`
    ends on a word or a closed code span, not on one a sentence goes on after ("... used by" / "FlashInfer")."""
    if not _CAPITALISED_WORD.match(line) or line.split()[0] in ("None", "True", "False"):
        return False
    if previous.split()[-1].strip("`()").lower() in _GOES_ON:
        return False
    return previous[-1:].isalnum() or previous.endswith(("`", ")"))


_SENTENCE_START = re.compile(r"[.!?]\s+(?=[A-Z`])")
_SENTENCE_STOP = re.compile(r"[.!?](?=\s|$)")


def whole_sentences(text: str, part: str) -> str:
    """`part` of `text` widened to whole sentences: an edit to a docstring often starts or stops inside a
    sentence whose other half is an unchanged line ("lines, code in new files ... is left out")."""
    at = text.find(part)
    if at < 0 or not part:
        return part
    starts = [m.end() for m in _SENTENCE_START.finditer(text, 0, at + 1)]
    stop = _SENTENCE_STOP.search(text, max(at, at + len(part) - 1))
    return text[starts[-1] if starts else 0: stop.end() if stop else len(text)]


def comment_syntax(path: str) -> tuple[bool, bool]:
    """(whether `#` starts a comment, whether `//` and `/* */` do) in a file, by its name."""
    base, ext = path.rsplit("/", 1)[-1], extension(path)
    docker = base.startswith(("Dockerfile", "Makefile")) or ext in ("dockerfile", "hcl", "tf")
    return ext in HASH_COMMENTS or docker, ext in SLASH_COMMENTS or ext in ("hcl", "tf")
