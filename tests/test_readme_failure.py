"""The examples of the README's "Testing failure" section, as written there."""

from __future__ import annotations

import json

import boto3
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from botocore.config import Config

from sqsmock import mock_sqs

# -- The call journal ------------------------------------------------------------------------


def test_the_producer_sends_one_message_per_order():
    with mock_sqs() as sqs:
        client = boto3.client("sqs", region_name="us-east-1")
        url = client.create_queue(QueueName="orders")["QueueUrl"]
        for order in ("A-1", "A-2"):
            client.send_message(QueueUrl=url, MessageBody=order)

        sends = sqs.calls.of("SendMessage", queue="orders")
        assert [call.params["MessageBody"] for call in sends] == ["A-1", "A-2"]
        assert all(call.error is None for call in sends)


# -- Faults ----------------------------------------------------------------------------------


def test_a_throttled_send_is_retried():
    with mock_sqs(clock="frozen") as sqs:
        config = Config(retries={"mode": "standard", "max_attempts": 3})
        client = boto3.client("sqs", region_name="us-east-1", config=config)
        url = client.create_queue(QueueName="orders")["QueueUrl"]
        sqs.faults.add("SendMessage", error="RequestThrottled", times=2)

        client.send_message(QueueUrl=url, MessageBody="A-1")  # succeeds on the third attempt

        attempts = sqs.calls.of("SendMessage")
        assert [call.error for call in attempts] == ["RequestThrottled", "RequestThrottled", None]


def test_a_producer_resends_the_entries_that_failed():
    with mock_sqs() as sqs:
        client = boto3.client("sqs", region_name="us-east-1")
        url = client.create_queue(QueueName="orders")["QueueUrl"]
        sqs.faults.add("SendMessageBatch", entry_error="InternalError", entries=["2"], times=1)

        entries = [{"Id": str(i), "MessageBody": f"A-{i}"} for i in (1, 2, 3)]
        answer = client.send_message_batch(QueueUrl=url, Entries=entries)
        assert [failed["Id"] for failed in answer["Failed"]] == ["2"]

        retry = [e for e in entries if e["Id"] in {f["Id"] for f in answer["Failed"]}]
        assert client.send_message_batch(QueueUrl=url, Entries=retry)["Successful"]
        assert len(sqs.peek("orders")) == 3


# -- At-least-once delivery ------------------------------------------------------------------


def test_every_payment_is_taken_once():
    with mock_sqs(clock="frozen") as sqs:
        sqs.chaos(duplicates=0.3, reorder=0.5, empty_receives=0.2, seed=42)
        client = boto3.client("sqs", region_name="us-east-1")
        url = client.create_queue(QueueName="payments")["QueueUrl"]
        for i in range(20):
            client.send_message(QueueUrl=url, MessageBody=f"pay-{i}")

        taken, seen = [], set()
        for _ in range(100):  # the consumer's loop
            for message in client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get(
                "Messages", []
            ):
                if message["MessageId"] not in seen:  # idempotent by MessageId
                    seen.add(message["MessageId"])
                    taken.append(message["Body"])
                client.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])

        assert sorted(taken) == sorted(f"pay-{i}" for i in range(20))


# -- Lambda ----------------------------------------------------------------------------------

processor = BatchProcessor(event_type=EventType.SQS)


def record_handler(record):
    if record.body == "poison":
        raise ValueError("cannot process it")


def handler(event, context):
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )


def test_the_poison_message_ends_in_the_dead_letter_queue():
    with mock_sqs(clock="frozen") as sqs:
        client = boto3.client("sqs", region_name="us-east-1")
        dlq = client.create_queue(QueueName="orders-dlq")["QueueUrl"]
        dlq_arn = client.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])[
            "Attributes"
        ]["QueueArn"]
        redrive = {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "2"}
        url = client.create_queue(
            QueueName="orders", Attributes={"RedrivePolicy": json.dumps(redrive)}
        )["QueueUrl"]
        for body in ("A-1", "poison", "A-2"):
            client.send_message(QueueUrl=url, MessageBody=body)

        run = sqs.run_lambda(handler, "orders", batch_size=10)
        assert len(run.deleted) == 2 and len(run.failed) == 1

        sqs.clock.advance(30)  # the visibility timeout: it comes back, and fails again
        assert len(sqs.run_lambda(handler, "orders").failed) == 1
        sqs.clock.advance(30)  # past maxReceiveCount: the redrive policy moves it
        sqs.run_lambda(handler, "orders")
        assert [m.body for m in sqs.peek("orders-dlq")] == ["poison"]


def test_the_event_lambda_gets():
    with mock_sqs() as sqs:
        client = boto3.client("sqs", region_name="us-east-1")
        url = client.create_queue(QueueName="orders")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="A-1")

        event = sqs.lambda_event("orders")
        (record,) = event["Records"]
        assert record["body"] == "A-1" and record["eventSource"] == "aws:sqs"
        assert handler(event, None) == {"batchItemFailures": []}
