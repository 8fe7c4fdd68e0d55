"""gather_pr on the real vLLM diffs (../shared/fixtures/vllm) served by the test GitHub server.

Only the diffs and commit messages are real; descriptions, reviews and issues are invented but shaped
like vLLM's (a debate across two inline threads, two reviews, a bot comment, linked issues via
`Fixes #` and via closing references only, a cross-referencing PR).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from servers.github_fixtures import WORKFLOW_TOKEN, GitHubServer, PRCommit, PRFile, seed_discussed_pr
from servers.github_graphql import graphql_schema_or_skip

from readworthy.config import build_settings
from readworthy.gather.diffparse import parse_patch
from readworthy.gather.github_api import make_github
from readworthy.gather.outline import MAX_OUTLINE_FILES, needs_outline
from readworthy.gather.pull import gather_pr
from readworthy.models import LinkKind, PRContext

pytestmark = pytest.mark.vllm_fixtures

# GitHub leaves `patch` out of the files API for very large file diffs; the test server is told which.
OMIT_PATCH_OVER_LINES = 1_500  # GitHub does not document its threshold; this one exercises both paths


def _real_pr(fixtures: Path, number: int) -> tuple[dict[str, object], list[PRFile], PRCommit]:
    meta = json.loads((fixtures / str(number) / "meta.json").read_text())
    parsed = parse_patch((fixtures / str(number) / "diff.patch").read_text(encoding="utf-8", errors="replace"))
    files = [
        PRFile(
            filename=f.path,
            status=f.status.value,
            additions=f.additions,
            deletions=f.deletions,
            patch=None if f.binary else f.patch,
            patch_omitted=f.additions + f.deletions > OMIT_PATCH_OVER_LINES,
            previous_filename=f.previous_path,
            binary=f.binary,
        )
        for f in parsed.files
    ]
    message = parsed.commits[0].message if parsed.commits else str(meta["commit_subject"])
    commit = PRCommit(sha=str(meta["commit_sha"]), message=message, author="vllm-dev")
    return meta, files, commit


def _gather(server: GitHubServer, repo: str, number: int) -> PRContext:
    settings = build_settings({"github_api_url": server.api_url, "github_token": WORKFLOW_TOKEN})
    server.clear_log()
    return gather_pr(make_github(settings), repo, number, settings)


def test_every_real_diff_is_gathered_file_for_file(vllm_fixtures: Path) -> None:
    graphql_schema_or_skip()
    index = json.loads((vllm_fixtures / "index.json").read_text())
    assert len(index) >= 30
    branches = {"filled": 0, "listed": 0}
    for entry in index:
        number = int(entry["number"])
        meta, files, commit = _real_pr(vllm_fixtures, number)
        with GitHubServer() as server:
            server.add_pr("vllm-project/vllm", str(meta["title"]), "Invented description.", number=number,
                          files=files, commits=[commit])
            ctx = _gather(server, "vllm-project/vllm", number)
            # the head files read for outlines (404 here: the fixtures have none) are counted apart
            head_reads = server.count("GET", r"/contents/")
            requests_used = len(server.requests) - head_reads
        assert head_reads == min(sum(1 for f in ctx.files if needs_outline(f)), MAX_OUTLINE_FILES), number
        assert [f.path for f in ctx.files] == [f.filename for f in files], number
        assert [f.status.value for f in ctx.files] == [f.status for f in files], number
        assert [f.binary for f in ctx.files] == [f.binary for f in files], number
        assert ctx.changed_files == len(files) == int(entry["files_changed"]), number
        lines = sum(f.additions + f.deletions for f in files)
        omitted = [f for f in files if f.patch_omitted]
        for got, sent in zip(ctx.files, files, strict=True):
            if not sent.patch_omitted or lines <= 20_000:
                assert got.patch == sent.patch, (number, sent.filename)
            else:
                assert got.patch is None and got.additions == sent.additions, (number, sent.filename)
        if omitted and lines <= 20_000:
            # filled from the diff media type: one extra request
            assert requests_used == 3, number
            branches["filled"] += 1
        elif omitted:
            assert any("listed with line counts only" in n for n in ctx.gather_notes), number
            branches["listed"] += 1
        # the squash subject's "(#NNNNN)" names the PR itself: never a related item
        assert all(r.number != number for r in ctx.related), number
        assert requests_used <= 6, (number, requests_used)
    assert branches["filled"] and branches["listed"], branches  # both large-patch paths were exercised


def test_large_real_pr_with_a_real_debate(vllm_fixtures: Path, github_server: GitHubServer) -> None:
    graphql_schema_or_skip()
    meta, files, commit = _real_pr(vllm_fixtures, 48472)  # 253 files: three pages of files
    seeded = seed_discussed_pr(
        github_server,
        files=files,
        title=str(meta["title"]),
        extra_commit_messages=[commit.message],
        codeowners="* @vllm-project/ci\n/.buildkite/ @vllm-project/buildkite\n/vllm/ @vllm-project/core\n",
    )
    ctx = _gather(github_server, seeded.repo, seeded.number)
    assert len(ctx.files) == 253 and all(f.patch for f in ctx.files)
    assert github_server.count("GET", r"/files$") == 3
    # GraphQL, 3 file pages, referenced-issue lookup, and the head file of the one Python file whose hunks
    # change a method under a `class` header (gather/outline.py)
    assert github_server.count("GET", r"/contents/") == 1
    assert len(github_server.requests) == 5 + 1
    assert [len(t.comments) for t in ctx.threads if not t.is_outdated] == [3, 2]
    assert {t.path for t in ctx.threads} == set(seeded.debate_paths)
    assert {i.number for i in ctx.linked_issues} == {seeded.fixes_issue, seeded.closing_only_issue}
    assert {(r.number, r.kind) for r in ctx.related} >= {(seeded.cross_ref_pr, LinkKind.CROSS_REFERENCED)}
    assert sum(len(p) for p in ctx.owners.values()) == 253  # every path owned by the last matching rule
    assert ctx.commit_count == 3 and any("Signed-off-by" not in c.message for c in ctx.commits)
    assert all("Signed-off-by" not in c.message for c in ctx.commits)


def test_small_real_pr_keeps_the_real_hunk_under_the_debate(vllm_fixtures: Path, github_server: GitHubServer) -> None:
    graphql_schema_or_skip()
    meta, files, commit = _real_pr(vllm_fixtures, 49436)  # Triton kernel + a new test
    seeded = seed_discussed_pr(github_server, files=files, title=str(meta["title"]),
                               extra_commit_messages=[commit.message])
    ctx = _gather(github_server, seeded.repo, seeded.number)
    first_hunk = files[0].patch.split("\n@@")[0] if files[0].patch else ""
    assert ctx.threads[0].diff_hunk and first_hunk.startswith(ctx.threads[0].diff_hunk.split("\n")[0])
    assert ctx.noise_counts == {"bot": 1, "command": 1, "own": 1, "lgtm": 1}
    assert github_server.count("GET", r"/contents/") == 2  # both files change lines under a `class` header
    assert len(github_server.requests) == 3 + 2
