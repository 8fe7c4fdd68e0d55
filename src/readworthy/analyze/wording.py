"""The fixed sentences the heuristic analyzer writes, in every output language.

Keys are findings (heuristic.py picks them); values are str.format templates.
Code names, paths and numbers are filled in unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping

PHRASES: Mapping[str, Mapping[str, str]] = {
    "en": {
        # verdict reasons for mechanical or single-kind PRs
        "empty": "The diff changes no files; nothing to read.",
        "mechanical_only": "Only generated, lock, vendored or binary files change ({n} file{s}); nothing to read "
                           "line by line.",
        "revert": "A revert with no linked analysis: remember that the change was backed out, skip the diff.",
        "repeated": "The same edit is repeated across {n} file{s}: mechanical churn.",
        "version_only": "Only dependency or image versions move; nothing to learn from the diff.",
        "renames": "Only renames or moves ({n} file{s}) without content changes.",
        "cosmetic": "Only comments, blank lines or formatting change; no behaviour changes.",
        "version_exclusion": "Only dependency versions change, excluding a known-bad release instead of pinning: "
                             "worth remembering as a practice, not worth reading.",
        "docs_substantial": "New or expanded documentation ({lines} added line{ls}): "
                            "worth a skim for what it explains.",
        "docs_small": "A small documentation edit ({lines} added line{ls}).",
        "removal": "Removes code ({deleted} lines) without adding any: note what went away.",
        "removal_with_new_home": "Mostly removes code ({deleted} lines) while moving part of it elsewhere: know "
                                 "where it went.",
        "tests_substantial": "Test-only change ({lines} added line{ls}): skim it for the testing technique.",
        "tests_small": "A small test-only tweak.",
        "build_substantial": "CI/build-only change ({lines} added line{ls}): skim it for the mechanism.",
        "build_small": "A small build or CI setting change.",
        # findings for code changes, joined into one sentence
        "deep": "It {findings}.",
        "skim": "It {findings}; nothing here suggests a wider design change.",
        "and": " and ",
        "sep": ", ",
        "new_definitions": "adds {n} new definitions",
        "abstraction": "introduces an interface or base class",
        "capability": "adds capability flags ({names})",
        "kernel": "changes kernel code ({n} file{s})",
        "kernel_adjacent": "touches kernel-level code paths",
        "cross_cutting": "spans {n} code areas",
        "issue_analysis": "has a linked issue with a root-cause analysis ({refs})",
        "discussion_heavy": "drew a long review discussion ({n} comments)",
        "debate": "went through requested changes before it settled",
        "perf": "is a performance change",
        "code_change": "has {lines} changed line{ls} of code",
        "small_fix": "is a small, contained code change ({lines} line{ls})",
        # headline and reading guide
        "headline_files": "Changes {n} file{s} in {areas}",
        "d_abstraction_title": "New interface or base class",
        "d_abstraction": "{names} in `{path}` define a contract other code builds on.",
        "d_capability_title": "Capability flags",
        "d_capability": "{names} decide at run time what a component supports.",
        "d_definitions_title": "New code in `{file}`",
        "d_definitions": "Defines {names}{more}.",
        "d_more": " and {n} more",
        "d_kernel_title": "Kernel changes",
        "d_kernel": "{paths} change on the device side.",
        "d_version_exclusion_title": "Exclude a bad release instead of pinning",
        "d_version_exclusion": "{paths} exclude specific versions (`!=`) so upgrades keep flowing.",
        "discussion_people": "{n} participant{s} ({names})",
        "discussion_comments": "{n} comment{s}",
        "discussion_threads": "{n} review thread{s}, {u} unresolved",
        "discussion_changes": "{n} change request{s}",
        "discussion_approvals": "{n} approval{s}",
        "issue_line": "#{number} {title} ({state})",
        "issue_analysis_note": "; it carries an analysis (root cause, bisection or measurements)",
        "open_threads": "Unresolved review threads on {paths}",
        "open_draft": "Still a draft",
        "open_capped": "GitHub listed only {seen} of {total} changed files",
    },
    "zh-CN": {
        "empty": "该 diff 没有改动任何文件，无需阅读。",
        "mechanical_only": "只改动了生成文件、锁文件、第三方或二进制文件（{n} 个），无需逐行阅读。",
        "revert": "没有附带分析的回滚：记住该改动已被撤回即可，不必看 diff。",
        "repeated": "同一处修改重复出现在 {n} 个文件中，属于机械性改动。",
        "version_only": "只调整了依赖或镜像版本，diff 中没有可学习的内容。",
        "renames": "只有重命名或移动（{n} 个文件），内容没有改动。",
        "cosmetic": "只改动了注释、空行或格式，行为没有变化。",
        "version_exclusion": "只调整了依赖版本：排除一个已知有问题的版本而不是锁死版本。"
                             "这一做法值得记住，diff 不必细读。",
        "docs_substantial": "新增或扩充了文档（新增 {lines} 行），值得快速浏览其中讲解的内容。",
        "docs_small": "小幅文档修改（新增 {lines} 行）。",
        "removal": "删除代码（{deleted} 行）且没有新增：记住删掉了什么即可。",
        "removal_with_new_home": "以删除代码为主（{deleted} 行），部分内容迁往别处：了解它去了哪里。",
        "tests_substantial": "只改动测试（新增 {lines} 行）：可快速浏览其中的测试技巧。",
        "tests_small": "小幅测试调整。",
        "build_substantial": "只改动 CI/构建（新增 {lines} 行）：可快速浏览其中的机制。",
        "build_small": "小幅构建或 CI 配置调整。",
        "deep": "它{findings}。",
        "skim": "它{findings}；看不出更大范围的设计变化。",
        "and": "，并且",
        "sep": "，",
        "new_definitions": "新增了 {n} 个定义",
        "abstraction": "引入了接口或基类",
        "capability": "新增了能力标志（{names}）",
        "kernel": "改动了内核代码（{n} 个文件）",
        "kernel_adjacent": "涉及内核层代码路径",
        "cross_cutting": "横跨 {n} 个代码区域",
        "issue_analysis": "关联的 issue 中有根因分析（{refs}）",
        "discussion_heavy": "引发了较长的评审讨论（{n} 条评论）",
        "debate": "经历了“请求修改”后才定稿",
        "perf": "是一项性能改动",
        "code_change": "改动了 {lines} 行代码",
        "small_fix": "是一处范围很小的代码改动（{lines} 行）",
        "headline_files": "改动了 {areas} 中的 {n} 个文件",
        "d_abstraction_title": "新的接口或基类",
        "d_abstraction": "`{path}` 中的 {names} 定义了其他代码所依赖的契约。",
        "d_capability_title": "能力标志",
        "d_capability": "{names} 在运行时决定组件支持哪些功能。",
        "d_definitions_title": "`{file}` 中的新代码",
        "d_definitions": "定义了 {names}{more}。",
        "d_more": " 等另外 {n} 个",
        "d_kernel_title": "内核改动",
        "d_kernel": "{paths} 改动了设备端代码。",
        "d_version_exclusion_title": "排除坏版本而不是锁死版本",
        "d_version_exclusion": "{paths} 用 `!=` 排除特定版本，使升级得以继续。",
        "discussion_people": "{n} 位参与者（{names}）",
        "discussion_comments": "{n} 条评论",
        "discussion_threads": "{n} 个评审讨论串，{u} 个未解决",
        "discussion_changes": "{n} 次请求修改",
        "discussion_approvals": "{n} 次批准",
        "issue_line": "#{number} {title}（{state}）",
        "issue_analysis_note": "；其中有分析（根因、二分定位或测量数据）",
        "open_threads": "{paths} 上有未解决的评审讨论",
        "open_draft": "仍是草稿",
        "open_capped": "GitHub 只列出了 {total} 个改动文件中的 {seen} 个",
    },
}

LIST_SEPARATOR: Mapping[str, str] = {"en": ", ", "zh-CN": "、"}
SENTENCE_SEPARATOR: Mapping[str, str] = {"en": "; ", "zh-CN": "；"}


def phrase(language: str, key: str, **values: object) -> str:
    """A localised sentence; `{s}` in English templates pluralises by the value of `n`."""
    table = PHRASES.get(language, PHRASES["en"])
    plural = {"s": "" if values.get("n") == 1 else "s", "ls": "" if values.get("lines") == 1 else "s"}
    return table[key].format(**plural, **values)
