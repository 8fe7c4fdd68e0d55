"""gather_pr reads the head file of the few changed files whose hunks sit inside methods it cannot name
(gather/outline.py), through PyGithub over real HTTP against the test GitHub server."""

from __future__ import annotations

import pytest
from servers.github_fixtures import WORKFLOW_TOKEN, GitHubServer, PRFile
from servers.github_graphql import graphql_schema_or_skip

from readworthy.config import build_settings
from readworthy.gather.github_api import make_github
from readworthy.gather.outline import MAX_OUTLINE_FILES
from readworthy.gather.pull import gather_pr
from readworthy.models import PRContext

REPO = "vllm-project/vllm"
HEAD = '''import torch


class Layer{i}(nn.Module):
    """One layer."""

    def __init__(self):
        super().__init__()
        self.norm = RMSNorm()

    def forward(self, hidden):
        hidden = self.norm(hidden)
        hidden = self.attn(hidden)
        hidden = self.mlp(hidden)
        hidden = hidden * self.scale
        return hidden
'''


def _patch(i: int) -> str:
    return (f"@@ -12,6 +12,6 @@ class Layer{i}(nn.Module):\n"
            "         hidden = self.norm(hidden)\n         hidden = self.attn(hidden)\n"
            "         hidden = self.mlp(hidden)\n-        hidden = hidden * 2\n+        hidden = hidden * self.scale\n"
            "         return hidden\n")


@pytest.fixture(autouse=True)
def _schema() -> None:
    graphql_schema_or_skip()


def _gather(server: GitHubServer, number: int) -> PRContext:
    settings = build_settings({"github_api_url": server.api_url, "github_token": WORKFLOW_TOKEN})
    server.clear_log()
    return gather_pr(make_github(settings), REPO, number, settings)


def _seed(server: GitHubServer, n: int, with_heads: bool = True) -> int:
    files = [PRFile(f"vllm/layers/l{i}.py", additions=1 + i, deletions=1, patch=_patch(i)) for i in range(n)]
    files.append(PRFile("docs/layers.md", additions=1, patch="@@ -1,1 +1,2 @@\n # Layers\n+More.\n"))
    pr = server.add_pr(REPO, "Scale hidden states", files=files)
    for i in range(n if with_heads else 0):
        server.set_file(REPO, pr.head_sha, f"vllm/layers/l{i}.py", HEAD.format(i=i))
    return pr.number


def test_gather_outlines_at_most_the_cap_most_changed_first_one_request_each(github_server: GitHubServer) -> None:
    n = MAX_OUTLINE_FILES + 3
    ctx = _gather(github_server, _seed(github_server, n))
    contents = [r.path for r in github_server.requests if "/contents/" in r.path]
    assert len(contents) == MAX_OUTLINE_FILES and len(github_server.requests) == 2 + MAX_OUTLINE_FILES
    outlined = [f.path for f in ctx.files if f.outline]
    assert outlined == [f"vllm/layers/l{i}.py" for i in range(3, n)]  # the most changed
    forward = next(e for e in ctx.files[n - 1].outline or () if e.qualname.endswith(".forward"))
    assert (forward.qualname, forward.first, forward.last) == (f"Layer{n - 1}.forward", 11, 16)
    head = github_server.state.item(REPO, ctx.number).head_sha  # type: ignore[union-attr]
    assert all(r.query == {"ref": head} for r in github_server.requests if "/contents/" in r.path)


def test_a_pr_whose_hunks_name_their_definitions_costs_no_extra_request(github_server: GitHubServer) -> None:
    pr = github_server.add_pr(REPO, "Threads", files=[PRFile(
        "vllm/worker.py", additions=1, patch="@@ -40,3 +40,4 @@ class CPUWorker:\n     def init_device(self):\n"
        "+        x = 1\n         y = 2\n")])
    ctx = _gather(github_server, pr.number)
    assert len(github_server.requests) == 2 and ctx.files[0].outline is None


@pytest.mark.parametrize("status", [403, 404, 500])
def test_a_failed_or_missing_head_file_only_means_no_outline(github_server: GitHubServer, status: int) -> None:
    number = _seed(github_server, 2, with_heads=status != 404)
    if status != 404:
        github_server.inject("GET", r"/contents/", status=status, times=None)
    ctx = _gather(github_server, number)
    assert github_server.count("GET", r"/contents/") >= 2  # both were asked for
    assert [f.outline for f in ctx.files] == [None, None, None]
    assert ctx.title == "Scale hidden states" and len(ctx.files) == 3


def test_a_head_file_over_the_contents_apis_limit_has_no_outline(github_server: GitHubServer) -> None:
    number = _seed(github_server, 1, with_heads=False)
    pr = github_server.state.item(REPO, number)
    big = HEAD.format(i=0) + "# padding\n" * 120_000  # 1.2 MB: GitHub sends no content
    github_server.set_file(REPO, pr.head_sha, "vllm/layers/l0.py", big)  # type: ignore[union-attr]
    ctx = _gather(github_server, number)
    assert github_server.count("GET", r"/contents/") == 1 and ctx.files[0].outline is None
