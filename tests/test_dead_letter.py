"""Dead-letter queues: redrive policies, the lazy move and ListDeadLetterSourceQueues."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

pytestmark = pytest.mark.sqsmock(clock="frozen")

ARN_PREFIX = "arn:aws:sqs:us-east-1:123456789012:"
TRACE_HEADER = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
VISIBILITY = 5


def assert_invalid_parameter(exc: pytest.ExceptionInfo[ClientError]) -> None:
    response = exc.value.response
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert response["Error"]["Code"] == "InvalidParameterValue"
    assert response["Error"]["QueryErrorCode"] == "InvalidParameterValueException"
    assert response["Error"]["Type"] == "Sender"


def arn_of(client: Any, url: str) -> str:
    return client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]


def redrive(dlq_arn: str, max_receive_count: Any = 2) -> str:
    return json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": max_receive_count})


def create(client: Any, name: str, **attributes: str) -> str:
    if name.endswith(".fifo"):
        attributes = {"FifoQueue": "true", **attributes}
    return client.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]


def get_attribute(client: Any, url: str, name: str) -> str | None:
    got = client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return got.get(name)


def counts(client: Any, url: str) -> tuple[str, str]:
    got = client.get_queue_attributes(
        QueueUrl=url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return got["ApproximateNumberOfMessages"], got["ApproximateNumberOfMessagesNotVisible"]


def receive(client: Any, url: str, **kwargs: Any) -> list[dict[str, Any]]:
    return client.receive_message(QueueUrl=url, MaxNumberOfMessages=10, **kwargs).get(
        "Messages", []
    )


def make_pair(client: Any, fifo: bool = False, max_receive_count: int = 2) -> tuple[str, str]:
    """A DLQ and a source queue redriving to it; returns (source_url, dlq_url)."""
    suffix = ".fifo" if fifo else ""
    dlq = create(client, "dlq" + suffix)
    source = create(
        client,
        "source" + suffix,
        VisibilityTimeout=str(VISIBILITY),
        RedrivePolicy=redrive(arn_of(client, dlq), max_receive_count),
    )
    return source, dlq


def send(client: Any, url: str, body: str = "payload", **kwargs: Any) -> dict[str, Any]:
    if url.endswith(".fifo"):
        kwargs.setdefault("MessageGroupId", "g")
        kwargs.setdefault("MessageDeduplicationId", body)
    return client.send_message(QueueUrl=url, MessageBody=body, **kwargs)


def receive_until_moved(client: Any, mock: Any, url: str, times: int) -> list[list[str]]:
    """Receive ``times`` times, letting each receive's visibility lapse; the bodies per receive."""
    out = []
    for _ in range(times):
        out.append([m["Body"] for m in receive(client, url)])
        mock.clock.advance(VISIBILITY + 1)
    return out


# --- RedrivePolicy validation -----------------------------------------------------------------


def test_redrive_policy_is_returned_as_json(sqs_client):
    source, dlq = make_pair(sqs_client)
    policy = json.loads(get_attribute(sqs_client, source, "RedrivePolicy"))
    assert policy["deadLetterTargetArn"] == arn_of(sqs_client, dlq)
    assert int(policy["maxReceiveCount"]) == 2
    assert set(policy) == {"deadLetterTargetArn", "maxReceiveCount"}


@pytest.mark.parametrize("count", [5, "5"])
def test_max_receive_count_accepts_int_or_string(sqs_client, count):
    dlq = create(sqs_client, "dlq")
    source = create(sqs_client, "source")
    sqs_client.set_queue_attributes(
        QueueUrl=source, Attributes={"RedrivePolicy": redrive(arn_of(sqs_client, dlq), count)}
    )
    policy = json.loads(get_attribute(sqs_client, source, "RedrivePolicy"))
    assert int(policy["maxReceiveCount"]) == 5


@pytest.mark.parametrize("count", [1, 1000])
def test_max_receive_count_bounds_are_accepted(sqs_client, count):
    dlq = create(sqs_client, "dlq")
    source = create(sqs_client, "source", RedrivePolicy=redrive(arn_of(sqs_client, dlq), count))
    policy = json.loads(get_attribute(sqs_client, source, "RedrivePolicy"))
    assert int(policy["maxReceiveCount"]) == count


@pytest.mark.parametrize("count", [0, 1001, -1, "many"])
def test_max_receive_count_out_of_range_is_invalid(sqs_client, count):
    dlq = create(sqs_client, "dlq")
    source = create(sqs_client, "source")
    with pytest.raises(ClientError) as exc:
        sqs_client.set_queue_attributes(
            QueueUrl=source, Attributes={"RedrivePolicy": redrive(arn_of(sqs_client, dlq), count)}
        )
    assert_invalid_parameter(exc)
    assert get_attribute(sqs_client, source, "RedrivePolicy") is None


def test_dead_letter_target_must_exist(sqs_client):
    source = create(sqs_client, "source")
    with pytest.raises(ClientError) as exc:
        sqs_client.set_queue_attributes(
            QueueUrl=source, Attributes={"RedrivePolicy": redrive(ARN_PREFIX + "missing")}
        )
    assert_invalid_parameter(exc)


def test_dead_letter_target_must_exist_at_creation(sqs_client):
    with pytest.raises(ClientError) as exc:
        create(sqs_client, "source", RedrivePolicy=redrive(ARN_PREFIX + "missing"))
    assert_invalid_parameter(exc)


def test_standard_source_cannot_use_fifo_dlq(sqs_client):
    dlq = create(sqs_client, "dlq.fifo")
    source = create(sqs_client, "source")
    with pytest.raises(ClientError) as exc:
        sqs_client.set_queue_attributes(
            QueueUrl=source, Attributes={"RedrivePolicy": redrive(arn_of(sqs_client, dlq))}
        )
    assert_invalid_parameter(exc)


def test_fifo_source_cannot_use_standard_dlq(sqs_client):
    dlq = create(sqs_client, "dlq")
    source = create(sqs_client, "source.fifo")
    with pytest.raises(ClientError) as exc:
        sqs_client.set_queue_attributes(
            QueueUrl=source, Attributes={"RedrivePolicy": redrive(arn_of(sqs_client, dlq))}
        )
    assert_invalid_parameter(exc)


def test_fifo_source_can_use_fifo_dlq(sqs_client):
    source, dlq = make_pair(sqs_client, fifo=True)
    policy = json.loads(get_attribute(sqs_client, source, "RedrivePolicy"))
    assert policy["deadLetterTargetArn"] == arn_of(sqs_client, dlq)


def test_redrive_policy_that_is_not_json_is_invalid(sqs_client):
    source = create(sqs_client, "source")
    with pytest.raises(ClientError) as exc:
        sqs_client.set_queue_attributes(QueueUrl=source, Attributes={"RedrivePolicy": "{nope"})
    assert_invalid_parameter(exc)


def test_empty_redrive_policy_removes_it(sqs_client):
    source, _ = make_pair(sqs_client)
    sqs_client.set_queue_attributes(QueueUrl=source, Attributes={"RedrivePolicy": ""})
    assert get_attribute(sqs_client, source, "RedrivePolicy") is None


# --- the lazy move ----------------------------------------------------------------------------


def test_message_moves_on_the_receive_that_exceeds_max_receive_count(sqs_client, sqs_mock):
    source, dlq = make_pair(sqs_client, max_receive_count=2)
    send(sqs_client, source, "payload")
    got = receive_until_moved(sqs_client, sqs_mock, source, 3)
    assert got == [["payload"], ["payload"], []]
    assert [m["Body"] for m in receive(sqs_client, dlq)] == ["payload"]


def test_max_receive_count_one_moves_on_second_receive(sqs_client, sqs_mock):
    source, dlq = make_pair(sqs_client, max_receive_count=1)
    send(sqs_client, source, "payload")
    assert receive_until_moved(sqs_client, sqs_mock, source, 2) == [["payload"], []]
    assert [m["Body"] for m in receive(sqs_client, dlq)] == ["payload"]


def test_move_is_lazy(sqs_client, sqs_mock):
    """A message over its count stays in the source until the next receive of it."""
    source, dlq = make_pair(sqs_client, max_receive_count=1)
    send(sqs_client, source, "payload")
    receive_until_moved(sqs_client, sqs_mock, source, 1)
    assert counts(sqs_client, dlq) == ("0", "0")
    assert counts(sqs_client, source) == ("1", "0")


def test_counters_after_the_move(sqs_client, sqs_mock):
    source, dlq = make_pair(sqs_client, max_receive_count=1)
    send(sqs_client, source, "payload")
    receive_until_moved(sqs_client, sqs_mock, source, 2)
    assert counts(sqs_client, source) == ("0", "0")
    assert counts(sqs_client, dlq) == ("1", "0")


def test_moved_message_keeps_id_body_and_attributes(sqs_client, sqs_mock):
    source, dlq = make_pair(sqs_client, max_receive_count=1)
    user_attributes = {
        "colour": {"DataType": "String", "StringValue": "blue"},
        "size": {"DataType": "Number", "StringValue": "42"},
        "blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01"},
    }
    sent = send(
        sqs_client,
        source,
        "payload \u2603",
        MessageAttributes=user_attributes,
        MessageSystemAttributes={
            "AWSTraceHeader": {"DataType": "String", "StringValue": TRACE_HEADER}
        },
    )
    receive_until_moved(sqs_client, sqs_mock, source, 2)
    (moved,) = receive(
        sqs_client, dlq, MessageAttributeNames=["All"], MessageSystemAttributeNames=["All"]
    )
    assert moved["MessageId"] == sent["MessageId"]
    assert moved["Body"] == "payload \u2603"
    assert moved["MD5OfBody"] == sent["MD5OfMessageBody"]
    assert moved["MessageAttributes"] == user_attributes
    assert moved["MD5OfMessageAttributes"] == sent["MD5OfMessageAttributes"]
    assert moved["Attributes"]["AWSTraceHeader"] == TRACE_HEADER


def test_moved_message_gains_dead_letter_queue_source_arn(sqs_client, sqs_mock):
    source, dlq = make_pair(sqs_client, max_receive_count=1)
    send(sqs_client, source)
    receive_until_moved(sqs_client, sqs_mock, source, 2)
    (moved,) = receive(sqs_client, dlq, MessageSystemAttributeNames=["DeadLetterQueueSourceArn"])
    assert moved["Attributes"] == {"DeadLetterQueueSourceArn": arn_of(sqs_client, source)}


def test_message_never_moved_has_no_dead_letter_queue_source_arn(sqs_client):
    source, _ = make_pair(sqs_client)
    send(sqs_client, source)
    (message,) = receive(sqs_client, source, MessageSystemAttributeNames=["All"])
    assert "DeadLetterQueueSourceArn" not in message["Attributes"]


def test_first_dlq_receive_carries_the_receive_count_on(sqs_client, sqs_mock):
    source, dlq = make_pair(sqs_client, max_receive_count=2)
    send(sqs_client, source)
    receive_until_moved(sqs_client, sqs_mock, source, 3)
    (moved,) = receive(sqs_client, dlq, MessageSystemAttributeNames=["ApproximateReceiveCount"])
    assert moved["Attributes"]["ApproximateReceiveCount"] == "3"


def test_standard_moved_message_keeps_sent_timestamp(sqs_client, sqs_mock):
    source, dlq = make_pair(sqs_client, max_receive_count=1)
    send(sqs_client, source)
    (first,) = receive(sqs_client, source, MessageSystemAttributeNames=["SentTimestamp"])
    sqs_mock.clock.advance(100)
    assert receive(sqs_client, source) == []
    (moved,) = receive(sqs_client, dlq, MessageSystemAttributeNames=["SentTimestamp"])
    assert moved["Attributes"]["SentTimestamp"] == first["Attributes"]["SentTimestamp"]


def test_fifo_moved_message_gets_a_new_sent_timestamp(sqs_client, sqs_mock):
    source, dlq = make_pair(sqs_client, fifo=True, max_receive_count=1)
    send(sqs_client, source)
    (first,) = receive(sqs_client, source, MessageSystemAttributeNames=["SentTimestamp"])
    sqs_mock.clock.advance(100)
    move_ms = int(sqs_mock.clock.now() * 1000)
    assert receive(sqs_client, source) == []
    (moved,) = receive(sqs_client, dlq, MessageSystemAttributeNames=["SentTimestamp"])
    original = int(first["Attributes"]["SentTimestamp"])
    assert int(moved["Attributes"]["SentTimestamp"]) > original
    assert abs(int(moved["Attributes"]["SentTimestamp"]) - move_ms) <= 1


def test_fifo_move_keeps_message_id_and_body(sqs_client, sqs_mock):
    source, dlq = make_pair(sqs_client, fifo=True, max_receive_count=1)
    sent = send(sqs_client, source, "fifo-payload")
    receive_until_moved(sqs_client, sqs_mock, source, 2)
    (moved,) = receive(sqs_client, dlq, MessageSystemAttributeNames=["DeadLetterQueueSourceArn"])
    assert moved["MessageId"] == sent["MessageId"]
    assert moved["Body"] == "fifo-payload"
    assert moved["Attributes"]["DeadLetterQueueSourceArn"] == arn_of(sqs_client, source)


def test_fifo_group_keeps_working_after_a_move(sqs_client, sqs_mock):
    source, dlq = make_pair(sqs_client, fifo=True, max_receive_count=1)
    send(sqs_client, source, "a0")
    send(sqs_client, source, "a1")
    (first,) = sqs_client.receive_message(QueueUrl=source, MaxNumberOfMessages=1)["Messages"]
    assert first["Body"] == "a0"
    sqs_mock.clock.advance(VISIBILITY + 1)
    later: list[str] = []
    for _ in range(2):
        later += [m["Body"] for m in receive(sqs_client, source)]
    assert later == ["a1"]
    assert [m["Body"] for m in receive(sqs_client, dlq)] == ["a0"]


def test_messages_under_the_count_stay_in_the_source(sqs_client, sqs_mock):
    source, dlq = make_pair(sqs_client, max_receive_count=3)
    send(sqs_client, source)
    got = receive_until_moved(sqs_client, sqs_mock, source, 3)
    assert got == [["payload"]] * 3
    assert counts(sqs_client, dlq) == ("0", "0")


# --- RedriveAllowPolicy -----------------------------------------------------------------------


def allow_policy(permission: str, arns: list[str] | None = None) -> str:
    policy: dict[str, Any] = {"redrivePermission": permission}
    if arns is not None:
        policy["sourceQueueArns"] = arns
    return json.dumps(policy)


def set_redrive(client: Any, source: str, dlq: str) -> None:
    client.set_queue_attributes(
        QueueUrl=source, Attributes={"RedrivePolicy": redrive(arn_of(client, dlq))}
    )


@pytest.mark.parametrize(
    "policy",
    [allow_policy("denyAll"), allow_policy("byQueue", [ARN_PREFIX + "someone-else"])],
    ids=["denyAll", "byQueue-not-listed"],
)
def test_redrive_allow_policy_refuses_source(sqs_client, policy):
    dlq = create(sqs_client, "dlq", RedriveAllowPolicy=policy)
    source = create(sqs_client, "source")
    with pytest.raises(ClientError) as exc:
        set_redrive(sqs_client, source, dlq)
    assert_invalid_parameter(exc)
    assert get_attribute(sqs_client, source, "RedrivePolicy") is None


def test_redrive_allow_policy_refuses_source_at_creation(sqs_client):
    dlq = create(sqs_client, "dlq", RedriveAllowPolicy=allow_policy("denyAll"))
    with pytest.raises(ClientError) as exc:
        create(sqs_client, "source", RedrivePolicy=redrive(arn_of(sqs_client, dlq)))
    assert_invalid_parameter(exc)


@pytest.mark.parametrize(
    "policy",
    [allow_policy("allowAll"), allow_policy("byQueue", [ARN_PREFIX + "source"])],
    ids=["allowAll", "byQueue-listed"],
)
def test_redrive_allow_policy_admits_source(sqs_client, policy):
    dlq = create(sqs_client, "dlq", RedriveAllowPolicy=policy)
    source = create(sqs_client, "source")
    set_redrive(sqs_client, source, dlq)
    redrive_policy = json.loads(get_attribute(sqs_client, source, "RedrivePolicy"))
    assert redrive_policy["deadLetterTargetArn"] == arn_of(sqs_client, dlq)


def test_redrive_allow_policy_is_returned_as_json(sqs_client):
    policy = allow_policy("byQueue", [ARN_PREFIX + "source"])
    dlq = create(sqs_client, "dlq", RedriveAllowPolicy=policy)
    assert json.loads(get_attribute(sqs_client, dlq, "RedriveAllowPolicy")) == json.loads(policy)


# --- ListDeadLetterSourceQueues ---------------------------------------------------------------


def make_sources(client: Any, count: int) -> tuple[list[str], str]:
    dlq = create(client, "dlq")
    sources = [
        create(client, f"source-{i}", RedrivePolicy=redrive(arn_of(client, dlq)))
        for i in range(count)
    ]
    return sources, dlq


def test_list_dead_letter_source_queues_uses_lowercase_key(sqs_client):
    sources, dlq = make_sources(sqs_client, 2)
    response = sqs_client.list_dead_letter_source_queues(QueueUrl=dlq)
    assert sorted(response["queueUrls"]) == sorted(sources)
    assert "QueueUrls" not in response
    assert "NextToken" not in response


def test_list_dead_letter_source_queues_only_lists_that_dlq(sqs_client):
    sources, dlq = make_sources(sqs_client, 1)
    other_dlq = create(sqs_client, "other-dlq")
    create(sqs_client, "other-source", RedrivePolicy=redrive(arn_of(sqs_client, other_dlq)))
    create(sqs_client, "bystander")
    assert sqs_client.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == sources


def test_list_dead_letter_source_queues_pages_with_max_results(sqs_client):
    sources, dlq = make_sources(sqs_client, 3)
    first = sqs_client.list_dead_letter_source_queues(QueueUrl=dlq, MaxResults=2)
    assert len(first["queueUrls"]) == 2
    assert first["NextToken"]
    second = sqs_client.list_dead_letter_source_queues(
        QueueUrl=dlq, MaxResults=2, NextToken=first["NextToken"]
    )
    assert len(second["queueUrls"]) == 1
    assert "NextToken" not in second
    assert sorted(first["queueUrls"] + second["queueUrls"]) == sorted(sources)


def test_list_dead_letter_source_queues_no_token_when_all_fit(sqs_client):
    sources, dlq = make_sources(sqs_client, 3)
    response = sqs_client.list_dead_letter_source_queues(QueueUrl=dlq, MaxResults=3)
    assert sorted(response["queueUrls"]) == sorted(sources)
    assert "NextToken" not in response


def test_list_dead_letter_source_queues_forgets_removed_policy(sqs_client):
    sources, dlq = make_sources(sqs_client, 2)
    sqs_client.set_queue_attributes(QueueUrl=sources[0], Attributes={"RedrivePolicy": ""})
    assert sqs_client.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"] == sources[1:]


def test_list_dead_letter_source_queues_of_unknown_queue(sqs_client):
    with pytest.raises(sqs_client.exceptions.QueueDoesNotExist) as exc:
        sqs_client.list_dead_letter_source_queues(
            QueueUrl="https://sqs.us-east-1.amazonaws.com/123456789012/missing"
        )
    assert exc.value.response["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
