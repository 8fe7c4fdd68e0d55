"""Why the model was not used, or failed, in English and Simplified Chinese (see notes.py for how a text
written in English is shown in the comment's language).

Each entry is (English, Chinese). `{field}`s named in PHRASE_FIELDS hold a smaller phrase of this table
(an endpoint's name, "set X to use another endpoint", "3 attempts"), translated in turn; the other
fields (a model name, a URL, a server's own error text) are shown as they are.
"""

from __future__ import annotations

PHRASE_FIELDS = frozenset({"label", "other", "tries", "kind", "target", "fix", "who", "author", "association",
                           "forks", "said", "cause"})

REASONS: dict[str, tuple[str, str]] = {
    # ---- phrases inside the reasons below
    "endpoint_url": ("the model endpoint {url}", "模型端点 {url}"),
    "endpoint_plain": ("the model endpoint", "模型端点"),
    "openai_api": ("the OpenAI API", "OpenAI API"),
    "endpoint_at": ("{label} at {url}", "{label}（{url}）"),
    "other_endpoint": ("set {setting} to use another endpoint", "设置 {setting} 改用其他端点"),
    "one_attempt": ("1 attempt", "1 次尝试"),
    "attempts": ("{n} attempts", "{n} 次尝试"),
    "attempts_last": ("{tries}; last: {what}", "{tries}；最后一次：{what}"),
    "met_earlier": ("met earlier in this run", "本次运行中已遇到"),
    "fix_reach": ("check that the runner can reach it, or {other}", "请检查 runner 能否访问它，或{other}"),
    "fix_url": ("check {setting} and that the runner can reach it", "请检查 {setting}，以及 runner 能否访问它"),
    "forks": (" (secrets are not passed to workflows run from forks)", "（来自 fork 的工作流拿不到 secrets）"),
    "who_members": ("members and collaborators", "成员和协作者"),
    "who_contributors": ("members, collaborators and past contributors", "成员、协作者和以往的贡献者"),
    "the_author": ("the author", "作者"),
    "first_time_contributor": ("a first-time contributor", "首次贡献者"),
    "first_timer": ("new to GitHub", "GitHub 新用户"),
    "not_a_contributor": ("not a contributor to this repository", "本仓库的非贡献者"),
    "past_contributor": ("a past contributor without write access", "没有写权限的以往贡献者"),
    "mannequin": ("an imported (mannequin) account", "导入的（mannequin）账号"),
    # ---- the retries or the time ran out (analyze/explain.py: explain_gave_up)
    "day_quota": (
        "rate limited (429, {kind}): the daily request quota for {model} at {label} is used up and resets in "
        "{wait}. Wait for the quota to reset, choose another {model_setting}, or {other}",
        "被限流（429，{kind}）：{label} 上 {model} 的每日请求配额已用完，{wait} 后重置。请等待配额重置、"
        "换用其他 {model_setting}，或{other}"),
    "long_wait": (
        "rate limited (429): {label} asks for a wait of {wait}, longer than a run waits (at most {max} s, within "
        "{timeout_setting} of {timeout} s). Re-run later, or {other}",
        "被限流（429）：{label} 要求等待 {wait}，超过一次运行能等的时间（最多 {max} 秒，且在 {timeout_setting} 的 "
        "{timeout} 秒之内）。请稍后重新运行，或{other}"),
    "silent": (
        "not asked: {label} gave no answer to {n} requests in a row earlier in this run (each waited up to the "
        "{timeout_setting} bound of {timeout} s or failed to connect), so it is not asked again for {wait}. Check "
        "that the endpoint is up, or raise {timeout_setting} if it is just slow",
        "未调用：本次运行中 {label} 已连续 {n} 次请求没有任何应答（每次最多等到 {timeout_setting} 的上限 {timeout} 秒，"
        "或无法连接），因此 {wait} 内不再调用。请检查端点是否在线；如果它只是较慢，请调大 {timeout_setting}"),
    "timed_out": (
        "timed out: no usable answer from {label} within the model-timeout bound of {timeout} s ({tries}). Raise "
        "{timeout_setting} if the endpoint is just slow",
        "超时：{label} 在 model-timeout 上限 {timeout} 秒内没有给出可用的回答（{tries}）。如果端点只是较慢，"
        "请调大 {timeout_setting}"),
    "no_connection": ("could not connect to {target} ({tries}: {error}): {fix}",
                      "无法连接到 {target}（{tries}：{error}）：{fix}"),
    "rate_limited": ("rate limited (429) after {tries}: {text}. Re-run later",
                     "被限流（429，{tries}后）：{text}。请稍后重新运行"),
    "server_error": ("server error {status} after {tries}: {text}", "服务器错误 {status}（{tries}后）：{text}"),
    "failed_after": ("model call failed after {tries}: {text}", "模型调用失败（{tries}后）：{text}"),
    # ---- a 4xx no retry can fix (explain_status)
    "token_401": ("GitHub Models did not accept the GitHub token (401): check {setting}",
                  "GitHub Models 不接受该 GitHub 令牌（401）：请检查 {setting}"),
    "key_401": ("the endpoint refused the API key (401): check {setting}",
                "端点拒绝了该 API 密钥（401）：请检查 {setting}"),
    # GitHub Models' 403, by what its body said ({said} is refusal_said or refusal_silent)
    "refusal_said": ("it said “{text}”", "它的说明是“{text}”"),
    "refusal_silent": ("with no message", "没有附带说明"),
    "fix_models_permission": ("the workflow (or the job) lacks `permissions: models: read`",
                              "工作流（或 job）缺少 `permissions: models: read`"),
    "fix_token_models": ("the token lacks the Models read permission (a fine-grained token needs it)",
                         "令牌缺少 Models 读权限（细粒度令牌需要它）"),
    "workflow_token_403": (
        "GitHub Models refused the workflow token (403; {said}): grant it with `permissions: models: read` in the "
        "workflow (or the job), or {other}",
        "GitHub Models 拒绝了工作流令牌（403；{said}）：请在工作流（或 job）中加上 `permissions: models: read`，"
        "或{other}"),
    "github_token_403": (
        "GitHub Models refused the GitHub token (403; {said}): use a token allowed to call GitHub Models (a "
        "fine-grained token with the Models read permission), or {other}",
        "GitHub Models 拒绝了该 GitHub 令牌（403；{said}）：请使用有权调用 GitHub Models 的令牌"
        "（带 Models 读权限的细粒度令牌），或{other}"),
    "models_disabled_403": (
        "GitHub Models is not enabled for this repository's organization or enterprise (403; {said}): an "
        "organization or enterprise owner can enable it in its Models policy, or {other}",
        "该仓库所属的组织或企业没有启用 GitHub Models（403；{said}）：组织或企业所有者可以在 Models 策略中启用它，"
        "或{other}"),
    "model_not_allowed_403": (
        "GitHub Models does not allow the model {model} here (403; {said}): set {model_setting} to a model the "
        "organization allows, ask an owner to allow this one, or {other}",
        "GitHub Models 在这里不允许使用模型 {model}（403；{said}）：请把 {model_setting} 设为组织允许的模型、"
        "请所有者允许该模型，或{other}"),
    "github_models_403": (
        "GitHub Models refused the request (403; {said}): either {fix}, GitHub Models is not enabled for the "
        "organization, or the model {model} is not allowed there. Check these, set {model_setting} to an allowed "
        "model, or {other}",
        "GitHub Models 拒绝了该请求（403；{said}）：可能是{fix}、组织没有启用 GitHub Models，或组织不允许模型 "
        "{model}。请逐一检查，把 {model_setting} 设为允许的模型，或{other}"),
    "key_403": ("the key may not use the model {model} (403: {text}): check {model_setting} and the key's access",
                "该密钥无权使用模型 {model}（403：{text}）：请检查 {model_setting} 以及密钥的权限"),
    "too_large": (
        "the request is larger than {label} accepts for {model} ({status}: {text}): lower {budget_setting} (now "
        "{budget} tokens) or choose another {model_setting}",
        "请求超出了 {label} 对 {model} 的上限（{status}：{text}）：请调低 {budget_setting}（当前 {budget} tokens），"
        "或换用其他 {model_setting}"),
    "too_large_retried": (
        "the request is larger than {label} accepts for {model} ({status}: {text}), even after one smaller retry "
        "at {budget} tokens: {fix}",
        "请求超出了 {label} 对 {model} 的上限（{status}：{text}），缩小到 {budget} tokens 重试一次后仍然超出：{fix}"),
    "fix_limits": (
        "set {limits_setting} to the input limit it really has (its `input_tokens`), or choose another "
        "{model_setting}",
        "请把 {limits_setting} 设为它实际的输入上限（其中的 `input_tokens`），或换用其他 {model_setting}"),
    "fix_budget": (
        "set {budget_setting} below {budget} tokens or choose another {model_setting}",
        "请把 {budget_setting} 设得低于 {budget} tokens，或换用其他 {model_setting}"),
    "unknown_model": (
        "{label} has no model {model} ({status}: {text}): set {model_setting} to one it serves, e.g. {example}",
        "{label} 没有模型 {model}（{status}：{text}）：请把 {model_setting} 设为它提供的模型，例如 {example}"),
    "not_found_404": (
        "model {model} or the endpoint was not found (404 from {where}): check {model_setting} and {url_setting}",
        "找不到模型 {model} 或端点（{where} 返回 404）：请检查 {model_setting} 和 {url_setting}"),
    "rejected": ("the endpoint rejected the request ({status}): {text}", "端点拒绝了该请求（{status}）：{text}"),
    # ---- the answer (analyze/model.py)
    "hard_stop": (
        "timed out: no complete answer from {label} within the model-timeout bound of {timeout} s (the endpoint "
        "kept the connection open without finishing its answer). Raise {timeout_setting} if the endpoint is just "
        "slow",
        "超时：{label} 在 model-timeout 上限 {timeout} 秒内没有答完（端点一直保持连接却没有完成回答）。"
        "如果端点只是较慢，请调大 {timeout_setting}"),
    "call_failed": ("model call failed: {text}", "模型调用失败：{text}"),
    "not_json": ("the endpoint's answer is not JSON ({text}): a proxy or login page in front of it? Check the "
                 "base URL",
                 "端点的回答不是 JSON（{text}）：前面是否有代理或登录页？请检查 base URL"),
    "unusable": ("unusable answer after one repair ({problem})", "修正一次后，回答仍不可用（{problem}）"),
    "refused_in_turn": ("gave up after {n} requests that the endpoint refused in turn",
                        "端点接连拒绝了 {n} 次请求，已放弃"),
    "no_choices": ("the endpoint returned no choices", "端点没有返回任何 choices"),
    "no_message": ("the endpoint's answer has no message: it is not an OpenAI chat completion",
                   "端点的回答里没有 message：它不是 OpenAI chat completion"),
    "model_refused": ("the model refused: {text}", "模型拒绝回答：{text}"),
    "content_filter": ("the provider's content filter stopped the answer", "服务商的内容过滤中止了回答"),
    # ---- a model configured but not askable (endpoint.py)
    "azure_no_key": (
        "{azure_setting} is set but {key_setting} (the Azure key) is empty{forks}: set the key to use Azure OpenAI",
        "已设置 {azure_setting}，但 {key_setting}（Azure 密钥）为空{forks}：请设置密钥以使用 Azure OpenAI"),
    "base_url_no_key": (
        "{url_setting} is set but {key_setting} is empty{forks}, and the GitHub token is only ever sent to GitHub "
        "Models: set {key_setting} (any non-empty value for a server that needs none), or leave {url_setting} "
        "empty to use GitHub Models",
        "已设置 {url_setting}，但 {key_setting} 为空{forks}，而 GitHub 令牌只会发给 GitHub Models：请设置 "
        "{key_setting}（服务器不需要密钥时填任意非空值），或把 {url_setting} 留空以使用 GitHub Models"),
    "models_no_token": (
        "{url_setting} names GitHub Models but there is no GitHub token to call it with: set {token_setting}",
        "{url_setting} 指向 GitHub Models，但没有可用于调用它的 GitHub 令牌：请设置 {token_setting}"),
    # ---- the repository's daily model budget and triage (spend/)
    "confident_skip": (
        "triage reads this as a confident skip (nothing here needs close reading), so no model request was spent "
        "on it; a maintainer can ask for one with `/readworthy refresh` or the trigger label",
        "分诊判断这是可以放心跳过的改动（没有需要细读的内容），因此没有为它花费模型请求；维护者可以用 "
        "`/readworthy refresh` 或触发标签请求一次"),
    "deferred_skip": (
        "triage reads this as skippable and the repository's model budget is busy today, so it goes to pull "
        "requests more worth reading; a maintainer can ask for one now with `/readworthy refresh` or the trigger "
        "label",
        "分诊判断这个 PR 可以跳过，而本仓库今天的模型预算用得较多，因此留给更值得阅读的 PR；维护者可以用 "
        "`/readworthy refresh` 或触发标签立即请求一次"),
    "budget_spent": (
        "the repository's model budget for today ({limit} requests, `model-budget`) is spent",
        "本仓库今天的模型预算（{limit} 次请求，`model-budget`）已用完"),
    "budget_short": (
        "the repository's model budget for today is short ({left} of {limit} requests left, `model-budget`), and "
        "what is left is kept for maintainers' requests and the pull requests most worth reading",
        "本仓库今天的模型预算已经不多（{limit} 次请求还剩 {left} 次，`model-budget`），剩下的留给维护者的请求和"
        "最值得细读的 PR"),
    "quota_spent": (
        "GitHub Models' daily quota is spent until {when} UTC",
        "GitHub Models 的每日配额已用完，{when} UTC 之前不可用"),
    "budget_unwritable": (
        "the repository's model budget could not be reserved, so the model was not asked ({error}); or set "
        "`model-budget: 0` to ask the model without a repository budget",
        "无法预留本仓库的模型预算，因此未调用模型（{error}）；也可以设置 `model-budget: 0`，"
        "不使用仓库预算直接调用模型"),
    "budget_unreadable": (
        "the repository's model budget could not be read, so the model was not asked ({error})",
        "无法读取本仓库的模型预算，因此未调用模型（{error}）"),
    "budget_uncertain": (
        "GitHub did not confirm the reservation in the repository's model budget, so the model was not asked "
        "({error})",
        "GitHub 没有确认本仓库模型预算中的预留，因此未调用模型（{error}）"),
    # ---- the model was not asked (rules.py)
    "model_for": (
        "model analyses are for {who} (`model-for: {mode}`), and {author} is {association}; a maintainer can ask "
        "for one with `/readworthy refresh` or the trigger label",
        "模型分析只面向{who}（`model-for: {mode}`），而 {author} 是{association}；维护者可以用 "
        "`/readworthy refresh` 或触发标签请求一次"),
    "daily_cap": (
        "this pull request already had {n} model analyses in the last 24 hours (`max-analyses-per-day: {cap}`); "
        "the next push after {when} UTC gets one, or a maintainer can ask with `/readworthy refresh`",
        "该 PR 在过去 24 小时内已有 {n} 次模型分析（`max-analyses-per-day: {cap}`）；{when} UTC 之后的下一次推送"
        "会再得到一次，维护者也可以用 `/readworthy refresh` 请求"),
}
