"""sqsmock benchmarks: figures and ratios measured side by side in one run.

    python benchmarks/bench.py                 # everything
    python benchmarks/bench.py cycle drain     # only these sections

Sections:
  cycle        µs per API call of a steady send/receive/delete cycle: sqsmock vs botocore's
               Stubber answering the same three calls with canned responses (the floor for any
               in-process mock) vs moto (when installed).
  drain        send 500 messages in batches of 10, then receive 10 + delete batch until empty:
               sqsmock vs moto; and 20 000 messages for sqsmock alone (linear: 40x the time).
  depth        µs per operation (receive, change visibility, delete, through boto3) on a standard
               queue holding 1 000 / 100 000 / 1 000 000 messages; moto at 1 000 and 10 000.
  fifo         the same on a FIFO queue whose messages are spread over 1 000 message groups.
  fifo-head    a FIFO group whose head is received again and again but never deleted, while the
               message behind it is received and deleted each round: µs per receive after
               1 000 rounds vs after 10 000 rounds (deleted messages behind a live head must
               not slow receive down; target <= 1.3x).
  memory       bytes per stored small message at 1 000 000 messages (RSS of a fresh process),
               with a tracemalloc breakdown; and bytes still held after 200 large messages
               (256 KiB bodies) were sent, received and deleted -- standard and FIFO, call
               journal off -- and after 400 with the call journal at its default bounds.
  persistence  the cycle in memory vs fakeredis vs a real Redis server; and the time to load
               100 000 persisted messages when a mock starts.
  async        µs per API call of the steady cycle through aiobotocore (awaited, one event loop)
               beside the same cycle through botocore, both under sqsmock; and the cost of a
               long poll woken by a send from another task.
  paths        µs per call of the steady cycle on each in-process path: fast (nothing else
               watches), serialized (another before-call handler sees the wire request), full
               (a before-send handler: built, signed and answered from the prepared request).
  floors       µs per call of the steady cycle under sqsmock beside botocore answering the same
               calls itself: on the fast path beside a client whose parameters are validated
               but not serialized and whose ``before-call`` handler returns canned parsed
               answers (target <= 1.5x); on the full path (a user's ``before-send`` handler)
               beside a client answered with canned HTTP bytes by its last ``before-send``
               handler, signed and parsed by botocore as usual (target <= 1.2x). sqsmock's
               fast path resolves a client's endpoint once per operation, which botocore does
               on every call: the fast path is also shown beside a floor that does the same
               (sqsmock's own share; no target). Timed in CPU time of the process, which other
               processes on the machine do not inflate; every contender runs once per round,
               and each ratio is the median of the rounds' own ratios.
  chart        docs/benchmark-depth.png from the depth and fifo figures of this run (runs those
               sections too when they were not chosen).

Queues are filled through the engine (``Queue.send`` with ``Message`` objects built the way
SendMessage builds them): boto3 calls are far too slow for a million messages. Operations are
always measured through boto3, which is what users pay. Machines are noisy: every comparison
interleaves its contenders in rounds and reports medians. Timings are reported, never asserted;
the summary marks each ratio PASS or MISS against its target.

Environment: SQSMOCK_BENCH_REDIS (default redis://127.0.0.1:6379/0) names the Redis server; keys
go under a fresh ``sqsmock-bench-<uuid>:`` namespace and are deleted afterwards.
"""

from __future__ import annotations

import gc
import hashlib
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
import uuid
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
from botocore.stub import Stubber

import sqsmock
from sqsmock import mock_sqs
from sqsmock._engine.message import Message, new_message_id

REGION = "us-east-1"
ACCOUNT = "123456789012"
URL = "https://sqs.us-east-1.amazonaws.com/123456789012/bench"
REDIS_URL = os.environ.get("SQSMOCK_BENCH_REDIS", "redis://127.0.0.1:6379/0")
CHART = Path(__file__).resolve().parent.parent / "docs" / "benchmark-depth.png"

DEPTHS = (1_000, 100_000, 1_000_000)
MOTO_DEPTHS = (1_000, 10_000)
FIFO_GROUPS = 1_000
MEMORY_MESSAGES = 1_000_000
#: Large messages sent, received and deleted in the memory section, and their body size.
LARGE_MESSAGES = 200
LARGE_BODY = 256 * 1024
LOAD_MESSAGES = 100_000


_CLIENT_OPTIONS = {
    "region_name": REGION,
    "aws_access_key_id": "bench",
    "aws_secret_access_key": "bench",
}


def _client() -> Any:
    return boto3.client("sqs", **_CLIENT_OPTIONS)


def _n(count: int) -> str:
    """1000000 -> '1 000 000'."""
    return f"{count:,}".replace(",", " ")


# -- results --------------------------------------------------------------------------------


@dataclass
class Check:
    """One reported figure; ``relation`` is "<=" or ">=" against ``target``, or "" (no target)."""

    name: str
    value: float
    relation: str
    target: float | None
    unit: str
    shown: str

    @property
    def verdict(self) -> str:
        if self.target is None:
            return "-"
        ok = self.value <= self.target if self.relation == "<=" else self.value >= self.target
        return "PASS" if ok else "MISS"

    @property
    def target_text(self) -> str:
        if self.target is None:
            return "(no target)"
        return f"{self.relation} {self.target:g}{self.unit}"


RESULTS: list[Check] = []
SKIPPED: list[str] = []
#: Chart series measured in this run: label -> {queue depth: µs per operation}.
FIGURES: dict[str, dict[int, float]] = {}


def _check(
    name: str,
    value: float,
    relation: str = "",
    target: float | None = None,
    *,
    unit: str = "x",
    fmt: str = ".2f",
    label: str | None = None,
    note: str = "",
) -> None:
    """Print ``label = value (target ...)`` and keep the figure for the summary."""
    check = _record(name, value, relation, target, unit=unit, fmt=fmt)
    text = label if label is not None else name
    wanted = f"(target {check.target_text}{note})" if target is not None else check.target_text
    print(f"  {text} = {check.shown}   {wanted}")


def _record(
    name: str,
    value: float,
    relation: str = "",
    target: float | None = None,
    *,
    unit: str = "x",
    fmt: str = ".2f",
) -> Check:
    """Keep a figure for the summary without printing it."""
    check = Check(name, value, relation, target, unit, f"{value:{fmt}}{unit}")
    RESULTS.append(check)
    return check


def _skip(what: str, why: str) -> None:
    SKIPPED.append(f"{what}: {why}")
    print(f"  {what}: skipped ({why})")


# -- timing helpers -------------------------------------------------------------------------


def _per_call(
    cycle: Callable[[], None],
    calls_per_cycle: int,
    cycles: int,
    timer: Callable[[], float] = time.perf_counter,
) -> float:
    # What earlier setup left for the garbage collector (a client, a mock, a contender's
    # round) is collected now, not inside whichever contender's loop happens to trigger it;
    # the collections the timed calls cause themselves still count.
    gc.collect()
    start = timer()
    for _ in range(cycles):
        cycle()
    return (timer() - start) / (cycles * calls_per_cycle) * 1e6


def _rounds(contenders: dict[str, Callable[[int], float]], rounds: int) -> dict[str, float]:
    """Median of ``rounds`` interleaved runs of each contender."""
    samples = _samples(contenders, rounds)
    return {name: statistics.median(values) for name, values in samples.items()}


def _samples(contenders: dict[str, Callable[[int], float]], rounds: int) -> dict[str, list[float]]:
    """Each contender's figure in each of ``rounds`` rounds; in a round every contender runs
    once, one after the other."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, run in contenders.items():
            samples[name].append(run(1))
    return samples


def _paired(samples: dict[str, list[float]], ours: str, theirs: str) -> float:
    """The median over rounds of ``ours / theirs`` measured in the same round, one after the
    other: a slower or faster spell of a shared machine that spans a round weighs on both of
    its figures, where a ratio of two medians may divide figures from different spells."""
    return statistics.median(a / b for a, b in zip(samples[ours], samples[theirs], strict=True))


# -- filling queues through the engine ------------------------------------------------------


def _messages(start: int, count: int, sender: str, groups: int = 0) -> list[Message]:
    """Small messages built as SendMessage builds them (FIFO: spread over ``groups`` groups)."""
    md5 = hashlib.md5
    out = []
    for i in range(start, start + count):
        body = f'{{"order": {i}, "status": "new"}}'
        data = body.encode("utf-8")
        out.append(
            Message(
                new_message_id(),
                body,
                md5(data).hexdigest(),
                sender_id=sender,
                size=len(data),
                group_id=f"group-{i % groups}" if groups else None,
                dedup_id=f"dedup-{i}" if groups else None,
            )
        )
    return out


class _Filler:
    """Fills one sqsmock queue through the engine and keeps its depth steady while measuring."""

    def __init__(self, queue: Any, groups: int = 0) -> None:
        self.queue = queue
        self.groups = groups
        self.sent = 0

    def fill(self, count: int, chunk: int = 10_000) -> float:
        """Send ``count`` messages in chunks (one ``queue.send`` each); returns seconds."""
        start = time.perf_counter()
        end = self.sent + count
        while self.sent < end:
            size = min(chunk, end - self.sent)
            batch = _messages(self.sent, size, self.queue.account, self.groups)
            self.queue.send(batch, [None] * size)
            self.sent += size
        return time.perf_counter() - start


def _rss() -> int | None:
    """Resident set size of this process in bytes (Linux), or None."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


# -- cycle ----------------------------------------------------------------------------------


def _steady_cycle() -> Callable[[], None]:
    """One send, one receive, one delete on a new queue of the active mock."""
    client = _client()
    url = client.create_queue(QueueName="bench")["QueueUrl"]

    def cycle() -> None:
        client.send_message(QueueUrl=url, MessageBody="hello")
        message = client.receive_message(QueueUrl=url)["Messages"][0]
        client.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])

    return cycle


def _sqsmock_cycle() -> Callable[[int], float]:
    def run(_: int) -> float:
        with mock_sqs():
            cycle = _steady_cycle()
            _per_call(cycle, 3, 100)  # warm up
            return _per_call(cycle, 3, 1000)

    return run


def _stubber_cycle() -> Callable[[int], float]:
    client = _client()
    stubber = Stubber(client)
    stubber.activate()
    received = {
        "Messages": [
            {
                "MessageId": "6a1f2b3c-0000-4000-8000-000000000000",
                "ReceiptHandle": "AQEB" + "x" * 160,
                "MD5OfBody": "5d41402abc4b2a76b9719d911017c592",
                "Body": "hello",
            }
        ]
    }
    sent = {"MessageId": "6a1f2b3c-0000-4000-8000-000000000000", "MD5OfMessageBody": "x" * 32}

    def queue_responses(cycles: int) -> None:
        # Queued before the timed loop: what is timed is botocore alone, the floor.
        for _ in range(cycles):
            stubber.add_response("send_message", sent)
            stubber.add_response("receive_message", received)
            stubber.add_response("delete_message", {})

    def cycle() -> None:
        client.send_message(QueueUrl=URL, MessageBody="hello")
        message = client.receive_message(QueueUrl=URL)["Messages"][0]
        client.delete_message(QueueUrl=URL, ReceiptHandle=message["ReceiptHandle"])

    def run(cycles: int) -> float:
        queue_responses(cycles)
        return _per_call(cycle, 3, cycles)

    run(200)
    return lambda _: run(1000)


def _moto_cycle() -> Callable[[int], float] | None:
    try:
        from moto import mock_aws
    except ImportError:
        return None

    def run(_: int) -> float:
        with mock_aws():
            client = _client()
            url = client.create_queue(QueueName="bench")["QueueUrl"]

            def cycle() -> None:
                client.send_message(QueueUrl=url, MessageBody="hello")
                message = client.receive_message(QueueUrl=url)["Messages"][0]
                client.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])

            _per_call(cycle, 3, 20)
            return _per_call(cycle, 3, 200)

    return run


def bench_cycle() -> None:
    print("== per-call cost, steady send/receive/delete cycle (µs per call, median of rounds)")
    contenders: dict[str, Callable[[int], float]] = {}
    moto = _moto_cycle()
    contenders["stubber"] = _stubber_cycle()
    contenders["sqsmock"] = _sqsmock_cycle()
    if moto is not None:
        contenders["moto"] = moto
    result = _rounds(contenders, rounds=7)
    for name, value in result.items():
        print(f"  {name:8s} {value:8.1f} µs/call")
    _check(
        "cycle: sqsmock / stubber",
        result["sqsmock"] / result["stubber"],
        "<=",
        1.3,
        label="sqsmock / stubber",
    )
    if "moto" in result:
        _check(
            "cycle: moto / sqsmock",
            result["moto"] / result["sqsmock"],
            ">=",
            3,
            fmt=".1f",
            label="moto / sqsmock   ",
        )
    else:
        _skip("cycle: moto", "moto is not installed")


# -- async ----------------------------------------------------------------------------------


def _has_aiobotocore() -> bool:
    return importlib.util.find_spec("aiobotocore") is not None


def _aio_client() -> Any:
    """An aiobotocore SQS client, for ``async with``."""
    from aiobotocore.session import get_session

    return get_session().create_client("sqs", **_CLIENT_OPTIONS)


def _aiobotocore_cycle() -> Callable[[int], float] | None:
    if not _has_aiobotocore():
        return None
    import asyncio

    async def measure() -> float:
        async with _aio_client() as client:
            url = (await client.create_queue(QueueName="bench"))["QueueUrl"]

            async def cycles(count: int) -> float:
                start = time.perf_counter()
                for _ in range(count):
                    await client.send_message(QueueUrl=url, MessageBody="hello")
                    got = await client.receive_message(QueueUrl=url)
                    receipt = got["Messages"][0]["ReceiptHandle"]
                    await client.delete_message(QueueUrl=url, ReceiptHandle=receipt)
                return (time.perf_counter() - start) / (count * 3) * 1e6

            await cycles(100)  # warm up
            return await cycles(1000)

    def run(_: int) -> float:
        with mock_sqs():
            return asyncio.run(measure())

    return run


def _async_wake_latency(polls: int = 200) -> float | None:
    """µs from a send to the answer of the long poll it wakes (another task was waiting)."""
    if not _has_aiobotocore():
        return None
    import asyncio

    async def measure() -> float:
        async with _aio_client() as client:
            url = (await client.create_queue(QueueName="wake"))["QueueUrl"]
            samples = []
            for _ in range(polls):
                poll = asyncio.ensure_future(
                    client.receive_message(QueueUrl=url, WaitTimeSeconds=20)
                )
                for _ in range(100):  # until the poll waits
                    await asyncio.sleep(0)
                start = time.perf_counter()
                await client.send_message(QueueUrl=url, MessageBody="ping")
                got = await poll
                samples.append(time.perf_counter() - start)
                receipt = got["Messages"][0]["ReceiptHandle"]
                await client.delete_message(QueueUrl=url, ReceiptHandle=receipt)
            return statistics.median(samples) * 1e6

    with mock_sqs():
        return asyncio.run(measure())


def bench_async() -> None:
    print("== async clients: steady send/receive/delete cycle (µs per call, median of rounds)")
    aio = _aiobotocore_cycle()
    if aio is None:
        _skip("async", "aiobotocore is not installed")
        return
    import aiobotocore
    import botocore

    print(f"  aiobotocore {aiobotocore.__version__}, botocore {botocore.__version__}")
    result = _rounds({"botocore": _sqsmock_cycle(), "aiobotocore": aio}, rounds=7)
    for name, value in result.items():
        print(f"  {name:11s} {value:8.1f} µs/call")
    _record("async: botocore µs/call", result["botocore"], unit=" µs", fmt=".1f")
    _record("async: aiobotocore µs/call", result["aiobotocore"], unit=" µs", fmt=".1f")
    _check(
        "async: aiobotocore / botocore",
        result["aiobotocore"] / result["botocore"],
        label="aiobotocore / botocore",
    )
    latency = _async_wake_latency()
    if latency is not None:
        _check(
            "async: send to woken long poll",
            latency,
            unit=" µs",
            fmt=".0f",
            label="send -> woken long poll answered",
        )


# -- drain ----------------------------------------------------------------------------------


def _drain(client: Any, url: str, count: int) -> float:
    """Send ``count`` messages in batches of 10, then receive/delete in tens until empty; s."""
    start = time.perf_counter()
    for base in range(0, count, 10):
        entries = [
            {"Id": str(j), "MessageBody": f"message {base + j}"}
            for j in range(min(10, count - base))
        ]
        client.send_message_batch(QueueUrl=url, Entries=entries)
    drained = 0
    while True:
        messages = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages")
        if not messages:
            break
        client.delete_message_batch(
            QueueUrl=url,
            Entries=[
                {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)
            ],
        )
        drained += len(messages)
    elapsed = time.perf_counter() - start
    if drained != count:
        raise RuntimeError(f"drained {drained} messages of {count}")
    return elapsed


def _sqsmock_drain(count: int) -> float:
    with mock_sqs():
        client = _client()
        url = client.create_queue(QueueName="drain")["QueueUrl"]
        gc.collect()
        return _drain(client, url, count)


def _moto_drain(count: int) -> float | None:
    try:
        from moto import mock_aws
    except ImportError:
        return None
    with mock_aws():
        client = _client()
        url = client.create_queue(QueueName="drain")["QueueUrl"]
        gc.collect()
        return _drain(client, url, count)


def bench_drain() -> None:
    small, large, rounds = 500, 20_000, 5
    print(
        f"== drain: send N messages in batches of 10, then receive 10 + delete batch until "
        f"empty (median of {rounds}; moto one run)"
    )
    _sqsmock_drain(small)  # warm up
    samples: dict[int, list[float]] = {small: [], large: []}
    moto: float | None = None
    for i in range(rounds):
        samples[small].append(_sqsmock_drain(small))
        if i == rounds // 2:
            moto = _moto_drain(small)
        samples[large].append(_sqsmock_drain(large))
    result = {count: statistics.median(values) for count, values in samples.items()}
    for count, seconds in result.items():
        print(
            f"  sqsmock N={_n(count):7s} {seconds * 1e3:10.1f} ms   "
            f"({seconds / count * 1e6:.1f} µs per message)"
        )
    if moto is not None:
        print(
            f"  moto    N={_n(small):7s} {moto * 1e3:10.1f} ms   "
            f"({moto / small * 1e6:.1f} µs per message)"
        )
        _check(
            "drain 500: moto / sqsmock",
            moto / result[small],
            ">=",
            10,
            fmt=".0f",
            label="moto / sqsmock (N=500)",
        )
    else:
        _skip("drain: moto", "moto is not installed")
    scale = large / small
    _check(
        "drain: 20 000 / 500",
        result[large] / result[small],
        "<=",
        1.3 * scale,
        unit="",
        fmt=".1f",
        label="drain(20 000) / drain(500)",
        note=f" = 1.3 x {scale:g}: linear",
    )


# -- depth and fifo -------------------------------------------------------------------------


class _DepthProbe:
    """receive + change visibility + delete through boto3 on one queue of a steady depth."""

    def __init__(self, client: Any, url: str, refill: Callable[[], object]) -> None:
        self.client = client
        self.url = url
        self.refill = refill

    def run(self, cycles: int) -> float:
        """µs per operation over ``cycles`` cycles; one message is added back (untimed) after
        each, so the depth does not drift."""
        client, url, clock = self.client, self.url, time.perf_counter
        total = 0.0
        for _ in range(cycles):
            start = clock()
            message = client.receive_message(QueueUrl=url)["Messages"][0]
            handle = message["ReceiptHandle"]
            client.change_message_visibility(
                QueueUrl=url, ReceiptHandle=handle, VisibilityTimeout=60
            )
            client.delete_message(QueueUrl=url, ReceiptHandle=handle)
            total += clock() - start
            self.refill()
        return total / (cycles * 3) * 1e6


def _sqsmock_depths(fifo: bool, rounds: int = 7, cycles: int = 300) -> dict[int, float]:
    """µs per operation at each of DEPTHS, measured in interleaved rounds in one mock."""
    groups = FIFO_GROUPS if fifo else 0
    suffix = ".fifo" if fifo else ""
    attributes = {"FifoQueue": "true"} if fifo else {}
    with mock_sqs() as mock:
        client = _client()
        probes: dict[int, _DepthProbe] = {}
        for depth in DEPTHS:
            name = f"depth-{depth}{suffix}"
            url = client.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
            filler = _Filler(mock.backend.get(REGION, ACCOUNT, name), groups)
            seconds = filler.fill(depth)
            print(f"  filled {_n(depth):>9s} messages through the engine in {seconds:6.2f} s")
            probes[depth] = _DepthProbe(client, url, lambda f=filler: f.fill(1))
        gc.collect()
        for probe in probes.values():
            probe.run(100)  # warm up
        samples: dict[int, list[float]] = {depth: [] for depth in DEPTHS}
        for _ in range(rounds):
            for depth, probe in probes.items():
                samples[depth].append(probe.run(cycles))
        for depth, probe in probes.items():
            queue = mock.backend.get(REGION, ACCOUNT, probe.url.rsplit("/", 1)[1])
            visible, inflight, delayed = queue.counts()
            if (visible + inflight + delayed) != depth:
                raise RuntimeError(f"queue of depth {depth} holds {visible + inflight + delayed}")
        del probes
    gc.collect()
    return {depth: statistics.median(values) for depth, values in samples.items()}


def _moto_depths(rounds: int = 3, budget: float = 60.0) -> dict[int, float] | None:
    """moto's µs per operation at MOTO_DEPTHS, in interleaved rounds (median).

    Its queues are filled through its backend: moto's SendMessage costs O(depth), so filling
    10 000 through boto3 takes many minutes. A depth whose measuring time, estimated from the
    first depth's, would exceed ``budget`` seconds is left out.
    """
    try:
        from moto import mock_aws
        from moto.sqs.models import Message as MotoMessage
        from moto.sqs.models import sqs_backends
    except ImportError:
        return None
    cycles = {depth: max(5, 20_000 // depth) for depth in MOTO_DEPTHS}
    samples: dict[int, list[float]] = {}
    with mock_aws():
        client = _client()
        backend = sqs_backends[ACCOUNT][REGION]
        probes: dict[int, _DepthProbe] = {}
        for depth in MOTO_DEPTHS:
            name = f"depth-{depth}"
            url = client.create_queue(QueueName=name)["QueueUrl"]
            queue = backend.get_queue(name)
            counter = iter(range(10**9))

            def add(queue: Any = queue, counter: Iterator[int] = counter) -> None:
                message = MotoMessage(str(uuid.uuid4()), f'{{"order": {next(counter)}}}')
                message.mark_sent()
                queue.add_message(message)

            start = time.perf_counter()
            for _ in range(depth):
                add()
            seconds = time.perf_counter() - start
            print(
                f"  moto: filled {_n(depth):>6s} messages through its backend in {seconds:6.2f} s"
            )
            probes[depth] = _DepthProbe(client, url, add)
        gc.collect()
        first = MOTO_DEPTHS[0]
        probes[first].run(1)  # warm up
        samples[first] = [probes[first].run(cycles[first])]
        for depth in MOTO_DEPTHS[1:]:
            per_op = samples[first][0] * depth / first  # moto's operations are O(depth)
            estimate = per_op * 3 * cycles[depth] * rounds / 1e6
            if estimate > budget:
                _skip(f"depth: moto at {_n(depth)}", f"estimated {estimate:.0f} s > {budget:g} s")
                del probes[depth]
            else:
                samples[depth] = []
        for i in range(rounds):
            for depth, probe in probes.items():
                if i > 0 or depth != first:
                    samples[depth].append(probe.run(cycles[depth]))
        del probes
    gc.collect()
    return {depth: statistics.median(values) for depth, values in samples.items()}


def _report_depths(kind: str, result: dict[int, float]) -> None:
    for depth, value in result.items():
        print(f"  sqsmock {kind:8s} depth {_n(depth):>9s} {value:8.1f} µs/op")
    base = DEPTHS[0]
    _check(
        f"{kind}: depth 100 000 / 1 000",
        result[100_000] / result[base],
        "<=",
        1.5,
        label=f"depth {_n(100_000)} / depth {_n(base)}",
    )
    _check(
        f"{kind}: depth 1 000 000 / 1 000",
        result[1_000_000] / result[base],
        label=f"depth {_n(1_000_000)} / depth {_n(base)}",
    )


def bench_depth() -> None:
    print(
        "== depth: standard queue, receive + change visibility + delete through boto3 "
        "(µs per operation, median of rounds)"
    )
    result = _sqsmock_depths(fifo=False)
    FIGURES["sqsmock, standard queue"] = result
    _report_depths("standard", result)
    moto = _moto_depths()
    if moto is None:
        _skip("depth: moto", "moto is not installed")
        return
    FIGURES["moto, standard queue"] = moto
    for depth, value in moto.items():
        print(f"  moto    standard depth {_n(depth):>9s} {value:8.1f} µs/op")
    for depth, value in moto.items():
        if depth in result:
            _check(
                f"depth {_n(depth)}: moto / sqsmock",
                value / result[depth],
                fmt=".0f",
                label=f"moto / sqsmock at depth {_n(depth)}",
            )


def bench_fifo() -> None:
    print(
        f"== fifo: FIFO queue, {_n(FIFO_GROUPS)} message groups, receive + change visibility + "
        "delete through boto3 (µs per operation, median of rounds)"
    )
    result = _sqsmock_depths(fifo=True)
    FIGURES["sqsmock, FIFO queue"] = result
    _report_depths("fifo", result)


FIFO_HEAD_ROUNDS = (1_000, 10_000)
FIFO_HEAD_SAMPLE = 300


def _fifo_head_rounds(mock: Any, client: Any, url: str, rounds: int) -> float:
    """Run ``rounds`` rounds; returns µs per receive over the last ``FIFO_HEAD_SAMPLE``."""
    spent = 0.0
    for i in range(rounds):
        client.send_message(
            QueueUrl=url, MessageBody=f"m{i}", MessageGroupId="g", MessageDeduplicationId=f"m{i}"
        )
        start = time.perf_counter()
        got = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=5)
        if i >= rounds - FIFO_HEAD_SAMPLE:
            spent += time.perf_counter() - start
        messages = got.get("Messages", [])
        if len(messages) != 2 or messages[0]["Body"] != "head":
            raise RuntimeError(f"round {i}: unexpected receive {messages!r}")
        client.delete_message(QueueUrl=url, ReceiptHandle=messages[1]["ReceiptHandle"])
        mock.clock.advance(5)  # the head's visibility lapses: it is first again
    return spent / FIFO_HEAD_SAMPLE * 1e6


def bench_fifo_head() -> None:
    print(
        "== fifo-head: a FIFO group whose head is never deleted; each round sends one message, "
        "receives the head and it, deletes it, lets the head's visibility lapse (µs per receive)"
    )
    figures: dict[int, list[float]] = {n: [] for n in FIFO_HEAD_ROUNDS}
    client = _client()
    for _ in range(3):
        for rounds in FIFO_HEAD_ROUNDS:
            with mock_sqs(clock="frozen") as mock:
                url = client.create_queue(QueueName="head.fifo", Attributes={"FifoQueue": "true"})[
                    "QueueUrl"
                ]
                client.send_message(
                    QueueUrl=url,
                    MessageBody="head",
                    MessageGroupId="g",
                    MessageDeduplicationId="head",
                )
                figures[rounds].append(_fifo_head_rounds(mock, client, url, rounds))
    few, many = (statistics.median(figures[n]) for n in FIFO_HEAD_ROUNDS)
    print(f"  after {_n(FIFO_HEAD_ROUNDS[0])} rounds  {few:8.1f} µs/receive")
    print(f"  after {_n(FIFO_HEAD_ROUNDS[1])} rounds {many:8.1f} µs/receive")
    _check(
        "fifo-head: 10 000 / 1 000 rounds",
        many / few,
        "<=",
        1.3,
        label=f"receive after {_n(FIFO_HEAD_ROUNDS[1])} / after {_n(FIFO_HEAD_ROUNDS[0])} rounds",
    )


# -- memory ---------------------------------------------------------------------------------


#: What each file's allocations are, in the tracemalloc breakdown.
_MEMORY_NOTES = {
    "benchmarks/bench.py": ": Message objects and bodies (built as SendMessage builds them)",
    "sqsmock/_engine/message.py": ": MessageIds and body MD5s as 128-bit numbers",
    "sqsmock/_engine/queue.py": ": enqueue order numbers",
    "sqsmock/_engine/scheduler.py": ": ready and age runs (heap entries only out of order)",
    "sqsmock/_engine/tombstone.py": ": the log's slots and slot numbers",
}
#: The most RSS a small held message may cost.
MEMORY_TARGET = 512


def _rss_probe(count: int) -> None:
    """Run in a fresh interpreter: RSS growth from filling one queue with ``count`` messages."""
    with mock_sqs() as mock:
        _client().create_queue(QueueName="memory")
        filler = _Filler(mock.backend.get(REGION, ACCOUNT, "memory"))
        gc.collect()
        before = _rss()
        seconds = filler.fill(count)
        gc.collect()
        after = _rss()
        grown = None if before is None or after is None else after - before
        print(json.dumps({"rss": grown, "seconds": seconds}))


def bench_memory() -> None:
    count = MEMORY_MESSAGES
    print(
        f"== memory: one standard queue holding {_n(count)} small messages (29- to 34-byte bodies)"
    )
    probe = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--rss-probe", str(count)],
        capture_output=True,
        text=True,
        check=True,
    )
    measured = json.loads(probe.stdout.strip().splitlines()[-1])
    print(f"  filled {_n(count)} messages in a fresh interpreter in {measured['seconds']:.2f} s")
    if measured["rss"] is not None:
        per_message = measured["rss"] / count
        print(f"  RSS growth          {measured['rss'] / 2**20:8.1f} MiB")
        _check(
            "memory: RSS bytes / message",
            per_message,
            "<=",
            MEMORY_TARGET,
            unit=" B",
            fmt=".0f",
            label="RSS per message    ",
        )
        print(f"  RSS per message vs {MEMORY_TARGET} B: {RESULTS[-1].verdict}")
    else:
        _skip("memory: RSS", "/proc/self/statm is not readable on this system")

    sample = LOAD_MESSAGES
    print(
        f"  tracemalloc breakdown while filling {_n(sample)} messages (bytes per message; the "
        "event log, bounded whatever the depth, off):"
    )
    with mock_sqs(journal_limit=0) as mock:
        _client().create_queue(QueueName="traced")
        filler = _Filler(mock.backend.get(REGION, ACCOUNT, "traced"))
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.take_snapshot()
            filler.fill(sample)
            gc.collect()
            after = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
    root = Path(sqsmock.__file__).resolve().parent.parent
    total = 0
    for stat in after.compare_to(before, "filename"):
        if stat.size_diff <= 0:
            continue
        total += stat.size_diff
        where = Path(stat.traceback[0].filename).resolve()
        shown = where.relative_to(root) if where.is_relative_to(root) else where.name
        if stat.size_diff / sample >= 1:
            what = _MEMORY_NOTES.get(str(shown), "")
            print(f"    {stat.size_diff / sample:7.0f}  {shown}{what}")
    print(f"    {total / sample:7.0f}  total traced")
    _check(
        "memory: traced bytes / message",
        total / sample,
        unit=" B",
        fmt=".0f",
        label="traced per message ",
    )
    del filler, before, after
    gc.collect()
    _bench_released()


def _held_after_large(fifo: bool, count: int, journal: bool) -> int:
    """Bytes still traced after ``count`` large messages were sent, received and deleted
    through boto3 (the call journal at its default bounds, or off)."""
    options: dict[str, Any] = {} if journal else {"journal_limit": 0}
    with mock_sqs(clock="frozen", **options):
        client = _client()
        attributes = {"FifoQueue": "true"} if fifo else {}
        url = client.create_queue(
            QueueName="large.fifo" if fifo else "large", Attributes=attributes
        )["QueueUrl"]

        def send(i: int) -> None:
            extra = (
                {"MessageGroupId": f"g{i % 10}", "MessageDeduplicationId": str(i)} if fifo else {}
            )
            client.send_message(QueueUrl=url, MessageBody=f"{i:08d}" * (LARGE_BODY // 8), **extra)

        def drain() -> None:
            while True:
                got = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages")
                if not got:
                    return
                entries = [
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)
                ]
                del got
                client.delete_message_batch(QueueUrl=url, Entries=entries)

        send(0)  # warm up botocore's caches
        drain()
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for i in range(1, count + 1):
                send(i)
            drain()
            gc.collect()
            return tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()


def _bench_released() -> None:
    sent = LARGE_MESSAGES * LARGE_BODY
    print(
        f"  held after sending, receiving and deleting {_n(LARGE_MESSAGES)} x "
        f"{LARGE_BODY // 1024} KiB ({sent / 2**20:.0f} MiB; tracemalloc):"
    )
    for fifo in (False, True):
        held = _held_after_large(fifo, LARGE_MESSAGES, journal=False)
        kind = "FIFO,    " if fifo else "standard,"
        _check(
            f"memory: held after deleting large messages, {kind.rstrip(', ')}",
            held / 2**20,
            "<=",
            1.0,
            unit=" MiB",
            fmt=".2f",
            label=f"  {kind} journal off",
        )
    count = 2 * LARGE_MESSAGES
    with warnings.catch_warnings():  # the journal drops its oldest calls: that is the point
        warnings.simplefilter("ignore", sqsmock.JournalFullWarning)
        held = _held_after_large(False, count, journal=True)
    _check(
        "memory: held after deleting large messages, journal at its bounds",
        held / 2**20,
        "<=",
        65.0,
        unit=" MiB",
        fmt=".1f",
        label=f"  standard, {_n(count)} ({count * LARGE_BODY / 2**20:.0f} MiB), journal on",
    )


# -- persistence ----------------------------------------------------------------------------


def _namespace() -> str:
    return f"sqsmock-bench-{uuid.uuid4().hex}:"


def _drop_namespace(client: Any, namespace: str) -> None:
    keys = list(client.scan_iter(match=namespace + "*", count=1000))
    for i in range(0, len(keys), 1000):
        client.delete(*keys[i : i + 1000])


def _redis_client() -> Any | None:
    try:
        import redis
    except ImportError:
        return None
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except Exception:
        return None
    return client


def _fakeredis_factory() -> Callable[[], Any] | None:
    try:
        import fakeredis
    except ImportError:
        return None
    return lambda: fakeredis.FakeRedis(server=fakeredis.FakeServer())


def _persisted_cycle(make_store: Callable[[], Any] | None) -> Callable[[int], float]:
    """The cycle of ``cycle`` with ``persistence=make_store()`` (None: in memory)."""

    def run(_: int) -> float:
        store = make_store() if make_store is not None else None
        namespace = _namespace()
        try:
            with mock_sqs(persistence=store, namespace=namespace):
                cycle = _steady_cycle()
                _per_call(cycle, 3, 50)  # warm up
                return _per_call(cycle, 3, 300)
        finally:
            if store is not None:
                _drop_namespace(store, namespace)

    return run


def _load_time(store: Any, count: int, runs: int) -> tuple[float, float]:
    """(seconds to fill ``count`` persisted messages, median seconds to start a mock on them)."""
    namespace = _namespace()
    try:
        with mock_sqs(persistence=store, namespace=namespace) as mock:
            _client().create_queue(QueueName="persisted")
            filler = _Filler(mock.backend.get(REGION, ACCOUNT, "persisted"))
            filled = filler.fill(count, chunk=1_000)  # one commit per chunk
        del filler
        samples = []
        for _ in range(runs):
            gc.collect()
            loaded = mock_sqs(persistence=store, namespace=namespace)
            start = time.perf_counter()
            loaded.start()
            samples.append(time.perf_counter() - start)
            held = sum(loaded.backend.get(REGION, ACCOUNT, "persisted").counts())
            loaded.stop()
            if held != count:
                raise RuntimeError(f"loaded {held} messages of {count}")
        return filled, statistics.median(samples)
    finally:
        _drop_namespace(store, namespace)


def bench_persistence() -> None:
    print(
        "== persistence: steady send/receive/delete cycle (µs per call, median of rounds); "
        f"Redis at {REDIS_URL}"
    )
    real = _redis_client()
    fake = _fakeredis_factory()
    contenders: dict[str, Callable[[int], float]] = {"memory": _persisted_cycle(None)}
    if fake is not None:
        contenders["fakeredis"] = _persisted_cycle(fake)
    if real is not None:
        contenders["redis"] = _persisted_cycle(lambda: real)
    result = _rounds(contenders, rounds=7)
    for name, value in result.items():
        print(f"  {name:9s} {value:8.1f} µs/call")
    if "redis" in result:
        _check(
            "persistence: redis / memory",
            result["redis"] / result["memory"],
            "<=",
            3,
            label="redis / memory    ",
        )
        print(f"  redis / memory vs 3x: {RESULTS[-1].verdict}")
    else:
        _skip("persistence: redis", f"no Redis server answers at {REDIS_URL} (or no redis-py)")
    if "fakeredis" in result:
        _check(
            "persistence: fakeredis / memory",
            result["fakeredis"] / result["memory"],
            label="fakeredis / memory",
        )
    else:
        _skip("persistence: fakeredis", "fakeredis is not installed")

    count = LOAD_MESSAGES
    print(f"== persistence: start a mock on {_n(count)} persisted messages (seconds)")
    stores: list[tuple[str, Any, int]] = []
    if real is not None:
        stores.append(("redis", real, 3))
    if fake is not None:
        stores.append(("fakeredis", fake(), 1))
    for name, store, runs in stores:
        filled, loaded = _load_time(store, count, runs)
        how = f"median of {runs}" if runs > 1 else "one run"
        print(f"  {name:9s} load {loaded:6.2f} s ({how}; filling them took {filled:.2f} s)")
        _record(f"persistence: load {_n(count)} from {name}", loaded, unit=" s", fmt=".2f")
    if real is not None:
        real.close()


# -- chart ----------------------------------------------------------------------------------


def bench_chart() -> None:
    print(f"== chart: {CHART.relative_to(CHART.parent.parent)}")
    if not FIGURES:
        _skip("chart", "no depth figures measured in this run")
        return
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        _skip("chart", "matplotlib is not installed")
        return
    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    # label -> (line style, colour, label offset in points: standard below, the others above)
    styles = {
        "sqsmock, standard queue": ("o-", "tab:blue", -13),
        "sqsmock, FIFO queue": ("s-", "tab:green", 7),
        "moto, standard queue": ("^-", "tab:red", 7),
    }
    order = [label for label in styles if label in FIGURES]
    order += [label for label in FIGURES if label not in styles]
    for label in order:
        points = FIGURES[label]
        depths = sorted(points)
        values = [points[d] for d in depths]
        marker, color, offset = styles.get(label, ("o-", "tab:gray", 7))
        ax.plot(depths, values, marker, color=color, label=label)
        for depth, value in zip(depths, values, strict=True):
            text = f"{value:.0f} µs" if value < 10_000 else f"{value / 1e3:.0f} ms"
            ax.annotate(
                text,
                (depth, value),
                textcoords="offset points",
                xytext=(0, offset),
                ha="center",
                fontsize=8,
                color=color,
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    every = [value for points in FIGURES.values() for value in points.values()]
    ax.set_ylim(min(every) / 2, max(every) * 2)  # room for the labels
    ax.set_xlabel("messages in the queue")
    ax.set_ylabel("µs per operation (log scale)")
    ax.set_title(
        "Cost per operation vs queue depth\n(receive, change visibility, delete via boto3)"
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.text(
        0.99,
        0.01,
        f"sqsmock {sqsmock.__version__}, Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}; median of interleaved rounds",
        ha="right",
        va="bottom",
        fontsize=7,
        color="gray",
    )
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    CHART.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(CHART)
    plt.close(fig)
    print(f"  wrote {CHART}")


# -- paths ----------------------------------------------------------------------------------


def _path_cycle(
    event: str | None, cycles: int = 1000, timer: Callable[[], float] = time.perf_counter
) -> Callable[[int], float]:
    """The steady cycle under sqsmock, with a no-op handler on ``event`` (None: no handler)."""

    def watch(**kwargs: Any) -> None:
        return None

    def run(_: int) -> float:
        with mock_sqs():
            client = _client()
            if event is not None:
                client.meta.events.register(event, watch)
            url = client.create_queue(QueueName="bench")["QueueUrl"]

            def cycle() -> None:
                client.send_message(QueueUrl=url, MessageBody="hello")
                message = client.receive_message(QueueUrl=url)["Messages"][0]
                client.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])

            _per_call(cycle, 3, cycles // 10)  # warm up
            return _per_call(cycle, 3, cycles, timer)

    return run


def bench_paths() -> None:
    print("== in-process paths, steady send/receive/delete cycle (µs per call, median of rounds)")
    result = _rounds(
        {
            "fast": _path_cycle(None),
            "serialized": _path_cycle("before-call.sqs"),
            "full": _path_cycle("before-send.sqs"),
        },
        rounds=7,
    )
    for name, value in result.items():
        print(f"  {name:10s} {value:8.1f} µs/call")
    _check("paths: serialized / fast", result["serialized"] / result["fast"])
    _check("paths: full / fast", result["full"] / result["fast"])


# -- floors ---------------------------------------------------------------------------------

#: The canned answers of the floors: what SQS answers the cycle's three calls, as botocore's
#: parser returns it (fast floor) and as the wire carries it (full floor).
_CANNED_ID = "6a1f2b3c-0000-4000-8000-000000000000"
_CANNED_PARSED: dict[str, dict[str, Any]] = {
    "SendMessage": {
        "MD5OfMessageBody": "5d41402abc4b2a76b9719d911017c592",
        "MessageId": _CANNED_ID,
    },
    "ReceiveMessage": {
        "Messages": [
            {
                "MessageId": _CANNED_ID,
                "ReceiptHandle": "AQEB" + "x" * 160,
                "MD5OfBody": "5d41402abc4b2a76b9719d911017c592",
                "Body": "hello",
            }
        ]
    },
    "DeleteMessage": {},
}
_CANNED_HEADERS = {
    "x-amzn-requestid": _CANNED_ID,
    "date": "Tue, 01 Dec 2026 00:00:00 GMT",
    "content-type": "application/x-amz-json-1.0",
}


class _CannedBody:
    """The ``raw`` of a canned HTTP answer: its bytes, streamed once as urllib3's would be."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self.body


#: Cycles timed per round in ``floors``, and its rounds.
_FLOOR_CYCLES = 500
_FLOOR_ROUNDS = 11
#: ``floors`` compares CPU-bound work in one process: timed in the process's CPU time, so that
#: what other processes on a shared machine take of the wall clock is not counted in either.
_FLOOR_TIMER = time.process_time


def _floor_cycle(client: Any) -> Callable[[int], float]:
    """The steady cycle on ``client``, whose handlers answer every call."""

    def cycle() -> None:
        client.send_message(QueueUrl=URL, MessageBody="hello")
        message = client.receive_message(QueueUrl=URL)["Messages"][0]
        client.delete_message(QueueUrl=URL, ReceiptHandle=message["ReceiptHandle"])

    def run(_: int) -> float:
        _per_call(cycle, 3, _FLOOR_CYCLES // 10)  # warm up
        return _per_call(cycle, 3, _FLOOR_CYCLES, _FLOOR_TIMER)

    return run


def _fast_floor(endpoint_kept: bool = False) -> Callable[[int], float]:
    """botocore alone, as sqsmock's fast path uses it: parameters validated but never
    serialized, each call answered at ``before-call`` with a canned parsed answer.

    ``endpoint_kept``: and, as sqsmock's fast path also does, the endpoint resolved once per
    operation rather than on every call -- the floor of what botocore does under sqsmock."""
    from botocore.awsrequest import AWSResponse
    from botocore.exceptions import ParamValidationError

    client = _client()
    if endpoint_kept:
        resolve, kept = client._resolve_endpoint_ruleset, {}

        def resolve_once(model: Any, params: Any, context: Any, ignore: bool = False) -> Any:
            found = kept.get(model.name)
            if found is None:
                found = kept[model.name] = resolve(model, params, context, ignore)
            return found

        client._resolve_endpoint_ruleset = resolve_once
    validator = client._serializer._param_validator
    answers = {}
    for operation, parsed in _CANNED_PARSED.items():
        metadata = {
            "RequestId": _CANNED_ID,
            "HTTPStatusCode": 200,
            "HTTPHeaders": dict(_CANNED_HEADERS),
            "RetryAttempts": 0,
        }
        answers[operation] = (
            AWSResponse(URL, 200, _CANNED_HEADERS, None),
            {**parsed, "ResponseMetadata": metadata},
        )

    def convert(
        api_params: Any,
        operation_model: Any,
        endpoint_url: Any,
        context: Any = None,
        headers: Any = None,
        set_user_agent_header: bool = True,
    ) -> Any:
        report = validator.validate(api_params, operation_model.input_shape)
        if report.has_errors():
            raise ParamValidationError(report=report.generate_report())
        return {
            "url_path": "/",
            "query_string": "",
            "method": "POST",
            "headers": {"X-Amz-Target": f"AmazonSQS.{operation_model.name}", **(headers or {})},
            "body": b"",
            "url": endpoint_url,
            "context": context,
        }

    def answer(model: Any, **_: Any) -> Any:
        return answers[model.name]

    client._convert_to_request_dict = convert
    client.meta.events.register_last("before-call", answer)
    return _floor_cycle(client)


def _full_floor() -> Callable[[int], float]:
    """botocore alone, as sqsmock's full path uses it: serialized, built, signed, and answered
    by the last ``before-send`` handler with canned bytes that botocore parses as usual."""
    from botocore.awsrequest import AWSResponse

    client = _client()
    bodies = {
        operation: json.dumps(parsed, separators=(",", ":")).encode()
        for operation, parsed in _CANNED_PARSED.items()
    }

    def answer(request: Any, **_: Any) -> Any:
        target = request.headers["X-Amz-Target"]
        operation = (target.decode() if isinstance(target, bytes) else target).split(".")[-1]
        body = bodies[operation]
        headers = {**_CANNED_HEADERS, "content-length": str(len(body))}
        return AWSResponse(request.url, 200, headers, _CannedBody(body))

    client.meta.events.register_last("before-send", answer)
    return _floor_cycle(client)


def bench_floors() -> None:
    print("== sqsmock beside botocore's own floors (CPU µs per call, median of rounds)")
    samples = _samples(
        {
            "fast floor": _fast_floor(),
            "fast floor, endpoint kept": _fast_floor(endpoint_kept=True),
            "sqsmock fast": _path_cycle(None, _FLOOR_CYCLES, _FLOOR_TIMER),
            "full floor": _full_floor(),
            "sqsmock full": _path_cycle("before-send.sqs", _FLOOR_CYCLES, _FLOOR_TIMER),
        },
        rounds=_FLOOR_ROUNDS,
    )
    for name, values in samples.items():
        print(f"  {name:26s} {statistics.median(values):8.1f} µs/call")
    print(f"  ratios: the median of the {_FLOOR_ROUNDS} rounds' own ratios")
    # sqsmock's fast path resolves a client's endpoint once per operation, which botocore
    # does on every call: beside the floor botocore pays, the one it would pay doing the same.
    own = _paired(samples, "sqsmock fast", "fast floor, endpoint kept")
    print(f"  sqsmock fast / fast floor with the endpoint kept = {own:.2f}x   (no target)")
    _check(
        "floors: sqsmock fast / fast floor",
        _paired(samples, "sqsmock fast", "fast floor"),
        "<=",
        1.5,
        label="sqsmock fast / fast floor",
    )
    _check(
        "floors: sqsmock full / full floor",
        _paired(samples, "sqsmock full", "full floor"),
        "<=",
        1.2,
        label="sqsmock full / full floor",
    )


# -- summary --------------------------------------------------------------------------------


def summary() -> None:
    print("== summary")
    width = max(len(c.name) for c in RESULTS)
    print(f"  {'figure':{width}s}  {'value':>10s}  {'target':>12s}  result")
    for c in RESULTS:
        print(f"  {c.name:{width}s}  {c.shown:>10s}  {c.target_text:>12s}  {c.verdict}")
    for line in SKIPPED:
        print(f"  skipped: {line}")
    targeted = [c for c in RESULTS if c.target is not None]
    missed = [c for c in targeted if c.verdict == "MISS"]
    print(f"  {len(targeted) - len(missed)} of {len(targeted)} targets met")


SECTIONS: dict[str, Callable[[], None]] = {
    "cycle": bench_cycle,
    "drain": bench_drain,
    "depth": bench_depth,
    "fifo": bench_fifo,
    "fifo-head": bench_fifo_head,
    "memory": bench_memory,
    "persistence": bench_persistence,
    "async": bench_async,
    "paths": bench_paths,
    "floors": bench_floors,
    "chart": bench_chart,
}


def main(argv: list[str]) -> None:
    if argv[:1] == ["--rss-probe"]:
        _rss_probe(int(argv[1]))
        return
    unknown = [name for name in argv if name not in SECTIONS]
    if unknown:
        sys.exit(f"unknown section {unknown[0]!r}; choose from: {', '.join(SECTIONS)}")
    chosen = set(argv or SECTIONS)
    if "chart" in chosen:
        chosen |= {"depth", "fifo"}  # the chart is drawn from figures measured in this run
    start = time.perf_counter()
    for name, section in SECTIONS.items():
        if name in chosen:
            section()
    summary()
    print(f"  wall time {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
