"""Watched-queue benchmark: other clients' SendMessage throughput while the web UI watches a deep
queue, beside the same without it, in one run.

    python benchmarks/watched.py                     # 100,000 messages of 1 KB (about a minute)
    python benchmarks/watched.py --quick             # 20,000 messages, shorter rounds
    python benchmarks/watched.py --messages 50000 --seconds 3 --rounds 6
    python benchmarks/watched.py --server-root DIR   # serve another checkout's sqsmock

One ``sqsmock serve`` process holds a queue of ``--messages`` messages of 1 KB. In each round,
CONNECTIONS keep-alive connections (benchmarks/load.py) send messages to queues of their own for
``--seconds``, once alone and once while a poller makes the web UI's own requests at its own
pace (app.js: every POLL seconds after the last poll ended, ``/_sqsmock/queues`` and
``/_sqsmock/clock`` together, then the deep queue's messages -- the peek's first page, as the
page asks for it -- and every other poll the newest 50 calls of the journal and the fault
rules). The two halves of a round are measured back to back, in alternating order; the figure
is the median over rounds of each round's ratio, watched over alone. Also: the server's peak
RSS (``VmHWM``) after filling the queue and at the end, and how long the UI's polls took.

Figures are reported, never asserted; the summary marks the target (watched >= 90% of alone)
PASS or MISS. Linux only (``/proc`` for the RSS).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from load import CONNECTIONS, Connection

ROOT = Path(__file__).resolve().parents[1]
TARGET = 0.9  # watched throughput over alone, at least
POLL = 1.0  # seconds between the end of a poll and the next (app.js: POLL_MS)
BODY = "x" * 1024
REGION, ACCOUNT = "us-east-1", "123456789012"


# -- the server --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """``sqsmock serve`` of ``root``'s source, as a process of its own."""

    def __init__(self, root: Path) -> None:
        self.port = free_port()
        env = {**os.environ, "PYTHONPATH": str(root)}
        args = [sys.executable, "-m", "sqsmock", "serve", "--port", str(self.port)]
        args += ["--log-level", "error", "--account-id", ACCOUNT, "--region", REGION]
        self.process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=root, env=env
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                url = f"http://127.0.0.1:{self.port}/_sqsmock/health"
                urllib.request.urlopen(url, timeout=5).close()
                return
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.stop()
                    raise RuntimeError("sqsmock did not start") from None
                time.sleep(0.1)

    def rss(self, field: str = "VmHWM") -> float:
        """The process's peak resident set so far (``VmHWM``), or its resident set now
        (``VmRSS``), in MiB."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


async def fill(port: int, name: str, count: int) -> None:
    """``count`` messages of 1 KB in queue ``name``, sent in batches of ten over 16 connections."""
    setup = Connection("127.0.0.1", port)
    _, answer = await setup.call("CreateQueue", {"QueueName": name})
    url = setup.value(answer, "QueueUrl")
    setup.close()
    batches = list(range(0, count, 10))

    async def sender(share: list[int]) -> None:
        connection = Connection("127.0.0.1", port)
        try:
            for start in share:
                entries = [
                    {"Id": str(i), "MessageBody": BODY} for i in range(min(10, count - start))
                ]
                status, _ = await connection.call(
                    "SendMessageBatch", {"QueueUrl": url, "Entries": entries}
                )
                assert status == 200, status
        finally:
            connection.close()

    await asyncio.gather(*(sender(batches[i::16]) for i in range(16)))


# -- the web UI's requests -----------------------------------------------------------------------


class Getter:
    """One keep-alive connection making GET requests, as a browser's fetch does."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> int:
        """GET ``path``; the size of the answer's body."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        self.writer.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            "Accept: application/json\r\n\r\n".encode()
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        await self.reader.readexactly(length)
        return length

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


@dataclass
class Polls:
    seconds: list[float] = field(default_factory=list)
    bytes: list[int] = field(default_factory=list)


async def watch(port: int, queue: str, stop: asyncio.Event, polls: Polls) -> None:
    """What app.js's ``refresh`` asks, with the deep queue open, until ``stop``."""
    getters = [Getter(port) for _ in range(3)]
    messages = f"/_sqsmock/queues/{REGION}/{ACCOUNT}/{queue}/messages"
    tick = 0
    try:
        while not stop.is_set():
            started = time.perf_counter()
            sizes = list(
                await asyncio.gather(
                    getters[0].get("/_sqsmock/queues"), getters[1].get("/_sqsmock/clock")
                )
            )
            work = [getters[0].get(messages)]
            if tick % 2 == 0:
                work += [getters[1].get("/_sqsmock/calls?newest=true&limit=50")]
                work += [getters[2].get("/_sqsmock/faults")]
            sizes += await asyncio.gather(*work)
            tick += 1
            polls.seconds.append(time.perf_counter() - started)
            polls.bytes.append(sum(sizes))
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), POLL)
    finally:
        for getter in getters:
            getter.close()


# -- other clients -------------------------------------------------------------------------------


async def senders(port: int, seconds: float, tag: str, watched: str | None) -> tuple[float, Polls]:
    """SendMessage calls per second over CONNECTIONS connections for ``seconds``, with the UI
    watching queue ``watched`` meanwhile (None: nobody watching); and the UI's polls."""
    counts = [0] * CONNECTIONS

    async def send(index: int) -> None:
        connection = Connection("127.0.0.1", port)
        try:
            _, answer = await connection.call("CreateQueue", {"QueueName": f"{tag}-{index}"})
            params: dict[str, object] = {
                "QueueUrl": connection.value(answer, "QueueUrl"),
                "MessageBody": BODY,
            }
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                status, _ = await connection.call("SendMessage", params)
                counts[index] += status == 200
            await connection.call("DeleteQueue", {"QueueUrl": params["QueueUrl"]})  # (memory)
        finally:
            connection.close()

    polls, stop = Polls(), asyncio.Event()
    watcher = asyncio.ensure_future(watch(port, watched, stop, polls)) if watched else None
    started = time.perf_counter()
    await asyncio.gather(*(send(i) for i in range(CONNECTIONS)))
    elapsed = time.perf_counter() - started
    stop.set()
    if watcher is not None:
        await watcher
    return sum(counts) / elapsed, polls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--messages", type=int, default=100_000, help="in the watched queue")
    parser.add_argument("--seconds", type=float, default=2.5, help="length of a half-round")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="20,000 messages, 6 rounds of 2 s")
    parser.add_argument("--server-root", type=Path, default=ROOT, help="the sqsmock to serve")
    args = parser.parse_args()
    if args.quick:
        args.messages, args.seconds, args.rounds = 20_000, 2.0, 6
    print(
        f"sqsmock from {args.server_root} | Python {platform.python_version()} | "
        f"{os.cpu_count()} CPUs | {CONNECTIONS} connections sending, the UI polling every "
        f"{POLL:g} s a queue of {args.messages:,} messages of 1 KB"
    )
    server = Server(args.server_root)
    try:
        started = time.perf_counter()
        asyncio.run(fill(server.port, "deep", args.messages))
        print(
            f"  filled in {time.perf_counter() - started:.1f} s; "
            f"server peak RSS {server.rss():.0f} MiB"
        )
        alone: list[float] = []
        watched: list[float] = []
        polls = Polls()
        for number in range(args.rounds):
            order = ("alone", "watched") if number % 2 == 0 else ("watched", "alone")
            for kind in order:
                tag = f"r{number}{kind}"
                rate, seen = asyncio.run(
                    senders(server.port, args.seconds, tag, "deep" if kind == "watched" else None)
                )
                (alone if kind == "alone" else watched).append(rate)
                polls.seconds += seen.seconds
                polls.bytes += seen.bytes
                extra = ""
                if seen.seconds:
                    extra = (
                        f"   {len(seen.seconds)} polls, median "
                        f"{statistics.median(seen.seconds) * 1000:.0f} ms, "
                        f"{statistics.median(seen.bytes) / 1024:.0f} KiB each"
                    )
                print(
                    f"  round {number + 1:2d} {kind:8s} {rate:7.0f} sends/s   "
                    f"RSS {server.rss('VmRSS'):4.0f} MiB{extra}",
                    flush=True,
                )
        peak = server.rss()
    finally:
        server.stop()
    ratio = statistics.median(w / a for w, a in zip(watched, alone, strict=True))
    verdict = "PASS" if ratio >= TARGET else "MISS"
    print("summary:")
    print(f"  alone    {statistics.median(alone):7.0f} sends/s (median)")
    print(f"  watched  {statistics.median(watched):7.0f} sends/s (median)")
    if polls.seconds:
        print(
            f"  UI polls: median {statistics.median(polls.seconds) * 1000:.0f} ms, "
            f"max {max(polls.seconds) * 1000:.0f} ms, "
            f"median {statistics.median(polls.bytes) / 1024:.0f} KiB a poll"
        )
    print(f"  server peak RSS {peak:.0f} MiB")
    print(f"  watched/alone: {ratio:.2f} (target >= {TARGET:.2f}) {verdict}")


if __name__ == "__main__":
    main()
