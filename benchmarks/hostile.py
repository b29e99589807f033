"""Hostile-input benchmark: what refusing malformed wire input costs the protocol layer.

    python benchmarks/hostile.py

Each case is a request body near the server's 4 MiB limit (or the deepest JSON the standard
library parses) that once cost seconds or hundreds of megabytes before failing; now each must be
refused as a 4xx in milliseconds, with little memory. For each: the answer's code, the best of
five times, and the peak memory the parse allocated (``tracemalloc``). Figures are reported,
never asserted; the summary marks the target (under 100 ms and 64 MiB each) PASS or MISS.
"""

from __future__ import annotations

import json
import time
import tracemalloc
from collections.abc import Callable

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


def main() -> None:
    missed = 0
    print(f"{'case':32} {'answer':34} {'ms':>8} {'peak MiB':>9}")
    for name, (headers, body) in cases().items():
        answer, ms, mib = measure(lambda h=headers, b=body: refuse(h, b))
        ok = answer.startswith("4") and ms < 100 and mib < 64
        missed += not ok
        print(f"{name:32} {answer:34} {ms:8.1f} {mib:9.1f}  {'PASS' if ok else 'MISS'}")
    print("summary:", "PASS" if not missed else f"MISS ({missed})")


if __name__ == "__main__":
    main()
