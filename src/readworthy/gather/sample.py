"""The sample pull request that ships inside the package, for `readworthy demo`.

It is an invented PR of an invented project (kvpool), written for this purpose: a small fix with a
linked issue that carries the root-cause analysis, two review threads and a settled debate.
"""

from __future__ import annotations

import json
from importlib import resources

from ..models import PRContext
from .diffparse import parse_patch


def load_sample() -> PRContext:
    base = resources.files("readworthy.gather") / "sample"
    meta = json.loads((base / "pr.json").read_text(encoding="utf-8"))
    files = parse_patch((base / "diff.patch").read_text(encoding="utf-8")).files
    meta["files"] = [f.model_dump() for f in files]
    meta["changed_files"] = len(files)
    meta["additions"] = sum(f.additions for f in files)
    meta["deletions"] = sum(f.deletions for f in files)
    meta["commit_count"] = len(meta.get("commits", []))
    return PRContext.model_validate(meta)
