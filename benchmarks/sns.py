"""SNS fan-out benchmark: publishes per second and CPU per publish to a topic with 10 SQS
subscriptions, sqsmock beside moto, in-process and over HTTP, in the same run.

    python benchmarks/sns.py            # 3 rounds of 3 s per contender (about a minute)
    python benchmarks/sns.py --quick    # 2 rounds of 1 s (about 20 seconds)

The topic has 10 SQS subscriptions: five without a filter policy (every publish is delivered to
them, alternately raw and enveloped) and five whose filter policy does not match what is
published (each publish is checked against it and not delivered). Every publish carries two
message attributes and a small JSON body.

Contenders, interleaved in rounds; medians reported, and each ratio as the median of the
rounds' own ratios:
  in-process   boto3 ``publish`` calls under ``mock_sqs(sns=True)`` and under moto's
               ``mock_aws()``: publishes per second (wall) and CPU per publish of this process
               (``time.process_time``: boto3's share is in both). Each round starts a fresh mock.
  over HTTP    ``sqsmock serve`` and ``moto_server``, each a process of its own: one keep-alive
               connection replays one Publish request (signed once by botocore, query protocol,
               as boto3 sends it) as fast as answers come; publishes per second, and the server
               process's CPU per publish (user + system, from /proc). Each round uses a fresh
               topic and queues on the running servers.

After each round the queues are checked: every unfiltered queue holds one message per publish,
every filtered one none (a contender that does not deliver is reported, not timed as faster).
Target: sqsmock >= 10x moto in publishes per second, in-process and over HTTP. Figures are
reported, never asserted; the summary marks each target PASS or MISS.

moto_server needs ``moto[server]`` (flask): it is looked for as ``moto_server`` beside this
Python, or named by SQSMOCK_BENCH_MOTO_SERVER (a ``moto_server`` executable). Linux only for
the server CPU figures (``/proc``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config

ROOT = Path(__file__).resolve().parents[1]
TARGET = 10.0
SUBSCRIPTIONS = 10
REGION = "us-east-1"
CREDENTIALS = {"aws_access_key_id": "AKIDBENCH", "aws_secret_access_key": "bench"}
NO_MATCH = json.dumps({"kind": ["refund"], "amount": [{"numeric": [">", 1000]}]})
MESSAGE = json.dumps({"order": 7, "lines": [{"sku": "A-1", "qty": 2}], "note": "x" * 120})
ATTRIBUTES = {
    "kind": {"DataType": "String", "StringValue": "order"},
    "amount": {"DataType": "Number", "StringValue": "42.5"},
}


@dataclass
class Figures:
    publishes: int
    seconds: float
    cpu_seconds: float

    @property
    def per_second(self) -> float:
        return self.publishes / self.seconds if self.seconds else 0.0

    @property
    def cpu_per_publish_us(self) -> float:
        return self.cpu_seconds / self.publishes * 1e6 if self.publishes else float("nan")


# -- a fan-out topic ----------------------------------------------------------------------------


@dataclass
class FanOut:
    topic: str
    delivered: list[str]  # queue URLs that get every publish
    filtered: list[str]  # queue URLs whose filter policy never matches


def fan_out(sns: Any, sqs: Any, prefix: str) -> FanOut:
    topic = sns.create_topic(Name=f"{prefix}-topic")["TopicArn"]
    delivered, filtered = [], []
    for index in range(SUBSCRIPTIONS):
        url = sqs.create_queue(QueueName=f"{prefix}-q{index}")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        attributes = {}
        if index % 2:
            attributes["FilterPolicy"] = NO_MATCH
            filtered.append(url)
        else:
            attributes["RawMessageDelivery"] = "true" if index % 4 == 0 else "false"
            delivered.append(url)
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes=attributes)
    return FanOut(topic, delivered, filtered)


def check(sqs: Any, fan: FanOut, publishes: int) -> str | None:
    """None when every unfiltered queue holds ``publishes`` messages and every filtered one
    none; otherwise what is wrong."""
    counts = {}
    for url in fan.delivered + fan.filtered:
        attributes = sqs.get_queue_attributes(
            QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"]
        )["Attributes"]
        counts[url.rsplit("/", 1)[1]] = int(attributes["ApproximateNumberOfMessages"])
    wanted = {url.rsplit("/", 1)[1]: publishes for url in fan.delivered}
    wanted.update({url.rsplit("/", 1)[1]: 0 for url in fan.filtered})
    return None if counts == wanted else f"queues hold {counts}, expected {wanted}"


def clients(endpoint_url: str | None = None) -> tuple[Any, Any]:
    options: dict[str, Any] = dict(
        CREDENTIALS, region_name=REGION, config=Config(retries={"max_attempts": 1})
    )
    if endpoint_url:
        options["endpoint_url"] = endpoint_url
    return boto3.client("sns", **options), boto3.client("sqs", **options)


# -- in-process ---------------------------------------------------------------------------------


def sqsmock_in_process() -> AbstractContextManager[Any]:
    from sqsmock import mock_sqs

    return mock_sqs(sns=True)


def moto_in_process() -> AbstractContextManager[Any]:
    from moto import mock_aws

    return mock_aws()


def in_process(
    mock: Callable[[], AbstractContextManager[Any]], seconds: float, prefix: str
) -> tuple[Figures, str | None]:
    with mock():
        sns, sqs = clients()
        fan = fan_out(sns, sqs, prefix)
        sns.publish(TopicArn=fan.topic, Message=MESSAGE, MessageAttributes=ATTRIBUTES)  # warm
        publishes = 1
        started, cpu = time.perf_counter(), time.process_time()
        deadline = started + seconds
        while True:
            for _ in range(20):
                sns.publish(TopicArn=fan.topic, Message=MESSAGE, MessageAttributes=ATTRIBUTES)
            publishes += 20
            now = time.perf_counter()
            if now >= deadline:
                break
        figures = Figures(publishes - 1, now - started, time.process_time() - cpu)
        return figures, check(sqs, fan, publishes)


# -- over HTTP ----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def server_process(name: str, args: list[str], port: int, ready: str) -> Iterator[Any]:
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}{ready}", timeout=5).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"{name} did not start") from None
                time.sleep(0.1)
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def moto_server_command(port: int) -> list[str] | None:
    named = os.environ.get("SQSMOCK_BENCH_MOTO_SERVER")
    executable = named or shutil.which("moto_server", path=str(Path(sys.executable).parent))
    if not executable:
        return None
    probe = Path(executable).with_name("python")
    if probe.exists():
        found = subprocess.run(
            [str(probe), "-c", "import moto.server"], capture_output=True, check=False
        )
        if found.returncode != 0:
            return None  # moto without its [server] extra (flask)
    return [executable, "-H", "127.0.0.1", "-p", str(port)]


def process_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def captured_publish(sns: Any, topic: str) -> tuple[str, str, bytes, dict[str, str]]:
    """(method, path, body, headers) of one Publish request as boto3 sends it (sent once)."""
    seen: list[Any] = []
    sns.meta.events.register("before-send.sns.Publish", lambda request, **_: seen.append(request))
    sns.publish(TopicArn=topic, Message=MESSAGE, MessageAttributes=ATTRIBUTES)
    request = seen[0]
    body = request.body if isinstance(request.body, bytes) else request.body.encode()
    path = urllib.parse.urlsplit(request.url).path or "/"
    return request.method, path, body, dict(request.headers.items())


def over_http(port: int, pid: int, seconds: float, prefix: str) -> tuple[Figures, str | None]:
    sns, sqs = clients(f"http://127.0.0.1:{port}")
    fan = fan_out(sns, sqs, prefix)
    method, path, body, headers = captured_publish(sns, fan.topic)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    publishes, errors = 1, 0
    started, cpu = time.perf_counter(), process_cpu(pid)
    deadline = started + seconds
    while True:
        connection.request(method, path, body, headers)
        response = response_of(connection)
        errors += response.status != 200
        publishes += 1
        if response.will_close:
            connection.close()
        now = time.perf_counter()
        if now >= deadline:
            break
    figures = Figures(publishes - 1, now - started, process_cpu(pid) - cpu)
    connection.close()
    problem = check(sqs, fan, publishes)
    if errors:
        problem = f"{errors} publishes answered an error; " + (problem or "")
    return figures, problem


def response_of(connection: http.client.HTTPConnection) -> http.client.HTTPResponse:
    response = connection.getresponse()
    response.read()
    return response


# -- the run ------------------------------------------------------------------------------------


def fmt(figures: Figures) -> str:
    return (
        f"{figures.per_second:8.0f} publishes/s   CPU {figures.cpu_per_publish_us:8.0f} µs/publish"
        f"   ({figures.publishes} publishes)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 rounds of 1 s per contender")
    parser.add_argument("--rounds", type=int, help="rounds (default 3, quick 2)")
    parser.add_argument("--seconds", type=float, help="seconds per contender per round")
    arguments = parser.parse_args()
    rounds = arguments.rounds or (2 if arguments.quick else 3)
    seconds = arguments.seconds or (1.0 if arguments.quick else 3.0)
    print(
        f"SNS fan-out: {SUBSCRIPTIONS} SQS subscriptions (half filtered out), "
        f"{rounds} rounds x {seconds:g} s per contender"
    )
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs\n")

    sqsmock_port, moto_port = free_port(), free_port()
    sqsmock_args = [sys.executable, "-m", "sqsmock", "serve", "--port", str(sqsmock_port)]
    sqsmock_args += ["--log-level", "error"]
    moto_args = moto_server_command(moto_port)
    if moto_args is None:
        print("moto_server not found (needs moto[server]): set SQSMOCK_BENCH_MOTO_SERVER\n")

    results: dict[str, list[Figures]] = {}
    problems: dict[str, str] = {}

    def record(name: str, outcome: tuple[Figures, str | None], round_: int) -> None:
        figures, problem = outcome
        results.setdefault(name, []).append(figures)
        if problem:
            problems[name] = problem
        print(f"  round {round_} {name:22s} {fmt(figures)}", flush=True)

    with (
        server_process("sqsmock", sqsmock_args, sqsmock_port, "/_sqsmock/health") as ours,
        server_process("moto_server", moto_args, moto_port, "/moto-api/")
        if moto_args
        else _nothing() as theirs,
    ):
        servers = {"sqsmock serve": (sqsmock_port, ours.pid)}
        if theirs is not None:
            servers["moto_server"] = (moto_port, theirs.pid)
        mocks = {"sqsmock in-process": sqsmock_in_process, "moto in-process": moto_in_process}
        # Warm-up, unmeasured: imports, first calls, each server's first requests.
        for mock in mocks.values():
            in_process(mock, min(seconds, 0.5), "warm")
        for port, pid in servers.values():
            over_http(port, pid, min(seconds, 0.5), "warm")
        for round_ in range(1, rounds + 1):
            prefix = f"r{round_}"
            for name, mock in mocks.items():
                record(name, in_process(mock, seconds, prefix), round_)
            for name, (port, pid) in servers.items():
                record(name, over_http(port, pid, seconds, prefix), round_)

    print("\nmedians")
    for name, runs in results.items():
        rate = statistics.median(f.per_second for f in runs)
        cpu = statistics.median(f.cpu_per_publish_us for f in runs)
        print(f"  {name:22s} {rate:8.0f} publishes/s   CPU {cpu:8.0f} µs/publish")
    for name, problem in problems.items():
        print(f"  !! {name}: {problem}")

    print("\nsummary (target: sqsmock >= 10x moto in publishes per second)")
    for ours_name, theirs_name, where in (
        ("sqsmock in-process", "moto in-process", "in-process"),
        ("sqsmock serve", "moto_server", "over HTTP"),
    ):
        if ours_name not in results or theirs_name not in results:
            print(f"  {where:11s} not measured")
            continue
        # Each ratio is the median of the rounds' own ratios (the contenders of a round ran
        # back to back, under the same load from the rest of the machine).
        pairs = list(zip(results[ours_name], results[theirs_name], strict=True))
        rate = statistics.median(a.per_second / b.per_second for a, b in pairs)
        cpu = statistics.median(b.cpu_per_publish_us / a.cpu_per_publish_us for a, b in pairs)
        verdict = "PASS" if rate >= TARGET and ours_name not in problems else "MISS"
        print(
            f"  {where:11s} {rate:6.1f}x the publishes per second, {cpu:6.1f}x less CPU per"
            f" publish   {verdict}"
        )


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


if __name__ == "__main__":
    main()
