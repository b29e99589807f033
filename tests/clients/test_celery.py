"""Celery with its SQS broker (kombu's SQS transport, boto3 and pycurl) against a running server:
a real worker process consumes a task and answers through another queue."""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import kombu.pools
import pytest
from clients_support import ACCESS_KEY, REGION, SECRET_KEY, client_env, stop_process

PROJECT = Path(__file__).resolve().parent / "celery_project"
RESULT_WAIT = 45  # seconds for a worker to start and answer


def celery_env(server: Any, queues: dict[str, str] | None = None) -> dict[str, str]:
    env = client_env(SQSMOCK_ENDPOINT=server.endpoint_url, PYTHONPATH=str(PROJECT))
    if queues:
        env["SQSMOCK_QUEUES"] = json.dumps(queues)
    return env


@contextlib.contextmanager
def celery_app(env: dict[str, str]) -> Iterator[Any]:
    """The app module, loaded in this process with the worker's environment."""
    saved = dict(os.environ)
    os.environ.update({k: v for k, v in env.items() if k.startswith(("AWS_", "SQSMOCK_"))})
    sys.path.insert(0, str(PROJECT))
    try:
        sys.modules.pop("sqsmock_celery_app", None)
        module = importlib.import_module("sqsmock_celery_app")
        try:
            yield module
        finally:
            module.app.close()
            kombu.pools.reset()
    finally:
        sys.modules.pop("sqsmock_celery_app", None)
        sys.path.remove(str(PROJECT))
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def celery_worker(env: dict[str, str], queue: str) -> Iterator[subprocess.Popen]:
    """``celery worker --pool solo`` in its own process, stopped (then killed) at the end."""
    with tempfile.TemporaryFile("w+") as log:
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "sqsmock_celery_app",
                "worker",
                "--pool",
                "solo",
                "--queues",
                queue,
                "--loglevel",
                "INFO",
                "--without-heartbeat",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=PROJECT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            yield worker
        except BaseException:
            stop_process(worker)
            log.seek(0)
            print("celery worker output:\n" + log.read())  # shown by pytest on failure
            raise
        stop_process(worker)
        assert worker.returncode == 0, log.seek(0) or log.read()


def client(server: Any) -> Any:
    return boto3.client(
        "sqs",
        endpoint_url=server.endpoint_url,
        region_name=REGION,
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
    )


def wait_for_answers(sqs: Any, url: str, count: int) -> list[dict[str, Any]]:
    """Long-poll the results queue until ``count`` answers arrived (or the deadline passed)."""
    answers: list[dict[str, Any]] = []
    deadline = time.monotonic() + RESULT_WAIT
    while len(answers) < count and time.monotonic() < deadline:
        reply = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5, MaxNumberOfMessages=10)
        for message in reply.get("Messages", []):
            answers.append(json.loads(message["Body"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return answers


ORDERS = [
    {"id": "A-1", "items": [{"price": 3, "quantity": 2}, {"price": 10, "quantity": 1}]},
    {"id": "B-2 ✓", "items": [{"price": 7, "quantity": 3}]},
]


@pytest.mark.parametrize("queues", ["created by kombu", "predefined"])
def test_worker_runs_tasks_sent_through_sqs(wall_server: Any, queues: str) -> None:
    sqs = client(wall_server)
    results = sqs.create_queue(QueueName="celery-results")["QueueUrl"]
    predefined = None
    if queues == "predefined":
        tasks = sqs.create_queue(QueueName="celery-tasks")["QueueUrl"]
        predefined = {"celery-tasks": tasks}
    env = celery_env(wall_server, predefined)

    with celery_app(env) as module, celery_worker(env, "celery-tasks") as worker:
        for order in ORDERS:
            module.record.delay(order)
        answers = wait_for_answers(sqs, results, len(ORDERS))
        assert worker.poll() is None  # still serving

    assert sorted((a["order"], a["total"]) for a in answers) == [("A-1", 16), ("B-2 ✓", 21)]
    assert {a["pid"] for a in answers} == {worker.pid}
    # kombu named the queue after Celery's; the tasks were deleted once done.
    tasks_url = sqs.get_queue_url(QueueName="celery-tasks")["QueueUrl"]
    counts = sqs.get_queue_attributes(QueueUrl=tasks_url, AttributeNames=["All"])["Attributes"]
    assert counts["ApproximateNumberOfMessages"] == "0"
    assert counts["ApproximateNumberOfMessagesNotVisible"] == "0"
