"""Server benchmark: ``sqsmock serve`` vs ``moto_server`` and vs a bare aiohttp app, same load
generator, same run.

    python benchmarks/server.py                    # every section (about four minutes)
    python benchmarks/server.py cpu                # only these sections
    python benchmarks/server.py --seconds 3        # shorter rounds

Sections:
  throughput   calls per second and p50/p99 latency of a send/receive/delete cycle (AWS JSON
               1.0), CONNECTIONS keep-alive connections each working its own queue; sqsmock and
               moto interleaved in rounds, medians reported. Target: sqsmock >= 5x moto.
  long-polls   p50/p99 of the same ordinary calls while 500 long polls (WaitTimeSeconds=20, wall
               clock) wait on another queue of the same sqsmock server. Target: p99 <= 50 ms.
  cpu          the server process's CPU time per call (user + system, from /proc) of the same
               cycles, in AWS JSON 1.0 and in the query protocol, for sqsmock and for a bare
               aiohttp app answering with canned bodies of the same size (benchmarks/
               bare_aiohttp.py: what any aiohttp server spends on HTTP alone); interleaved
               rounds, medians reported, and the median of each round's ratio of the two
               (measured back to back); each round's line splits the time into the server's
               own (user) and the kernel's (system). Target: sqsmock <= 1.6x the bare app.
               Both servers first answer --warmup seconds of the same load, unmeasured: the
               call journal and the event log of a new sqsmock server grow until they hold
               their bounds (10 000 calls, 100 000 message events), which takes about 100 000
               calls, and calls cost more while memory is still being added; the rounds
               measure a server that has been running, as one left running does.

Every server runs as a process of its own; the load generator (benchmarks/load.py) is one
asyncio process speaking HTTP/1.1 over raw sockets, so that it costs far less than any server.
Figures are reported, never asserted; the summary marks each target PASS or MISS. The throughput
section needs ``moto[server]`` (the ``bench`` extra). Linux only for CPU figures (``/proc``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from load import CONNECTIONS, Connection, Figures, measure

ROOT = Path(__file__).resolve().parents[1]
CPU_TARGET = 1.6  # sqsmock's CPU per call over the bare app's, at most
PROTOCOLS = ("json", "query")
CONTENT_TYPES = {"json": "application/x-amz-json-1.0", "query": "text/xml"}
SECTIONS = ("throughput", "long-polls", "cpu")
LONG_POLLS = 500


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


def start_bare(answers: Path) -> ServerProcess:
    port = free_port()
    args = [sys.executable, str(ROOT / "benchmarks" / "bare_aiohttp.py"), str(port), str(answers)]
    return ServerProcess("bare", args, port, "/health")


def start_moto() -> ServerProcess:
    port = free_port()
    executable = Path(sys.executable).with_name("moto_server")
    return ServerProcess("moto", [str(executable), "-p", str(port)], port, "/moto-api/")


# -- sections -----------------------------------------------------------------------------------


def fmt(figures: Figures) -> str:
    return (
        f"{figures.per_second:8.0f} calls/s   p50 {figures.percentile(50):6.2f} ms   "
        f"p99 {figures.percentile(99):7.2f} ms   server CPU {figures.cpu_per_call:6.0f} µs/call"
        f"   errors {figures.errors}"
    )


def throughput(seconds: float, rounds: int) -> tuple[Figures, Figures]:
    sqsmock_server, moto_server = start_sqsmock(), start_moto()
    results: dict[str, list[Figures]] = {"sqsmock": [], "moto": []}
    try:
        for round_number in range(rounds):
            for server in (sqsmock_server, moto_server):
                figures = asyncio.run(
                    measure(
                        "127.0.0.1", server.port, seconds, f"r{round_number}", server.process.pid
                    )
                )
                results[server.name].append(figures)
                print(f"  round {round_number + 1} {server.name:8s} {fmt(figures)}", flush=True)
    finally:
        sqsmock_server.stop()
        moto_server.stop()

    def median(runs: list[Figures]) -> Figures:
        return sorted(runs, key=lambda f: f.per_second)[len(runs) // 2]

    return median(results["sqsmock"]), median(results["moto"])


async def _with_long_polls(port: int, pid: int, seconds: float) -> tuple[Figures, int]:
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
    figures = await measure(host, port, seconds, "busy", pid)
    with urllib.request.urlopen(f"http://{host}:{port}/_sqsmock/queues", timeout=5) as r:
        still = sum(q["long_polls_waiting"] for q in json.loads(r.read()))
    for _, writer in polls:
        writer.close()
    return figures, min(waiting, still)


def long_polls(seconds: float) -> tuple[Figures, int]:
    server = start_sqsmock()
    try:
        return asyncio.run(_with_long_polls(server.port, server.process.pid, seconds))
    finally:
        server.stop()


async def canned_answers(port: int, protocol: str) -> dict[str, list[str]]:
    """What ``sqsmock serve`` answers to one send/receive/delete cycle: the bare app's answers."""
    connection = Connection("127.0.0.1", port, protocol)
    content_type = CONTENT_TYPES[protocol]
    answers: dict[str, list[str]] = {}
    try:
        _, answer = await connection.call("CreateQueue", {"QueueName": f"canned-{protocol}"})
        answers["CreateQueue"] = [content_type, answer.decode()]
        url = connection.value(answer, "QueueUrl")
        _, answer = await connection.call("SendMessage", {"QueueUrl": url, "MessageBody": "x"})
        answers["SendMessage"] = [content_type, answer.decode()]
        receive = {"QueueUrl": url, "MaxNumberOfMessages": 1}
        _, answer = await connection.call("ReceiveMessage", receive)
        answers["ReceiveMessage"] = [content_type, answer.decode()]
        delete = {"QueueUrl": url, "ReceiptHandle": connection.value(answer, "ReceiptHandle")}
        _, answer = await connection.call("DeleteMessage", delete)
        answers["DeleteMessage"] = [content_type, answer.decode()]
    finally:
        connection.close()
    return answers


def user_system_seconds(pid: int) -> tuple[float, float]:
    """CPU seconds a process has spent in its own code and in the kernel, from /proc (the
    kernel's share is mostly the sockets': the same for both servers of a round)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / ticks, int(fields[12]) / ticks


def warm_up(servers: list[ServerProcess], seconds: float) -> None:
    """Each server answers ``seconds`` of the cycles (half in each protocol), unmeasured."""
    for server in servers:
        for protocol in PROTOCOLS:
            figures = asyncio.run(
                measure("127.0.0.1", server.port, seconds / 2, f"warm{protocol}", None, protocol)
            )
            print(
                f"  warm-up {protocol:5s} {server.name:8s} {figures.calls} calls"
                f" ({figures.errors} errors)",
                flush=True,
            )


def cpu(seconds: float, rounds: int, warmup: float) -> dict[str, tuple[Figures, Figures, float]]:
    """Per protocol: the median rounds (by CPU per call) of sqsmock and of the bare app, and
    the median over rounds of the ratio of the two measured in the same round."""
    results: dict[tuple[str, str], list[Figures]] = {}
    sqsmock_server = start_sqsmock()
    bare: ServerProcess | None = None
    try:
        answers = {p: asyncio.run(canned_answers(sqsmock_server.port, p)) for p in PROTOCOLS}
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "answers.json"
            path.write_text(json.dumps(answers), encoding="utf-8")
            bare = start_bare(path)
        warm_up([sqsmock_server, bare], warmup)
        for round_number in range(rounds):
            for protocol in PROTOCOLS:
                for server in (sqsmock_server, bare):
                    tag, pid = f"cpu{round_number}{protocol}", server.process.pid
                    user, system = user_system_seconds(pid)
                    figures = asyncio.run(
                        measure("127.0.0.1", server.port, seconds, tag, pid, protocol)
                    )
                    user_after, system_after = user_system_seconds(pid)
                    results.setdefault((server.name, protocol), []).append(figures)
                    calls = figures.calls or 1
                    split = (
                        f"(user {(user_after - user) / calls * 1e6:.0f}"
                        f" + system {(system_after - system) / calls * 1e6:.0f})"
                    )
                    print(
                        f"  round {round_number + 1} {protocol:5s} {server.name:8s} "
                        f"{fmt(figures)} {split}",
                        flush=True,
                    )
    finally:
        sqsmock_server.stop()
        if bare is not None:
            bare.stop()

    def median(runs: list[Figures]) -> Figures:
        return sorted(runs, key=lambda f: f.cpu_per_call)[len(runs) // 2]

    def paired(protocol: str) -> float:
        # sqsmock and the bare app are measured back to back in each round: a spell of a shared
        # machine running slower or faster weighs on both of a round's figures alike
        ratios = [
            ours.cpu_per_call / bare.cpu_per_call if bare.cpu_per_call else float("nan")
            for ours, bare in zip(
                results["sqsmock", protocol], results["bare", protocol], strict=True
            )
        ]
        return statistics.median(ratios)

    return {
        p: (median(results["sqsmock", p]), median(results["bare", p]), paired(p)) for p in PROTOCOLS
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("sections", nargs="*", help=f"of {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of a round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--warmup", type=float, default=12.0, help="cpu: seconds of load before the rounds"
    )
    args = parser.parse_args()
    sections = args.sections or SECTIONS
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        parser.error(f"no section {', '.join(sorted(unknown))}; there are {', '.join(SECTIONS)}")
    import aiohttp

    import sqsmock

    versus = ""
    if "throughput" in sections:
        import moto

        versus = f" vs moto {moto.__version__}"
    print(
        f"sqsmock {sqsmock.__version__} (aiohttp {aiohttp.__version__}){versus}"
        f" | Python {platform.python_version()} | {os.cpu_count()} CPUs | "
        f"{CONNECTIONS} connections, send/receive/delete"
    )
    summary: list[str] = []
    if "throughput" in sections:
        print("throughput:")
        ours, theirs = throughput(args.seconds, args.rounds)
        ratio = ours.per_second / theirs.per_second if theirs.per_second else float("inf")
        cpu_ratio = theirs.cpu_per_call / ours.cpu_per_call if ours.cpu_per_call else float("nan")
        verdict = "PASS" if ratio >= 5 else "MISS"
        summary += [
            f"  sqsmock  {fmt(ours)}",
            f"  moto     {fmt(theirs)}",
            f"  throughput ratio sqsmock/moto: {ratio:.1f}x (target >= 5x) {verdict}",
            f"  server CPU per call, moto/sqsmock: {cpu_ratio:.1f}x",
        ]
    if "long-polls" in sections:
        print(f"long polls: {LONG_POLLS} waiting (WaitTimeSeconds=20, wall clock) on one queue")
        busy, waiting = long_polls(args.seconds)
        print(f"  sqsmock  {fmt(busy)}   ({waiting} long polls waiting throughout)")
        p99 = busy.percentile(99)
        verdict = "PASS" if p99 <= 50 and waiting >= LONG_POLLS else "MISS"
        summary.append(
            f"  p99 with {LONG_POLLS} long polls waiting: {p99:.2f} ms (target <= 50 ms) {verdict}"
        )
    if "cpu" in sections:
        print("cpu: server CPU per call, sqsmock serve vs a bare aiohttp app with canned answers")
        for protocol, (ours, bare, ratio) in cpu(args.seconds, args.rounds, args.warmup).items():
            verdict = "PASS" if ratio <= CPU_TARGET else "MISS"
            summary.append(
                f"  server CPU per call ({protocol}): sqsmock {ours.cpu_per_call:.0f} µs, "
                f"bare aiohttp {bare.cpu_per_call:.0f} µs (medians); median of the rounds' "
                f"ratios {ratio:.2f}x (target <= {CPU_TARGET}x) {verdict}"
            )
    print("summary:")
    print("\n".join(summary))


if __name__ == "__main__":
    main()
