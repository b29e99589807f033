"""Lambda's SQS event source: the event's exact shape, and a mapping driving a real handler."""

from __future__ import annotations

import base64
import json
from typing import Any

import boto3
import pytest
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    SqsFifoPartialProcessor,
    process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes import SQSEvent
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from sqsmock import mock_sqs

ARN = "arn:aws:sqs:us-east-1:123456789012:"


@pytest.fixture
def sqs() -> Any:
    with mock_sqs(clock="frozen") as handle:
        yield handle


@pytest.fixture
def client(sqs: Any) -> Any:
    return boto3.client(
        "sqs", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
    )


def test_the_event_has_lambdas_exact_shape(sqs: Any, client: Any) -> None:
    url = client.create_queue(QueueName="orders")["QueueUrl"]
    sent = client.send_message(
        QueueUrl=url,
        MessageBody='{"order": 1}',
        MessageAttributes={
            "kind": {"DataType": "String", "StringValue": "new"},
            "count": {"DataType": "Number", "StringValue": "3"},
            "raw": {"DataType": "Binary", "BinaryValue": b"\x00\xff"},
        },
    )
    client.send_message(QueueUrl=url, MessageBody="plain")
    now_ms = str(int(sqs.clock.now() * 1000))
    event = sqs.lambda_event("orders")
    first, second = event["Records"]
    assert list(first) == [
        "messageId",
        "receiptHandle",
        "body",
        "attributes",
        "messageAttributes",
        "md5OfBody",
        "md5OfMessageAttributes",
        "eventSource",
        "eventSourceARN",
        "awsRegion",
    ]
    assert first["messageId"] == sent["MessageId"]
    assert first["body"] == '{"order": 1}'
    assert first["md5OfBody"] == sent["MD5OfMessageBody"]
    assert first["md5OfMessageAttributes"] == sent["MD5OfMessageAttributes"]
    assert first["attributes"] == {
        "ApproximateReceiveCount": "1",
        "SentTimestamp": now_ms,
        "SenderId": first["attributes"]["SenderId"],
        "ApproximateFirstReceiveTimestamp": now_ms,
    }
    assert first["messageAttributes"] == {
        "kind": {
            "stringValue": "new",
            "stringListValues": [],
            "binaryListValues": [],
            "dataType": "String",
        },
        "count": {
            "stringValue": "3",
            "stringListValues": [],
            "binaryListValues": [],
            "dataType": "Number",
        },
        "raw": {
            "binaryValue": base64.b64encode(b"\x00\xff").decode(),
            "stringListValues": [],
            "binaryListValues": [],
            "dataType": "Binary",
        },
    }
    assert first["eventSource"] == "aws:sqs"
    assert first["eventSourceARN"] == ARN + "orders"
    assert first["awsRegion"] == "us-east-1"
    assert second["messageAttributes"] == {} and "md5OfMessageAttributes" not in second
    # the receipt handle is a live one
    client.delete_message(QueueUrl=url, ReceiptHandle=first["receiptHandle"])
    assert [m.body for m in sqs.peek("orders")] == ["plain"]


def test_powertools_reads_the_event(sqs: Any, client: Any) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    client.send_message(
        QueueUrl=url,
        MessageBody="hi",
        MessageAttributes={"raw": {"DataType": "Binary", "BinaryValue": b"\x01"}},
    )
    record = next(SQSEvent(sqs.lambda_event(url)).records)
    assert record.body == "hi"
    assert record.attributes.approximate_receive_count == "1"
    assert record.message_attributes["raw"].binary_value == "AQ=="
    assert record.event_source_arn == ARN + "q"
    assert record.queue_url == url


def test_a_fifo_record_carries_the_fifo_attributes(sqs: Any, client: Any) -> None:
    url = client.create_queue(
        QueueName="jobs.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"}
    )["QueueUrl"]
    sent = client.send_message(QueueUrl=url, MessageBody="a", MessageGroupId="g")
    (record,) = sqs.lambda_event("jobs.fifo")["Records"]
    attributes = record["attributes"]
    assert list(attributes) == [
        "ApproximateReceiveCount",
        "SentTimestamp",
        "SequenceNumber",
        "MessageGroupId",
        "SenderId",
        "MessageDeduplicationId",
        "ApproximateFirstReceiveTimestamp",
    ]
    assert attributes["SequenceNumber"] == sent["SequenceNumber"]
    assert attributes["MessageGroupId"] == "g"


def test_max_messages_and_an_empty_queue(sqs: Any, client: Any) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    assert sqs.lambda_event("q") == {"Records": []}
    for i in range(25):
        client.send_message(QueueUrl=url, MessageBody=str(i))
    assert len(sqs.lambda_event("q", max_messages=3)["Records"]) == 3
    assert len(sqs.lambda_event("q", max_messages=100)["Records"]) == 22
    with pytest.raises(LookupError):
        sqs.lambda_event("missing")
    with pytest.raises(ValueError, match="max_messages"):
        sqs.lambda_event("q", max_messages=0)


# -- run_lambda with a Powertools handler, written as a user writes it ---------------------------

processed: list[str] = []
processor = BatchProcessor(event_type=EventType.SQS)


def record_handler(record: SQSRecord) -> None:
    payload = json.loads(record.body)
    if payload.get("poison"):
        raise ValueError(f"cannot process order {payload['id']}")
    processed.append(payload["id"])


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )


def _with_dlq(client: Any, max_receives: int = 2) -> tuple[str, str]:
    dlq = client.create_queue(QueueName="orders-dlq")["QueueUrl"]
    dlq_arn = client.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    url = client.create_queue(
        QueueName="orders",
        Attributes={
            "VisibilityTimeout": "30",
            "RedrivePolicy": json.dumps(
                {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": str(max_receives)}
            ),
        },
    )["QueueUrl"]
    return url, dlq


def test_a_powertools_handler_under_run_lambda(sqs: Any, client: Any) -> None:
    processed.clear()
    url, _dlq_url = _with_dlq(client)
    for i in range(5):
        body = {"id": f"o{i}", "poison": i == 3}
        client.send_message(QueueUrl=url, MessageBody=json.dumps(body))
    run = sqs.run_lambda(lambda_handler, "orders", batch_size=10)
    assert processed == ["o0", "o1", "o2", "o4"]
    assert run.batches == 1 and run.received == 5
    assert len(run.deleted) == 4 and len(run.failed) == 1 and not run.errors
    (poison,) = run.failed
    assert run.responses == [{"batchItemFailures": [{"itemIdentifier": poison}]}]
    (left,) = sqs.peek("orders")
    assert left.message_id == poison and left.state == "inflight"
    # the mapping's own calls, in the journal: receive, delete the successes, poll again
    assert [c.operation for c in sqs.calls][-3:] == [
        "ReceiveMessage",
        "DeleteMessageBatch",
        "ReceiveMessage",
    ]

    # it comes back after the visibility timeout, fails again...
    assert sqs.run_lambda(lambda_handler, "orders").batches == 0
    sqs.clock.advance(30)
    again = sqs.run_lambda(lambda_handler, "orders")
    assert again.failed == [poison] and processed == ["o0", "o1", "o2", "o4"]
    # ... and the redrive policy moves it to the dead-letter queue at the next receive
    sqs.clock.advance(30)
    assert sqs.run_lambda(lambda_handler, "orders").batches == 0
    assert sqs.peek("orders") == []
    assert [m.message_id for m in sqs.peek("orders-dlq")] == [poison]


def test_a_batch_that_fails_whole_is_left_whole(sqs: Any, client: Any) -> None:
    processed.clear()
    url = client.create_queue(QueueName="orders")["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody=json.dumps({"id": "x", "poison": True}))
    run = sqs.run_lambda(lambda_handler, "orders")
    # Powertools raises when every record failed: Lambda then retries the whole batch
    assert len(run.errors) == 1 and run.deleted == [] and len(run.failed) == 1
    assert len(sqs.peek("orders")) == 1


def test_a_handler_that_raises_deletes_nothing(sqs: Any, client: Any) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    for i in range(3):
        client.send_message(QueueUrl=url, MessageBody=str(i))

    def handler(event: dict[str, Any], context: Any) -> None:
        raise RuntimeError("boom")

    run = sqs.run_lambda(handler, "q")
    assert [str(e) for e in run.errors] == ["boom"] and run.deleted == []
    assert run.responses == [None]
    assert sorted(m.state for m in sqs.peek("q")) == ["inflight"] * 3


def test_without_report_batch_item_failures_the_response_is_ignored(sqs: Any, client: Any) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody="a")

    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return {"batchItemFailures": [{"itemIdentifier": event["Records"][0]["messageId"]}]}

    run = sqs.run_lambda(handler, "q", report_batch_item_failures=False)
    assert len(run.deleted) == 1 and sqs.peek("q") == []


@pytest.mark.parametrize(
    "response",
    [
        {"batchItemFailures": [{"itemIdentifier": "not-in-the-batch"}]},
        {"batchItemFailures": [{"itemIdentifier": ""}]},
        {"batchItemFailures": [{}]},
        {"batchItemFailures": "x"},
        "not a dict",
    ],
)
def test_a_malformed_response_fails_the_whole_batch(sqs: Any, client: Any, response: Any) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody="a")
    client.send_message(QueueUrl=url, MessageBody="b")
    run = sqs.run_lambda(lambda event, context: response, "q")
    assert run.deleted == [] and len(run.failed) == 2


def test_an_empty_or_missing_failure_list_succeeds_whole(sqs: Any, client: Any) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    for response in (None, {}, {"batchItemFailures": []}):
        client.send_message(QueueUrl=url, MessageBody="a")
        run = sqs.run_lambda(lambda event, context, r=response: r, "q")
        assert len(run.deleted) == 1
    assert sqs.peek("q") == []


def test_batches_until_the_queue_is_drained(sqs: Any, client: Any) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    for i in range(25):
        client.send_message(QueueUrl=url, MessageBody=str(i))
    sizes: list[int] = []
    contexts: list[Any] = []

    def handler(event: dict[str, Any], context: Any) -> None:
        sizes.append(len(event["Records"]))
        contexts.append(context)

    run = sqs.run_lambda(handler, "q", batch_size=10)
    assert sizes == [10, 10, 5] and run.batches == 3 and len(run.deleted) == 25
    assert contexts[0].function_name and contexts[0].get_remaining_time_in_millis() > 0
    for i in range(25):
        client.send_message(QueueUrl=url, MessageBody=str(i))
    sizes.clear()
    sqs.run_lambda(handler, "q", batch_size=20, max_batches=1)
    assert sizes == [20]
    with pytest.raises(ValueError, match="batch_size"):
        sqs.run_lambda(handler, "q", batch_size=0)


def test_a_message_back_at_once_does_not_spin(sqs: Any, client: Any) -> None:
    url = client.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "0"})["QueueUrl"]
    client.send_message(QueueUrl=url, MessageBody="a")

    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return {"batchItemFailures": [{"itemIdentifier": r["messageId"]} for r in event["Records"]]}

    run = sqs.run_lambda(handler, "q")
    assert run.batches == 1 and len(run.failed) == 1


def test_a_fifo_handler_with_powertools_keeps_group_order(sqs: Any, client: Any) -> None:
    url = client.create_queue(
        QueueName="jobs.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"}
    )["QueueUrl"]
    for body in ("1", "2-poison", "3"):
        client.send_message(QueueUrl=url, MessageBody=body, MessageGroupId="g")
    seen: list[str] = []
    fifo = SqsFifoPartialProcessor()

    def handle(record: SQSRecord) -> None:
        if "poison" in record.body:
            raise ValueError(record.body)
        seen.append(record.body)

    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return process_partial_response(
            event=event, record_handler=handle, processor=fifo, context=context
        )

    run = sqs.run_lambda(handler, "jobs.fifo")
    assert seen == ["1"] and len(run.deleted) == 1 and len(run.failed) == 2
    assert [m.body for m in sqs.peek("jobs.fifo")] == ["2-poison", "3"]


def test_the_mapping_polls_again_when_a_short_poll_comes_back_empty(sqs: Any, client: Any) -> None:
    url = client.create_queue(QueueName="q")["QueueUrl"]
    for i in range(3):
        client.send_message(QueueUrl=url, MessageBody=str(i))
    sqs.chaos(empty_receives=0.7, seed=4)
    run = sqs.run_lambda(lambda event, context: None, "q")
    assert len(run.deleted) == 3 and sqs.peek("q") == []
    receives = sqs.calls.of("ReceiveMessage")
    assert any("Messages" not in (r.response or {}) for r in receives[:-1])  # some came back empty


def test_journal_entries_are_indexed_and_sliced(sqs: Any, client: Any) -> None:
    client.list_queues()
    client.create_queue(QueueName="q")
    assert sqs.calls[-1].operation == "CreateQueue"
    assert [c.operation for c in sqs.calls[0:1]] == ["ListQueues"]
