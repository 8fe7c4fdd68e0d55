"""The fixed sentences the heuristic analyzer writes, in every output language.

Keys are findings and guide parts (heuristic.py, guide.py and readers.py pick them); values are
str.format templates. Code names, paths and quotes are filled in unchanged; counts are written the
way each language writes them (12,345 / 1.2 万).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

PHRASES: Mapping[str, Mapping[str, str]] = {
    "en": {
        # verdict reasons for mechanical or single-kind PRs
        "empty": "The diff changes no files; nothing to read.",
        "mechanical_only": "Only generated, lock, vendored or binary files change ({n} file{s}); nothing to read "
                           "line by line.",
        "bulk_data": "Only generated data changes ({n} tiny files of one kind); nothing to read line by line.",
        "revert": "A revert with no linked analysis: remember that the change was backed out, skip the diff.",
        "repeated": "The same edit is repeated across {n} file{s}: mechanical churn.",
        "version_only": "Only dependency or image versions move; nothing to learn from the diff.",
        "renames": "Only renames or moves ({n} file{s}) without content changes.",
        "name_renames": "Only renames {names}, in {n} file{s}; no other line changes.",
        "call_sweep": "Only swaps {names} at the call sites of {n} file{s}{home}: one convention applied across call "
                      "sites; no other line changes.",
        "call_sweep_home": ", beside a few lines in {home} that define the new name",
        "moves": "Moves {n} file{s} into {target} and updates the imports; the moved code itself does not change.",
        "cosmetic": "Only comments, docstrings, blank lines or formatting change; no behaviour changes.",
        "code_moves": "Moves or reorders code: {share}% of the added lines were removed elsewhere in the PR or "
                      "are imports; the moved code barely changes.",
        "version_exclusion": "Only dependency versions change, excluding a known-bad release instead of pinning: "
                             "worth remembering as a practice, not worth reading.",
        "docs_substantial": "New or expanded documentation ({lines} added line{ls}): "
                            "worth a skim for what it explains.",
        "docs_small": "Documentation only ({lines} added line{ls}); no code changes.",
        "removal": "Removes {deleted} lines without adding any: note what went away.",
        "data_only": "Only tables of values change ({n} data file{s}: numbers under keys, no logic); nothing to "
                     "read line by line.",
        "docs_edit": "A documentation edit ({lines} added line{ls}) that adds no section: nothing to read beyond "
                     "the page itself.",
        "tests_substantial": "Test-only change ({lines} added line{ls}): skim it for the testing technique.",
        "tests_small": "Tests only ({lines} added line{ls}); no product code changes.",
        # most of the lines are configuration or example files beside the tests or docs: not "only" either
        "tests_config": "Tests ({lines} added line{ls}) beside configuration or example files ({other} added "
                        "lines); no product code changes.",
        "docs_config": "Documentation ({lines} added line{ls}) beside configuration or example files ({other} added "
                       "lines); no product code changes.",
        "build_substantial": "CI/build-only change ({lines} added line{ls}): no product code changes, but how the "
                             "project builds or tests does.",
        "build_small": "Build or CI settings only ({lines} added line{ls}); no product code changes.",
        "config_substantial": "Configuration only ({lines} added line{ls}): skim it for what it sets.",
        "config_small": "Configuration only ({lines} added line{ls}); no product code changes.",
        "tiny_fix": "A small code change ({lines} changed line{ls}) with no test and no new definition: the title says "
                    "what changed.",
        "tiny_fix_tests": "A small code change ({lines} changed line{ls}) with no new definition (plus {tests} of "
                          "tests): the title says what changed.",
        "new_package": "Most of the added code ({share}%) is the new package {packages}; read the shared files "
                       "it changes: {shared}.",
        "new_package_alone": "Adds the new, self-contained package {packages} ({share}% of the added code): skim "
                             "its entry points, no need to read it line by line.",
        "new_modules": "Most of the added code ({share}%) is in new files ({files}); read the shared files it "
                       "changes: {shared}.",
        "new_modules_alone": "Most of the added code ({share}%) is in the new files {files}: skim their entry "
                             "points, no need to read them line by line.",
        # findings for code changes, joined into one sentence
        "deep": "It {findings}.",
        "skim": "It {findings}; nothing here suggests a wider design change.",
        "skim_design": "It {findings}: worth a look at that design, not a line-by-line read.",
        "skip_code": "It {findings}; nothing in it carries over to other code.",
        "and": " and ",
        "sep": ", ",
        "new_definitions": "adds {n} new definition{s}",
        "abstraction": "introduces an interface or base class",
        "implemented": "adds a method, {name}, that {n} changed files implement",
        "capability": "adds capability flags ({names})",
        "fail_fast": "refuses unsupported configurations loudly ({names})",
        "cross_cutting": "spans {n} code areas",
        "issue_analysis": "has a linked issue with a root-cause analysis ({refs})",
        "discussion_heavy": "drew a long review discussion ({n} comments)",
        "debate": "went through requested changes before it settled",
        "build_graph": "restructures an image build with new stages ({names})",
        "security": "is a security change ({words})",
        "security_claimed": "is called a security change in its text ({words}), though the diff adds no security check",
        "hidden_logic": "is titled as a version bump but also changes logic ({paths})",
        "removed_guard": "removes a guard, {guard}{where}",
        "in_name": " in `{name}`",
        "changed_default": "changes the default of `{name}` ({change})",
        "changed_constant": "changes the constant `{name}` ({change})",
        "regression_test": "backs the fix with a new test (`{test}`)",
        "change_test": "backs the change with a new test (`{test}`)",
        "fix_tests": "backs the fix with tests",
        "code_change": "has {lines} changed line{ls} of code",
        "code_change_tests": "has {lines} changed line{ls} of code (plus {tests} of tests)",
        "small_fix": "is a small, contained code change ({lines} line{ls})",
        "small_fix_tests": "is a small, contained code change ({lines} line{ls}, plus {tests} of tests)",
        "no_code": "changes no product code",
        "no_code_beside": "changes no product code ({parts})",
        "added_tests": "{n} added line{s} of tests",
        "added_build": "{n} added line{s} of build, CI or configuration files",
        "added_docs": "{n} added line{s} of docs",
        # a cut-off or damaged patch (analyze/fragment.py)
        "fragment_not_skip": "The patch of {n} file{s} ({files}) is incomplete, so this is not called safe to "
                             "skip: read the full diff. From what was seen: {reason}",
        "fragment": "The patch of {n} file{s} ({files}) is incomplete: a judgement on a fragment. {reason}",
        # the team's past corrections outweighed the verdict (memory/similar.py's evidence rule)
        "taste": "The team read {n} similar change{s} ({kind}) as {team} ({refs}); readworthy alone would say "
                 "{own}: {reason}",
        # headline
        "headline_files": "Changes {n} file{s} in {areas}",
        # design points: who wrote the quoted words, where, about which definition
        "p_quote": "{attribution}: “{quote}”",
        "p_original": "In the authors' words: “{quote}”",
        "p_end": ".",
        "p_docstring": "Docstring of `{name}` (`{file}`)",
        "p_comment_above": "Comment above `{name}` (`{file}`)",
        "p_comment_inside": "Comment in `{name}` (`{file}`)",
        "p_message_raise": "The error `{name}` raises (`{file}`)",
        "p_message_log": "The warning `{name}` logs (`{file}`)",
        "p_message_return": "The reason `{name}` returns (`{file}`)",
        "p_message_text": "A message in `{name}` (`{file}`)",
        "p_module": "Module docstring of `{file}`, home of `{name}`",
        "p_description": "The PR description ({section}), on `{name}`",
        "p_description_plain": "The PR description, on `{name}`",
        "p_commit": "A commit message, on `{name}`",
        "p_issue": "Issue {who}, on `{name}`",
        "p_review": "{asker} asked “{question}” on `{name}`; {who} settled it",
        "p_review_request": "{who} requested this change to `{name}` and approved after it",
        "p_version_exclusion_title": "Exclude a bad release instead of pinning",
        "p_version_exclusion": "`{line}` in `{file}` excludes one release (`!=`) so upgrades keep flowing.",
        "f_sentence": " It is {facts}.",
        "f_sep": ", ",
        "f_kernel_entry": "a kernel entry point",
        "f_callers": "used from {n} other changed files",
        "f_tested": "exercised by `{test}`",
        # design points the diff states (code_points.py) and per kind of PR (kind_points.py)
        "c_condition_body_title": "`{body}` now runs when `{new}`",
        "c_condition_body": "In `{name}` (`{file}`) the condition changes from ~~`{old}`~~ to `{new}`.",
        "c_condition_title": "`{name}` now branches on `{new}`",
        "c_condition": "In `{name}` (`{file}`) the condition it branches on changes from ~~`{old}`~~ to `{new}`.",
        "c_assignment_title": "`{target}` is now `{new}`",
        "c_assignment": "In `{name}` (`{file}`), `{target}` was ~~`{old}`~~ and is now `{new}`.",
        "c_check_title": "The check in `{name}` becomes `{new}`",
        "c_check": "It was ~~`{old}`~~ (`{file}`): the accepted cases change, the check stays.",
        "c_env_title": "Reads the environment variable `{flag}`",
        "c_env_title_default": "Reads the environment variable `{flag}` (default `{default}`)",
        "c_env": "Read from the environment in `{name}` (`{file}`).",
        "c_env_module": "Read from the environment in `{file}`.",
        "c_setting_title": "A new setting, `{flag}`",
        "c_setting_title_default": "A new setting, `{flag}` (default `{default}`)",
        "c_setting": "A field of `{name}` (`{file}`).",
        "c_setting_doc": "A field of `{name}` (`{file}`); its docstring: “{help}”",
        "c_option_title": "A new option, `{flag}`",
        "c_option_title_default": "A new option, `{flag}` (default `{default}`)",
        "c_option": "Added to the command line in `{name}` (`{file}`).",
        "c_option_help": "Added to the command line in `{name}` (`{file}`); its help: “{help}”",
        "c_default_title": "`{name}` now defaults to `{new}` (was `{old}`)",
        "c_default": "A changed default in `{file}`: whoever does not set `{name}` now gets `{new}`.",
        "c_default_why": "A changed default in `{file}`; the comment above it: “{why}”",
        "c_constant_title": "`{name}` is now `{new}` (was `{old}`)",
        "c_constant": "A changed constant in `{file}`: every use of `{name}` now reads `{new}`.",
        "c_constant_why": "A changed constant in `{file}`; the comment above it: “{why}”",
        "c_gate_title": "`{name}` is a new check of what may be used",
        "c_gate_refuses": "A new gate in `{file}`; it says no when {cases}.",
        "c_gate": "A new gate in `{file}`.",
        "c_gate_callers": " Called from {callers}.",
        "c_interface_title": "`{name}` is the new interface the rest builds on",
        "c_interface_grows_title": "The interface `{name}` gains abstract members every implementation must provide",
        "c_interface_used": "An abstract type in `{file}`, used from {n} other changed file{s}: read it before its "
                            "implementations.",
        "c_interface": "An abstract type in `{file}`: read it before its implementations.",
        "c_signature_returns_title": "`{name}` now returns `{new}` (was `{old}`)",
        "c_signature_takes_title": "`{name}` now takes {added}",
        "c_signature_drops_title": "`{name}` no longer takes {removed}",
        "c_signature_async_title": "`{name}` is now `{keyword}`",
        "c_signature_async": "A changed signature in `{file}`: `{name}` is now asynchronous (`{keyword}`), so every "
                             "caller must call it from a coroutine and wait for its result.",
        "c_signature": "A changed signature in `{file}`: every caller of `{name}` meets it.",
        "c_signature_used": "A changed signature in `{file}`, called from {n} other changed file{s}: every caller "
                            "of `{name}` meets it.",
        "c_shared_title": "Beside its new files it changes shared code: {files}",
        "c_shared": "Most of the added code is in new files of its own; the shared code it changes ({n} file{s}) is "
                    "what readers outside it must see: {names}.",
        "p_reports": " The PR reports: “{quote}”",
        "k_docs_title": "`{file}` now explains {headings}",
        "k_docs": "New sections of `{file}`: {headings}.",
        "k_docs_rule_title": "{rule}",
        "k_docs_rule": " The rule is stated in the added text of `{file}`.",
        "k_fixture_title": "A new fixture: {names}",
        "k_fixture": "Defined in `{file}`; the tests take it as an argument.",
        "k_fixture_scoped_title": "A {scope}-scoped fixture: {names}",
        "k_fixture_scoped": "Built once per {scope} in `{file}` and shared by the tests that take it, instead of once "
                            "per test.",
        "k_fixture_params_title": "A fixture parametrised over {values}: {names}",
        "k_fixture_params": "Defined in `{file}`; each test that takes it runs once per value.",
        "k_fixture_params_autouse_title": "A fixture parametrised over {values} for every test: {names}",
        "k_fixture_params_autouse": "Defined in `{file}` with `autouse=True`: every test in `{reach}` runs once per "
                                    "value.",
        "k_parametrize_title": "Parametrised over {axes}",
        "k_parametrize": "In `{file}`, {names}: one run per combination of {axes}.",
        "b_option_title": "A new build option `{name}` (default `{default}`)",
        "b_option": "In `{file}`: “{help}”; a build that does not set it gets `{default}`.",
        "b_option_bare": "In `{file}`: a build that does not set it gets `{default}`.",
        "w_gate_title": "`{job}` runs only when `{condition}`",
        "w_gate": "In `{file}`, `{job}` now runs only when `{condition}` holds.",
        "w_paths_title": "Runs only for changes under {paths}",
        "w_paths": "In `{file}`, a filter on the changed paths ({paths}) decides what runs.",
        "w_filters_title": "Changed paths decide what runs: {filters}",
        "w_filters": "In `{file}`, a paths filter names what changed ({filters}); jobs run on what it finds.",
        "w_filter": "`{name}` ({paths})",
        "w_matrix_title": "A matrix over `{axis}`: {values}",
        "w_matrix": "In `{file}`, the job runs once for each value of `{axis}` ({values}).",
        "w_concurrency_title": "Runs of one concurrency group do not overlap: `{group}`",
        "w_concurrency": "In `{file}`, runs share the concurrency group `{group}`, so a newer run does not go side "
                         "by side with the one in progress.",
        "w_cache_title": "A cache keyed on {inputs}",
        "w_cache": "In `{file}`, the cache is keyed on {inputs}: a run restores it unless the key changes.",
        "w_why": " The comment above it: “{why}”",
        "k_case_table_title": "A table of cases: {names}",
        "k_case_table": "In `{file}`, each row of a table of cases is one run of {names}: a new case is one more "
                        "row.",
        "k_oracle_title": "The oracle: `{oracle}`",
        "k_oracle": "In `{file}`, {names}: the result is compared with `{oracle}`{via}.",
        "k_oracle_via": " through `{compare}`",
        "k_compare_title": "Checked with `{oracle}`",
        "k_compare": "In `{file}`, {names}: the result is checked with `{oracle}`.",
        "k_stand_in_title": "Stand-ins instead of real dependencies: `{what}`",
        "k_stand_in": "In `{file}`, `{what}` stands in for the real objects in {names}, so they run without them.",
        # audience, discussion, linked issues, open items
        "audience_owner": "{owner} ({area})",
        "sentence_sep": "; ",
        "discussion_people": "{n} participant{s} ({names})",
        "discussion_comments": "{n} comment{s}",
        "discussion_threads": "{n} review thread{s}, {u} unresolved",
        "discussion_changes": "{n} change request{s}",
        "discussion_approvals": "{n} approval{s}",
        "issue_line": "#{number} {title} ({state})",
        "state_open": "open",
        "state_closed": "closed",
        "state_merged": "merged",
        "issue_analysis_note": "; it carries an analysis (root cause, bisection or measurements)",
        "open_threads": "Unresolved review threads on {paths}",
        "open_draft": "Still a draft",
        "open_capped": "GitHub listed only {seen} of {total} changed files",
        "open_follow_up": "The authors list as follow-up: “{quote}”",
    },
    "zh-CN": {
        "empty": "该 diff 没有改动任何文件，无需阅读。",
        "mechanical_only": "只改动了生成文件、锁文件、第三方或二进制文件（{n} 个），无需逐行阅读。",
        "bulk_data": "只改动了生成的数据文件（{n} 个同类小文件），无需逐行阅读。",
        "revert": "没有附带分析的回滚：记住该改动已被撤回即可，不必看 diff。",
        "repeated": "同一处修改重复出现在 {n} 个文件中，属于机械性改动。",
        "version_only": "只调整了依赖或镜像版本，diff 中没有可学习的内容。",
        "renames": "只有重命名或移动（{n} 个文件），内容没有改动。",
        "name_renames": "只是把 {names} 改名（{n} 个文件），其他行都没有改动。",
        "call_sweep": "只是在 {n} 个文件的调用处替换 {names}{home}：把同一个约定推广到各个调用处，其他行都没有改动。",
        "call_sweep_home": "（另在 {home} 中用几行定义了新名字）",
        "moves": "把 {n} 个文件移到 {target} 下并更新了引用路径，被移动的代码本身没有改动。",
        "cosmetic": "只改动了注释、文档字符串、空行或格式，行为没有变化。",
        "code_moves": "搬移或重排代码：新增行中有 {share}% 是从别处删掉后搬来的或只是 `import` 语句，"
                      "搬移的代码几乎没变。",
        "version_exclusion": "只调整了依赖版本：排除一个已知有问题的版本而不是锁死版本。"
                             "这一做法值得记住，diff 不必细读。",
        "docs_substantial": "新增或扩充了文档（新增 {lines} 行），值得快速浏览其中讲解的内容。",
        "docs_small": "只改动文档（新增 {lines} 行），没有代码改动。",
        "removal": "删除了 {deleted} 行且没有新增：记住删掉了什么即可。",
        "data_only": "只改动了数值表（{n} 个数据文件：键下只有数字，没有逻辑），无需逐行阅读。",
        "docs_edit": "只是小幅修改文档（新增 {lines} 行），没有新增章节：看页面本身即可。",
        "tests_substantial": "只改动测试（新增 {lines} 行）：可快速浏览其中的测试技巧。",
        "tests_small": "只改动测试（新增 {lines} 行），产品代码没有改动。",
        "tests_config": "改动测试（新增 {lines} 行）和配置或示例文件（新增 {other} 行），产品代码没有改动。",
        "docs_config": "改动文档（新增 {lines} 行）和配置或示例文件（新增 {other} 行），产品代码没有改动。",
        "build_substantial": "只改动 CI/构建（新增 {lines} 行）：产品代码没有改动，但构建或测试流程变了。",
        "build_small": "只改动构建或 CI 配置（新增 {lines} 行），产品代码没有改动。",
        "config_substantial": "只改动配置（新增 {lines} 行）：可快速浏览其中的设置。",
        "config_small": "只改动配置（新增 {lines} 行），产品代码没有改动。",
        "tiny_fix": "只改了 {lines} 行代码，没有新测试也没有新定义，看标题就知道改了什么。",
        "tiny_fix_tests": "只改了 {lines} 行代码，没有新定义（另有 {tests} 行测试），看标题就知道改了什么。",
        "new_package": "新增代码的 {share}% 是新包 {packages}；只需看它改动的共享文件：{shared}。",
        "new_package_alone": "新增了独立的 {packages} 包（占新增代码的 {share}%）：浏览一下入口即可，不必逐行阅读。",
        "new_modules": "新增代码的 {share}% 在新文件（{files}）中；只需看它改动的共享文件：{shared}。",
        "new_modules_alone": "新增代码的 {share}% 在新文件 {files} 中：浏览一下入口即可，不必逐行阅读。",
        "fragment_not_skip": "{n} 个文件（{files}）的补丁不完整，所以不判为可以跳过：请阅读完整的 diff。"
                             "仅就已看到的部分而言：{reason}",
        "fragment": "{n} 个文件（{files}）的补丁不完整，以下判断只基于片段。{reason}",
        "taste": "团队曾把 {n} 个类似改动（{kind}）判为 {team}（{refs}）；若不参考这些纠正，"
                 "单看本 PR 会判为 {own}：{reason}",
        "deep": "该 PR {findings}。",
        "skim": "该 PR {findings}；看不出更大范围的设计变化。",
        "skim_design": "该 PR {findings}：值得看一眼这处设计，不必逐行阅读。",
        "skip_code": "该 PR {findings}；其中没有能迁移到别处代码的内容。",
        "and": "，并且",
        "sep": "，",
        "new_definitions": "新增了 {n} 个定义",
        "abstraction": "引入了接口或基类",
        "implemented": "新增了方法 {name}，有 {n} 个改动文件实现它",
        "capability": "新增了能力标志（{names}）",
        "fail_fast": "对不支持的配置直接报错（{names}）",
        "cross_cutting": "横跨 {n} 个代码区域",
        "issue_analysis": "关联的 issue 中有根因分析（{refs}）",
        "discussion_heavy": "引发了较长的评审讨论（{n} 条评论）",
        "debate": "经历了“请求修改”后才定稿",
        "build_graph": "用新的构建阶段（{names}）重组了镜像构建",
        "security": "是一项安全改动（{words}）",
        "security_claimed": "在标题或描述中被称为安全改动（{words}），但 diff 没有新增安全检查",
        "hidden_logic": "标题是版本升级，实际还改了逻辑（{paths}）",
        "removed_guard": "删掉了一处检查 {guard}{where}",
        "in_name": "（位于 `{name}`）",
        "changed_default": "修改了 `{name}` 的默认值（{change}）",
        "changed_constant": "修改了常量 `{name}`（{change}）",
        "regression_test": "为修复补了新测试（`{test}`）",
        "change_test": "为改动补了新测试（`{test}`）",
        "fix_tests": "为修复补了测试",
        "code_change": "改动了 {lines} 行代码",
        "code_change_tests": "改动了 {lines} 行代码（另有 {tests} 行测试）",
        "small_fix": "是一处范围很小的代码改动（{lines} 行）",
        "small_fix_tests": "是一处范围很小的代码改动（{lines} 行，另有 {tests} 行测试）",
        "no_code": "没有改动产品代码",
        "no_code_beside": "没有改动产品代码（{parts}）",
        "added_tests": "测试新增 {n} 行",
        "added_build": "构建、CI 或配置文件新增 {n} 行",
        "added_docs": "文档新增 {n} 行",
        "headline_files": "改动了 {areas} 中的 {n} 个文件",
        "p_quote": "{attribution}：“{quote}”",
        "p_original": "原文：“{quote}”",
        "p_end": "。",
        "p_docstring": "`{file}` 中 `{name}` 的文档字符串",
        "p_comment_above": "`{file}` 中 `{name}` 上方的注释",
        "p_comment_inside": "`{file}` 中 `{name}` 内的注释",
        "p_message_raise": "`{file}` 中 `{name}` 抛出的错误信息",
        "p_message_log": "`{file}` 中 `{name}` 打印的警告",
        "p_message_return": "`{file}` 中 `{name}` 返回的原因说明",
        "p_message_text": "`{file}` 中 `{name}` 里的提示文字",
        "p_module": "`{file}` 的模块文档（`{name}` 所在文件）",
        "p_description": "PR 描述（{section}）谈到 `{name}`",
        "p_description_plain": "PR 描述谈到 `{name}`",
        "p_commit": "提交说明谈到 `{name}`",
        "p_issue": "关联 issue {who} 谈到 `{name}`",
        "p_review": "评审中 {asker} 就 `{name}` 问道“{question}”，{who} 的答复让讨论定了下来",
        "p_review_request": "{who} 要求修改 `{name}`，改完后批准",
        "p_version_exclusion_title": "排除坏版本而不是锁死版本",
        "p_version_exclusion": "`{file}` 中的 `{line}` 用 `!=` 排除了一个版本，后续升级不受影响。",
        "f_sentence": "{facts}。",
        "f_sep": "，",
        "f_kernel_entry": "这是内核入口",
        "f_callers": "另有 {n} 个改动文件用到它",
        "f_tested": "有测试 `{test}` 覆盖",
        "c_condition_body_title": "`{body}` 改为在 `{new}` 时执行",
        "c_condition_body": "`{file}` 中 `{name}` 的条件由 ~~`{old}`~~ 改为 `{new}`。",
        "c_condition_title": "`{name}` 现在根据 `{new}` 决定走哪条分支",
        "c_condition": "`{file}` 中 `{name}` 的分支条件由 ~~`{old}`~~ 改为 `{new}`。",
        "c_assignment_title": "`{target}` 改为 `{new}`",
        "c_assignment": "`{file}` 中 `{name}` 里用作判断的 `{target}`，其取值条件由 ~~`{old}`~~ 改为 `{new}`。",
        "c_check_title": "`{name}` 中的检查改为 `{new}`",
        "c_check": "原来是 ~~`{old}`~~（`{file}`）：接受的情形变了，检查仍在。",
        "c_env_title": "读取环境变量 `{flag}`",
        "c_env_title_default": "读取环境变量 `{flag}`（默认 `{default}`）",
        "c_env": "在 `{file}` 的 `{name}` 中从环境变量读取。",
        "c_env_module": "在 `{file}` 中从环境变量读取。",
        "c_setting_title": "新增配置项 `{flag}`",
        "c_setting_title_default": "新增配置项 `{flag}`（默认 `{default}`）",
        "c_setting": "`{name}` 的字段（`{file}`）。",
        "c_setting_doc": "`{name}` 的字段（`{file}`）；其说明：“{help}”",
        "c_option_title": "新增命令行选项 `{flag}`",
        "c_option_title_default": "新增命令行选项 `{flag}`（默认 `{default}`）",
        "c_option": "在 `{file}` 的 `{name}` 中加入命令行。",
        "c_option_help": "在 `{file}` 的 `{name}` 中加入命令行；其帮助文字：“{help}”",
        "c_default_title": "`{name}` 的默认值改为 `{new}`（原为 `{old}`）",
        "c_default": "`{file}` 中的默认值变了：不设置 `{name}` 的地方现在得到 `{new}`。",
        "c_default_why": "`{file}` 中的默认值变了；其上方的注释写道：“{why}”",
        "c_constant_title": "`{name}` 改为 `{new}`（原为 `{old}`）",
        "c_constant": "`{file}` 中的常量变了：所有用到 `{name}` 的地方现在读到 `{new}`。",
        "c_constant_why": "`{file}` 中的常量变了；其上方的注释写道：“{why}”",
        "c_gate_title": "`{name}` 是新增的检查，决定什么可以使用",
        "c_gate_refuses": "`{file}` 中新增的判断；在 {cases} 时拒绝。",
        "c_gate": "`{file}` 中新增的判断。",
        "c_gate_callers": "调用方：{callers}。",
        "c_interface_title": "`{name}` 是其余改动所依托的新接口",
        "c_interface_grows_title": "接口 `{name}` 新增了每个实现都必须提供的抽象成员",
        "c_interface_used": "`{file}` 中的抽象类型，被其他 {n} 个改动文件使用：先读它，再读各个实现。",
        "c_interface": "`{file}` 中的抽象类型：先读它，再读各个实现。",
        "c_signature_returns_title": "`{name}` 的返回类型改为 `{new}`（原为 `{old}`）",
        "c_signature_takes_title": "`{name}` 新增参数 {added}",
        "c_signature_drops_title": "`{name}` 不再接受参数 {removed}",
        "c_signature_async_title": "`{name}` 改为 `{keyword}`",
        "c_signature_async": "`{file}` 中的签名变了：`{name}` 现在是 `{keyword}` 函数，调用方必须在协程中调用它。",
        "c_signature": "`{file}` 中的签名变了：调用 `{name}` 的地方都会受这一变化影响。",
        "c_signature_used": "`{file}` 中的签名变了，另有 {n} 个改动文件调用它：调用 `{name}` 的地方都会受这一"
                            "变化影响。",
        "c_shared_title": "新文件之外，它还改动了共享代码：{files}",
        "c_shared": "新增代码大多在它自己的新文件里；它改动的共享代码（{n} 个文件）才是其他读者需要看的：{names}。",
        "p_reports": "PR 给出的结果：“{quote}”",
        "k_docs_title": "`{file}` 新增讲解 {headings}",
        "k_docs": "`{file}` 新增的章节：{headings}。",
        "k_docs_rule_title": "{rule}",
        "k_docs_rule": "这条规则写在 `{file}` 新增的内容中。",
        "k_fixture_title": "新增测试夹具：{names}",
        "k_fixture": "定义在 `{file}` 中，测试以参数形式使用它。",
        "k_fixture_scoped_title": "作用域为 {scope} 的测试夹具：{names}",
        "k_fixture_scoped": "在 `{file}` 中每个 {scope} 只构建一次，供使用它的测试共享，而不是每个测试各建一次。",
        "k_fixture_params_title": "按 {values} 参数化的测试夹具：{names}",
        "k_fixture_params": "定义在 `{file}` 中；使用它的每个测试对每个取值各运行一次。",
        "k_fixture_params_autouse_title": "按 {values} 参数化、自动用于每个测试的夹具：{names}",
        "k_fixture_params_autouse": "定义在 `{file}` 中且 `autouse=True`：`{reach}` 中的每个测试对每个取值各运行一次。",
        "k_parametrize_title": "参数化维度：{axes}",
        "k_parametrize": "`{file}` 中的 {names} 对 {axes} 的每种组合各运行一次。",
        "b_option_title": "新增构建选项 `{name}`（默认 `{default}`）",
        "b_option": "`{file}` 中的说明：“{help}”。不设置它的构建都取 `{default}`。",
        "b_option_bare": "`{file}`：不设置它的构建都取 `{default}`。",
        "w_gate_title": "`{job}` 仅在 `{condition}` 时运行",
        "w_gate": "`{file}` 中的 `{job}` 现在只在 `{condition}` 成立时运行。",
        "w_paths_title": "只为 {paths} 下的改动运行",
        "w_paths": "`{file}` 按改动的路径（{paths}）决定运行哪些任务。",
        "w_filters_title": "按改动路径决定运行什么：{filters}",
        "w_filters": "`{file}` 用路径过滤器判断改动了什么（{filters}），任务据此决定是否运行。",
        "w_filter": "`{name}`（{paths}）",
        "w_matrix_title": "按 `{axis}` 矩阵运行：{values}",
        "w_matrix": "`{file}` 中的任务对 `{axis}` 的每个取值（{values}）各运行一次。",
        "w_concurrency_title": "同一并发组的运行不重叠：`{group}`",
        "w_concurrency": "`{file}` 中的运行共用并发组 `{group}`，新的运行不会与进行中的运行同时进行。",
        "w_cache_title": "以 {inputs} 为键的缓存",
        "w_cache": "`{file}` 中的缓存以 {inputs} 为键：键不变时，运行直接恢复缓存。",
        "w_why": "上方注释：“{why}”",
        "k_case_table_title": "用例表：{names}",
        "k_case_table": "`{file}` 中的 {names} 对它新增的用例表逐行各运行一次：新增用例只需多加一行。",
        "k_oracle_title": "对照基准：`{oracle}`",
        "k_oracle": "`{file}` 中的 {names} 把结果与 `{oracle}` 对照{via}。",
        "k_oracle_via": "（借助 `{compare}`）",
        "k_compare_title": "用 `{oracle}` 检查结果",
        "k_compare": "`{file}` 中的 {names} 用 `{oracle}` 检查结果。",
        "k_stand_in_title": "用替身代替真实依赖：`{what}`",
        "k_stand_in": "`{file}` 中的 {names} 用 `{what}` 代替真实对象，因此不依赖它们也能运行。",
        "audience_owner": "{owner}（{area}）",
        "sentence_sep": "；",
        "discussion_people": "{n} 位参与者（{names}）",
        "discussion_comments": "{n} 条评论",
        "discussion_threads": "{n} 个评审讨论串，{u} 个未解决",
        "discussion_changes": "{n} 次请求修改",
        "discussion_approvals": "{n} 次批准",
        "issue_line": "#{number} {title}（{state}）",
        "state_open": "未关闭",
        "state_closed": "已关闭",
        "state_merged": "已合并",
        "issue_analysis_note": "；其中有分析（根因、二分定位或测量数据）",
        "open_threads": "{paths} 上有未解决的评审讨论",
        "open_draft": "仍是草稿",
        "open_capped": "GitHub 只列出了 {total} 个改动文件中的 {seen} 个",
        "open_follow_up": "作者列出的后续工作：“{quote}”",
    },
}

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
