"""Bench rows for broken, misleading and adversarial input (issue 16, items 3, 4 and 6; issue 23).

    .venv/bin/python bench/robustness_inputs.py      (bench/robustness.py prints the same rows)

What a user gets, measured the way they get it:

  broken patches     `readworthy local --patch` (in-process, no model key) on patches made by a real
                     `git show` in a temporary repository, then damaged: cut off mid-hunk (one file, and
                     the second of three files), a `diff --git` header followed by 100 KB of garbage, and
                     the whole output with CRLF line endings. For the damaged ones: does the printed guide
                     say the patch is incomplete, and which verdict does it give? For CRLF: are the title
                     and head SHA kept?
  link titles        PR descriptions with a Markdown link title in each form CommonMark allows ("…", '…',
                     (…), and a reference definition's title, also on its own line), packed by pack_prompt:
                     do the hidden words reach the model's messages, and does the visible link text?
  look-alikes        redact_secrets over the 30 public vLLM diffs and over tests/data/redaction_lookalikes.txt
                     (lines of ordinary code taken from public repositories): how many redactions. And the
                     price: of random keys the entropy rule would redact, how many now read as a name.
  adversarial text   (issue 23) bench/adversarial_text.py at 64 KB: the slowest (step, input) of all, and how
                     many took over 20x a like benign run.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import adversarial_text  # noqa: E402
from rows import Row, print_rows  # noqa: E402  (re-exported for robustness.py)

from readworthy.cli import main as cli_main
from readworthy.config import terminal_settings
from readworthy.models import PRContext
from readworthy.pack.identifiers import reads_as_identifier
from readworthy.pack.prompt import pack_prompt
from readworthy.pack.redact import redact_secrets, shannon_entropy

LOOKALIKES = ROOT / "tests" / "data" / "redaction_lookalikes.txt"
HIDDEN = "hidden-steer-41c9"  # the words a link title hides; they must not reach the prompt
SUBJECT = "Cache the tokenizer per model revision"


# --------------------------------------------------------------------------- broken patches


@contextlib.contextmanager
def _no_model_env() -> Iterator[None]:
    saved = dict(os.environ)
    for key in [k for k in os.environ if k.startswith(("GITHUB_", "INPUT_", "OPENAI_", "RUNNER_"))]:
        del os.environ[key]
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _run_local(patch: Path, fmt: str) -> tuple[int, str]:
    out = io.StringIO()
    with _no_model_env(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli_main(["local", "--patch", str(patch), "--format", fmt])
    return code, out.getvalue()


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def real_git_show(tmp: Path) -> str:
    """`git show` of a three-file commit in a fresh repository: the input every broken case starts from."""
    repo = tmp / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "dev@example.invalid")
    _git(repo, "config", "user.name", "Dev Person")
    names = ("tokenizer_cache.py", "loader.py", "registry.py")
    for name in names:
        (repo / name).write_text("".join(f"def helper_{i}(x):\n    return x + {i}\n\n" for i in range(80)))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    for n, name in enumerate(names):
        lines = (repo / name).read_text().split("\n")
        for i in range(30, 150):  # one long hunk per file
            lines[i] = lines[i].replace("return x +", f"return x * {n} +")
        (repo / name).write_text("\n".join(lines))
    _git(repo, "commit", "-qam", SUBJECT, "-m", "Keyed by model and revision so two revisions never share one.")
    return _git(repo, "show", "--no-color", "HEAD")


def _cut_inside_hunk(text: str, file_index: int) -> str:
    """The text up to the middle of the hunk of the file_index-th file: what a cut-off download leaves."""
    starts = [i for i in range(len(text)) if text.startswith("diff --git ", i)]
    start = starts[file_index]
    end = starts[file_index + 1] if file_index + 1 < len(starts) else len(text)
    hunk = text.index("\n@@ ", start)
    middle = hunk + (end - hunk) // 2
    return text[: text.index("\n", middle) + 1]


def _garbage(size: int, seed: int = 16) -> str:
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 {}[]();:=<>#*&^%$!~"
    lines, total = [], 0
    while total < size:
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(10, 120)))
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines) + "\n"


def _says_incomplete(markdown: str) -> bool:
    return "incomplete" in markdown.lower()


def _verdict(markdown: str) -> str:
    heading = markdown.split("\n", 1)[0]
    for word, verdict in (("close reading", "deep-read"), ("skim", "skim"), ("skip", "skip")):
        if word in heading.lower():
            return verdict
    return "?"


def broken_patch_rows(tmp: Path) -> list[Row]:
    show = real_git_show(tmp)
    first = show.index("diff --git ")
    second = show.index("diff --git ", first + 1)
    cases = {
        "patch cut off mid-hunk (1 file)": _cut_inside_hunk(show[:second], 0),
        "patch cut off mid-hunk (file 2 of 3)": _cut_inside_hunk(show, 1),
        "`diff --git` + 100 KB of garbage": show[: show.index("\n", first) + 1] + _garbage(100 * 1024),
    }
    rows = []
    for name, text in cases.items():
        path = tmp / "case.patch"
        path.write_text(text)
        code, markdown = _run_local(path, "markdown")
        stated = code == 0 and _says_incomplete(markdown)
        outcome = f"exit {code}, verdict {_verdict(markdown)}, says incomplete: {'yes' if stated else 'no'}"
        rows.append(Row(name, outcome, stated))
    path = tmp / "crlf.patch"
    path.write_bytes(show.replace("\n", "\r\n").encode())
    code, out = _run_local(path, "json")
    data = json.loads(out) if code == 0 else {}
    sha = show.split("\n", 1)[0].split()[1]
    title_kept = data.get("title") == SUBJECT
    sha_kept = data.get("head_sha") == sha
    files = data.get("coverage", {}).get("files_total", 0)
    rows.append(Row("`git show` with CRLF line endings",
                    f"title kept: {'yes' if title_kept else 'no'}, head SHA kept: {'yes' if sha_kept else 'no'}, "
                    f"{files} of 3 files", title_kept and sha_kept and files == 3))
    return rows


# --------------------------------------------------------------------------- link titles

LINK_TITLE_BODIES = {
    'inline "title"': f'See [the design doc](https://example.com/design "{HIDDEN}") for the cache layout.',
    "inline 'title'": f"See [the design doc](https://example.com/design '{HIDDEN}') for the cache layout.",
    "inline (title)": f"See [the design doc](https://example.com/design ({HIDDEN})) for the cache layout.",
    "reference title": (
        f'See [the design doc][doc] for the cache layout.\n\n[doc]: https://example.com/design "{HIDDEN}"'
    ),
    "reference title, next line": (
        f"See [the design doc][doc] for the cache layout.\n\n[doc]: https://example.com/design\n    '{HIDDEN}'"
    ),
}


def link_title_rows() -> list[Row]:
    settings = terminal_settings({})
    reached = kept = 0
    for body in LINK_TITLE_BODIES.values():
        ctx = PRContext(title=SUBJECT, body=body)
        text = "\n".join(m.content for m in pack_prompt(ctx, settings).messages)
        reached += HIDDEN in text
        kept += "the design doc" in text
    n = len(LINK_TITLE_BODIES)
    return [Row("Markdown link titles", f"hidden title reaches the prompt: {reached} of {n} forms; "
                f"visible link text kept: {kept} of {n}", reached == 0 and kept == n)]


# --------------------------------------------------------------------------- look-alikes


def vllm_fixtures() -> Path | None:
    for parent in ROOT.parents:
        candidate = parent / "shared" / "fixtures" / "vllm"
        if candidate.is_dir():
            return candidate
    return None


def lookalike_lines() -> list[str]:
    return [line for line in LOOKALIKES.read_text(encoding="utf-8").split("\n")
            if line.strip() and not line.startswith("#")]


def lookalike_rows() -> list[Row]:
    rows = []
    fixtures = vllm_fixtures()
    if fixtures is not None:
        patches = sorted(fixtures.glob("*/diff.patch"))
        total = sum(redact_secrets(p.read_bytes().decode("utf-8", "replace"))[1] for p in patches)
        rows.append(Row("redactions over the public vLLM diffs", f"{total} over {len(patches)} diffs", total == 0))
    if LOOKALIKES.is_file():
        lines = lookalike_lines()
        hit = sum(1 for line in lines if redact_secrets(line)[1])
        rows.append(Row("redactions over the look-alike file", f"{hit} of {len(lines)} lines", hit == 0))
    return rows


RANDOM_ALPHABETS = {
    "hex": "0123456789abcdef",
    "lower": "abcdefghijklmnopqrstuvwxyz0123456789",
    "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "mixed": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "base64": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/",
    "urlsafe": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_",
}


def random_key_row(per_length: int = 2000, seed: int = 16) -> Row:
    """Random keys (12-48 characters) that the length/entropy rule redacts: how many read as a name."""
    rng = random.Random(seed)
    tried = kept = 0
    for alphabet in RANDOM_ALPHABETS.values():
        for length in (12, 16, 20, 24, 32, 40, 48):
            for _ in range(per_length):
                key = "".join(rng.choice(alphabet) for _ in range(length))
                if not (any(c.isdigit() for c in key) and any(c.isalpha() for c in key)) \
                        or shannon_entropy(key) < 3.3:
                    continue
                tried += 1
                kept += reads_as_identifier(key)
    return Row("random keys read as a name", f"{kept} of {tried:,} (kept unredacted)", kept * 5000 <= tried)


def adversarial_text_row(size: int = 64 * 1024, timeout: float = 10.0) -> Row:
    """Issue 23: every text step on adversarial input (bench/adversarial_text.py), the slowest of all."""
    timings = adversarial_text.measure(list(adversarial_text.STEPS), size, timeout)
    return Row(f"adversarial text ({size // 1024} KB inputs)", adversarial_text.summary(timings, timeout),
               not adversarial_text.over_bound(timings))


def input_rows(tmp: Path) -> list[Row]:
    return broken_patch_rows(tmp) + link_title_rows() + lookalike_rows() + [random_key_row(), adversarial_text_row()]


def main() -> int:
    from robustness_reading import reading_rows  # busy PRs, the taste memory, locked PRs, digest reports

    with tempfile.TemporaryDirectory() as tmp:
        rows = input_rows(Path(tmp))
        reading = reading_rows(Path(tmp))
    print("readworthy robustness: broken, misleading and adversarial input (issues 16, 23)")
    print_rows(rows)
    print("readworthy robustness: busy PRs, taste memory, locked PRs, digest reports (issue 23)")
    print_rows(reading)
    return 0 if all(r.ok for r in rows + reading) else 1


if __name__ == "__main__":
    sys.exit(main())
