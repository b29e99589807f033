"""What waiting for consumers costs: the event log on the call path, and how fast a wait wakes.

    python benchmarks/waiters.py

Figures:
  event    µs per event at the engine's hook: one attribute test when nobody listens, and the
           event log's ``observe`` (keep the event, wake nobody) when the events are recorded.
  cycle    µs per API call of a steady send/receive/delete cycle through boto3, with the message
           events recorded (the default) and with nobody listening (``Backend.observer`` unset:
           one attribute test per event), interleaved in rounds; medians.
  wake     from a consumer thread's DeleteMessage to the return of a ``wait_for`` blocked in
           another thread, and to an ``await wait_for_async`` on an event loop: median and p99
           over many rounds.

Timings are printed, never asserted.
"""

from __future__ import annotations

import asyncio
import statistics
import threading
import time
import timeit
from typing import Any

import boto3

from sqsmock import mock_sqs
from sqsmock._engine import FrozenClock, Message, Queue
from sqsmock._features.waiters import EventLog

ROUNDS = 7
CYCLES = 2_000
WAKES = 300


def bench_event() -> None:
    queue = Queue("bench", "us-east-1", "123456789012", FrozenClock(), {})
    log = EventLog("us-east-1", "123456789012")
    messages = [Message("id", "body", "md5")]
    n = 200_000
    for name, observer in (("nobody listening", None), ("events recorded", log.observe)):
        queue.observe = observer

        def hook() -> None:  # what the queue does at each event
            if queue.observe is not None:
                queue.observe("sent", queue, messages)

        best = min(timeit.repeat(hook, number=n, repeat=ROUNDS)) / n * 1e6
        print(f"event: {name}: {best:.2f} µs per event")


def cycle(client: Any, url: str, n: int) -> float:
    """µs per call of ``n`` send/receive/delete cycles."""
    start = time.perf_counter()
    for _ in range(n):
        client.send_message(QueueUrl=url, MessageBody="x")
        got = client.receive_message(QueueUrl=url)["Messages"][0]
        client.delete_message(QueueUrl=url, ReceiptHandle=got["ReceiptHandle"])
    return (time.perf_counter() - start) / (3 * n) * 1e6


def bench_cycle() -> None:
    with mock_sqs(clock="frozen", journal_limit=None) as mock:
        client = boto3.client("sqs", region_name="us-east-1")
        url = client.create_queue(QueueName="bench")["QueueUrl"]
        observer = mock.backend.observer
        cycle(client, url, 200)  # warm up
        on: list[float] = []
        off: list[float] = []
        for _ in range(ROUNDS):
            mock.backend.observer = observer
            on.append(cycle(client, url, CYCLES))
            mock.backend.observer = None
            off.append(cycle(client, url, CYCLES))
            mock.reset()
            url = client.create_queue(QueueName="bench")["QueueUrl"]
        a, b = statistics.median(on), statistics.median(off)
        print(f"cycle: events recorded {a:.1f} µs/call, nobody listening {b:.1f} µs/call")
        print(f"cycle: recording costs {a - b:+.2f} µs per call ({a / b:.3f}x)")


def bench_wake() -> None:
    with mock_sqs() as mock:
        client = boto3.client("sqs", region_name="us-east-1")
        url = client.create_queue(QueueName="bench")["QueueUrl"]
        events = mock.runtime.events
        thread_lags: list[float] = []
        for n in range(WAKES):
            client.send_message(QueueUrl=url, MessageBody=str(n))
            handle = client.receive_message(QueueUrl=url)["Messages"][0]["ReceiptHandle"]
            stamp: list[float] = []

            def consumer(receipt: str = handle, stamp: list[float] = stamp) -> None:
                while not events.waiting():
                    time.sleep(0.0005)
                stamp.append(time.perf_counter())
                client.delete_message(QueueUrl=url, ReceiptHandle=receipt)

            worker = threading.Thread(target=consumer)
            worker.start()
            mock.wait_for("bench", "deleted", where=str(n), timeout=10)
            thread_lags.append(time.perf_counter() - stamp[0])
            worker.join()
        report("wake (thread)", thread_lags)

        async def run() -> list[float]:
            lags: list[float] = []
            for n in range(WAKES):
                body = f"a{n}"
                client.send_message(QueueUrl=url, MessageBody=body)
                handle = client.receive_message(QueueUrl=url)["Messages"][0]["ReceiptHandle"]
                stamp: list[float] = []

                def consumer(receipt: str = handle, stamp: list[float] = stamp) -> None:
                    while not events.waiting():
                        time.sleep(0.0005)
                    stamp.append(time.perf_counter())
                    client.delete_message(QueueUrl=url, ReceiptHandle=receipt)

                worker = threading.Thread(target=consumer)
                worker.start()
                await mock.wait_for_async("bench", "deleted", where=body, timeout=10)
                lags.append(time.perf_counter() - stamp[0])
                worker.join()
            return lags

        report("wake (asyncio)", asyncio.run(run()))


def report(name: str, lags: list[float]) -> None:
    lags = sorted(lags)
    p99 = lags[min(len(lags) - 1, int(len(lags) * 0.99))]
    print(
        f"{name}: DeleteMessage to wait's return, median {statistics.median(lags) * 1e3:.2f} ms, "
        f"p99 {p99 * 1e3:.2f} ms (includes the DeleteMessage call itself)"
    )


if __name__ == "__main__":
    bench_event()
    bench_cycle()
    bench_wake()
