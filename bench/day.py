"""Bench: a day of vLLM through `readworthy action`, on GitHub Models' free tier (issue 21).

    .venv/bin/python bench/day.py                 # vLLM's average day (37 merges) and twice it
    .venv/bin/python bench/day.py --volume 2      # only twice the average

The 62 labelled development PRs (../shared/fixtures/vllm + vllm2, their labels.jsonl verdicts) are the
day's traffic (bench/day_plan.py): each is opened, pushed to one to six times (material pushes and
rebases, review fixes, typo fixes), sometimes asked about by a maintainer, then merged, at times shaped
like vLLM's day. Every event is one `readworthy action` run, in process, against the tests' GitHub server
and a GitHub Models stand-in with the free tier's limits for `openai/gpt-4.1-mini` (bench/day_models.py:
8,000 input tokens a request, 15 a minute, 150 a rolling day, 5 at once) and one scripted answer per PR. The
replay's clock is driven, never slept: the stand-in and the GitHub server both read it. The day ends with one run of the
next day's scheduled job (the catch-up run where there is one; before it, the daily digest) on the next
day's quota.

Printed per volume: model calls; calls refused for a limit other than the day quota; PRs with a model
analysis at the end of the day and after the next day's run; the share of deep-read PRs (the team's
label) the model analysed the same day; calls spent on skip-labelled PRs and on non-material pushes;
duplicate comments; GitHub REST and GraphQL requests in the busiest hour against the workflow token's
1,000 an hour; wall time. Writes are not spaced by 1 s here (GitHub asks for it; the product does it):
the bench drives the clock instead of sleeping.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "src"), str(ROOT / "bench")]

from day_models import LimitedModels  # noqa: E402
from day_plan import NON_MATERIAL, Event, Fixture, PlannedPR, load_fixtures, plan_day, timeline  # noqa: E402
from servers.github_fixtures import files_from_patch  # noqa: E402
from servers.github_graphql import FETCH_COMMAND, load_github_schema  # noqa: E402
from servers.github_server import GitHubServer  # noqa: E402
from servers.github_state import WORKFLOW_LOGIN, WORKFLOW_TOKEN, PRCommit, PRFile, PullRequest, _sha_for  # noqa: E402

from readworthy.action import run_action  # noqa: E402

try:
    from readworthy import clock as product_clock  # noqa: E402
except ImportError:  # before issue 21 the product read the wall clock only
    product_clock = None  # type: ignore[assignment]
try:  # a new runner process remembers no endpoint; these runs share one process (see github_models_limits.py)
    from readworthy.analyze.attempts import forget_endpoints  # noqa: E402
except ImportError:
    forget_endpoints = None  # type: ignore[assignment]
from readworthy.gather import github_api  # noqa: E402
from readworthy.render.state import decode_state  # noqa: E402

REPO = "vllm-project/vllm"
LOOPBACK = {"loopback_models": True} if "loopback_models" in inspect.signature(run_action).parameters else {}
MAINTAINERS = ("maint-ana", "maint-bo")
HOURLY_BUDGET = 1_000  # REST requests an hour per repository for the workflow token (GraphQL: points)
SHARED = Path(os.environ["READWORTHY_VLLM_FIXTURES"]).parent if os.environ.get("READWORTHY_VLLM_FIXTURES") else next(
    (p / "shared" / "fixtures" for p in ROOT.parents if (p / "shared" / "fixtures" / "vllm").is_dir()), None)


class Clock:
    """The replay's time: set before each run, read by the model stand-in and the GitHub server."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Figures:
    runs: int = 0
    model_calls: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    calls_on_skip: int = 0
    skip_calls_by_event: Counter[str] = field(default_factory=Counter)  # which runs spent them
    calls_on_non_material: int = 0
    calls_on_either: int = 0  # on a skip-labelled PR or a non-material push (each call once)
    model_at_end_of_day: int = 0
    model_after_next_run: int = 0
    deep_read_same_day: tuple[int, int] = (0, 0)
    duplicates: int = 0
    rest_by_hour: Counter[int] = field(default_factory=Counter)
    graphql_by_hour: Counter[int] = field(default_factory=Counter)
    next_run: dict[str, int] = field(default_factory=dict)
    prs: int = 0
    pushes: Counter[str] = field(default_factory=Counter)
    reused: Counter[str] = field(default_factory=Counter)  # pushes answered without a call, by skipped-reason
    material_reanalysed: int = 0  # material pushes that got a model call
    wall: float = 0.0


# --------------------------------------------------------------------------- the PRs' content


def content(fixture_files: list[PRFile], pr: PlannedPR, version: int, edits: list[tuple[str, int]]) -> list[PRFile]:
    """The PR's files at `version` (of pr.versions), with the review fixes and typo fixes so far applied."""
    files = [PRFile(f.filename, f.status, f.additions, f.deletions, f.patch, f.previous_filename, f.binary)
             for f in fixture_files]
    if pr.versions > 1 and version < pr.versions - 1:
        share = (version + 1) / pr.versions
        if len(files) > 1:
            files = files[:max(1, round(len(files) * share))]
        elif files:
            files = [_fewer_hunks(files[0], share)]
    for kind, seq in edits:
        _edit(files, 3 if kind == "review-fix" else 1, seq)
    return files


def _fewer_hunks(f: PRFile, share: float) -> PRFile:
    if not f.patch:
        return f
    hunks = f.patch.split("\n@@")
    keep = hunks[:max(1, round(len(hunks) * share))]
    patch = "\n@@".join(keep)
    lines = patch.splitlines()
    return PRFile(f.filename, f.status, sum(1 for x in lines if x.startswith("+")),
                  sum(1 for x in lines if x.startswith("-")), patch, f.previous_filename, f.binary)


def _edit(files: list[PRFile], n_lines: int, seq: int) -> None:
    """Rewrite `n_lines` added lines in place (a review fix) or one (a typo fix): same counts, new text."""
    for f in files:
        if not f.patch or f.binary:
            continue
        lines = f.patch.split("\n")
        added = [i for i, x in enumerate(lines) if x.startswith("+") and len(x) > 3]
        if not added:
            continue
        for k in range(min(n_lines, len(added))):
            i = added[(seq * 7 + k) % len(added)]
            lines[i] = lines[i].rstrip() + ("  # fixed" if n_lines > 1 else ".")
        f.patch = "\n".join(lines)
        return


def answer_for(fixture: Fixture, title: str, files: list[PRFile]) -> dict[str, Any]:
    """The scripted model answer: the team's verdict, references into the PR's own files."""
    paths = [f.filename for f in files[:3]] or ["README.md"]
    return {
        "verdict": fixture.verdict, "reason": f"The team reads this as {fixture.verdict}.", "headline": title[:90],
        "audience": ["engineers of the touched area"],
        "decisions": [{"title": "The main change", "explanation": f"See `{paths[0]}`.", "references": paths[:1]}],
        "start_reading": paths, "discussion": "", "linked_issue_findings": [], "open_items": [], "related": [],
    }


# --------------------------------------------------------------------------- events and runs


def _payload(pr: PullRequest, action: str, association: str, **extra: Any) -> dict[str, Any]:
    return {
        "action": action, "number": pr.number,
        "pull_request": {
            "number": pr.number, "title": pr.title, "state": pr.state, "draft": pr.draft, "locked": False,
            "user": {"login": pr.user, "type": "User"}, "labels": [{"name": n} for n in pr.labels],
            "base": {"ref": pr.base_ref, "sha": pr.base_sha, "repo": {"full_name": REPO}},
            "head": {"ref": pr.head_ref, "sha": pr.head_sha, "repo": {"full_name": REPO}},
            "author_association": association,
        },
        "repository": {"full_name": REPO}, "sender": {"login": pr.user}, **extra,
    }


def _comment_payload(pr: PullRequest, login: str, body: str, comment_id: int) -> dict[str, Any]:
    return {
        "action": "created",
        "issue": {"number": pr.number, "title": pr.title, "user": {"login": pr.user},
                  "pull_request": {"url": f"https://api.github.com/repos/{REPO}/pulls/{pr.number}"}},
        "comment": {"id": comment_id, "body": body, "user": {"login": login}, "author_association": "MEMBER"},
        "repository": {"full_name": REPO}, "sender": {"login": login},
    }


class Replay:
    def __init__(self, fixtures: list[Fixture], prs: list[PlannedPR], day: datetime, work: Path,
                 inputs: dict[str, str]) -> None:
        self.prs = {p.number: p for p in prs}
        self.day = day
        self.work = work
        self.inputs = inputs
        self.clock = Clock(day)
        self.titles = {p.number: p.fixture.title if p.number == p.fixture.number else f"{p.fixture.title} (part 2)"
                       for p in prs}
        self.files = {p.number: files_from_patch(p.fixture.patch) for p in prs}
        self.edits: dict[int, list[tuple[str, int]]] = {p.number: [] for p in prs}
        self.gh = GitHubServer().start()
        self.gh.state.now = lambda: self.clock.now.strftime("%Y-%m-%dT%H:%M:%SZ")  # type: ignore[method-assign]
        answers = {self.titles[n]: answer_for(p.fixture, self.titles[n], self.files[n]) for n, p in self.prs.items()}
        self.models = LimitedModels(self.clock, answers).start()
        repo = self.gh.add_repo(REPO, permissions={m: "write" for m in MAINTAINERS})
        for p in prs:
            repo.associations.setdefault(p.fixture.author, p.association)
        self.figures = Figures(prs=len(prs))
        self.runs = 0

    def stop(self) -> None:
        self.gh.stop()
        self.models.stop()

    def run(self, name: str, payload: dict[str, Any], label: tuple[int, str] | None = None,
            extra_inputs: dict[str, str] | None = None) -> int:
        """One `readworthy action` run at the clock's time; its requests and model calls are counted."""
        self.runs += 1
        folder = self.work / str(self.runs)
        folder.mkdir(parents=True)
        (folder / "event.json").write_text(json.dumps(payload))
        (folder / "out").write_text("")
        (folder / "summary.md").write_text("")
        for key in [k for k in os.environ if k.startswith(("GITHUB_", "INPUT_", "OPENAI_", "READWORTHY_"))
                    and k != "READWORTHY_GRAPHQL_SCHEMA"]:  # the GitHub server's, not the product's
            del os.environ[key]
        os.environ.update({
            "GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(folder / "event.json"), "GITHUB_REPOSITORY": REPO,
            "GITHUB_API_URL": self.gh.api_url, "GITHUB_GRAPHQL_URL": self.gh.graphql_url,
            "GITHUB_OUTPUT": str(folder / "out"), "GITHUB_STEP_SUMMARY": str(folder / "summary.md"),
            "INPUT_GITHUB-TOKEN": WORKFLOW_TOKEN, "READWORTHY_GITHUB_MODELS_URL": self.models.url,
        })
        os.environ.update({f"INPUT_{k.upper()}": v for k, v in {**self.inputs, **(extra_inputs or {})}.items()})
        if forget_endpoints is not None:
            forget_endpoints()
        before_requests = len(self.gh.requests)
        before_calls = len(self.models.calls)
        devnull = open(os.devnull, "w")  # noqa: SIM115  (the action's ::commands:: are not the bench's output)
        stdout, sys.stdout = sys.stdout, devnull
        try:
            # GitHub Models is the loopback stand-in here (the image's entry point never allows it; before
            # that restriction there was no such argument)
            code = run_action(os.environ, **LOOPBACK)
        finally:
            sys.stdout = stdout
            devnull.close()
        new = self.gh.requests[before_requests:]
        hour = int((self.clock.now - self.day).total_seconds() // 3600)
        self.figures.rest_by_hour[hour] += sum(1 for r in new if r.path != "/graphql")
        self.figures.graphql_by_hour[hour] += sum(1 for r in new if r.path == "/graphql")
        calls = len(self.models.calls) - before_calls
        outputs = {name: value for name, _, value in
                   re.findall(r"^([\w-]+)<<(\S+)\n(.*?)\n\2$", (folder / "out").read_text(), re.M | re.S)}
        if label is not None:
            number, push = label
            if push in NON_MATERIAL | {"material"}:
                self.figures.reused[outputs.get("skipped-reason") or ("called" if calls else "other")] += 1
                self.figures.material_reanalysed += calls > 0 and push == "material"
            if self.prs[number].verdict == "skip" and calls:
                self.figures.calls_on_skip += calls
                self.figures.skip_calls_by_event[push] += calls
            self.figures.calls_on_non_material += calls if push in NON_MATERIAL else 0
            if self.prs[number].verdict == "skip" or push in NON_MATERIAL:
                self.figures.calls_on_either += calls
        self.figures.runs += 1
        return code

    def event(self, e: Event) -> None:
        self.clock.now = e.at
        plan = self.prs[e.number]
        if e.kind == "opened":
            files = content(self.files[e.number], plan, 0, [])
            pr = self.gh.add_pr(REPO, self.titles[e.number], "A change to vLLM.", number=e.number,
                                user=plan.fixture.author, draft=plan.draft, files=files,
                                created_at=e.at.strftime("%Y-%m-%dT%H:%M:%SZ"))
            self.run("pull_request_target", _payload(pr, "opened", plan.association), (e.number, "opened"))
            return
        pr = self.gh.state.item(REPO, e.number)
        assert isinstance(pr, PullRequest)
        if e.kind == "ready":
            pr.draft = False
            self.run("pull_request_target", _payload(pr, "ready_for_review", plan.association), (e.number, "ready"))
        elif e.kind == "push":
            assert e.push is not None
            self.figures.pushes[e.push] += 1
            if e.push in ("review-fix", "typo"):
                self.edits[e.number].append((e.push, e.seq))
            before = pr.head_sha
            pr.files = content(self.files[e.number], plan, e.version, self.edits[e.number])
            sha = _sha_for(f"{e.number}:{e.seq}")
            if e.push == "rebase":  # the same commits replayed on a newer base: new SHAs, same messages
                pr.commits = [PRCommit(sha=_sha_for(f"{c.sha}:{e.seq}"), message=c.message, author=c.author,
                                       date=c.date) for c in pr.commits]
                pr.commits[-1].sha = sha
            else:
                pr.commits.append(PRCommit(sha=sha, message=f"{e.push} #{e.seq}", author=pr.user,
                                           date=e.at.strftime("%Y-%m-%dT%H:%M:%SZ")))
            pr.head_sha = sha
            self.run("pull_request_target", _payload(pr, "synchronize", plan.association, before=before, after=sha),
                     (e.number, e.push))
        elif e.kind in ("refresh", "command"):
            body = "/readworthy refresh" if e.kind == "refresh" else "/readworthy"
            cm = self.gh.add_comment(REPO, e.number, MAINTAINERS[e.number % 2], body)
            self.run("issue_comment", _comment_payload(pr, cm.user, body, cm.id), (e.number, e.kind))
        elif e.kind == "label":
            pr.labels.append("readworthy")
            self.run("pull_request_target", _payload(pr, "labeled", plan.association, label={"name": "readworthy"}),
                     (e.number, "label"))
        elif e.kind == "merged":
            pr.merged, pr.state = True, "closed"
            pr.merged_at = pr.closed_at = pr.updated_at = e.at.strftime("%Y-%m-%dT%H:%M:%SZ")

    # ------------------------------------------------------------------ what the day left behind

    def analysers(self) -> dict[int, str]:
        """Each PR's sticky comment: "model", "heuristic" or "" (none)."""
        out = {}
        for number in self.prs:
            ours = [c for c in self.gh.comments(REPO, number) if c.user == WORKFLOW_LOGIN]
            reports = [decode_state(c.body) for c in ours]
            out[number] = next((r.analyzer for r in reports if r is not None), "")
        return out

    def duplicates(self) -> int:
        return sum(max(0, sum(1 for c in self.gh.comments(REPO, n) if c.user == WORKFLOW_LOGIN
                              and decode_state(c.body) is not None) - 1) for n in self.prs)


def replay(fixtures: list[Fixture], volume: float, next_run: str, inputs: dict[str, str]) -> Figures:
    # Yesterday (UTC): the digest's window is relative to the wall clock.
    day = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=1)
    prs = plan_day(fixtures, day, volume)
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        r = Replay(fixtures, prs, day, Path(tmp), inputs)
        if product_clock is not None:  # the product's waits (the catch-up's pacing) advance the replay's clock
            def advance(seconds: float) -> None:
                r.clock.now += timedelta(seconds=seconds)
            stack.enter_context(product_clock.driven(r.clock, advance))
        start = time.perf_counter()
        try:
            for e in timeline(prs):
                r.event(e)
            end = r.analysers()
            r.figures.model_calls = len(r.models.calls)
            r.figures.model_at_end_of_day = sum(1 for a in end.values() if a == "model")
            deep = [n for n, p in r.prs.items() if p.verdict == "deep-read"]
            r.figures.deep_read_same_day = (sum(1 for n in deep if end[n] == "model"), len(deep))
            r.clock.now = day + timedelta(days=1, minutes=30)  # the next day's scheduled run (00:30 UTC)
            calls_before = len(r.models.calls)
            r.run(*_next_day_run(next_run, r))
            r.figures.next_run = {"model calls": len(r.models.calls) - calls_before}
            r.figures.model_after_next_run = sum(1 for a in r.analysers().values() if a == "model")
            r.figures.model_calls += r.figures.next_run["model calls"]
            r.figures.refused = r.models.refused
            r.figures.duplicates = r.duplicates()
        finally:
            r.figures.wall = time.perf_counter() - start
            r.stop()
    return r.figures


def _next_day_run(kind: str, r: Replay) -> tuple[str, dict[str, Any], None, dict[str, str]]:
    payload = {"repository": {"full_name": REPO}, "sender": {"login": "github-actions[bot]"}}
    if kind == "digest":  # today's nearest thing to a catch-up: the daily digest re-analyses fallbacks
        return "schedule", payload, None, {"mode": "digest", "digest-since": "3d", "digest-state": "merged",
                                           "digest-max-prs": "100", "digest-target": "none"}
    return "schedule", payload, None, {"mode": "catch-up"}


def report(volume: float, f: Figures) -> str:
    limit_refusals = sum(n for kind, n in f.refused.items() if kind != "UserByModelByDay")
    deep_done, deep_all = f.deep_read_same_day
    day_calls = f.model_calls - f.next_run.get("model calls", 0)
    lines = [
        f"## {volume:g} x vLLM's average day: {f.prs} PRs, {f.runs} runs "
        f"(pushes: {', '.join(f'{k} {v}' for k, v in sorted(f.pushes.items()))})",
        f"model calls (day + next day's run)              {day_calls} + {f.next_run.get('model calls', 0)}",
        f"refused for a limit other than the day quota    {limit_refusals} {dict(f.refused) or ''}",
        f"PRs with a model analysis, end of day           {f.model_at_end_of_day} / {f.prs}",
        f"PRs with a model analysis, after the next run   {f.model_after_next_run} / {f.prs}",
        f"deep-read PRs the model analysed the same day   {deep_done} / {deep_all} "
        f"({deep_done / max(1, deep_all):.0%})",
        f"day's calls on skip-labelled PRs                {f.calls_on_skip} "
        f"({f.calls_on_skip / max(1, day_calls):.0%}; by run: {dict(f.skip_calls_by_event)})",
        f"day's calls on non-material pushes              {f.calls_on_non_material} "
        f"({f.calls_on_non_material / max(1, day_calls):.0%})",
        f"pushes, by how they were answered               {dict(f.reused)}",
        f"material pushes re-analysed by the model        {f.material_reanalysed} of {f.pushes.get('material', 0)}",
        f"day's calls on either (each call once)          {f.calls_on_either} "
        f"({f.calls_on_either / max(1, day_calls):.0%})",
        f"duplicate comments                              {f.duplicates}",
        f"busiest hour: REST requests / GraphQL requests  {max(f.rest_by_hour.values(), default=0)} / "
        f"{max(f.graphql_by_hour.values(), default=0)} (budget {HOURLY_BUDGET}/h each)",
        f"wall time                                       {f.wall:.0f} s",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--volume", type=float, action="append", help="x vLLM's average day (default: 1 and 2)")
    parser.add_argument("--next-run", choices=("catch-up", "digest"), default="catch-up",
                        help="the next day's scheduled run (digest: what there was before catch-up existed)")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=VALUE",
                        help="an action input for every run (e.g. model-budget=0)")
    args = parser.parse_args(argv)
    if SHARED is None:
        print("skipped: the labelled vLLM fixtures (../shared/fixtures/vllm, vllm2) are not present")
        return 0
    if load_github_schema() is None:  # without it every run fails to read the PR, and the figures are all 0
        print(f"GitHub's GraphQL schema is missing; run `{FETCH_COMMAND}` first", file=sys.stderr)
        return 1
    fixtures = load_fixtures([SHARED / "vllm", SHARED / "vllm2"])
    inputs = dict(item.split("=", 1) for item in args.input)
    github_api.SECONDS_BETWEEN_WRITES = 0  # the clock is driven: see the docstring
    for volume in args.volume or [1.0, 2.0]:
        print(report(volume, replay(fixtures, volume, args.next_run, inputs)), flush=True)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
