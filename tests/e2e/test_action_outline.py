"""`readworthy action` with the heuristic on a change inside a method whose `def` line is above the hunk:
the head file (one contents API request) says which method it is (gather/outline.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from action_run import REPO, action_env, own_comments, pr_payload, run
from servers.github_server import GitHubServer
from servers.github_state import PRFile, PullRequest

from readworthy.render.state import decode_state

PATH = "vllm/model_executor/models/deepseek.py"
HEAD = '''import torch


class DecoderLayer(nn.Module):
    """One decoder layer."""

    def __init__(self, config):
        super().__init__()
        self.norm = RMSNorm(config.hidden_size)
        self.mlp = MLP(config)

    def forward(self, hidden, residual):
        hidden, residual = self.norm(hidden, residual)
        hidden = self.attn(hidden)
        if self.sequence_parallel:
            hidden = tensor_model_parallel_reduce_scatter(hidden)
            residual = residual.chunk(self.tp_size)[self.tp_rank]
        hidden = self.mlp(hidden)
        return hidden, residual
'''
PATCH = (
    "@@ -13,5 +13,8 @@ class DecoderLayer(nn.Module):\n"
    "         hidden, residual = self.norm(hidden, residual)\n"
    "         hidden = self.attn(hidden)\n"
    "-        hidden = tensor_model_parallel_all_reduce(hidden)\n"
    "+        if self.sequence_parallel:\n"
    "+            hidden = tensor_model_parallel_reduce_scatter(hidden)\n"
    "+            residual = residual.chunk(self.tp_size)[self.tp_rank]\n"
    "         hidden = self.mlp(hidden)\n"
    "         return hidden, residual\n"
)


def _pr(server: GitHubServer) -> PullRequest:
    pr = server.add_pr(REPO, "Keep the residual stream sharded across MoE layers",
                       "Reduce-scatter instead of all-reduce in the decoder layer.", user="alice",
                       files=[PRFile(PATH, additions=3, deletions=1, patch=PATCH)])
    server.set_file(REPO, pr.head_sha, PATH, HEAD)
    return pr


def _cited(server: GitHubServer, pr: PullRequest) -> list[str]:
    [comment] = own_comments(server, pr.number)
    report = decode_state(comment.body)
    assert report is not None and report.analyzer == "heuristic"
    digest = report.digest
    return [*digest.start_reading, *(r for d in digest.decisions for r in d.references)]


def test_the_heuristic_cites_the_method_the_head_file_places_the_change_in(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = _pr(github_server)
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                  pr_payload(pr, "opened")))
    assert result.code == 0, result.stdout
    assert f"{PATH}::DecoderLayer.forward" in _cited(github_server, pr)
    assert github_server.count("GET", r"/contents/vllm/") == 1


def test_a_failing_head_file_read_leaves_the_review_as_the_diff_alone_gives_it(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = _pr(github_server)
    github_server.inject("GET", r"/contents/vllm/", status=502, times=None)
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                  pr_payload(pr, "opened")))
    assert result.code == 0, result.stdout
    assert github_server.count("GET", r"/contents/vllm/") >= 1  # it was asked, and failed
    cited = _cited(github_server, pr)
    assert f"{PATH}::DecoderLayer.forward" not in cited and any(c.startswith(PATH) for c in cited)
