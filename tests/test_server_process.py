"""``sqsmock serve`` as a process: the endpoint line, SIGTERM and SIGINT (long polls end, exit
0), options, and persistence across a restart with a real Redis."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

import pytest
import redis
from botocore.exceptions import BotoCoreError, ClientError
from server_support import admin, call_json, client, wait_until, waiting_polls

ROOT = Path(__file__).resolve().parents[1]
REDIS_URL = "redis://127.0.0.1:6379/0"


class ServeProcess:
    """A running ``python -m sqsmock serve``; ``endpoint`` from the line it prints."""

    def __init__(self, *args: str) -> None:
        # stderr to a file, not a pipe (a full pipe would block the server); kept until the
        # test ends, for its assertions.
        self.log = tempfile.TemporaryFile()  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sqsmock", "serve", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=self.log,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.line = self._first_line(30)
        self.endpoint = self.line.split(" on ", 1)[1].split(" ", 1)[0]

    def _first_line(self, timeout: float) -> str:
        stdout = self.process.stdout
        assert stdout is not None
        ready, _, _ = select.select([stdout], [], [], timeout)
        if not ready:
            self.kill()
            raise AssertionError("sqsmock serve printed no endpoint")
        line = stdout.readline().decode()
        if not line:
            self.process.wait(10)
            raise AssertionError(f"sqsmock serve ended: {self.stderr()}")
        return line.strip()

    def stderr(self) -> str:
        self.log.seek(0)
        return self.log.read().decode()

    def stop(self, signum: int = signal.SIGTERM, timeout: float = 20) -> int:
        self.process.send_signal(signum)
        try:
            return self.process.wait(timeout)
        finally:
            self.kill()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        if self.process.stdout is not None:
            self.process.stdout.close()


@pytest.fixture
def started() -> Iterator[list[ServeProcess]]:
    """Processes a test starts; every one is stopped at the end."""
    processes: list[ServeProcess] = []
    yield processes
    for process in processes:
        process.kill()
        process.log.close()


def serve(started: list[ServeProcess], *args: str) -> ServeProcess:
    process = ServeProcess(*args)
    started.append(process)
    return process


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_long_polls_and_exits_0(started: list[ServeProcess], signum: int) -> None:
    server = serve(started)
    assert server.line.startswith("sqsmock: serving SQS on http://127.0.0.1:")
    assert server.line.endswith("(region us-east-1, account 123456789012)")
    sqs = client(server.endpoint)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    assert url.startswith(server.endpoint)
    with ThreadPoolExecutor(1) as pool:
        polling = pool.submit(sqs.receive_message, QueueUrl=url, WaitTimeSeconds=20)
        wait_until(lambda: waiting_polls(server.endpoint) == 1)
        started_at = time.monotonic()
        assert server.stop(signum) == 0
        assert polling.result(timeout=10).get("Messages") is None  # answered, empty
    assert time.monotonic() - started_at < 10


def test_options_reach_the_server(started: list[ServeProcess]) -> None:
    server = serve(
        started,
        "--region", "eu-west-1",
        "--account-id", "210987654321",
        "--clock", "frozen",
        "--log-level", "debug",
    )  # fmt: skip
    assert server.line.endswith("(region eu-west-1, account 210987654321)")
    health = admin(server.endpoint, "GET", "health").json()
    assert (health["region"], health["account"]) == ("eu-west-1", "210987654321")
    assert admin(server.endpoint, "GET", "clock").json()["frozen"] is True
    url = client(server.endpoint, "eu-west-1").create_queue(QueueName="q")["QueueUrl"]
    assert url == f"{server.endpoint}/queue/eu-west-1/210987654321/q"
    assert server.stop() == 0
    assert "CreateQueue (json) 200: ok" in server.stderr()  # --log-level debug shows calls


def test_listening_on_every_interface(started: list[ServeProcess]) -> None:
    server = serve(started, "--host", "0.0.0.0")
    assert server.endpoint.startswith("http://0.0.0.0:")
    port = server.endpoint.rsplit(":", 1)[1]
    local = f"http://127.0.0.1:{port}"
    url = client(local).create_queue(QueueName="q")["QueueUrl"]
    assert url == f"{local}/queue/us-east-1/123456789012/q"  # as the client addressed it
    assert server.stop() == 0


def test_allowed_hosts_and_origins_reach_the_server(started: list[ServeProcess]) -> None:
    server = serve(
        started,
        "--host",
        "0.0.0.0",
        "--allow-host",
        "sqs",
        "--cors-origin",
        "http://localhost:3000",
    )
    port = server.endpoint.rsplit(":", 1)[1]
    local = f"http://127.0.0.1:{port}"
    listed = call_json(local, "ListQueues", {}, {"Host": f"sqs:{port}"})
    assert listed.status == 200
    app = call_json(local, "ListQueues", {}, {"Origin": "http://localhost:3000"})
    assert app.headers["access-control-allow-origin"] == "http://localhost:3000"
    refused = call_json(local, "CreateQueue", {"QueueName": "q"}, {"Host": f"evil.example:{port}"})
    assert refused.status == 403
    assert b"--allow-host evil.example" in refused.body
    assert call_json(local, "ListQueues", {}, {"Origin": "http://evil.example"}).status == 403
    assert admin(local, "GET", "queues").json() == []
    assert server.stop() == 0


def test_serve_help_names_the_browser_options() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "sqsmock", "serve", "--help"],
        capture_output=True,
        timeout=60,
        cwd=ROOT,
        check=True,
    ).stdout
    text = b" ".join(shown.split())  # argparse wraps lines
    assert b"--allow-host NAME" in text and b"--cors-origin ORIGIN" in text
    assert b"DNS rebinding" in text and b"--host 0.0.0.0 --allow-host" in text


def test_a_port_in_use_exits_1(started: list[ServeProcess]) -> None:
    first = serve(started)
    port = first.endpoint.rsplit(":", 1)[1]
    second = subprocess.run(
        [sys.executable, "-m", "sqsmock", "serve", "--port", port],
        capture_output=True,
        timeout=60,
        cwd=ROOT,
    )
    assert second.returncode == 1
    assert b"cannot listen" in second.stderr
    assert first.stop() == 0


@pytest.mark.parametrize(
    ("args", "status", "says"),
    [
        (["--account-id", "12"], 2, b"account_id"),
        (["--persistence", "not-a-url"], 2, b"Redis URL"),
        (["--persistence", "redis://127.0.0.1:1/0"], 1, b"persistence failed"),
        (["--region", "us-\u00fc-1"], 2, b"is not an AWS region"),
        (["--persistence-timeout", "0"], 2, b"persistence_timeout must be a positive number"),
        (["--region", "us-" + "a" * 5000 + "-1"], 2, b"is not an AWS region"),
        (["--allow-host", "sqs:9324"], 2, b"without its port"),
        (["--cors-origin", "localhost:3000"], 2, b"not a web origin"),
    ],
)
def test_bad_options_exit_non_zero(args: list[str], status: int, says: bytes) -> None:
    bad = subprocess.run(
        [sys.executable, "-m", "sqsmock", "serve", "--port", "0", *args],
        capture_output=True,
        timeout=60,
        cwd=ROOT,
    )
    assert bad.returncode == status
    assert says in bad.stderr
    assert b"Traceback" not in bad.stderr


# -- persistence -------------------------------------------------------------------------------


@pytest.fixture
def namespace() -> Iterator[str]:
    name = f"sqsmock-test-server-{uuid.uuid4().hex}:"
    store = redis.Redis.from_url(REDIS_URL)
    store.ping()  # a real Redis is part of the test set-up
    yield name
    keys = list(store.scan_iter(match=name + "*"))
    if keys:
        store.delete(*keys)
    store.close()


def test_state_survives_a_restart(started: list[ServeProcess], namespace: str) -> None:
    options = ("--persistence", REDIS_URL, "--namespace", namespace)
    first = serve(started, *options)
    sqs = client(first.endpoint)
    url = sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "600"})["QueueUrl"]
    fifo = sqs.create_queue(QueueName="jobs.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    for body in ("a", "b", "c"):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    sqs.send_message(QueueUrl=fifo, MessageBody="f", MessageGroupId="g", MessageDeduplicationId="1")
    taken = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"][0]
    assert first.stop() == 0

    second = serve(started, *options)
    sqs = client(second.endpoint)
    assert sorted(sqs.list_queues()["QueueUrls"]) == sorted(
        u.replace(first.endpoint, second.endpoint) for u in (url, fifo)
    )
    queues = {q["name"]: q for q in admin(second.endpoint, "GET", "queues").json()}
    assert queues["jobs"]["messages"] == {"visible": 2, "inflight": 1, "delayed": 0}
    assert queues["jobs.fifo"]["messages"]["visible"] == 1
    url = url.replace(first.endpoint, second.endpoint)
    # The message in flight before the restart is still in flight, its receipt handle valid.
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert sorted(m["Body"] for m in got) == sorted({"a", "b", "c"} - {taken["Body"]})
    sqs.delete_message(QueueUrl=url, ReceiptHandle=taken["ReceiptHandle"])
    messages = admin(second.endpoint, "GET", f"messages?queue={url}").json()
    assert taken["MessageId"] not in {m["message_id"] for m in messages}
    # A duplicate within the deduplication interval is still recognised.
    fifo = fifo.replace(first.endpoint, second.endpoint)
    sqs.send_message(QueueUrl=fifo, MessageBody="f", MessageGroupId="g", MessageDeduplicationId="1")
    assert len(admin(second.endpoint, "GET", f"messages?queue={fifo}").json()) == 1
    assert second.stop() == 0


def test_calls_under_way_finish_before_exit(started: list[ServeProcess], namespace: str) -> None:
    options = ("--persistence", REDIS_URL, "--namespace", namespace)
    first = serve(started, *options)
    sqs = client(first.endpoint)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    entries = [{"Id": str(i), "MessageBody": str(i)} for i in range(10)]
    with ThreadPoolExecutor(8) as pool:
        sending = [
            pool.submit(sqs.send_message_batch, QueueUrl=url, Entries=entries) for _ in range(40)
        ]
        # some calls answered (so others are under way) when the signal comes
        wait(sending, timeout=30, return_when=FIRST_COMPLETED)
        assert first.stop() == 0
        answered = 0
        for future in sending:
            try:
                answered += len(future.result(timeout=30)["Successful"])
            except (BotoCoreError, ClientError):
                continue  # refused, or not connected: the server was stopping
    second = serve(started, *options)
    (queue,) = admin(second.endpoint, "GET", "queues").json()
    # Everything that was answered as sent is in the store, and nothing else.
    assert answered > 0
    assert queue["messages"]["visible"] == answered
    assert second.stop() == 0


def test_long_polls_with_a_store_hold_no_thread_each(namespace: str) -> None:
    import threading

    import sqsmock

    with sqsmock.serve(port=0, persistence=REDIS_URL, namespace=namespace) as server:
        sqs = client(server.endpoint_url)
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        threads_before = threading.active_count()
        with ThreadPoolExecutor(40) as pool:
            polls = [
                pool.submit(client(server.endpoint_url).receive_message, QueueUrl=url,
                            WaitTimeSeconds=20)
                for _ in range(40)
            ]  # fmt: skip
            wait_until(lambda: waiting_polls(server.endpoint_url) == 40)
            # 40 client threads; the server adds at most its small pool for store I/O.
            assert threading.active_count() - threads_before <= 40 + 8
            started = time.monotonic()
            sqs.send_message(QueueUrl=url, MessageBody="wake")
            wait_until(lambda: waiting_polls(server.endpoint_url) == 39)
            server.clock.advance(20)
            answers = [poll.result(timeout=10) for poll in polls]
        assert time.monotonic() - started < 10
        assert sum(len(answer.get("Messages", [])) for answer in answers) == 1
        admin(server.endpoint_url, "POST", "reset")
        assert server.backend.queues() == []
    # The reset reached the store: a server started on it again has nothing.
    with sqsmock.serve(port=0, persistence=REDIS_URL, namespace=namespace) as again:
        assert again.backend.queues() == []
