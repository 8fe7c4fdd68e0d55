"""Texts a run writes for its reader, in English and in the comment's language: coverage notes (what a
run could not read: a capped file list, unread pages, a refused diff) and, from reason_texts.py, why the
model was not used or failed.

They are written in English with `note(KEY, ...)`: English is what logs, the hidden state and tests see.
The comment shows each in its own language with `localize(text, language)`, which recognises the English
text by its template and fills the same values into the translation (phrases inside it too), so a text
written once can never say one thing in English and another in Chinese. A text that matches no template
(written by an older version, say) is shown as it is.
"""

from __future__ import annotations

import re
from functools import cache

from .reason_texts import PHRASE_FIELDS, REASONS

COVERAGE_NOTES: dict[str, dict[str, str]] = {
    "files_not_listed": {
        "en": "{missing} of {changed} changed files are not listed; they are not in this reading",
        "zh-CN": "{changed} 个改动文件中有 {missing} 个未被列出，不在本次阅读范围内",
    },
    "files_not_listed_cap": {
        "en": "{missing} of {changed} changed files are not listed (GitHub's files API caps the list at 3,000); "
              "they are not in this reading",
        "zh-CN": "{changed} 个改动文件中有 {missing} 个未被列出（GitHub 的文件列表 API 最多返回 3,000 个），"
                 "不在本次阅读范围内",
    },
    "discussion_pages": {  # written by readworthy before issue 23's bounded reads; kept for stored notes
        "en": "discussion longer than {pages} pages; the rest was not read",
        "zh-CN": "讨论超过 {pages} 页，其余部分没有读取",
    },
    # gather/pages.py: what a busy PR's bounded reads could not read ({cause} is one of the two below)
    "unread_threads": {
        "en": "{read} of {total} review threads read; {cause}",
        "zh-CN": "共 {total} 个评审讨论串，读取了 {read} 个；{cause}",
    },
    "unread_comments": {
        "en": "{read} of {total} conversation comments read; {cause}",
        "zh-CN": "共 {total} 条对话评论，读取了 {read} 条；{cause}",
    },
    "unread_reviews": {
        "en": "{read} of {total} reviews read; {cause}",
        "zh-CN": "共 {total} 条评审，读取了 {read} 条；{cause}",
    },
    "unread_crossrefs": {
        "en": "{read} of {total} cross-references read; {cause}",
        "zh-CN": "共 {total} 个交叉引用，读取了 {read} 个；{cause}",
    },
    "unread_commits": {
        "en": "{read} of {total} commits read; {cause}",
        "zh-CN": "共 {total} 个提交，读取了 {read} 个；{cause}",
    },
    "unread_thread_comments": {
        "en": "{n} long review thread(s) not read to the end; {cause}",
        "zh-CN": "{n} 个较长的评审讨论串没有读完；{cause}",
    },
    "why_failed": {
        "en": "GitHub could not answer the rest ({error})",
        "zh-CN": "GitHub 未能返回其余部分（{error}）",
    },
    "why_capped": {
        "en": "the rest is beyond the {n} requests one pull request may take",
        "zh-CN": "其余部分超出了单个 PR 最多 {n} 次请求的上限",
    },
    "closing_issues": {
        "en": "{total} closing issues; the first {read} were read",
        "zh-CN": "共有 {total} 个将被关闭的 issue，只读取了前 {read} 个",
    },
    "text_references": {
        "en": "{closing} closing and {mentions} other issue references in the text; "
              "the first {closing_read} and {mentions_read} were looked up",
        "zh-CN": "正文中有 {closing} 个关闭引用和 {mentions} 个其他 issue 引用，只查询了前 {closing_read} 个和前 "
                 "{mentions_read} 个",
    },
    "references_missing": {
        "en": "{n} referenced issue(s) not found or not visible to the token",
        "zh-CN": "{n} 个被引用的 issue 不存在，或令牌无权查看",
    },
    "long_thread": {
        "en": "a review thread on {path} has {total} comments; the first {read} were read",
        "zh-CN": "{path} 上的一个评审讨论串有 {total} 条评论，只读取了前 {read} 条",
    },
    "patches_too_large": {
        "en": "{n} file(s) too large for GitHub to include a patch; listed with line counts only "
              "(the full diff is refused beyond {files} files or {lines} lines)",
        "zh-CN": "{n} 个文件太大，GitHub 不提供其补丁，只列出行数"
                 "（超过 {files} 个文件或 {lines} 行时，完整 diff 会被拒绝）",
    },
    "full_diff_refused": {
        "en": "{n} file(s) without a patch; the full diff was refused ({why})",
        "zh-CN": "{n} 个文件没有补丁；获取完整 diff 的请求被拒绝（{why}）",
    },
    "patches_from_diff": {
        "en": "{n} large patch(es) taken from the full diff",
        "zh-CN": "{n} 个大文件的补丁取自完整 diff",
    },
    "patches_from_diff_partly": {
        "en": "{n} large patch(es) taken from the full diff; {still} still without a patch",
        "zh-CN": "{n} 个大文件的补丁取自完整 diff；仍有 {still} 个没有补丁",
    },
    # the files are flagged `patch_incomplete` too, and the comment lists them (DAMAGE_NOTES)
    "patch_damaged": {
        "en": "patch of {path} is incomplete: {problems}",
        "zh-CN": "{path} 的补丁不完整：{problems}",
    },
    "more_damaged": {
        "en": "{n} more files with a damaged patch",
        "zh-CN": "另有 {n} 个文件的补丁已损坏",
    },
    "omitted_truncated": {
        "en": "omitted list truncated: {n} more paths",
        "zh-CN": "省略列表已截断：另有 {n} 个路径",
    },
    "more_incomplete": {
        "en": "{n} more files with an incomplete patch",
        "zh-CN": "另有 {n} 个文件的补丁不完整",
    },
}


TEMPLATES: dict[str, dict[str, str]] = {
    **COVERAGE_NOTES,
    **{key: {"en": en, "zh-CN": zh} for key, (en, zh) in REASONS.items()},
}


def note(key: str, **values: object) -> str:
    """The English note `key` with `values` (numbers formatted by the caller, e.g. f"{n:,}")."""
    return TEMPLATES[key]["en"].format(**values)


@cache
def _pattern(key: str) -> re.Pattern[str]:
    parts = re.split(r"\{(\w+)\}", TEMPLATES[key]["en"])
    body, seen = [], set()
    for i, part in enumerate(parts):  # even positions are literal text, odd ones field names
        if i % 2 == 0:
            body.append(re.escape(part))
        else:
            body.append(f"(?P={part})" if part in seen else f"(?P<{part}>.*?)")
            seen.add(part)
    return re.compile(f"^{''.join(body)}$", re.DOTALL)


DAMAGE_NOTES = ("patch_damaged", "more_damaged")


def is_note(text: str, *keys: str) -> bool:
    """Whether `text` was written from one of the templates `keys`."""
    return any(_pattern(key).match(text) for key in keys)


@cache
def _most_specific_first() -> tuple[str, ...]:
    """Templates with more fixed words first: "{label} at {url}" must not swallow a whole reason."""
    return tuple(sorted(TEMPLATES, key=lambda k: -len(re.sub(r"\{\w+\}", "", TEMPLATES[k]["en"]))))


def localize(text: str, language: str) -> str:
    """`text` in `language` when it is one of the texts above; otherwise unchanged."""
    if language == "en" or not text:
        return text
    for key in _most_specific_first():
        translated = TEMPLATES[key].get(language)
        match = _pattern(key).match(text) if translated else None
        if match and translated:
            values = {name: localize(value, language) if name in PHRASE_FIELDS else value
                      for name, value in match.groupdict().items()}
            return translated.format(**values)
    return text

