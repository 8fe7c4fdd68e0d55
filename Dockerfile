# readworthy's Docker action image.
#
# Two stages: `build` installs the pinned, hash-checked dependencies and readworthy itself into
# /opt/venv and writes the tiktoken encodings; the final stage copies only those two directories onto
# a clean base, so no pip cache, wheel, build backend or compiler reaches the image.
#
# BASE_IMAGE must provide `python3` with the venv module (python:3.12-slim does; so does Debian's
# python3 + python3-venv, which scripts/container-smoke uses). Both stages use the same base so the
# venv's interpreter symlink stays valid.
# Pinned by digest (the multi-platform index of python:3.12-slim), so a release builds on exactly this
# base, whatever the tag points at that day. To move it: `docker buildx imagetools inspect
# python:3.12-slim` prints the tag's current index digest; put it here in its own commit.
ARG BASE_IMAGE=python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea

FROM ${BASE_IMAGE} AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1

WORKDIR /src

# Dependencies first: this layer is reused until a lock file changes.
# --only-binary keeps compilers out of the build; --require-hashes rejects anything the lock did not pin.
COPY requirements.lock requirements-build.lock ./
RUN python3 -m venv /opt/build-backend \
    && /opt/build-backend/bin/python3 -m pip install --no-cache-dir --require-hashes --only-binary=:all: \
        -r requirements-build.lock \
    && python3 -m venv /opt/venv \
    && /opt/venv/bin/python3 -m pip install --no-cache-dir --require-hashes --only-binary=:all: \
        -r requirements.lock

# The project itself: built into a wheel with the pinned backend (no network), installed without deps.
# LICENSE: the wheel (and so the image) carries the Apache-2.0 text, as the license asks.
COPY pyproject.toml README.md LICENSE ./
COPY src ./src
RUN /opt/build-backend/bin/python3 -m pip wheel --no-cache-dir --no-deps --no-build-isolation \
        --wheel-dir /tmp/dist . \
    && /opt/venv/bin/python3 -m pip install --no-cache-dir --no-deps /tmp/dist/readworthy-*.whl \
    && { /opt/venv/bin/python3 -m pip check \
         || { echo "requirements.lock does not cover pyproject.toml: run scripts/lock-deps" >&2; exit 1; }; } \
    && /opt/venv/bin/python3 -m readworthy.pack.tokens --materialise /opt/readworthy/tiktoken \
    && /opt/venv/bin/python3 -m pip uninstall --yes pip setuptools \
    && /opt/venv/bin/python3 -m compileall -q /opt/venv/lib

FROM ${BASE_IMAGE}

LABEL org.opencontainers.image.title="readworthy" \
      org.opencontainers.image.description="Posts one comment per pull request saying whether it is worth reading, and why." \
      org.opencontainers.image.licenses="Apache-2.0"

COPY --from=build /opt/venv /opt/venv
COPY --from=build /opt/readworthy/tiktoken /opt/readworthy/tiktoken

# TIKTOKEN_CACHE_DIR: token counting never downloads at run time.
# PYTHONDONTWRITEBYTECODE: the bytecode is already compiled; the runner's container is thrown away.
# DL3064 flags "TOKEN" inside TIKTOKEN_CACHE_DIR; it is a directory path, not a secret.
# hadolint ignore=DL3064
ENV PATH=/opt/venv/bin:$PATH \
    TIKTOKEN_CACHE_DIR=/opt/readworthy/tiktoken \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1

# GitHub runs Docker actions as root with the workspace mounted at /github/workspace: no USER here.
ENTRYPOINT ["readworthy", "action"]
