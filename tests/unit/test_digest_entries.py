"""Digest entries as full as the team's own: each says who should read it, the decisions with links to their
lines, the tests to read alongside, the open follow-ups and the review debate — from the stored Report alone
(its locations and head SHA), in English and zh-CN; the least valuable entries are shortened first."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from readworthy.digest.models import DigestEntry, DigestRequest, DigestResult
from readworthy.digest.render import render_digest
from readworthy.digest.window import Window
from readworthy.models import Decision, Digest, Location, PullSummary, Report, Verdict
from readworthy.render.comment import render_comment
from readworthy.render.links import diff_anchor
from readworthy.render.state import decode_state

NOW = datetime(2026, 6, 10, 12, 0, tzinfo=UTC)
SHA = "ab" * 20
LOCATIONS = [
    Location(ref="vllm/v1/worker/rope_cache.py::RotaryCache.prepare", path="vllm/v1/worker/rope_cache.py",
             start=12, end=30),
    Location(ref="vllm/v1/worker/rope_cache.py", path="vllm/v1/worker/rope_cache.py", start=3, end=3),
    Location(ref="tests/v1/worker/test_rope_cache.py::test_chunked_prefill",
             path="tests/v1/worker/test_rope_cache.py", start=40, end=52),
]


def entry(number: int, verdict: Verdict, *, full: bool = True, reason: str = "Because.",
          language: str = "en") -> DigestEntry:
    digest = Digest(
        verdict=verdict, reason=reason, headline=f"Headline {number}",
        audience=["attention backend owners (`vllm/attention/`)", "model runner"] if full else [],
        decisions=[Decision(title="Per-step cache owned by the runner", explanation="x",
                            references=[LOCATIONS[0].ref, LOCATIONS[1].ref]),
                   Decision(title="Fail fast on unsupported backends", explanation="y",
                            references=["supports_shared_rope"])],
        start_reading=[LOCATIONS[0].ref, LOCATIONS[2].ref],
        discussion="alice questioned the per-layer path; bob kept it behind a flag for one release" if full else "",
        open_items=["multimodal models are not covered yet", "remove the old path (#1234)"] if full else [],
    )
    url = f"https://github.com/o/r/pull/{number}"
    report = Report(digest=digest, analyzer="model", model="m", language=language, number=number, url=url,
                    head_sha=SHA, locations=LOCATIONS)
    cand = PullSummary(number=number, title="A change", url=url, author="alice", author_is_bot=False, draft=False,
                       state="closed", merged=True, merged_at=NOW - timedelta(hours=number), created_at=None,
                       head_sha=SHA, base_ref="main")
    return DigestEntry(cand, report, "cached")


def result(entries: list[DigestEntry], language: str = "en") -> DigestResult:
    return DigestResult(request=DigestRequest(repo="o/r", window=Window(NOW - timedelta(days=1), NOW)),
                        language=language, entries=entries, considered=len(entries))


def _section(md: str, number: int) -> str:
    start = md.index(f"[#{number}](")
    following = [m.start() for m in re.finditer(r"\n### |\n## |\n- \[#|\n---\n", md) if m.start() > start]
    return md[start: following[0] if following else len(md)]


def test_a_deep_read_entry_read_alone_says_who_what_where_and_what_is_open() -> None:
    md = render_digest(result([entry(1, Verdict.DEEP_READ)]), now=NOW)
    one = _section(md, 1)
    assert "**Who should read:** attention backend owners (`vllm/attention/`), model runner" in one
    assert "**Review discussion:** alice questioned the per-layer path; bob kept it" in one
    assert "**Open:** multimodal models are not covered yet · remove the old path (#1234)" in one
    # the decisions' references link to their lines at the head commit
    prepare = f"https://github.com/o/r/blob/{SHA}/vllm/v1/worker/rope_cache.py#L12-L30"
    assert f"[`rope_cache.py::RotaryCache.prepare`]({prepare})" in one
    # the test to read alongside opens the PR's Files changed tab at its line
    anchor = diff_anchor("tests/v1/worker/test_rope_cache.py")
    assert f"(https://github.com/o/r/pull/1/files#{anchor}R40)" in one
    assert "`supports_shared_rope`" in one and "[`supports_shared_rope`]" not in one  # no place, no link


def test_every_link_in_the_digest_names_a_stored_location_at_the_head() -> None:
    md = render_digest(result([entry(1, Verdict.DEEP_READ), entry(2, Verdict.SKIM)]), now=NOW)
    places = {(loc.path, loc.start) for loc in LOCATIONS}
    anchors = {diff_anchor(loc.path): loc.path for loc in LOCATIONS}
    code_links = 0
    for url in re.findall(r"\]\((https://[^)]+)\)", md):
        if re.search(r"/pull/\d+$", url):
            continue  # the PR itself
        code_links += 1
        blob = re.fullmatch(rf"https://github.com/o/r/blob/{SHA}/(.+)#L(\d+)(?:-L\d+)?", url)
        tab = re.fullmatch(r"https://github.com/o/r/pull/\d+/files#(diff-[0-9a-f]{64})R(\d+)", url)
        assert blob or tab, url
        path, line = (blob.group(1), blob.group(2)) if blob else (anchors[tab.group(1)], tab.group(2))  # type: ignore[union-attr]
        assert (path, int(line)) in places, url
    assert code_links >= 5


def test_entries_without_them_carry_no_empty_labels_and_skips_stay_one_line() -> None:
    md = render_digest(result([entry(1, Verdict.SKIM, full=False), entry(2, Verdict.SKIP)]), now=NOW)
    skim = _section(md, 1)
    assert "Who should read" not in skim and "Review discussion" not in skim and "**Open:**" not in skim
    skip = _section(md, 2)
    assert skip.count("\n") <= 2 and "Who should read" not in skip


def test_chinese_entries() -> None:
    md = render_digest(result([entry(1, Verdict.DEEP_READ, language="zh-CN")], language="zh-CN"), now=NOW)
    assert "**适合谁读：**" in md and "**评审讨论：**" in md and "**待跟进：**" in md
    assert "Who should read" not in md and "/blob/" + SHA in md


def test_a_stored_report_gives_the_digest_the_same_links() -> None:
    fresh = entry(1, Verdict.DEEP_READ)
    stored = decode_state(render_comment(fresh.report))
    assert stored is not None
    again = DigestEntry(fresh.candidate, stored, "cached")
    assert render_digest(result([again]), now=NOW) == render_digest(result([fresh]), now=NOW)


def test_the_least_valuable_entries_are_shortened_first() -> None:
    long = "A reason that goes on and on. " * 12
    entries = ([entry(i, Verdict.DEEP_READ) for i in range(1, 4)] + [entry(i, Verdict.SKIM) for i in range(4, 8)]
               + [entry(i, Verdict.SKIP, reason=long) for i in range(8, 60)])
    full = render_digest(result(entries), now=NOW)
    shorter = render_digest(result(entries), now=NOW, limit=len(full) - 500)
    assert len(shorter) <= len(full) - 500 and "Shortened to fit" in shorter
    assert _section(shorter, 9).count("goes on") < _section(full, 9).count("goes on")  # skip lines first
    for n in (1, 4):  # deep-reads and skims keep all they say
        assert _section(shorter, n) == _section(full, n)
    # More than dropping every skip line's reason could save: the skims give up their extras next.
    tight = render_digest(result(entries), now=NOW, limit=len(full) - 52 * len(long) - 1500)
    assert "Who should read" in _section(tight, 1)  # the deep-reads still say who should read them
    assert "Who should read" not in _section(tight, 4)  # the skims gave theirs up first
