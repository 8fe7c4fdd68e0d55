"""Start-up to the first GitHub API request, three ways of delivering the action to a fresh runner.

    sudo .venv/bin/python bench/startup.py            # all three ways
    sudo .venv/bin/python bench/startup.py --runs 3   # median of 3 for the pull and composite ways

1. build (the old `image: Dockerfile`): `buildah bud` of the Dockerfile on the local base image, no
   layer cache, then a container from it. GitHub also pulls the Dockerfile's base image on every job;
   that load is timed on its own (the base as an OCI archive into empty storage) and added.
2. pull (the new `image: docker://…@sha256:…`): the image from 1, exported once to an OCI archive
   (untimed), is loaded into empty storage (`buildah pull oci-archive:`), then a container from it.
   No registry is reachable here, so the network transfer is not in the figure: the archive size is
   printed for that.
3. composite (a composite action installing from the hashed lock): a fresh venv, `pip install
   --require-hashes --only-binary=:all: -r requirements.lock`, then readworthy's wheel (built once,
   untimed); with an empty pip cache, then again into a new venv with the cache the first filled.

Where pip gets packages: `--pip pypi` (the default) is a runner's view, PyPI over the network only
(pip --isolated; the build gets only the host's CA bundle); `--pip machine` uses this machine's pip
configuration (local wheel mirrors) for both, as scripts/container-smoke does.

Each way then runs `readworthy action` on one `pull_request` event with the environment GitHub's
runner gives (scripts/smoke_servers.py's), against the tests' GitHub and OpenAI-compatible servers on
127.0.0.1, and the clock stops at the first request the GitHub server receives; the time until the
comment is posted is printed too. Needs root and buildah with the base image `localhost/pybase`:
run `sudo scripts/container-smoke` once first (it installs buildah and makes the base).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import smoke_servers as smoke  # after the path: scripts/ is not a package
from servers.github_server import GitHubServer  # smoke_servers put tests/ on the path
from servers.openai_server import OpenAIServer

BASE_IMAGE = "localhost/pybase"
BASE_TAR = ROOT / ".cache" / "container" / "base.tar"
IMAGE = "localhost/readworthy:startup-bench"


@dataclass
class Started:
    """One run of `readworthy action`: seconds to the first GitHub request, and to the comment."""

    first_request_s: float
    done_s: float


def now() -> float:
    return time.perf_counter()


def run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if proc.returncode != 0:
        raise SystemExit(f"startup: {' '.join(cmd[:4])}... failed:\n{proc.stderr[-2000:]}")
    return proc


def buildah(storage: list[str], *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return run(["buildah", *storage, *args], **kwargs)


def timed(step: Callable[[], object]) -> float:
    t0 = now()
    step()
    return now() - t0


# --------------------------------------------------------------------------- one action run


class World:
    """The test servers with one seeded pull request, and the /github directory a runner would mount."""

    def __init__(self, tmp: Path) -> None:
        self.gh = GitHubServer().start()
        self.ai = OpenAIServer().start()
        self.number = smoke.seed(self.gh)
        head_sha = self.gh.state.repo(smoke.REPO).items[self.number].head_sha
        self.mount = tmp / "github"
        for sub in ("workflow", "file_commands", "home", "workspace", "runner_temp"):
            (self.mount / sub).mkdir(parents=True)
        (self.mount / "workflow" / "event.json").write_text(json.dumps(smoke.event_payload(self.number, head_sha)))
        self.runs = 0

    def stop(self) -> None:
        self.ai.stop()
        self.gh.stop()

    def env(self, host_paths: bool) -> dict[str, str]:
        """GITHUB_* and INPUT_* for one run; forced, so every run analyses and posts."""
        self.runs += 1
        inputs = {"openai-api-key": smoke.API_KEY, "openai-base-url": self.ai.url, "model": "gpt-4.1-mini",
                  "force": "true"}
        env = smoke.runner_env(self.gh, self.runs) | smoke.action_inputs(inputs)
        for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
            (self.mount / env[name].removeprefix("/github/")).touch()
        if host_paths:
            env = {k: v.replace("/github/", f"{self.mount}/") if v.startswith("/github/") else v for k, v in env.items()}
        return env

    def time_run(self, cmd: list[str], env: dict[str, str] | None = None) -> Started:
        """Start `cmd` and time it to the GitHub server's first request and to its exit."""
        self.gh.clear_log()
        self.ai.add_json(smoke.MODEL_ANSWER)
        t0 = now()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = None
        while proc.poll() is None:
            if first is None and self.gh.requests:
                first = now() - t0
            time.sleep(0.002)
        done = now() - t0
        out, err = proc.communicate()
        if proc.returncode != 0 or first is None:
            raise SystemExit(f"startup: the action run failed (exit {proc.returncode}):\n{(out + err)[-3000:]}")
        comments = smoke.marker_comments(self.gh, self.number)
        if len(comments) != 1:
            raise SystemExit(f"startup: expected one readworthy comment after the run, found {len(comments)}")
        return Started(first, done)


def container_run(world: World, storage: list[str], image: str) -> tuple[float, Started]:
    """`buildah from` (timed: a container's file system) and one action run inside it."""
    t0 = now()
    container = buildah(storage, "from", image).stdout.strip()
    create_s = now() - t0
    try:
        cmd = ["buildah", *storage, "run", "--isolation", "chroot", "-v", f"{world.mount}:/github"]
        for key, value in world.env(host_paths=False).items():
            cmd += ["--env", f"{key}={value}"]
        started = world.time_run([*cmd, container, "--", "readworthy", "action"])
    finally:
        buildah(storage, "rm", container)
    return create_s, started


# --------------------------------------------------------------------------- the three ways


def pip_access_mounts() -> list[str]:
    """The host's pip configuration for the build, read-only (as scripts/container-smoke does)."""
    paths = ["/etc/pip.conf", "/etc/xdg/pip", str(Path.home() / ".config/pip/pip.conf"), "/etc/ssl/certs/ca-certificates.crt"]
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=False)
    for word in listed.stdout.replace("'", " ").split():
        word = word.split("=", 1)[-1].removeprefix("file://")
        if word.startswith("/"):
            paths.append(word.removesuffix("/simple").rstrip("/"))
    mounts: list[str] = []
    kept: list[str] = []
    for path in sorted(set(paths), key=len):
        if os.path.exists(path) and not any(path.startswith(k + "/") for k in kept):
            kept.append(path)
            mounts += ["-v", f"{path}:{path}:ro"]
    return mounts


def fresh_storage(tmp: Path, name: str) -> list[str]:
    root = tmp / name
    return ["--root", str(root / "root"), "--runroot", str(root / "run"), "--storage-driver", "vfs"]


def way_build(world: World, tmp: Path, pip_mode: str) -> dict[str, float]:
    storage = ["--storage-driver", "vfs"]  # where container-smoke left localhost/pybase
    subprocess.run(["buildah", *storage, "rmi", "-f", IMAGE], capture_output=True, check=False)
    # pypi: only the CA bundle (this machine reaches PyPI through a TLS proxy whose CA is in it).
    ca = "/etc/ssl/certs/ca-certificates.crt"
    mounts = pip_access_mounts() if pip_mode == "machine" else ["-v", f"{ca}:{ca}:ro"]
    build_s = timed(lambda: buildah(storage, "bud", "--isolation", "chroot", *mounts,
                                    "--build-arg", f"BASE_IMAGE={BASE_IMAGE}", "-t", IMAGE, str(ROOT)))
    subprocess.run(["buildah", *storage, "rmi", "--prune"], capture_output=True, check=False)
    empty = fresh_storage(tmp, "base-pull")
    base_s = timed(lambda: import_base(empty))
    create_s, started = container_run(world, storage, IMAGE)
    return {"base image load": base_s, "image build": build_s, "container create": create_s,
            "to first request": started.first_request_s, "run to comment": started.done_s,
            "total to first request": base_s + build_s + create_s + started.first_request_s}


def import_base(storage: list[str]) -> None:
    """The base root file system as an image in empty storage: what pulling the base would write."""
    containerfile = BASE_TAR.parent / "Containerfile.base"
    containerfile.write_text("FROM scratch\nADD base.tar /\n")
    buildah(storage, "bud", "--quiet", "--isolation", "chroot", "-f", str(containerfile), "-t", "bench-base",
            str(BASE_TAR.parent))


def way_pull(world: World, tmp: Path, archive: Path, run_no: int) -> dict[str, float]:
    storage = fresh_storage(tmp, f"pull-{run_no}")
    pull_s = timed(lambda: buildah(storage, "pull", "--quiet", f"oci-archive:{archive}"))
    image = buildah(storage, "images", "--quiet").stdout.split()[0]
    create_s, started = container_run(world, storage, image)
    shutil.rmtree(tmp / f"pull-{run_no}", ignore_errors=True)
    return {"image load (pull)": pull_s, "container create": create_s, "to first request": started.first_request_s,
            "run to comment": started.done_s, "total to first request": pull_s + create_s + started.first_request_s}


def way_composite(world: World, tmp: Path, wheel: Path, cache: Path, run_no: int, pip_mode: str) -> dict[str, float]:
    venv = tmp / f"venv-{run_no}"
    pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "--cache-dir", str(cache)]
    if pip_mode == "pypi":
        pip.append("--isolated")  # no local mirrors: PyPI only, as on a runner
    venv_s = timed(lambda: run([sys.executable, "-m", "venv", str(venv)]))
    lock_s = timed(lambda: run([*pip, "install", "--quiet", "--require-hashes", "--only-binary=:all:",
                                "-r", str(ROOT / "requirements.lock")]))
    wheel_s = timed(lambda: run([*pip, "install", "--quiet", "--no-deps", str(wheel)]))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "OPENAI_"))}
    env |= world.env(host_paths=True)
    started = world.time_run([str(venv / "bin" / "readworthy"), "action"], env=env)
    shutil.rmtree(venv, ignore_errors=True)
    install_s = venv_s + lock_s + wheel_s
    return {"venv": venv_s, "pip install lock": lock_s, "pip install wheel": wheel_s,
            "to first request": started.first_request_s, "run to comment": started.done_s,
            "total to first request": install_s + started.first_request_s}


# --------------------------------------------------------------------------- report


def median_rows(rows: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(row[key] for row in rows) for key in rows[0]}


def show(title: str, row: dict[str, float]) -> None:
    parts = ", ".join(f"{k} {v:.1f} s" for k, v in row.items() if k != "total to first request")
    print(f"{title:<34} {row['total to first request']:6.1f} s   ({parts})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1, help="runs of the pull and composite ways (median)")
    parser.add_argument("--pip", choices=("pypi", "machine"), default="pypi",
                        help="pypi: PyPI only, as on a runner; machine: this machine's pip configuration")
    args = parser.parse_args()
    if os.geteuid() != 0 or shutil.which("buildah") is None:
        print("startup: needs root and buildah: run `sudo scripts/container-smoke` once, then this with sudo",
              file=sys.stderr)
        return 1
    if subprocess.run(["buildah", "--storage-driver", "vfs", "inspect", "--type", "image", BASE_IMAGE],
                      capture_output=True, check=False).returncode != 0 or not BASE_TAR.exists():
        print(f"startup: no {BASE_IMAGE}: run `sudo scripts/container-smoke` once first", file=sys.stderr)
        return 1

    with tempfile.TemporaryDirectory(prefix="readworthy-startup-") as tmp_name:
        tmp = Path(tmp_name)
        world = World(tmp)
        try:
            print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; packages from "
                  + ("PyPI only" if args.pip == "pypi" else "this machine's pip configuration"))
            build = way_build(world, tmp, args.pip)
            archive = tmp / "image.tar"
            buildah(["--storage-driver", "vfs"], "push", "--quiet", IMAGE, f"oci-archive:{archive}")
            archive_mb = archive.stat().st_size / 1e6
            pulls = [way_pull(world, tmp, archive, i) for i in range(args.runs)]

            wheel_dir = tmp / "dist"
            run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheel_dir), str(ROOT)])
            wheel = next(wheel_dir.glob("readworthy-*.whl"))
            cold, warm = [], []
            for i in range(args.runs):
                cache = tmp / f"pip-cache-{i}"
                cold.append(way_composite(world, tmp, wheel, cache, 2 * i, args.pip))
                warm.append(way_composite(world, tmp, wheel, cache, 2 * i + 1, args.pip))
                shutil.rmtree(cache, ignore_errors=True)
        finally:
            world.stop()
            subprocess.run(["buildah", "--storage-driver", "vfs", "rmi", "-f", IMAGE], capture_output=True, check=False)

    print(f"\nstart-up to the first GitHub API request (runs: build 1, others {args.runs}, median):")
    show("old: image: Dockerfile (build)", build)
    show("new: prebuilt image (pull-equiv.)", median_rows(pulls))
    show("composite, cold pip cache", median_rows(cold))
    show("composite, warm pip cache", median_rows(warm))
    print(f"image as an OCI archive: {archive_mb:.0f} MB (the network transfer of a real pull, not timed here); "
          f"load average now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
