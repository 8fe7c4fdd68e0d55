"""How the taste memory names a kind of change, in every output language ("build and CI changes in
`docker`"): the heuristic's reason and the digest's agreement section use it."""

from __future__ import annotations

from ..models import ChangeProfile
from .profile import ROOT_AREA

KIND_WORDS = {
    "en": {
        "kernel": "kernel changes", "source": "code changes", "test": "test changes",
        "build": "build and CI changes", "config": "configuration changes", "docs": "documentation changes",
        "generated": "generated-file changes", "lock": "lock-file changes", "vendored": "vendored-code changes",
        "binary": "binary-file changes", "deleted": "deletions", "renamed": "renames",
    },
    "zh-CN": {
        "kernel": "内核改动", "source": "代码改动", "test": "测试改动", "build": "构建与 CI 改动",
        "config": "配置改动", "docs": "文档改动", "generated": "生成文件改动", "lock": "锁文件改动",
        "vendored": "第三方代码改动", "binary": "二进制文件改动", "deleted": "删除", "renamed": "重命名",
    },
}
_IN = {"en": "{kind} in `{area}`", "zh-CN": "`{area}` 中的{kind}"}
_AT_ROOT = {"en": "{kind} at the repository root", "zh-CN": "仓库根目录的{kind}"}
_ANY = {"en": "changes", "zh-CN": "改动"}


def dominant_kind(profile: ChangeProfile) -> str:
    """The file kind with the most changed lines ("" for an empty change)."""
    return max(profile.kinds.items(), key=lambda item: (item[1], item[0]))[0] if profile.kinds else ""


def describe(profile: ChangeProfile, language: str = "en") -> str:
    """The kind of change in a few words: its dominant file kind and where most of it is."""
    words = KIND_WORDS.get(language, KIND_WORDS["en"])
    kind = words.get(dominant_kind(profile), _ANY.get(language, "changes"))
    area = min(profile.areas.items(), key=lambda item: (-item[1], item[0]))[0] if profile.areas else ""
    if not area:
        return kind
    table = _AT_ROOT if area == ROOT_AREA else _IN
    return table.get(language, table["en"]).format(kind=kind, area=area.replace("`", "'"))
