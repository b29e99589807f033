"""Statements of the behaviour reference (how real Amazon SQS behaves) that no other test module
pins, one test per statement; each docstring quotes the line it checks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError
from server_support import call_json, call_query
from sqs_asserts import assert_error

import sqsmock

pytestmark = pytest.mark.sqsmock(clock="frozen")

ACCOUNT = "123456789012"


def arn_of(client: Any, url: str) -> str:
    attributes = client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
    return str(attributes["Attributes"]["QueueArn"])


def bodies(client: Any, url: str, **kwargs: Any) -> list[str]:
    response = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10, **kwargs)
    return [message["Body"] for message in response.get("Messages", [])]


def visible_count(client: Any, url: str) -> str:
    attributes = client.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"]
    )
    return str(attributes["Attributes"]["ApproximateNumberOfMessages"])


def create_fifo(client: Any, name: str, **attributes: str) -> str:
    attributes = {"FifoQueue": "true", "ContentBasedDeduplication": "true", **attributes}
    return str(client.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"])


# --- section 1: errors ------------------------------------------------------------------------


def test_too_many_permission_actions_is_over_limit(sqs_client):
    """| too many permissions / in-flight cap on short poll | 403 | OverLimit | OverLimit |"""
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    actions = ["SendMessage", "ReceiveMessage", "DeleteMessage", "ChangeMessageVisibility"]
    actions += ["GetQueueAttributes", "GetQueueUrl", "PurgeQueue", "SendMessageBatch"]
    with pytest.raises(sqs_client.exceptions.OverLimit) as exc:
        sqs_client.add_permission(
            QueueUrl=url, Label="many", AWSAccountIds=["111122223333"], Actions=actions
        )
    assert_error(
        exc, "OverLimit", "OverLimit", "8 Actions were found, maximum allowed is 7.", status=403
    )
    policy = sqs_client.get_queue_attributes(QueueUrl=url, AttributeNames=["Policy"])
    assert "Attributes" not in policy
    sqs_client.add_permission(
        QueueUrl=url, Label="seven", AWSAccountIds=["111122223333"], Actions=actions[:7]
    )


# --- section 3: sending -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        {"DataType": "Number", "StringValue": "1"},
        {"DataType": "Binary", "BinaryValue": b"Root=1"},
        {"DataType": "String.custom", "StringValue": "Root=1"},
    ],
    ids=["Number", "Binary", "String.custom"],
)
def test_trace_header_system_attribute_must_be_a_string(sqs_client, value):
    """`MessageSystemAttributes` accepts only `AWSTraceHeader` (String)"""
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(
            QueueUrl=url, MessageBody="x", MessageSystemAttributes={"AWSTraceHeader": value}
        )
    assert_error(
        exc,
        "InvalidParameterValue",
        "InvalidParameterValueException",
        "Message system attribute 'AWSTraceHeader' must be of type 'String'.",
    )
    assert visible_count(sqs_client, url) == "0"


TRACE_HEADER = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"


@pytest.mark.slow
def test_trace_id_request_header_sets_the_trace_header_over_http():
    """`MessageSystemAttributes` accepts only `AWSTraceHeader` (String); the `X-Amzn-Trace-Id`
    request header sets it too."""
    with sqsmock.serve(port=0) as server:
        endpoint = server.endpoint_url
        url = call_json(endpoint, "CreateQueue", {"QueueName": "q"}).json()["QueueUrl"]
        traced = {"X-Amzn-Trace-Id": TRACE_HEADER}
        sent = call_json(endpoint, "SendMessage", {"QueueUrl": url, "MessageBody": "json"}, traced)
        assert sent.status == 200
        form = [("Action", "SendMessage"), ("QueueUrl", url), ("MessageBody", "query")]
        assert call_query(endpoint, form, headers=traced).status == 200
        answer = call_json(
            endpoint,
            "ReceiveMessage",
            {"QueueUrl": url, "MaxNumberOfMessages": 10, "AttributeNames": ["AWSTraceHeader"]},
        )
        got = {m["Body"]: m["Attributes"] for m in answer.json()["Messages"]}
        assert got == {
            "json": {"AWSTraceHeader": TRACE_HEADER},
            "query": {"AWSTraceHeader": TRACE_HEADER},
        }


# --- section 5: receiving, visibility ---------------------------------------------------------


def test_changed_visibility_lasts_for_the_current_receive_only(sqs_client, sqs_mock):
    """ChangeMessageVisibility: new timeout counts from now; only for the current receive."""
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="x")
    (message,) = sqs_client.receive_message(QueueUrl=url)["Messages"]
    sqs_client.change_message_visibility(
        QueueUrl=url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=100
    )
    sqs_mock.clock.advance(100)
    assert bodies(sqs_client, url) == ["x"]  # received again: the queue's 30 s apply
    sqs_mock.clock.advance(29)
    assert bodies(sqs_client, url) == []
    sqs_mock.clock.advance(1)
    assert bodies(sqs_client, url) == ["x"]


def test_standard_message_moved_to_a_dlq_keeps_its_enqueue_time(sqs_client, sqs_mock):
    """Retention: ... Standard messages keep their original enqueue time when moved to a DLQ;
    FIFO messages get a new one."""
    dlq = sqs_client.create_queue(QueueName="dlq", Attributes={"MessageRetentionPeriod": "100"})
    policy = {"deadLetterTargetArn": arn_of(sqs_client, dlq["QueueUrl"]), "maxReceiveCount": 1}
    source = sqs_client.create_queue(
        QueueName="source", Attributes={"RedrivePolicy": json.dumps(policy)}
    )["QueueUrl"]
    sqs_client.send_message(QueueUrl=source, MessageBody="old")
    sqs_mock.clock.advance(90)
    assert bodies(sqs_client, source, VisibilityTimeout=0) == ["old"]
    assert bodies(sqs_client, source, VisibilityTimeout=0) == []  # moved, at t=90
    assert visible_count(sqs_client, dlq["QueueUrl"]) == "1"
    sqs_mock.clock.advance(10)  # t=100: 100 s after the send, 10 s after the move
    assert visible_count(sqs_client, dlq["QueueUrl"]) == "0"
    assert bodies(sqs_client, dlq["QueueUrl"]) == []


def test_fifo_message_moved_to_a_dlq_gets_a_new_enqueue_time(sqs_client, sqs_mock):
    """Retention: ... Standard messages keep their original enqueue time when moved to a DLQ;
    FIFO messages get a new one."""
    dlq = create_fifo(sqs_client, "dlq.fifo", MessageRetentionPeriod="100")
    policy = {"deadLetterTargetArn": arn_of(sqs_client, dlq), "maxReceiveCount": 1}
    source = create_fifo(sqs_client, "source.fifo", RedrivePolicy=json.dumps(policy))
    sqs_client.send_message(QueueUrl=source, MessageBody="old", MessageGroupId="g")
    sqs_mock.clock.advance(90)
    assert bodies(sqs_client, source, VisibilityTimeout=0) == ["old"]
    assert bodies(sqs_client, source, VisibilityTimeout=0) == []  # moved, at t=90
    sqs_mock.clock.advance(99)  # t=189: 189 s after the send, 99 s after the move
    assert visible_count(sqs_client, dlq) == "1"
    sqs_mock.clock.advance(1)
    assert visible_count(sqs_client, dlq) == "0"


# --- section 6: FIFO, ReceiveRequestAttemptId --------------------------------------------------


def test_receive_request_attempt_id_over_128_characters_is_invalid(sqs_client):
    """ReceiveRequestAttemptId (≤128, valid 5 min)"""
    url = create_fifo(sqs_client, "q.fifo")
    sqs_client.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g")
    with pytest.raises(ClientError) as exc:
        sqs_client.receive_message(QueueUrl=url, ReceiveRequestAttemptId="a" * 129)
    assert_error(exc, "InvalidParameterValue", "InvalidParameterValueException")
    assert "ReceiveRequestAttemptId" in exc.value.response["Error"]["Message"]
    assert bodies(sqs_client, url, ReceiveRequestAttemptId="a" * 128) == ["m"]


def test_receive_request_attempt_id_is_kept_for_five_minutes(sqs_client, sqs_mock):
    """ReceiveRequestAttemptId (≤128, valid 5 min): a retry with the same id returns the same
    messages and handles if none was deleted or had its visibility changed."""
    url = create_fifo(sqs_client, "q.fifo")
    sqs_client.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="g")
    request = {"QueueUrl": url, "VisibilityTimeout": 900, "ReceiveRequestAttemptId": "try"}
    first = sqs_client.receive_message(**request)["Messages"]
    sqs_mock.clock.advance(299)
    retry = sqs_client.receive_message(**request)["Messages"]
    assert [m["ReceiptHandle"] for m in retry] == [m["ReceiptHandle"] for m in first]
    sqs_mock.clock.advance(2)  # 301 s after the first attempt: a new receive, the group blocked
    assert "Messages" not in sqs_client.receive_message(**request)


def _delete(sqs_client, url, handle):
    sqs_client.delete_message(QueueUrl=url, ReceiptHandle=handle)


def _change_visibility(sqs_client, url, handle):
    sqs_client.change_message_visibility(QueueUrl=url, ReceiptHandle=handle, VisibilityTimeout=100)


@pytest.mark.parametrize(
    "disturb", [_delete, _change_visibility], ids=["after-a-delete", "after-a-visibility-change"]
)
def test_receive_request_attempt_retry_after_a_change_is_a_new_receive(sqs_client, disturb):
    """ReceiveRequestAttemptId (≤128, valid 5 min): a retry with the same id returns the same
    messages and handles if none was deleted or had its visibility changed."""
    url = create_fifo(sqs_client, "q.fifo")
    for group in ("a", "b", "c"):
        sqs_client.send_message(QueueUrl=url, MessageBody=group, MessageGroupId=group)
    request = {"QueueUrl": url, "MaxNumberOfMessages": 2, "ReceiveRequestAttemptId": "try"}
    first = sqs_client.receive_message(**request)["Messages"]
    assert [m["Body"] for m in first] == ["a", "b"]
    disturb(sqs_client, url, first[0]["ReceiptHandle"])
    retry = sqs_client.receive_message(**request)["Messages"]
    assert [m["Body"] for m in retry] == ["c"]


# --- section 2: ListDeadLetterSourceQueues ----------------------------------------------------


@pytest.mark.parametrize("max_results", [0, 1001])
def test_list_dead_letter_source_queues_max_results_range(sqs_client, max_results):
    """ListQueues: ... `NextToken` only when `MaxResults` (1-1000) was given and more remain ...
    ListDeadLetterSourceQueues returns key `queueUrls` (lowercase q), same paging rules."""
    dlq = sqs_client.create_queue(QueueName="dlq")["QueueUrl"]
    with pytest.raises(ClientError) as exc:
        sqs_client.list_dead_letter_source_queues(QueueUrl=dlq, MaxResults=max_results)
    assert_error(exc, "InvalidParameterValue", "InvalidParameterValueException")
    assert "MaxResults" in exc.value.response["Error"]["Message"]
    for accepted in (1, 1000):
        answer = sqs_client.list_dead_letter_source_queues(QueueUrl=dlq, MaxResults=accepted)
        assert "queueUrls" not in answer
