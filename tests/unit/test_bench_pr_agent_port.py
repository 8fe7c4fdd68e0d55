"""bench/pr_agent_port.py: pr-agent 0.49.0's filters, language grouping and compressed-diff order."""

from __future__ import annotations

from bench_modules import load_bench

pa = load_bench("pr_agent_port")


def chars(text: str) -> int:
    """One token per character: makes the budgets in these tests easy to reason about."""
    return len(text)


def patch(added: int, removed: int = 0, tag: str = "x") -> str:
    body = [f"-{tag} old {i}" for i in range(removed)] + [f"+{tag} new {i}" for i in range(added)]
    return f"@@ -1,{removed} +1,{added} @@\n" + "\n".join(body)


def test_file_type_filter_drops_lock_files_binaries_and_minified_but_keeps_docs() -> None:
    assert not pa.is_valid_file("rust/Cargo.lock")
    assert not pa.is_valid_file("uv.lock")
    assert not pa.is_valid_file("docs/assets/graph.PNG")
    assert not pa.is_valid_file("web/app.min.js")
    assert pa.is_valid_file("README.md")  # md/txt are "extra" bad extensions, off by default
    assert pa.is_valid_file("requirements/test/xpu.txt")
    assert pa.is_valid_file("docker/Dockerfile")


def test_ignore_glob_is_anchored_at_the_repository_root() -> None:
    assert pa.is_ignored("vendor/lib/a.py")
    assert not pa.is_ignored("src/vendor/a.py")


def test_language_of_prefers_the_whole_name_then_the_longest_suffix() -> None:
    assert pa.language_of("vllm/a.py") == "Python"
    assert pa.language_of("docker/Dockerfile") == "Dockerfile"
    assert pa.language_of("cmake/utils.cmake.in") == "CMake"
    assert pa.language_of("csrc/k.CU") == "Cuda"  # case-folded, one language claims it
    assert pa.language_of("docker/Dockerfile.rocm") is None
    assert pa.language_of("README.md") is None


def test_groups_follow_the_repository_languages_largest_first_then_other() -> None:
    files = [pa.DiffFile(p, "modified", patch(1)) for p in ("a.md", "k.cu", "b.py", "c.rs", "d.py")]
    groups = pa.group_by_language(files, {"Python": 100, "Cuda": 50, "Go": 10})
    assert [[f.path for f in g] for g in groups] == [["b.py", "d.py"], ["k.cu"], ["a.md", "c.rs"]]
    assert [[f.path for f in g] for g in pa.group_by_language(files, None)] == [[f.path for f in files]]


def test_deletion_only_hunks_are_dropped_but_an_all_deletion_patch_stays_whole() -> None:
    mixed = "@@ -1,2 +1,0 @@\n-a\n-b\n@@ -10,1 +8,2 @@\n ctx\n+new"
    assert pa.omit_deletion_hunks(mixed) == "@@ -10,1 +8,2 @@\n ctx\n+new"
    only_removed = "@@ -1,2 +1,0 @@\n-a\n-b"
    assert pa.omit_deletion_hunks(only_removed) == ""
    prep = pa.prepare([pa.DiffFile("m.py", "modified", only_removed)], None, chars)
    assert prep.compressed == [("m.py", only_removed, "MODIFIED")]


FILES = [
    pa.DiffFile("docs/guide.md", "added", patch(40, tag="guide")),
    pa.DiffFile("gone.py", "removed", patch(0, 5, tag="gone")),
    pa.DiffFile("pkg/big.py", "modified", patch(0, 3, tag="big") + "\n" + patch(10, tag="big").replace("-1,0", "-9,0")),
    pa.DiffFile("pkg/small.py", "modified", patch(2, tag="small")),
    pa.DiffFile("rust/Cargo.lock", "modified", patch(4, tag="lock")),
]


def headers(diff: str) -> list[str]:
    return [line for line in diff.split("\n") if line.startswith("## File:")]


def test_compressed_diff_goes_group_by_group_largest_first_and_names_the_rest() -> None:
    prep = pa.prepare(FILES, {"Python": 1}, chars)
    big = chars(pa.render("pkg/big.py", pa.omit_deletion_hunks(FILES[2].patch or "")))
    small = chars(pa.render("pkg/small.py", FILES[3].patch or ""))
    room = big + small + 300  # both Python files and the name lists fit, the larger Markdown file does not
    diff = pa.pack(prep, room, room, chars)
    assert headers(diff) == ["## File: 'pkg/big.py'", "## File: 'pkg/small.py'"]
    assert "-big old" not in diff and "+big new 9" in diff  # its deletion-only hunk was dropped
    assert pa.ADDED_FILES + "\ndocs/guide.md" in diff
    assert pa.DELETED_FILES + "\ngone.py" in diff and "gone old" not in diff
    assert pa.FILTERED_FILES + "\nrust/Cargo.lock" in diff and "lock new" not in diff
    assert chars(diff) <= room


def test_without_languages_the_largest_file_of_the_whole_pr_comes_first() -> None:
    prep = pa.prepare(FILES, None, chars)
    guide = chars(pa.render("docs/guide.md", FILES[0].patch or ""))
    small = chars(pa.render("pkg/small.py", FILES[3].patch or ""))
    soft = guide + small + 1  # + the newline joining them: pkg/big.py (larger than small) cannot fit
    diff = pa.pack(prep, soft, soft + 200, chars)
    assert headers(diff) == ["## File: 'docs/guide.md'", "## File: 'pkg/small.py'"]
    assert pa.MORE_MODIFIED_FILES + "\npkg/big.py" in diff  # named in the room between soft and hard


def test_a_diff_that_fits_whole_is_sent_in_group_order_with_deleted_patches() -> None:
    prep = pa.prepare(FILES, {"Python": 1}, chars)
    diff = pa.pack(prep, 100_000, 100_000, chars)
    assert headers(diff) == ["## File: 'gone.py'", "## File: 'pkg/big.py'", "## File: 'pkg/small.py'",
                             "## File: 'docs/guide.md'"]
    assert "-gone old 0" in diff and "-big old 0" in diff
