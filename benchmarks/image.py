"""Image benchmark: sqsmock's image beside a bare aiohttp app's, built alike on the same base.

    python benchmarks/image.py                  # 5 starts of each (under a minute once built)
    python benchmarks/image.py --runs 9 --base python:3.12-slim

Both images are built here: sqsmock's from the repository's Dockerfile, the bare app's from a
Dockerfile of the same shape (a venv with the same aiohttp version in a build stage, copied into
the base, a user of its own) running an ``aiohttp.web.Application`` with one route. Reported:

- size: each image's, and what each adds to the base;
- start-up: from ``docker run`` until the first HTTP answer (sqsmock: ``/_sqsmock/health``; the
  bare app: ``/health``), through the published port, as a test waiting for a container sees it;
- idle memory: the server process's resident memory (``VmRSS``) a second after its first answer;
- stop: how long ``docker stop`` (SIGTERM) takes.

Starts are interleaved (bare, sqsmock, bare, ...) so a busy moment of a shared machine falls on
both alike; medians are reported with the ratios sqsmock / bare (targets: start-up and memory
within 1.3x). Figures are reported, never asserted. Needs a Docker daemon on this machine (the
process's memory is read from ``/proc``). The base defaults to ``sqsmock-base:bookworm`` when the
daemon has it (``.ci/docker-setup`` imports it), else to the Dockerfile's default.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SQSMOCK_IMAGE = "sqsmock:bench"
BARE_IMAGE = "sqsmock-bench-bare-aiohttp:latest"
CI_BASE = "sqsmock-base:bookworm"

BARE_APP = """\
from aiohttp import web


async def health(request: web.Request) -> web.Response:
    return web.Response(text="ok")


application = web.Application()
application.router.add_get("/health", health)
web.run_app(application, host="0.0.0.0", port=9324, print=None, access_log=None)
"""

BARE_DOCKERFILE = """\
ARG BASE
FROM ${BASE} AS build
RUN python3 -m venv /opt/app \\
 && /opt/app/bin/pip install --no-cache-dir --disable-pip-version-check aiohttp==AIOHTTP \\
 && /opt/app/bin/pip uninstall --yes pip setuptools
FROM ${BASE}
COPY --from=build /opt/app /opt/app
COPY app.py /opt/app/app.py
RUN groupadd --gid 10001 app && useradd --uid 10001 --gid app --no-create-home app
ENV PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
USER app
EXPOSE 9324
CMD ["/opt/app/bin/python", "/opt/app/app.py"]
"""


def docker(*args: str, timeout: float = 900) -> str:
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise SystemExit(f"docker {' '.join(args[:3])}...: {done.stderr.strip()}")
    return done.stdout.strip()


def build(base: str | None) -> None:
    arg = [] if base is None else ["--build-arg", f"BASE={base}"]
    docker("build", "-q", *arg, "-t", SQSMOCK_IMAGE, str(ROOT))
    version = docker(
        "run", "--rm", SQSMOCK_IMAGE, "python3", "-c", "import aiohttp; print(aiohttp.__version__)"
    )
    with tempfile.TemporaryDirectory() as context:
        Path(context, "app.py").write_text(BARE_APP)
        Path(context, "Dockerfile").write_text(BARE_DOCKERFILE.replace("AIOHTTP", version))
        base_arg = base or "python:3.12-slim"
        docker("build", "-q", "--build-arg", f"BASE={base_arg}", "-t", BARE_IMAGE, context)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def rss_kib(pid: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise SystemExit(f"no VmRSS for process {pid}")


def one_start(image: str, path: str) -> tuple[float, int, float]:
    """Seconds to the first answer, resident KiB a second later, seconds ``docker stop`` took."""
    started = time.perf_counter()
    cid = docker("run", "-d", "-p", "127.0.0.1::9324", image)
    try:
        port = docker("port", cid, "9324/tcp").splitlines()[0].rsplit(":", 1)[1]
        url = f"http://127.0.0.1:{port}{path}"
        while not _answers(url):
            if time.perf_counter() - started > 60:
                raise SystemExit(f"{image} did not answer in 60 s: {docker('logs', cid)}")
            time.sleep(0.01)
        first_answer = time.perf_counter() - started
        time.sleep(1.0)  # idle
        memory = rss_kib(docker("inspect", "-f", "{{.State.Pid}}", cid))
        stopping = time.perf_counter()
        docker("stop", "-t", "10", cid)
        return first_answer, memory, time.perf_counter() - stopping
    finally:
        subprocess.run(["docker", "rm", "-f", cid], capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--base", help=f"the base image (default {CI_BASE} when present)")
    args = parser.parse_args()
    base = args.base
    if base is None:
        present = subprocess.run(["docker", "image", "inspect", CI_BASE], capture_output=True)
        base = CI_BASE if present.returncode == 0 else None
    print(f"building both images on {base or 'the Dockerfile default'} ...", flush=True)
    build(base)
    servers = {
        "bare aiohttp": (BARE_IMAGE, "/health"),
        "sqsmock": (SQSMOCK_IMAGE, "/_sqsmock/health"),
    }
    results: dict[str, list[tuple[float, int, float]]] = {name: [] for name in servers}
    for _ in range(args.runs):
        for name, (image, path) in servers.items():
            results[name].append(one_start(image, path))

    base_size = int(docker("image", "inspect", "-f", "{{.Size}}", base or "python:3.12-slim"))
    print(f"\nbase {base or 'python:3.12-slim'}: {base_size / 1e6:.0f} MB; {args.runs} starts each")
    print(f"{'':14}{'image MB':>9}{'added MB':>9}{'start s':>9}{'idle RSS MiB':>13}{'stop s':>8}")
    medians = {}
    for name, (image, _) in servers.items():
        size = int(docker("image", "inspect", "-f", "{{.Size}}", image))
        start = statistics.median(r[0] for r in results[name])
        memory = statistics.median(r[1] for r in results[name]) / 1024
        stop = statistics.median(r[2] for r in results[name])
        medians[name] = (start, memory)
        print(
            f"{name:14}{size / 1e6:9.0f}{(size - base_size) / 1e6:9.0f}"
            f"{start:9.2f}{memory:13.1f}{stop:8.2f}"
        )
    (s_start, s_mem), (b_start, b_mem) = medians["sqsmock"], medians["bare aiohttp"]
    print(f"\nsqsmock / bare: start-up {s_start / b_start:.2f}x, idle memory {s_mem / b_mem:.2f}x")


if __name__ == "__main__":
    main()
