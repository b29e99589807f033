"""Testing failure through the server: /_sqsmock/calls and /_sqsmock/faults, and the handle."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from server_support import admin, call_query, client

import sqsmock
from sqsmock import JournalFullWarning, SqsServer


def one_attempt(endpoint: str) -> Any:
    """A client that makes exactly one attempt per call."""
    return boto3.client(
        "sqs",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="k",
        aws_secret_access_key="s",
        config=Config(retries={"total_max_attempts": 1, "mode": "standard"}),
    )


@pytest.fixture
def server() -> Iterator[SqsServer]:
    with sqsmock.serve(port=0, clock="frozen") as running:
        yield running


def test_faults_over_http_answer_as_aws_does(server: SqsServer) -> None:
    endpoint = server.endpoint_url
    sqs = one_attempt(endpoint)
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    rule = {"operation": "SendMessage", "error": "ServiceUnavailable", "times": 1}
    added = admin(endpoint, "POST", "faults", rule)
    assert added.status == 201 and added.json()["remaining"] == 1
    with pytest.raises(ClientError) as raised:
        sqs.send_message(QueueUrl=url, MessageBody="m")
    response = raised.value.response
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 503
    assert response["Error"]["Code"] == "ServiceUnavailable"
    assert response["Error"]["Type"] == "Receiver"
    sqs.send_message(QueueUrl=url, MessageBody="m")  # spent
    assert admin(endpoint, "GET", "faults").json() == {"faults": []}


def test_a_query_protocol_client_gets_the_fault_in_xml(server: SqsServer) -> None:
    endpoint = server.endpoint_url
    admin(endpoint, "POST", "faults", {"operation": "ListQueues", "error": "RequestThrottled"})
    answer = call_query(endpoint, {"Action": "ListQueues"})
    assert answer.status == 403 and answer.find("Error/Code") == "RequestThrottled"
    assert admin(endpoint, "DELETE", "faults").status == 204
    assert call_query(endpoint, {"Action": "ListQueues"}).status == 200


def test_the_journal_over_http(server: SqsServer) -> None:
    endpoint = server.endpoint_url
    sqs = client(endpoint)
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="hello")
    answer = admin(endpoint, "GET", "calls?operation=SendMessage")
    assert answer.status == 200
    (call,) = answer.json()["calls"]
    assert call["params"] == {"QueueUrl": url, "MessageBody": "hello"}
    assert call["error"] is None and call["status"] == 200 and not call["injected"]
    assert len(admin(endpoint, "GET", "calls?queue=orders").json()["calls"]) == 2
    assert admin(endpoint, "DELETE", "calls").status == 204
    assert admin(endpoint, "GET", "calls").json() == {"calls": [], "dropped": 0}
    assert admin(endpoint, "PUT", "calls").status == 405
    assert admin(endpoint, "GET", "calls/1").status == 404


def test_the_journal_over_http_comes_in_pages(server: SqsServer) -> None:
    endpoint = server.endpoint_url
    sqs = client(endpoint)
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    for i in range(120):
        sqs.send_message(QueueUrl=url, MessageBody=str(i))
    first = admin(endpoint, "GET", "calls").json()
    assert len(first["calls"]) == 100 and first["dropped"] == 0  # the default page
    assert first["calls"][0]["operation"] == "CreateQueue"
    assert first["calls"][1]["size"] > 0 and first["calls"][1]["truncated"] is False
    rest = admin(endpoint, "GET", f"calls?next_token={first['next_token']}").json()
    assert "next_token" not in rest
    bodies = [c["params"]["MessageBody"] for c in first["calls"][1:] + rest["calls"]]
    assert bodies == [str(i) for i in range(120)]
    small = admin(endpoint, "GET", "calls?operation=SendMessage&queue=orders&limit=2").json()
    assert [c["params"]["MessageBody"] for c in small["calls"]] == ["0", "1"]
    route = f"calls?operation=SendMessage&limit=2&next_token={small['next_token']}"
    after = admin(endpoint, "GET", route).json()
    assert [c["params"]["MessageBody"] for c in after["calls"]] == ["2", "3"]
    for bad in ("limit=0", "limit=1001", "limit=ten", "next_token=x"):
        answer = admin(endpoint, "GET", f"calls?{bad}")
        assert answer.status == 400 and "error" in answer.json()
    newest = admin(endpoint, "GET", "calls?newest=true&limit=3&operation=SendMessage").json()
    assert [c["params"]["MessageBody"] for c in newest["calls"]] == ["117", "118", "119"]
    assert "next_token" not in newest


def test_bad_fault_rules_over_http_are_400s(server: SqsServer) -> None:
    endpoint = server.endpoint_url
    answer = admin(endpoint, "POST", "faults", {"operation": "SendMessage", "error": "Nope"})
    assert answer.status == 400 and "unknown SQS error" in answer.json()["error"]
    assert admin(endpoint, "POST", "faults", b"{").status == 400
    assert admin(endpoint, "DELETE", "faults/f0").status == 404


def test_the_server_handle_has_the_same_tools(server: SqsServer) -> None:
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    server.faults.add("SendMessageBatch", entry_error="InternalError", entries=["b"])
    answer = sqs.send_message_batch(
        QueueUrl=url,
        Entries=[{"Id": "a", "MessageBody": "1"}, {"Id": "b", "MessageBody": "2"}],
    )
    assert [f["Id"] for f in answer["Failed"]] == ["b"]
    assert [c.operation for c in server.calls] == ["CreateQueue", "SendMessageBatch"]
    server.faults.clear()
    server.chaos(duplicates=1.0, seed=1)
    (first,) = sqs.receive_message(QueueUrl=url)["Messages"]
    (again,) = sqs.receive_message(QueueUrl=url)["Messages"]
    assert again["MessageId"] == first["MessageId"]
    server.chaos()
    server.clock.advance(60)
    (record,) = server.lambda_event("orders")["Records"]
    assert record["body"] == "1" and record["eventSourceARN"].endswith(":orders")
    run = server.run_lambda(lambda event, context: None, "orders")
    assert run.batches == 0  # the one message is in flight with the event above


def test_serve_takes_journal_limit_and_delivery() -> None:
    with sqsmock.serve(port=0, journal_limit=1, delivery={"reorder": 1.0, "seed": 3}) as server:
        sqs = client(server.endpoint_url)
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        with pytest.warns(JournalFullWarning):
            for i in range(5):
                sqs.send_message(QueueUrl=url, MessageBody=str(i))
        assert len(server.calls) == 1 and server.calls.dropped == 5
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=5)["Messages"]
        assert [m["Body"] for m in got] != ["0", "1", "2", "3", "4"]
    with pytest.raises(ValueError, match="journal_limit"):
        sqsmock.serve(journal_limit=-1)


def test_serve_takes_a_journal_byte_limit() -> None:
    with sqsmock.serve(port=0, journal_byte_limit=64 * 1024) as server:
        assert server.calls.byte_limit == 64 * 1024
        sqs = client(server.endpoint_url)
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="b" * 100_000)
        (send,) = server.calls.of("SendMessage")
        assert send.truncated and send.size >= 100_000
        answer = admin(server.endpoint_url, "GET", "calls?operation=SendMessage").json()
        assert answer["calls"][0]["truncated"] is True
        assert len(answer["calls"][0]["params"]["MessageBody"]) == 1024
    with pytest.raises(ValueError, match="journal_byte_limit"):
        sqsmock.serve(journal_byte_limit=-1)


@pytest.mark.slow
def test_the_command_takes_a_journal_limit() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "sqsmock", "serve", "--port", "0", "--journal-limit", "-1"],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 2 and b"journal_limit" in done.stderr
    shown = subprocess.run(
        [sys.executable, "-m", "sqsmock", "serve", "--help"], capture_output=True, timeout=60
    )
    assert b"--journal-limit" in shown.stdout
    assert b"--journal-byte-limit" in shown.stdout
    done = subprocess.run(
        [sys.executable, "-m", "sqsmock", "serve", "--port", "0", "--journal-byte-limit", "-1"],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 2 and b"journal_byte_limit" in done.stderr
