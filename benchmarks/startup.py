"""Startup benchmark: ``sqsmock serve`` vs a bare aiohttp app, same interpreter, same run.

    python benchmarks/startup.py                # 15 starts of each (about half a minute)
    python benchmarks/startup.py --runs 5

For each server: spawn the process, poll-connect until the first request is answered, and note
the time from spawn to that answer and the process's resident memory then (``VmRSS`` of
``/proc/<pid>/status``); then stop it with SIGTERM. The starts are interleaved (bare, sqsmock,
bare, sqsmock...) so that a busy moment of a shared machine falls on both alike; medians are
reported, with the ratios sqsmock / bare. Targets: time <= 1.3x, idle RSS <= 1.15x. The CPU
time each process used until its first answer (``/proc/<pid>/stat``) is shown too: on a busy
machine it varies far less than the wall time.

Each server is started once before the measured rounds, with ``PYTHONDONTWRITEBYTECODE`` removed
from its environment, so that every process then loads compiled modules (``__pycache__``) as an
installed package does -- otherwise sqsmock's modules, unlike aiohttp's, are compiled from source
on every start of a checkout.

Servers:
  bare aiohttp     an ``aiohttp.web.Application`` with one route, ``web.run_app``
  sqsmock serve    ``python -m sqsmock serve``, first request an SQS ``ListQueues`` (AWS JSON 1.0)
  sqsmock.serve()  ``sqsmock.serve()`` from a script, the same first request

Figures are reported, never asserted. Linux only (``/proc``); needs aiohttp (the ``server``
extra).
"""

from __future__ import annotations

import argparse
import http.client
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIME_TARGET = 1.3
RSS_TARGET = 1.15
DEADLINE = 30.0  # seconds a process may take to answer before the run is abandoned

BARE_APP = """
import sys
from aiohttp import web

async def hello(request):
    return web.Response(text="ok")

app = web.Application()
app.router.add_get("/", hello)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None)
"""

SERVE_FROM_PYTHON = """
import signal, sys, threading
import sqsmock

stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
with sqsmock.serve(port=int(sys.argv[1])):
    stop.wait()
"""

LIST_QUEUES = (
    "POST",
    "/",
    b"{}",
    {
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": "AmazonSQS.ListQueues",
        "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDBENCHMARK/20260101/us-east-1/sqs/"
        "aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0",
    },
)
GET_ROOT = ("GET", "/", b"", {})


@dataclass
class Server:
    name: str
    argv: list[str]  # the port is appended
    request: tuple[str, str, bytes, dict[str, str]]
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rss: list[int] = field(default_factory=list)  # KiB


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def answered(port: int, request: tuple[str, str, bytes, dict[str, str]]) -> bool:
    """True once the server answers ``request`` with 200; False while nobody listens."""
    method, path, body, headers = request
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request(method, path, body=body or None, headers=headers)
        response = connection.getresponse()
        response.read()
    except (ConnectionError, OSError):
        return False
    finally:
        connection.close()
    if response.status != 200:
        raise RuntimeError(f"the server answered {response.status}")
    return True


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


CHILD_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def start_once(server: Server, record: bool = True) -> None:
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [*server.argv, str(port)],
        cwd=ROOT,
        env=CHILD_ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    stderr = process.stderr
    assert stderr is not None
    try:
        while not answered(port, server.request):
            if process.poll() is not None:
                raise RuntimeError(f"{server.name} exited: {stderr.read().decode()}")
            if time.perf_counter() - started > DEADLINE:
                raise RuntimeError(f"{server.name} did not answer within {DEADLINE} s")
            time.sleep(0.005)
        elapsed = time.perf_counter() - started
        if record:
            server.times.append(elapsed)
            server.cpu.append(cpu_seconds(process.pid))
            server.rss.append(rss_kib(process.pid))
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        stderr.close()


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=15, help="starts of each server")
    runs = options.parse_args().runs
    python = sys.executable
    bare = Server("bare aiohttp", [python, "-c", BARE_APP], GET_ROOT)
    servers = [
        bare,
        Server("sqsmock serve", [python, "-m", "sqsmock", "serve", "--port"], LIST_QUEUES),
        Server("sqsmock.serve()", [python, "-c", SERVE_FROM_PYTHON], LIST_QUEUES),
    ]
    print(
        f"python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; {runs} starts each, interleaved"
    )
    for server in servers:
        start_once(server, record=False)  # warm-up: compiled modules, file cache
    for _ in range(runs):
        for server in servers:
            start_once(server)
    base_time = statistics.median(bare.times)
    base_cpu = statistics.median(bare.cpu)
    base_rss = statistics.median(bare.rss)
    print(
        f"\n{'server':<18} {'first answer':>13} {'ratio':>7} {'CPU until then':>15} {'ratio':>7}"
        f" {'idle RSS':>10} {'ratio':>7}"
    )
    for server in servers:
        first = statistics.median(server.times)
        cpu = statistics.median(server.cpu)
        rss = statistics.median(server.rss)
        print(
            f"{server.name:<18} {first * 1000:>10.0f} ms {first / base_time:>6.2f}x"
            f" {cpu * 1000:>12.0f} ms {cpu / base_cpu:>6.2f}x"
            f" {rss / 1024:>7.1f} MB {rss / base_rss:>6.2f}x"
        )
    print(f"\ntargets: first answer <= {TIME_TARGET}x the bare app, idle RSS <= {RSS_TARGET}x")
    for server in servers[1:]:
        time_ratio = statistics.median(server.times) / base_time
        rss_ratio = statistics.median(server.rss) / base_rss
        verdict = "PASS" if time_ratio <= TIME_TARGET and rss_ratio <= RSS_TARGET else "MISS"
        print(f"  {server.name:<16} {time_ratio:.2f}x time, {rss_ratio:.2f}x RSS: {verdict}")


if __name__ == "__main__":
    main()
