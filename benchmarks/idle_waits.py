"""What open waits cost everyone else, and what waits for large messages hold.

    python benchmarks/idle_waits.py                  # every section (about a minute and a half)
    python benchmarks/idle_waits.py server threads   # only these sections
    python benchmarks/idle_waits.py --seconds 2 --rounds 3

Each round measures without waits for half its time, then with them, then without again for
the other half (so that a drift of the machine's load over the round cancels out).

Sections:
  server    SendMessage throughput and p99 of CONNECTIONS clients, each on a queue of its own, on
            a real ``sqsmock serve``, without and with WAITS ``POST /_sqsmock/wait`` open on a
            queue that has no traffic; interleaved in rounds (a new quiet queue each round, its
            waits ended by one message), and the median of each round's ratio with/without;
            and the server's CPU time per call without/with (from /proc), what the machine's
            load changes least. Target: with >= 0.9x without.
  threads   the same in one process: SendMessage through boto3 on one queue, without and with
            THREADS threads blocked in ``wait_for`` on a quiet queue. Target: >= 0.9x.
  memory    a server, three waits for 400 messages of 256 KiB open while they are sent (answered
            200 at the 400th), then three waits for 1000 that answer 408 with what the log
            holds: the server's resident memory at the start and its peak, and each answer's
            bytes (a wait keeps at most the log's byte bound whole, and an answer 8 MiB).

Servers run as processes of their own; the load generator is benchmarks/load.py's. Figures are
reported, never asserted; the summary marks each target PASS or MISS. Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import threading
import time
import warnings
from pathlib import Path

import boto3
from load import CONNECTIONS, Connection, Figures, cpu_seconds
from server import start_sqsmock

from sqsmock import JournalFullWarning, mock_sqs

HOST = "127.0.0.1"
WAITS = 2000
THREADS = 200
TARGET = 0.9
SECTIONS = ("server", "threads", "memory")


def fmt(figures: Figures) -> str:
    return (
        f"{figures.per_second:7.0f} sends/s   p50 {figures.percentile(50):6.2f} ms   "
        f"p99 {figures.percentile(99):7.2f} ms   errors {figures.errors}"
        + (f"   server CPU {figures.cpu_per_call:4.0f} µs/call" if figures.cpu else "")
    )


def joined(first: Figures, second: Figures) -> Figures:
    """Two measurements as one."""
    return Figures(
        first.calls + second.calls,
        first.seconds + second.seconds,
        first.latencies + second.latencies,
        first.errors + second.errors,
        first.cpu + second.cpu,
    )


def verdict(ratio: float) -> str:
    return "PASS" if ratio >= TARGET else "MISS"


# -- server ---------------------------------------------------------------------------------


async def sends(port: int, seconds: float, tag: str, pid: int | None = None) -> Figures:
    """CONNECTIONS connections sending to queues of their own for ``seconds`` (and the CPU
    time server ``pid`` spent meanwhile)."""
    figures = Figures()
    cpu = cpu_seconds(pid)

    async def worker(i: int) -> None:
        connection = Connection(HOST, port)
        try:
            _, answer = await connection.call("CreateQueue", {"QueueName": f"{tag}-{i}"})
            params = {"QueueUrl": connection.value(answer, "QueueUrl"), "MessageBody": "x"}
            clock = time.perf_counter
            end = clock() + seconds
            while clock() < end:
                started = clock()
                status, _ = await connection.call("SendMessage", params)
                figures.latencies.append(clock() - started)
                figures.calls += 1
                figures.errors += status != 200
        finally:
            connection.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(CONNECTIONS)))
    figures.seconds = time.perf_counter() - started
    figures.cpu = cpu_seconds(pid) - cpu
    return figures


Waits = list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]


async def open_waits(port: int, queue: str, n: int, count: int = 1, timeout: float = 600) -> Waits:
    """``n`` connections, each with a ``POST /_sqsmock/wait`` for ``queue``'s "sent" events."""
    body = json.dumps(
        {"queue": queue, "event": "sent", "count": count, "timeout": timeout}
    ).encode()
    request = (
        b"POST /_sqsmock/wait HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (HOST.encode(), port, len(body), body)
    )
    waits = []
    for _ in range(n):
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(request)
        waits.append((reader, writer))
    return waits


async def answer_of(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The status and body of an HTTP answer."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.lower().split(b"\r\n")
        if line.startswith(b"content-length:")
    )
    return status, await reader.readexactly(length)


async def settled(pid: int) -> None:
    """Until the server's CPU is idle (it has read every wait), at most 10 s."""
    for _ in range(100):
        before = cpu_seconds(pid)
        await asyncio.sleep(0.1)
        if cpu_seconds(pid) - before < 0.005:
            return


async def _server_rounds(
    port: int, pid: int, seconds: float, rounds: int
) -> list[tuple[float, float]]:
    setup = Connection(HOST, port)
    await sends(port, 1.0, "warm")
    ratios = []
    for n in range(rounds):
        before = await sends(port, seconds / 2, f"r{n}", pid)
        _, answer = await setup.call("CreateQueue", {"QueueName": f"quiet-{n}"})
        quiet = setup.value(answer, "QueueUrl")
        waits = await open_waits(port, f"quiet-{n}", WAITS)
        await settled(pid)
        with_waits = await sends(port, seconds, f"r{n}", pid)
        await setup.call("SendMessage", {"QueueUrl": quiet, "MessageBody": "end"})
        answered = [await answer_of(reader) for reader, _ in waits]
        for _, writer in waits:
            writer.close()
        ok = sum(status == 200 for status, _ in answered)
        without = joined(before, await sends(port, seconds / 2, f"r{n}", pid))
        ratio = with_waits.per_second / without.per_second
        ratios.append((ratio, without.cpu_per_call / with_waits.cpu_per_call))
        print(f"  round {n + 1} no waits        {fmt(without)}", flush=True)
        print(
            f"  round {n + 1} {WAITS} idle waits {fmt(with_waits)}   ratio {ratio:.3f} "
            f"({ok} answered 200 to the message that ended them)",
            flush=True,
        )
    setup.close()
    return ratios


def server_section(seconds: float, rounds: int) -> tuple[float, float]:
    """The medians of the rounds' ratios with/without of throughput, and of the server's CPU
    per call without/with (what the machine's load changes least)."""
    server = start_sqsmock()
    try:
        ratios = asyncio.run(_server_rounds(server.port, server.process.pid, seconds, rounds))
    finally:
        server.stop()
    return statistics.median(r for r, _ in ratios), statistics.median(c for _, c in ratios)


# -- threads --------------------------------------------------------------------------------


def thread_sends(client: object, url: str, seconds: float) -> Figures:
    figures = Figures()
    send = client.send_message  # type: ignore[attr-defined]
    clock = time.perf_counter
    started = clock()
    end = started + seconds
    while clock() < end:
        before = clock()
        send(QueueUrl=url, MessageBody="x")
        figures.latencies.append(clock() - before)
        figures.calls += 1
    figures.seconds = clock() - started
    return figures


def threads_section(seconds: float, rounds: int) -> float:
    ratios = []
    warnings.simplefilter("ignore", JournalFullWarning)  # the journal is full after a round
    with mock_sqs() as mock:
        client = boto3.client("sqs", region_name="us-east-1")
        url = client.create_queue(QueueName="busy")["QueueUrl"]
        thread_sends(client, url, 0.5)  # warm up
        for n in range(rounds):
            before = thread_sends(client, url, seconds / 2)
            quiet = client.create_queue(QueueName=f"quiet-{n}")["QueueUrl"]
            waiters = [
                threading.Thread(
                    target=mock.wait_for, args=(f"quiet-{n}", "sent"), kwargs={"timeout": 600}
                )
                for _ in range(THREADS)
            ]
            for waiter in waiters:
                waiter.start()
            assert mock.runtime.events.until_waiting(THREADS, 60)
            with_waits = thread_sends(client, url, seconds)
            open_ = mock.runtime.events.waiting()
            client.send_message(QueueUrl=quiet, MessageBody="end")
            for waiter in waiters:
                waiter.join(60)
            without = joined(before, thread_sends(client, url, seconds / 2))
            ratio = with_waits.per_second / without.per_second
            ratios.append(ratio)
            print(f"  round {n + 1} no waits           {fmt(without)}", flush=True)
            print(
                f"  round {n + 1} {THREADS} threads waiting {fmt(with_waits)}   ({open_} open "
                f"during it)   ratio {ratio:.3f}",
                flush=True,
            )
    return statistics.median(ratios)


# -- memory ---------------------------------------------------------------------------------


def memory_of(pid: int) -> tuple[float, float]:
    """Resident and peak resident memory of a process, in MiB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


async def _memory(port: int, pid: int) -> None:
    setup = Connection(HOST, port)
    _, answer = await setup.call("CreateQueue", {"QueueName": "large"})
    url = setup.value(answer, "QueueUrl")
    rss, _ = memory_of(pid)
    print(f"  at the start: resident {rss:.0f} MiB")
    waits = await open_waits(port, "large", 3, count=400, timeout=300)
    await settled(pid)
    body = "x" * (256 * 1024 - 16)
    for n in range(400):
        await setup.call("SendMessage", {"QueueUrl": url, "MessageBody": f"{n:08d}{body}"})
    for reader, writer in waits:
        status, answer = await answer_of(reader)
        events = json.loads(answer)["events"]
        whole = sum(not e.get("truncated") for e in events)
        print(
            f"  wait for 400 answered {status}: {len(answer) / 2**20:.1f} MB, "
            f"{len(events)} events ({whole} whole)"
        )
        writer.close()
    late = await open_waits(port, "large", 3, count=1000, timeout=0)
    for reader, writer in late:
        status, answer = await answer_of(reader)
        found = json.loads(answer)["found"]
        print(
            f"  wait for 1000 answered {status}: {len(answer) / 2**20:.1f} MB, "
            f"{len(found)} found ({sum(not e.get('truncated') for e in found)} whole)"
        )
        writer.close()
    rss, peak = memory_of(pid)
    print(f"  at the end: resident {rss:.0f} MiB, peak {peak:.0f} MiB")
    setup.close()


def memory_section() -> None:
    server = start_sqsmock()
    try:
        asyncio.run(_memory(server.port, server.process.pid))
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("sections", nargs="*", help=f"of {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    chosen = args.sections or SECTIONS
    unknown = set(chosen) - set(SECTIONS)
    if unknown:
        parser.error(f"no section {', '.join(sorted(unknown))}; there are {', '.join(SECTIONS)}")
    summary = []
    if "server" in chosen:
        print(f"server: SendMessage, {CONNECTIONS} clients, without and with {WAITS} idle waits")
        ratio, cpu = server_section(args.seconds, args.rounds)
        summary.append(
            f"  server, {WAITS} idle waits: median ratio {ratio:.3f} (target >= {TARGET}) "
            f"{verdict(ratio)}; server CPU per call, without/with: {cpu:.3f}"
        )
    if "threads" in chosen:
        print(f"threads: SendMessage in process, without and with {THREADS} threads in wait_for")
        ratio = threads_section(args.seconds, args.rounds)
        summary.append(
            f"  in process, {THREADS} threads waiting: median ratio {ratio:.3f} "
            f"(target >= {TARGET}) {verdict(ratio)}"
        )
    if "memory" in chosen:
        print("memory: waits for 400 messages of 256 KiB on a server")
        memory_section()
    if summary:
        print("summary:")
        print("\n".join(summary))


if __name__ == "__main__":
    main()
