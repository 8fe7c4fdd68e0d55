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
