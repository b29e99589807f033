"""The load generator of benchmarks/server.py: SQS calls over raw keep-alive sockets.

One asyncio process speaking HTTP/1.1 (requests pre-built, answers read by ``Content-Length``),
so that the generator costs far less than the server it drives. Each of ``CONNECTIONS``
connections works its own queue in send/receive/delete cycles, in AWS JSON 1.0 or the query
protocol; ``measure`` reports calls, latencies and the server process's CPU time.
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

AUTHORIZATION = (
    "AWS4-HMAC-SHA256 Credential=AKIDBENCHMARK/20260101/us-east-1/sqs/aws4_request, "
    "SignedHeaders=host;x-amz-date;x-amz-target, Signature=0"
)
CONNECTIONS = 16
_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:\s*(\d+)", re.IGNORECASE)


class Connection:
    """One keep-alive HTTP/1.1 connection sending SQS calls in AWS JSON 1.0 or, with
    ``protocol="query"``, the query protocol (reconnecting if the server closes it, as an
    HTTP/1.0 server does)."""

    def __init__(self, host: str, port: int, protocol: str = "json") -> None:
        self.host, self.port, self.protocol = host, port, protocol
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.head = f"Host: {host}:{port}\r\nAuthorization: {AUTHORIZATION}\r\n".encode()

    def value(self, answer: bytes, name: str) -> str | None:
        """The text of answer field ``name`` (``QueueUrl``, ``ReceiptHandle``), if any."""
        if self.protocol == "query":
            found = re.search(f"<{name}>([^<]+)</{name}>", answer.decode())
            return html.unescape(found.group(1)) if found else None
        found = re.search(f'"{name}"\\s*:\\s*"([^"]+)"', answer.decode())
        return found.group(1) if found else None

    async def _open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def call(self, operation: str, params: dict[str, object]) -> tuple[int, bytes]:
        if self.protocol == "query":
            body = urlencode({"Action": operation, "Version": "2012-11-05", **params}).encode()
            request = (
                b"POST / HTTP/1.1\r\n%sContent-Type: application/x-www-form-urlencoded\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (self.head, len(body), body)
            )
        else:
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
    cpu: float = 0.0  # CPU seconds the server used

    @property
    def cpu_per_call(self) -> float:
        """The server's own CPU time per call, in µs: what load on the machine changes least."""
        return self.cpu / self.calls * 1e6 if self.calls else float("nan")

    @property
    def per_second(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000


async def cycle_worker(
    host: str, port: int, name: str, seconds: float, figures: Figures, protocol: str = "json"
) -> None:
    """send, receive, delete on its own queue, until the time is up."""
    connection = Connection(host, port, protocol)
    try:
        status, answer = await connection.call("CreateQueue", {"QueueName": name})
        url = connection.value(answer, "QueueUrl")
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
            receipt = connection.value(answer, "ReceiptHandle")
            figures.calls += 2
            if status != 200 or status2 != 200 or receipt is None:
                figures.errors += 1
                continue
            before = clock()
            status, _ = await connection.call(
                "DeleteMessage", {"QueueUrl": url, "ReceiptHandle": receipt}
            )
            latencies.append(clock() - before)
            figures.calls += 1
            figures.errors += status != 200
    finally:
        connection.close()


async def measure(
    host: str,
    port: int,
    seconds: float,
    tag: str,
    pid: int | None = None,
    protocol: str = "json",
) -> Figures:
    figures = Figures()
    cpu = cpu_seconds(pid)
    started = time.perf_counter()
    await asyncio.gather(
        *(
            cycle_worker(host, port, f"{tag}-{i}", seconds, figures, protocol)
            for i in range(CONNECTIONS)
        )
    )
    figures.seconds = time.perf_counter() - started
    figures.cpu = cpu_seconds(pid) - cpu
    return figures


def cpu_seconds(pid: int | None) -> float:
    """CPU time (user + system) a process has used so far, from /proc (0 where unknown)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
