"""A Celery worker inside ``mock_sqs``: no server, and nothing leaves the process.

The worker (``celery.contrib.testing.worker.start_worker``, in a thread of the test) consumes
through kombu's asynchronous SQS client, which sends with pycurl; sqsmock answers those
requests in process. A guard refuses every connection that would leave loopback and every
request handed to pycurl, so a request that escaped would fail the test.
"""

from __future__ import annotations

import ipaddress
import socket
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from celery import Celery
from celery.contrib.testing.worker import start_worker
from kombu.asynchronous.aws.sqs.connection import AsyncSQSConnection
from kombu.asynchronous.http.curl import CurlClient

from sqsmock import mock_sqs

REGION = "us-east-1"
RESULT_WAIT = 30  # seconds for the worker to start and answer; it takes well under one


def _loopback(host: Any) -> bool:
    if host in ("localhost", "", None):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%", 1)[0]).is_loopback
    except ValueError:
        return False


class NetworkGuard:
    """What tried to leave loopback: socket connections, name look-ups, requests to pycurl."""

    def __init__(self) -> None:
        self.refused: list[str] = []

    def refuse(self, what: str) -> OSError:
        self.refused.append(what)
        return OSError(f"the test refuses {what}")


@pytest.fixture
def network_guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[NetworkGuard]:
    guard = NetworkGuard()
    connect, connect_ex, getaddrinfo = (
        socket.socket.connect,
        socket.socket.connect_ex,
        socket.getaddrinfo,
    )

    def check(address: Any) -> None:
        if isinstance(address, tuple) and not _loopback(address[0]):
            raise guard.refuse(f"a connection to {address!r}")

    def guarded_connect(self: socket.socket, address: Any) -> None:
        check(address)
        connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        check(address)
        return connect_ex(self, address)

    def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not _loopback(host):
            raise guard.refuse(f"a look-up of {host!r}")
        return getaddrinfo(host, *args, **kwargs)

    def refused_request(self: Any, request: Any) -> Any:
        guard.refused.append(f"pycurl sending {request.method} {request.url}")
        return request  # never answered: the consumer waits forever and the test fails

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_getaddrinfo)
    monkeypatch.setattr(CurlClient, "add_request", refused_request)
    yield guard


@pytest.fixture
def async_requests(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The operations kombu's asynchronous SQS client made (the worker's consuming path)."""
    made: list[str] = []
    make_request = AsyncSQSConnection.make_request

    def recording(self: Any, operation: str, *args: Any, **kwargs: Any) -> Any:
        made.append(operation)
        return make_request(self, operation, *args, **kwargs)

    monkeypatch.setattr(AsyncSQSConnection, "make_request", recording)
    return made


def make_app(queue: str) -> Celery:
    app = Celery(f"sqsmock-in-process-{queue}", broker="sqs://", backend="cache+memory://")
    app.conf.update(
        broker_transport_options={
            "region": REGION,
            "wait_time_seconds": 20,  # long polls: woken by the task's send
            "polling_interval": 0,
            "visibility_timeout": 60,
        },
        broker_connection_retry_on_startup=True,
        task_default_queue=queue,
        worker_hijack_root_logger=False,
        worker_prefetch_multiplier=1,
    )

    @app.task(name="total")
    def total(order: dict[str, Any]) -> int:
        return sum(item["price"] * item["quantity"] for item in order["items"])

    return app


@pytest.mark.slow
def test_worker_runs_a_task_in_process_and_nothing_leaves_loopback(
    network_guard: NetworkGuard, async_requests: list[str]
) -> None:
    queue = f"celery-{uuid.uuid4().hex[:8]}"
    app = make_app(queue)
    orders = [
        {"items": [{"price": 3, "quantity": 2}, {"price": 10, "quantity": 1}]},
        {"items": [{"price": 7, "quantity": 3}]},
    ]
    with mock_sqs() as mock:
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
            results = [app.tasks["total"].delay(order) for order in orders]
            totals = [result.get(timeout=RESULT_WAIT) for result in results]
        assert mock.peek(queue) == []  # each task message deleted once done
    app.close()

    assert totals == [16, 21]
    assert network_guard.refused == []
    # The worker consumed through kombu's asynchronous client, answered by sqsmock.
    assert "ReceiveMessage" in async_requests
