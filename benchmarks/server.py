"""Server benchmark: ``sqsmock serve`` vs ``moto_server``, same load generator, same run.

    python benchmarks/server.py                    # everything (about a minute)
    python benchmarks/server.py --seconds 3        # shorter rounds

Sections:
  throughput   calls per second and p50/p99 latency of a send/receive/delete cycle (AWS JSON
               1.0), CONNECTIONS keep-alive connections each working its own queue; sqsmock and
               moto interleaved in rounds, medians reported. Target: sqsmock >= 5x moto.
  long polls   p50/p99 of the same ordinary calls while 500 long polls (WaitTimeSeconds=20, wall
               clock) wait on another queue of the same sqsmock server. Target: p99 <= 50 ms.

Both servers run as processes of their own; the load generator is one asyncio process speaking
HTTP/1.1 over raw sockets (requests pre-built, answers read by Content-Length), so that the
generator costs far less than either server. Figures are reported, never asserted; the summary
marks each target PASS or MISS. Needs ``moto[server]`` (the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ACCOUNT = "123456789012"
AUTHORIZATION = (
    "AWS4-HMAC-SHA256 Credential=AKIDBENCHMARK/20260101/us-east-1/sqs/aws4_request, "
    "SignedHeaders=host;x-amz-date;x-amz-target, Signature=0"
)
CONNECTIONS = 16
LONG_POLLS = 500
_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:\s*(\d+)", re.IGNORECASE)
_RECEIPT = re.compile(r'"ReceiptHandle"\s*:\s*"([^"]+)"')


# -- the load generator -------------------------------------------------------------------------


class Connection:
    """One keep-alive HTTP/1.1 connection sending SQS JSON calls (reconnecting if the server
    closes it, as an HTTP/1.0 server does)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.head = f"Host: {host}:{port}\r\nAuthorization: {AUTHORIZATION}\r\n".encode()

    async def _open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def call(self, operation: str, params: dict[str, object]) -> tuple[int, bytes]:
        body = json.dumps(params).encode()
        request = (
            b"POST / HTTP/1.1\r\n%sX-Amz-Target: AmazonSQS.%s\r\n"
            b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n%s"
            % (self.head, operation.encode(), len(body), body)
        )
        for attempt in range(2):
            if self.writer is None:
                await self._open()
            assert self.reader is not None and self.writer is not None
            try:
                self.writer.write(request)
                head = await self.reader.readuntil(b"\r\n\r\n")
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
                continue
            status = int(head.split(b" ", 2)[1])
            found = _CONTENT_LENGTH.search(head)
            answer = await self.reader.readexactly(int(found.group(1))) if found else b""
            if not found or head.startswith(b"HTTP/1.0") or b"onnection: close" in head:
                if not found:
                    answer = await self.reader.read()
                self.close()
            return status, answer
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


@dataclass
class Figures:
    calls: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: int = 0

    @property
    def per_second(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000


async def cycle_worker(host: str, port: int, name: str, seconds: float, figures: Figures) -> None:
    """send, receive, delete on its own queue, until the time is up."""
    connection = Connection(host, port)
    try:
        status, answer = await connection.call("CreateQueue", {"QueueName": name})
        url = json.loads(answer)["QueueUrl"]
        end = time.perf_counter() + seconds
        clock = time.perf_counter
        latencies = figures.latencies
        while clock() < end:
            started = clock()
            status, _ = await connection.call("SendMessage", {"QueueUrl": url, "MessageBody": "x"})
            middle = clock()
            status2, answer = await connection.call(
                "ReceiveMessage", {"QueueUrl": url, "MaxNumberOfMessages": 1}
            )
            after = clock()
            latencies += (middle - started, after - middle)
            found = _RECEIPT.search(answer.decode())
            figures.calls += 2
            if status != 200 or status2 != 200 or found is None:
                figures.errors += 1
                continue
            before = clock()
            status, _ = await connection.call(
                "DeleteMessage", {"QueueUrl": url, "ReceiptHandle": found.group(1)}
            )
            latencies.append(clock() - before)
            figures.calls += 1
            figures.errors += status != 200
    finally:
        connection.close()


async def measure(host: str, port: int, seconds: float, tag: str) -> Figures:
    figures = Figures()
    started = time.perf_counter()
    await asyncio.gather(
        *(cycle_worker(host, port, f"{tag}-{i}", seconds, figures) for i in range(CONNECTIONS))
    )
    figures.seconds = time.perf_counter() - started
    return figures


# -- servers ------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    def __init__(self, name: str, args: list[str], port: int, ready_path: str) -> None:
        self.name, self.port = name, port
        self.process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}{ready_path}", timeout=5).close()
                break
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"{name} did not start") from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def start_sqsmock() -> ServerProcess:
    port = free_port()
    args = [sys.executable, "-m", "sqsmock", "serve", "--port", str(port), "--log-level", "error"]
    return ServerProcess("sqsmock", args, port, "/_sqsmock/health")


def start_moto() -> ServerProcess:
    port = free_port()
    executable = Path(sys.executable).with_name("moto_server")
    return ServerProcess("moto", [str(executable), "-p", str(port)], port, "/moto-api/")


# -- sections -----------------------------------------------------------------------------------


def fmt(figures: Figures) -> str:
    return (
        f"{figures.per_second:8.0f} calls/s   p50 {figures.percentile(50):6.2f} ms   "
        f"p99 {figures.percentile(99):7.2f} ms   errors {figures.errors}"
    )


def throughput(seconds: float, rounds: int) -> tuple[Figures, Figures]:
    sqsmock_server, moto_server = start_sqsmock(), start_moto()
    results: dict[str, list[Figures]] = {"sqsmock": [], "moto": []}
    try:
        for round_number in range(rounds):
            for server in (sqsmock_server, moto_server):
                figures = asyncio.run(
                    measure("127.0.0.1", server.port, seconds, f"r{round_number}")
                )
                results[server.name].append(figures)
                print(f"  round {round_number + 1} {server.name:8s} {fmt(figures)}", flush=True)
    finally:
        sqsmock_server.stop()
        moto_server.stop()

    def median(runs: list[Figures]) -> Figures:
        return sorted(runs, key=lambda f: f.per_second)[len(runs) // 2]

    return median(results["sqsmock"]), median(results["moto"])


async def _with_long_polls(port: int, seconds: float) -> tuple[Figures, int]:
    host = "127.0.0.1"
    setup = Connection(host, port)
    _, answer = await setup.call("CreateQueue", {"QueueName": "idle"})
    idle = json.loads(answer)["QueueUrl"]
    setup.close()
    body = json.dumps({"QueueUrl": idle, "WaitTimeSeconds": 20}).encode()
    request = (
        b"POST / HTTP/1.1\r\nHost: %s:%d\r\nX-Amz-Target: AmazonSQS.ReceiveMessage\r\n"
        b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n%s"
        % (host.encode(), port, len(body), body)
    )
    polls = [await asyncio.open_connection(host, port) for _ in range(LONG_POLLS)]
    for _, writer in polls:
        writer.write(request)
    waiting = 0
    for _ in range(500):  # until the server counts them all
        with urllib.request.urlopen(f"http://{host}:{port}/_sqsmock/queues", timeout=5) as r:
            waiting = sum(q["long_polls_waiting"] for q in json.loads(r.read()))
        if waiting >= LONG_POLLS:
            break
        await asyncio.sleep(0.02)
    figures = await measure(host, port, seconds, "busy")
    with urllib.request.urlopen(f"http://{host}:{port}/_sqsmock/queues", timeout=5) as r:
        still = sum(q["long_polls_waiting"] for q in json.loads(r.read()))
    for _, writer in polls:
        writer.close()
    return figures, min(waiting, still)


def long_polls(seconds: float) -> tuple[Figures, int]:
    server = start_sqsmock()
    try:
        return asyncio.run(_with_long_polls(server.port, seconds))
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="length of a round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import aiohttp
    import moto

    import sqsmock

    print(
        f"sqsmock {sqsmock.__version__} (aiohttp {aiohttp.__version__}) vs moto {moto.__version__}"
        f" | Python {platform.python_version()} | {os.cpu_count()} CPUs | "
        f"{CONNECTIONS} connections, send/receive/delete"
    )
    print("throughput:")
    ours, theirs = throughput(args.seconds, args.rounds)
    ratio = ours.per_second / theirs.per_second if theirs.per_second else float("inf")
    print(f"long polls: {LONG_POLLS} waiting (WaitTimeSeconds=20, wall clock) on one queue")
    busy, waiting = long_polls(args.seconds)
    print(f"  sqsmock  {fmt(busy)}   ({waiting} long polls waiting throughout)")
    print("summary:")
    print(f"  sqsmock  {fmt(ours)}")
    print(f"  moto     {fmt(theirs)}")
    verdict = "PASS" if ratio >= 5 else "MISS"
    print(f"  throughput ratio sqsmock/moto: {ratio:.1f}x (target >= 5x) {verdict}")
    p99 = busy.percentile(99)
    verdict = "PASS" if p99 <= 50 and waiting >= LONG_POLLS else "MISS"
    print(f"  p99 with {LONG_POLLS} long polls waiting: {p99:.2f} ms (target <= 50 ms) {verdict}")


if __name__ == "__main__":
    main()
