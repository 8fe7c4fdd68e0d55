"""Coverage notes in the comment's language: each English note is recognised by its template and shown
translated with the same values; anything else is shown as it is."""

from __future__ import annotations

import re

import pytest

from readworthy.config import LANGUAGES, Settings
from readworthy.models import FileChange, FileStatus, PRContext
from readworthy.notes import TEMPLATES, localize, note
from readworthy.pack.prompt import pack_prompt

FIELD = re.compile(r"\{(\w+)\}")


def _sample_values(key: str) -> dict[str, str]:
    # distinct, recognisable values: "7,001" for the first field, "7,002" for the second ...
    return {name: f"7,{i:03d}" for i, name in enumerate(FIELD.findall(TEMPLATES[key]["en"]), 1)}


@pytest.mark.parametrize("key", sorted(TEMPLATES))
def test_every_template_speaks_every_language_with_the_same_fields(key: str) -> None:
    assert set(TEMPLATES[key]) == set(LANGUAGES)
    fields = {lang: sorted(FIELD.findall(text)) for lang, text in TEMPLATES[key].items()}
    assert all(f == fields["en"] for f in fields.values()), fields


@pytest.mark.parametrize("key", sorted(TEMPLATES))
def test_an_english_note_is_shown_translated_with_its_values(key: str) -> None:
    values = _sample_values(key)
    english = note(key, **values)
    assert localize(english, "en") == english
    chinese = localize(english, "zh-CN")
    assert chinese == TEMPLATES[key]["zh-CN"].format(**values)
    assert all(v in chinese for v in values.values())


def test_a_path_with_note_words_in_it_stays_one_value() -> None:
    path = "docs/the first 3 were read; the rest.md"
    chinese = localize(note("long_thread", path=path, total=140, read=100), "zh-CN")
    assert chinese == f"{path} 上的一个评审讨论串有 140 条评论，只读取了前 100 条"


def test_an_unknown_note_is_shown_as_it_is() -> None:
    assert localize("something an older version wrote", "zh-CN") == "something an older version wrote"


def test_the_packers_own_note_reaches_the_chinese_comment_translated() -> None:
    files = [FileChange(path=f"gen/m{i}.py", status=FileStatus.ADDED, additions=1, patch=f"@@ -0,0 +1 @@\n+V{i} = {i}")
             for i in range(400)]
    coverage = pack_prompt(PRContext(title="t", files=files), Settings(budget=4_000)).coverage
    (truncated,) = [n for n in coverage.notes if n.startswith("omitted list truncated")]
    assert re.fullmatch(r"省略列表已截断：另有 \d+ 个路径", localize(truncated, "zh-CN"))


@pytest.mark.parametrize(("english", "chinese"), [
    ("timed out: no usable answer from the model endpoint http://127.0.0.1:9/v1 within the model-timeout bound "
     "of 2 s (3 attempts; last: HTTP 503). Raise `model-timeout` if the endpoint is just slow",
     "超时：模型端点 http://127.0.0.1:9/v1 在 model-timeout 上限 2 秒内没有给出可用的回答（3 次尝试；最后一次：HTTP 503）。"
     "如果端点只是较慢，请调大 `model-timeout`"),
    ("could not connect to GitHub Models at https://models.github.ai/inference (1 attempt: [Errno 111] refused): "
     "check that the runner can reach it, or set `openai-api-key` to use another endpoint",
     "无法连接到 GitHub Models（https://models.github.ai/inference）（1 次尝试：[Errno 111] refused）：请检查 runner "
     "能否访问它，或设置 `openai-api-key` 改用其他端点"),
    ("model analyses are for members and collaborators (`model-for: members`), and mallory is a first-time "
     "contributor; a maintainer can ask for one with `/readworthy refresh` or the trigger label",
     "模型分析只面向成员和协作者（`model-for: members`），而 mallory 是首次贡献者；维护者可以用 `/readworthy refresh` "
     "或触发标签请求一次"),
    ("the request is larger than GitHub Models accepts for openai/gpt-4.1-mini (413: Max size: 6000 tokens.), "
     "even after one smaller retry at 4,958 tokens: set `github-models-limits` to the input limit it really has "
     "(its `input_tokens`), or choose another `model`",
     "请求超出了 GitHub Models 对 openai/gpt-4.1-mini 的上限（413：Max size: 6000 tokens.），缩小到 4,958 tokens "
     "重试一次后仍然超出：请把 `github-models-limits` 设为它实际的输入上限（其中的 `input_tokens`），或换用其他 `model`"),
])
def test_reasons_with_phrases_inside_are_translated_whole(english: str, chinese: str) -> None:
    assert localize(english, "zh-CN") == chinese


def test_a_server_error_text_inside_a_reason_is_left_as_the_server_wrote_it() -> None:
    english = note("rate_limited", tries=note("attempts", n=4), text="1 attempts left at the proxy")
    assert localize(english, "zh-CN") == "被限流（429，4 次尝试后）：1 attempts left at the proxy。请稍后重新运行"
