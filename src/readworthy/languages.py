"""Which family of languages a file is written in, by its extension: the one table every reader shares.

Readers ask questions of a family, not of one language: whether `#` starts a comment or a preprocessor
line, whether a return type is written before the name, whether a method line may start with a modifier.
Each family is a set of extensions, lower case and without the dot; `extension(path)` gives a path's.
"""

from __future__ import annotations

PYTHON = frozenset({"py", "pyi", "pyx"})
# C, C++, CUDA and HIP, OpenCL, Metal, Objective-C: the preprocessor's `#`, the return type before the name
C_LIKE = frozenset({"c", "cc", "cpp", "cxx", "h", "hh", "hpp", "cu", "cuh", "hip", "cl", "metal", "m", "mm"})
RUST = frozenset({"rs"})
GO = frozenset({"go"})
JS_LIKE = frozenset({"js", "jsx", "ts", "tsx", "mjs", "cjs"})
TYPESCRIPT = frozenset({"ts", "tsx"})
# the return type before the name, as in C, and modifiers (`public static`) before both
JAVA_LIKE = frozenset({"java", "cs"})
# `fun name(…): T` and `def name(): T`: the return type after the parameters, modifiers first
KOTLIN_SCALA = frozenset({"kt", "kts", "scala"})
SWIFT = frozenset({"swift"})
SHELL = frozenset({"sh", "bash", "zsh"})

# Where `#` starts a comment, and where `//` and `/* */` do (PHP has both)
HASH_COMMENTS = PYTHON | SHELL | frozenset({"rb", "pl", "jl", "cmake", "yaml", "yml", "toml", "mk", "php"})
SLASH_COMMENTS = C_LIKE | RUST | GO | JS_LIKE | JAVA_LIKE | KOTLIN_SCALA | SWIFT | frozenset(
    {"proto", "dart", "zig", "php"})


def extension(path: str) -> str:
    """The lower-case extension of the file's name, without the dot; "" when it has none."""
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


def written_in(path: str, *families: frozenset[str]) -> bool:
    """Whether the file's extension belongs to one of `families`."""
    ext = extension(path)
    return any(ext in family for family in families)
