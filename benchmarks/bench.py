"""sqsmock benchmarks: figures and ratios measured side by side in one run.

    python benchmarks/bench.py            # everything
    python benchmarks/bench.py cycle      # only the per-call comparison

Sections:
  cycle   µs per API call of a steady send/receive/delete cycle: sqsmock vs botocore's Stubber
          answering the same three calls with canned responses (the floor for any in-process
          mock) vs moto (when installed).

Machines are noisy: every comparison interleaves its contenders in rounds and reports medians.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import boto3
from botocore.stub import Stubber

from sqsmock import mock_sqs

REGION = "us-east-1"
URL = "https://sqs.us-east-1.amazonaws.com/123456789012/bench"


def _client() -> Any:
    return boto3.client(
        "sqs", region_name=REGION, aws_access_key_id="bench", aws_secret_access_key="bench"
    )


def _per_call(cycle: Callable[[], None], calls_per_cycle: int, cycles: int) -> float:
    start = time.perf_counter()
    for _ in range(cycles):
        cycle()
    return (time.perf_counter() - start) / (cycles * calls_per_cycle) * 1e6


def _rounds(contenders: dict[str, Callable[[int], float]], rounds: int) -> dict[str, float]:
    """Median of ``rounds`` interleaved runs of each contender."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, run in contenders.items():
            samples[name].append(run(1))
    return {name: statistics.median(values) for name, values in samples.items()}


def _sqsmock_cycle() -> Callable[[int], float]:
    def run(_: int) -> float:
        with mock_sqs():
            client = _client()
            url = client.create_queue(QueueName="bench")["QueueUrl"]

            def cycle() -> None:
                client.send_message(QueueUrl=url, MessageBody="hello")
                message = client.receive_message(QueueUrl=url)["Messages"][0]
                client.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])

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

    def cycle() -> None:
        stubber.add_response("send_message", sent)
        stubber.add_response("receive_message", received)
        stubber.add_response("delete_message", {})
        client.send_message(QueueUrl=URL, MessageBody="hello")
        message = client.receive_message(QueueUrl=URL)["Messages"][0]
        client.delete_message(QueueUrl=URL, ReceiptHandle=message["ReceiptHandle"])

    _per_call(cycle, 3, 200)
    return lambda _: _per_call(cycle, 3, 1000)


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
    ratio = result["sqsmock"] / result["stubber"]
    print(f"  sqsmock / stubber = {ratio:.2f}x   (target <= 1.5x)")
    if "moto" in result:
        print(f"  moto / sqsmock    = {result['moto'] / result['sqsmock']:.1f}x   (target >= 3x)")


SECTIONS: dict[str, Callable[[], None]] = {"cycle": bench_cycle}


def main(argv: list[str]) -> None:
    chosen = argv or list(SECTIONS)
    for name in chosen:
        SECTIONS[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
