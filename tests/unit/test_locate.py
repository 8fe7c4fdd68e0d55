"""The locator and the links built from it, checked against a real git repository: every link in the rendered
comment (parsed by GitHub's own Markdown parser) names a path and line that exist at the head commit, a
symbol's link lands on its definition, a file's on its first changed line, and "Start reading at" opens the
PR's Files changed tab at that line."""

from __future__ import annotations

import hashlib
import html
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from git_repo import new_repo

from readworthy.gather.diffparse import parse_patch
from readworthy.locate import locate
from readworthy.models import Decision, Digest, FileStatus, PRContext, Report, Verdict
from readworthy.render.comment import render_comment, render_markdown
from readworthy.render.links import diff_anchor
from readworthy.render.state import decode_state

BASE_POOL = '''"""A pool."""


class Pool:
    def __init__(self, n):
        self.n = n

    def take(self):
        return self.n
'''
HEAD_POOL = '''"""A pool."""

import heapq


class Pool:
    def __init__(self, n):
        self.n = n
        self.heap = []

    def take(self):
        return self.n

    def evict(self, step):
        """Pop the oldest."""
        while self.heap:
            yield heapq.heappop(self.heap)
        return None
'''
EVICT = '''"""Eviction order."""


class Evictor:
    """Least recently used."""

    def touch(self, block, step):
        self.last = (block, step)

    def pop_oldest(self):
        return self.last


def helper():
    return Evictor()
'''
TESTS = '''from pkg.evict import Evictor


def test_touch_keeps_the_newest():
    e = Evictor()
    e.touch(1, 2)
    assert e.pop_oldest() == (1, 2)


def test_helper():
    assert helper()
'''
BASE_KERNEL = "int unused(void)\n{\n    return 0;\n}\n"
HEAD_KERNEL = BASE_KERNEL + "\nstatic int launch_grid(int blocks, int threads)\n{\n    return blocks * threads;\n}\n"

REFERENCES = [
    "pkg/pool.py",
    "pkg/pool.py::Pool.evict",
    "pkg/evict.py::Evictor",
    "pkg/evict.py::Evictor.pop_oldest",
    "evict.py",  # a unique path suffix
    "tests/test_evict.py::test_touch_keeps_the_newest[fp8]",
    "test_helper",  # a bare test name
    "kernels/grid.cu::launch_grid",
    "pkg/pool.py::NotDefinedAnywhere",  # the file, no symbol the diff shows
    "old.py",  # removed
    "docs/moved.md",  # renamed
]


@pytest.fixture(scope="module")
def pr(tmp_path_factory: pytest.TempPathFactory) -> tuple[PRContext, Path]:
    root = tmp_path_factory.mktemp("repo")
    git = new_repo(root)
    files = {"pkg/pool.py": BASE_POOL, "kernels/grid.cu": BASE_KERNEL, "old.py": "x = 1\n",
             "docs/notes.md": "# Notes\n\nSome text.\n"}
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    base = git("rev-parse", "HEAD").strip()
    (root / "pkg/pool.py").write_text(HEAD_POOL)
    (root / "pkg/evict.py").write_text(EVICT)
    (root / "tests").mkdir()
    (root / "tests/test_evict.py").write_text(TESTS)
    (root / "kernels/grid.cu").write_text(HEAD_KERNEL)
    (root / "old.py").unlink()
    git("mv", "docs/notes.md", "docs/moved.md")
    (root / "docs/moved.md").write_text("# Notes\n\nSome text.\n\nMore text.\n")
    git("add", "-A")
    git("commit", "-q", "-m", "head")
    head = git("rev-parse", "HEAD").strip()
    parsed = parse_patch(git("diff", "-M", base, head))
    ctx = PRContext(repo="o/r", number=7, url="https://github.com/o/r/pull/7", head_sha=head, base_sha=base,
                    files=parsed.files)
    return ctx, root


def _report(ctx: PRContext, language: str = "en") -> Report:
    digest = Digest(
        verdict=Verdict.DEEP_READ, reason="r", headline="h",
        decisions=[Decision(title="A heap", explanation="e", references=REFERENCES[:5]),
                   Decision(title="Tests", explanation="e", references=REFERENCES[5:])],
        start_reading=["pkg/evict.py::Evictor", "tests/test_evict.py::test_touch_keeps_the_newest", "pkg/pool.py",
                       "old.py"],
    )
    return Report(digest=digest, analyzer="model", model="m", repo=ctx.repo, number=ctx.number, url=ctx.url,
                  head_sha=ctx.head_sha, language=language, locations=locate(digest, ctx))


def _head_lines(root: Path, sha: str, path: str) -> list[str]:
    text = subprocess.run(["git", "show", f"{sha}:{path}"], cwd=root, check=True, capture_output=True,
                          text=True).stdout
    return text.split("\n")


def _links(markdown: str) -> list[tuple[str, str]]:
    page = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    return [(html.unescape(href), html.unescape(re.sub(r"<[^>]+>", "", label)))
            for href, label in re.findall(r'<a href="([^"]*)"[^>]*>(.*?)</a>', page, flags=re.DOTALL)]


def _definition_name(ref: str) -> str:
    symbol = ref.partition("::")[2] if "::" in ref else ref
    return re.split(r"[.:]", re.sub(r"\[.*\]$", "", symbol))[-1]


def check_links(markdown: str, ctx: PRContext, root: Path) -> int:
    """Every link resolves at the head; returns how many there were."""
    paths = {f.path for f in ctx.files}
    by_anchor = {diff_anchor(p): p for p in paths}
    added = _added_lines(ctx)
    links = _links(markdown)
    for href, label in links:
        parts = urlsplit(href)
        assert parts.hostname == "github.com", href
        blob = re.fullmatch(r"/o/r/blob/([0-9a-f]{40})/(.+)", parts.path)
        if blob:
            sha, path = blob.group(1), unquote(blob.group(2))
            assert sha == ctx.head_sha and path in paths, href
            lines = _head_lines(root, sha, path)
            match = re.fullmatch(r"L(\d+)(?:-L(\d+))?", parts.fragment)
            assert match, href
            start, end = int(match.group(1)), int(match.group(2) or match.group(1))
            assert 1 <= start <= end <= len(lines), (href, len(lines))
            symbol = "::" in label or not any(label.endswith(p.rsplit("/", 1)[-1]) for p in paths)
            definition = re.compile(rf"\b(def|class|int)\s+{re.escape(_definition_name(label))}\b")
            if symbol and any(definition.search(line) for line in lines):
                assert definition.search(lines[start - 1]), (label, lines[start - 1])  # lands on its definition
            else:
                assert start == min(added[path]), (label, start)  # a file: its first changed line
            continue
        assert parts.path == "/o/r/pull/7/files", href
        match = re.fullmatch(r"(diff-[0-9a-f]{64})(?:R(\d+))?", parts.fragment)
        assert match and match.group(1) in by_anchor, href
        path = by_anchor[match.group(1)]
        if match.group(2):
            assert int(match.group(2)) <= len(_head_lines(root, ctx.head_sha, path)), href
        else:
            assert next(f for f in ctx.files if f.path == path).status is FileStatus.REMOVED
    return len(links)


def _added_lines(ctx: PRContext) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for f in ctx.files:
        lines: set[int] = set()
        line = 0
        for raw in (f.patch or "").split("\n"):
            hunk = re.match(r"@@ -\S+ \+(\d+)", raw)
            if hunk:
                line = int(hunk.group(1))
            elif raw[:1] == "+":
                lines.add(line)
                line += 1
            elif raw[:1] == " ":
                line += 1
        out[f.path] = lines
    return out


def test_each_kind_of_reference_is_placed(pr: tuple[PRContext, Path]) -> None:
    ctx, root = pr
    found = {loc.ref: loc for loc in _report(ctx).locations}
    pool = _head_lines(root, ctx.head_sha, "pkg/pool.py")
    evict = found["pkg/pool.py::Pool.evict"]
    assert pool[evict.start - 1].strip().startswith("def evict")
    assert pool[evict.end - 1].strip() == "return None"  # the whole body the diff shows
    assert found["pkg/evict.py::Evictor"].start == 4 and found["pkg/evict.py::Evictor"].end == 11
    assert found["evict.py"].path == "pkg/evict.py" and found["evict.py"].start == 1
    assert found["pkg/pool.py"].start == 3  # `import heapq`: the first changed line
    assert found["test_helper"].path == "tests/test_evict.py"
    kernel = found["kernels/grid.cu::launch_grid"]
    grid = _head_lines(root, ctx.head_sha, "kernels/grid.cu")
    assert "launch_grid" in grid[kernel.start - 1] and grid[kernel.end - 1] == "}"  # Allman braces kept
    assert found["pkg/pool.py::NotDefinedAnywhere"].start == 3  # the file it names
    assert found["old.py"].removed and found["old.py"].start == 0
    assert found["docs/moved.md"].path == "docs/moved.md" and found["docs/moved.md"].start >= 1


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_every_link_in_the_comment_resolves_at_the_head(pr: tuple[PRContext, Path], language: str) -> None:
    ctx, root = pr
    report = _report(ctx, language)
    body = render_comment(report)
    # Every cited reference is a link (the start-reading ones and the decisions' alike).
    assert check_links(body, ctx, root) == len(REFERENCES) + 4
    start = body.split("Start reading at" if language == "en" else "从这里读起")[1].split("\n")[0]
    assert start.count("/pull/7/files#diff-") == 4  # the Files changed tab, at the line


def test_the_stored_report_links_the_same_lines(pr: tuple[PRContext, Path]) -> None:
    ctx, _ = pr
    report = _report(ctx)
    stored = decode_state(render_comment(report))
    assert stored is not None and stored.locations == report.locations
    assert render_markdown(stored) == render_markdown(report)


def test_without_an_address_or_a_placeable_reference_there_is_no_link(pr: tuple[PRContext, Path]) -> None:
    ctx, _ = pr
    local = _report(ctx).model_copy(update={"url": ""})
    assert "](" not in render_markdown(local)
    foreign = _report(ctx).model_copy(update={"url": "https://github.com/o/r/issues/7"})
    assert "](" not in render_markdown(foreign)
    assert locate(Digest(verdict=Verdict.SKIP, reason="r", headline="h", start_reading=["no_such_symbol"]),
                  ctx) == []


def test_a_hostile_path_is_linked_inertly_or_not_at_all() -> None:
    from readworthy.models import FileChange

    odd = "pkg/(x)[y]@alice/#1%2e.py"  # no spaces: linked, percent-encoded, on the repository's host
    hostile = "a b/</details>`z`<!--/www.evil.example/x.py"  # spaces, HTML, a www. name: shown escaped, unlinked
    patch = "@@ -0,0 +1,2 @@\n+def f():\n+    return 1\n"
    files = [FileChange(path=p, status=FileStatus.ADDED, patch=patch, additions=2) for p in (odd, hostile)]
    ctx = PRContext(repo="o/r", number=7, url="https://github.com/o/r/pull/7", head_sha="a" * 40, files=files)
    digest = Digest(verdict=Verdict.SKIM, reason="r", headline="h", start_reading=[f"{odd}::f", f"{hostile}::f"],
                    decisions=[Decision(title="t", explanation="e", references=[odd, hostile])])
    report = Report(digest=digest, analyzer="model", url=ctx.url, head_sha=ctx.head_sha, locations=locate(digest, ctx))
    assert len(report.locations) == 4  # the locator places all four; the renderer decides what it may link
    body = render_comment(report)
    links = _links(body)
    assert len(links) == 2
    for href, _ in links:
        parts = urlsplit(href)
        assert parts.hostname == "github.com" and " " not in href and "<" not in href and "@" not in parts.path
    assert unquote(urlsplit(links[0][0]).path).endswith(odd)
    assert hashlib.sha256(odd.encode()).hexdigest() in links[1][0]
    rest = body.split("\n", 1)[1]
    assert rest.count("<details>") == 1 and rest.count("</details>") == 1 and "<!--" not in rest


def test_the_check_runs_summary_links_and_marks_are_on_the_head(pr: tuple[PRContext, Path]) -> None:
    from readworthy.render.check import check_output

    ctx, root = pr
    report = _report(ctx)
    output = check_output(report, annotations=5)
    assert output.title.startswith("📖 Worth close reading — h")
    assert check_links(output.summary, ctx, root) == len(REFERENCES) + 4
    assert 1 <= len(output.marks) <= 5
    added = _added_lines(ctx)
    for mark in output.marks:
        lines = _head_lines(root, ctx.head_sha, mark.path)
        assert 1 <= mark.line <= len(lines) and mark.line in added[mark.path]  # a line of the diff
    first = output.marks[0]
    assert (first.path, _head_lines(root, ctx.head_sha, first.path)[first.line - 1]) == ("pkg/evict.py",
                                                                                         "class Evictor:")
    assert "start reading here (1 of 3)" in first.message  # the removed file has no line to mark
    assert any(m.title.startswith("readworthy: key decision") for m in output.marks)
    assert any("key decision 1" in m.message.lower() for m in output.marks)
    assert check_output(report, annotations=0).marks == ()
    assert len(check_output(report, annotations=2).marks) == 2
    zh = check_output(_report(ctx, "zh-CN"), annotations=5)  # the check speaks the comment's language
    assert zh.title.startswith("📖 值得精读 — h") and zh.marks[0].title == "readworthy：从这里读起"
    assert "从这里读起（第 1 处，共 3 处）" in zh.marks[0].message
    assert [(m.path, m.line) for m in zh.marks] == [(m.path, m.line) for m in output.marks]


def test_the_comment_stays_within_githubs_limit_with_the_links_counted() -> None:
    from readworthy.models import Location
    from readworthy.render.comment import COMMENT_LIMIT

    paths = [f"pkg/{'d' * 150}/m{i}.py" for i in range(40)]
    refs = [f"{p}::Cls.method_{i}" for i, p in enumerate(paths)]
    locations = [Location(ref=r, path=p, start=10 + i, end=40 + i) for i, (r, p) in enumerate(zip(refs, paths,
                                                                                                      strict=True))]
    noisy = "<&[`*_" * 150  # escapes to several times its length
    digest = Digest(verdict=Verdict.DEEP_READ, reason=noisy[:400], headline=noisy[:200],
                    decisions=[Decision(title=noisy[:160], explanation=noisy[:900], references=refs[i * 8:i * 8 + 8])
                               for i in range(4)],
                    start_reading=refs[32:38], discussion=noisy[:900], open_items=[noisy[:300]] * 5,
                    linked_issue_findings=[noisy[:300]] * 4)
    report = Report(digest=digest, analyzer="model", url="https://github.com/o/r/pull/7", head_sha="a" * 40,
                    locations=locations)
    body = render_comment(report)
    assert len(body) <= COMMENT_LIMIT
    assert body.count("/blob/" + "a" * 40) == 32 and body.count("/pull/7/files#diff-") == 6  # every reference
    # Short of room, the links go before the decisions' details do, and the comment says so.
    without_links = render_comment(report.model_copy(update={"locations": []}))
    tight = render_comment(report, limit=len(without_links) - 2_000)
    assert "/blob/" not in tight and "the links to the code" in tight
    assert len(tight) <= len(without_links) - 2_000
    assert "**Key design decisions**" in tight and "decision details" not in tight  # the explanations stayed
