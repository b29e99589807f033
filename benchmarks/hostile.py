"""Hostile-input benchmark: what refusing malformed wire input costs the protocol layer, and
what large requests leave in a server's call journal.

    python benchmarks/hostile.py               # both sections
    python benchmarks/hostile.py parse         # or journal

parse: each case is a request body near the server's 4 MiB limit (or the deepest JSON the
standard library parses) that once cost seconds or hundreds of megabytes before failing; now
each must be refused as a 4xx in milliseconds, with little memory. For each: the answer's code,
the best of five times, and the peak memory the parse allocated (``tracemalloc``). Target: under
100 ms and 64 MiB each.

journal: a real ``sqsmock serve`` process, call journal at its defaults, then with it off
(``--journal-limit 0``) for comparison, is sent ten rejected SendMessageBatch requests of
110 000 tiny entries (3.9 MB each; these once kept 30 MB each in the journal), then ten
accepted SendMessage requests carrying 1.3 million empty dicts in a member SQS ignores (3.7 MB
each; these were held whole while waiting to be written out). Reported: the server's resident
memory (RSS) at start and after each, and the size and time of a page of ``/_sqsmock/calls``.
Target: RSS with the journal at most 16 MiB above RSS without it, a page under 1 MiB and 1 s.

Figures are reported, never asserted; the summary marks each target PASS or MISS.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from sqsmock._errors import SqsError
from sqsmock._protocol.http import HttpRequest, ServerUrls, parse

URLS = ServerUrls("http://127.0.0.1:9324")
QUEUE = "http://127.0.0.1:9324/queue/us-east-1/123456789012/q"
FORM = {"content-type": "application/x-www-form-urlencoded"}
JSON = {"x-amz-target": "AmazonSQS.SendMessage", "content-type": "application/x-amz-json-1.0"}


def cases() -> dict[str, tuple[dict[str, str], bytes]]:
    send = f"Action=SendMessage&QueueUrl={QUEUE}&MessageBody=x&".encode()
    deep = "[" * 900 + "]" * 900
    return {
        "4 MB form name of dots": (FORM, send + b"a." * 2_000_000 + b"a=1"),
        "4 MB form of 1M parameters": (FORM, send + b"a=1&" * 1_000_000),
        "5000-digit list index": (FORM, send + b"Attribute." + b"9" * 5000 + b".Name=x"),
        "JSON nested 900 deep": (JSON, f'{{"QueueUrl":"{QUEUE}","Junk":{deep}}}'.encode()),
        "4 MB JSON in UTF-16": (
            JSON,
            json.dumps({"QueueUrl": QUEUE, "B": "x" * 2**20}).encode("utf-16"),
        ),
    }


def refuse(headers: dict[str, str], body: bytes) -> str:
    request = HttpRequest("POST", "/", [], headers, body)
    try:
        parse(request, region="us-east-1", account="123456789012", urls=URLS)
    except SqsError as error:
        return f"{error.status} {error.code}"
    return "accepted"


def measure(run: Callable[[], str]) -> tuple[str, float, float]:
    times = []
    answer = ""
    for _ in range(5):
        start = time.perf_counter()
        answer = run()
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return answer, min(times) * 1000, peak / 2**20


def bench_parse() -> int:
    missed = 0
    print(f"{'case':32} {'answer':34} {'ms':>8} {'peak MiB':>9}")
    for name, (headers, body) in cases().items():
        answer, ms, mib = measure(lambda h=headers, b=body: refuse(h, b))
        ok = answer.startswith("4") and ms < 100 and mib < 64
        missed += not ok
        print(f"{name:32} {answer:34} {ms:8.1f} {mib:9.1f}  {'PASS' if ok else 'MISS'}")
    return missed


# -- journal --------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
AUTH = (
    "AWS4-HMAC-SHA256 Credential=k/20260101/us-east-1/sqs/aws4_request, "
    "SignedHeaders=host, Signature=x"
)


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _journal_run(options: list[str]) -> dict[str, float]:
    """The figures of one server process, started with ``options``."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    args = [sys.executable, "-m", "sqsmock", "serve", "--port", str(port), "--log-level", "error"]
    server = subprocess.Popen(
        [*args, *options], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT
    )
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)

        def call(target: str, body: bytes) -> bytes:
            headers = {"X-Amz-Target": f"AmazonSQS.{target}", "Authorization": AUTH}
            headers["Content-Type"] = "application/x-amz-json-1.0"
            conn.request("POST", "/", body, headers)
            return conn.getresponse().read()

        url = json.loads(call("CreateQueue", b'{"QueueName": "q"}'))["QueueUrl"]
        figures = {"start": _rss_mib(server.pid)}
        entries = [{"Id": str(n), "MessageBody": "x"} for n in range(110_000)]
        batch = json.dumps({"QueueUrl": url, "Entries": entries}).encode()
        for _ in range(10):
            call("SendMessageBatch", batch)
        figures["batches"] = _rss_mib(server.pid)
        send = json.dumps({"QueueUrl": url, "MessageBody": "b"})[:-1]
        ignored = (send + ', "Extra": [' + ",".join(["{}"] * 1_300_000) + "]}").encode()
        for _ in range(10):
            call("SendMessage", ignored)
        figures["ignored"] = _rss_mib(server.pid)
        start = time.perf_counter()
        conn.request("GET", "/_sqsmock/calls?limit=100&newest=true")
        page = conn.getresponse().read()
        figures["page s"] = time.perf_counter() - start
        figures["page MiB"] = len(page) / 2**20
        return figures
    finally:
        server.terminate()
        server.wait(10)


def bench_journal() -> int:
    if not os.path.exists("/proc/self/status"):
        print("journal: skipped (RSS is read from /proc)")
        return 0
    on, off = _journal_run([]), _journal_run(["--journal-limit", "0"])
    print(f"{'server RSS (MiB)':42} {'journal on':>10} {'journal off':>11}")
    rows = {
        "at start": "start",
        "after 10 rejected 110 000-entry batches": "batches",
        "and 10 requests of 1.3M empty dicts": "ignored",
    }
    for label, key in rows.items():
        print(f"  {label:40} {on[key]:10.0f} {off[key]:11.0f}")
    page = f"{on['page MiB']:.2f} MiB in {on['page s'] * 1000:.0f} ms"
    ok_page = on["page MiB"] < 1 and on["page s"] < 1
    ok_rss = max(on["batches"] - off["batches"], on["ignored"] - off["ignored"]) <= 16
    print(f"  journal's RSS over none: {'PASS' if ok_rss else 'MISS'}")
    print(f"page of /_sqsmock/calls: {page}  {'PASS' if ok_page else 'MISS'}")
    return (not ok_rss) + (not ok_page)


SECTIONS = {"parse": bench_parse, "journal": bench_journal}


def main(argv: list[str]) -> None:
    unknown = [name for name in argv if name not in SECTIONS]
    if unknown:
        sys.exit(f"unknown section {unknown[0]!r}; choose from: {', '.join(SECTIONS)}")
    missed = sum(section() for name, section in SECTIONS.items() if name in (argv or SECTIONS))
    print("summary:", "PASS" if not missed else f"MISS ({missed})")


if __name__ == "__main__":
    main(sys.argv[1:])
