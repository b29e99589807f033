"""SNS delivery failures as AWS handles them: a queue that is gone or whose policy refuses the
topic sends the message to the subscription's dead-letter queue (RedrivePolicy), exactly as the
queue would have had it, else drops it; every outcome is counted on the subscription.

AWS's recorded deliveries (LocalStack's AWS-validated ``test_redrive_policy_sqs_queue_subscription``
and ``test_publish_fifo_messages_to_dlq`` snapshots) show the dead-letter queue's message as the
queue's would have been, with no error attributes added.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from sqsmock import FrozenClock, mock_sqs
from sqsmock._service.sns.queue_policy import lets_topic_send

REGION = "us-east-1"
ACCOUNT = "123456789012"
TOPIC = f"arn:aws:sns:{REGION}:{ACCOUNT}:t"
QUEUE = f"arn:aws:sqs:{REGION}:{ACCOUNT}:q"


@pytest.fixture
def mock() -> Iterator[Any]:
    with mock_sqs(sns=True, clock=FrozenClock(start=1_700_000_000.0)) as handle:
        yield handle


@pytest.fixture
def sns(mock: Any) -> Any:
    return boto3.client("sns", region_name=REGION)


@pytest.fixture
def sqs(mock: Any) -> Any:
    return boto3.client("sqs", region_name=REGION)


def queue(sqs: Any, name: str, **attributes: str) -> tuple[str, str]:
    url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]
    return url, arn["QueueArn"]


def receive(sqs: Any, url: str) -> list[dict[str, Any]]:
    answer = sqs.receive_message(
        QueueUrl=url,
        MaxNumberOfMessages=10,
        MessageAttributeNames=["All"],
        MessageSystemAttributeNames=["All"],
    )
    return list(answer.get("Messages", []))


def counts(mock: Any, subscription: str) -> tuple[int, int, int]:
    found = mock._runtime.backend.topics.subscription(subscription)
    return found.delivered, found.dead_lettered, found.dropped


def policy(*statements: dict[str, Any]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def allow(**extra: Any) -> dict[str, Any]:
    statement: dict[str, Any] = {
        "Effect": "Allow",
        "Principal": {"Service": "sns.amazonaws.com"},
        "Action": "sqs:SendMessage",
        "Resource": QUEUE,
    }
    statement.update(extra)
    return statement


def source_arn(arn: str | list[str], operator: str = "ArnEquals") -> dict[str, Any]:
    return {operator: {"aws:SourceArn": arn}}


# -- the dead-letter queue --------------------------------------------------------------------


def test_a_deleted_queue_sends_the_envelope_to_the_dead_letter_queue(
    mock: Any, sns: Any, sqs: Any
) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    url, arn = queue(sqs, "gone")
    dlq_url, dlq_arn = queue(sqs, "dlq")
    subscription = sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=arn,
        Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn})},
    )["SubscriptionArn"]
    sqs.delete_queue(QueueUrl=url)
    published = sns.publish(
        TopicArn=topic,
        Message="lost",
        Subject="s",
        MessageAttributes={"attr1": {"DataType": "String", "StringValue": "v"}},
    )
    [message] = receive(sqs, dlq_url)
    body = json.loads(message["Body"])
    assert body["Type"] == "Notification"
    assert body["MessageId"] == published["MessageId"]
    assert (body["Message"], body["Subject"]) == ("lost", "s")
    assert body["MessageAttributes"] == {"attr1": {"Type": "String", "Value": "v"}}
    assert body["UnsubscribeURL"].endswith(f"SubscriptionArn={subscription}")
    assert "MessageAttributes" not in message  # no ErrorCode, ErrorMessage...
    assert counts(mock, subscription) == (0, 1, 0)


def test_raw_delivery_reaches_the_dead_letter_queue_raw(mock: Any, sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    url, arn = queue(sqs, "gone")
    dlq_url, dlq_arn = queue(sqs, "dlq")
    sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=arn,
        Attributes={
            "RawMessageDelivery": "true",
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn}),
        },
    )
    sqs.delete_queue(QueueUrl=url)
    sns.publish(
        TopicArn=topic,
        Message="raw",
        MessageAttributes={"b": {"DataType": "Binary", "BinaryValue": b"\x00\x01"}},
    )
    [message] = receive(sqs, dlq_url)
    assert message["Body"] == "raw"
    assert message["MessageAttributes"] == {"b": {"DataType": "Binary", "BinaryValue": b"\x00\x01"}}


def test_a_fifo_dead_letter_queue_keeps_the_group_and_deduplication_ids(
    mock: Any, sns: Any, sqs: Any
) -> None:
    topic = sns.create_topic(Name="t.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    url, arn = queue(sqs, "gone.fifo", FifoQueue="true")
    dlq_url, dlq_arn = queue(sqs, "dlq.fifo", FifoQueue="true")
    sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=arn,
        Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn})},
    )
    sqs.delete_queue(QueueUrl=url)
    published = sns.publish(
        TopicArn=topic, Message="m", MessageGroupId="g", MessageDeduplicationId="d"
    )
    [message] = receive(sqs, dlq_url)
    assert message["Attributes"]["MessageGroupId"] == "g"
    assert message["Attributes"]["MessageDeduplicationId"] == "d"
    assert json.loads(message["Body"])["SequenceNumber"] == published["SequenceNumber"]


def test_a_missing_dead_letter_queue_drops_the_message(mock: Any, sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    url, arn = queue(sqs, "gone")
    subscription = sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=arn,
        Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": arn + "-nothere"})},
    )["SubscriptionArn"]
    sqs.delete_queue(QueueUrl=url)
    sns.publish(TopicArn=topic, Message="m")
    assert counts(mock, subscription) == (0, 0, 1)


def test_too_many_raw_attributes_go_to_the_dead_letter_queue(mock: Any, sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    url, arn = queue(sqs, "q")
    dlq_url, dlq_arn = queue(sqs, "dlq")
    subscription = sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=arn,
        Attributes={
            "RawMessageDelivery": "true",
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn}),
        },
    )["SubscriptionArn"]
    attributes = {f"a{i}": {"DataType": "String", "StringValue": "v"} for i in range(11)}
    sns.publish(TopicArn=topic, Message="m", MessageAttributes=attributes)
    assert receive(sqs, url) == []
    # the dead-letter queue is an SQS queue too: it refuses the same eleven attributes
    assert receive(sqs, dlq_url) == []
    assert counts(mock, subscription) == (0, 0, 1)


# -- the queue's policy -----------------------------------------------------------------------


def test_a_queue_whose_policy_refuses_the_topic_dead_letters(mock: Any, sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    other = topic + "-other"
    url, arn = queue(sqs, "q")
    dlq_url, dlq_arn = queue(sqs, "dlq")
    statement = allow(Resource=arn, Condition=source_arn(other))
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": policy(statement)})
    subscription = sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=arn,
        Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn})},
    )["SubscriptionArn"]
    sns.publish(TopicArn=topic, Message="refused")
    assert receive(sqs, url) == []
    [message] = receive(sqs, dlq_url)
    assert json.loads(message["Body"])["Message"] == "refused"
    # once the policy lets the topic send, the queue receives
    statement = allow(Resource=arn, Condition=source_arn(topic))
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": policy(statement)})
    sns.publish(TopicArn=topic, Message="allowed")
    assert [json.loads(m["Body"])["Message"] for m in receive(sqs, url)] == ["allowed"]
    assert counts(mock, subscription) == (1, 1, 0)


def test_a_dead_letter_queue_whose_policy_refuses_drops(mock: Any, sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    url, arn = queue(sqs, "q")
    dlq_url, dlq_arn = queue(sqs, "dlq")
    deny = {"Effect": "Deny", "Principal": "*", "Action": "sqs:*", "Resource": "*"}
    for target in (url, dlq_url):
        sqs.set_queue_attributes(QueueUrl=target, Attributes={"Policy": policy(deny)})
    subscription = sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=arn,
        Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn})},
    )["SubscriptionArn"]
    sns.publish(TopicArn=topic, Message="m")
    assert receive(sqs, dlq_url) == []
    assert counts(mock, subscription) == (0, 0, 1)


SNS = {"Service": "sns.amazonaws.com"}


@pytest.mark.parametrize(
    ("document", "allowed"),
    [
        # no policy: delivered (AWS would refuse; see the README)
        (None, True),
        ("", True),
        # the forms AWS documents for SNS
        (policy(allow()), True),
        (policy(allow(Principal="*")), True),
        (policy(allow(Principal={"AWS": "*"})), True),
        (policy(allow(Principal={"AWS": ["*"]}, Action=["SQS:SendMessage"])), True),
        (policy(allow(Condition=source_arn(TOPIC))), True),
        (policy(allow(Condition=source_arn(TOPIC, "ArnLike"))), True),
        (policy(allow(Condition=source_arn(f"arn:aws:sns:*:{ACCOUNT}:*", "ArnLike"))), True),
        (policy(allow(Condition=source_arn(f"arn:aws:sns:{REGION}:{ACCOUNT}:*"))), True),
        (policy(allow(Condition=source_arn([TOPIC + "x", TOPIC], "StringEquals"))), True),
        (policy(allow(Condition={"StringEquals": {"aws:SourceAccount": ACCOUNT}})), True),
        (policy(allow(Condition={"StringEquals": {"AWS:SOURCEACCOUNT": ACCOUNT}})), True),
        (policy(allow(Action="sqs:*", Resource="*")), True),
        (policy(allow(Action="*", Resource="arn:aws:sqs:*:*:q")), True),
        (policy(allow(Action="sqs:Send*")), True),
        (policy(allow(Condition=source_arn(TOPIC + "x", "ArnNotEquals"))), True),
        (policy(allow(Condition={"ArnEqualsIfExists": {"aws:SourceVpc": "x"}})), True),
        # refused: another topic, account, action, resource, principal; an explicit Deny
        (policy(allow(Condition=source_arn(TOPIC + "x"))), False),
        (policy(allow(Condition=source_arn(TOPIC.upper(), "ArnEquals"))), False),
        (policy(allow(Condition=source_arn(TOPIC, "ArnNotEquals"))), False),
        (policy(allow(Condition={"StringEquals": {"aws:SourceAccount": "210987654321"}})), False),
        (policy(allow(Condition={"StringEquals": {"aws:SourceVpc": "vpc-1"}})), False),
        (policy(allow(Action="sqs:ReceiveMessage")), False),
        (policy(allow(Resource=QUEUE + "2")), False),
        (policy(allow(Principal={"AWS": ACCOUNT})), False),
        (policy(allow(Principal={"AWS": f"arn:aws:iam::{ACCOUNT}:root"})), False),
        (policy(allow(Principal={"Service": "s3.amazonaws.com"})), False),
        (policy(allow(), allow(Effect="Deny", Condition=source_arn(TOPIC))), False),
        (policy(allow(), {"Effect": "Deny", "Principal": "*", "NotAction": "sqs:Receive*"}), False),
        (policy(allow(Effect="Deny", Principal={"AWS": ACCOUNT})), False),
        (policy(), False),
        ("not json", False),
        ("[]", False),
    ],
)
def test_queue_policies_as_aws_reads_them_for_sns(document: str | None, allowed: bool) -> None:
    assert lets_topic_send(document, QUEUE, TOPIC) is allowed


def test_a_deny_for_an_account_principal_does_not_stop_sns() -> None:
    document = policy(allow(), allow(Effect="Deny", Principal={"AWS": ACCOUNT}))
    assert lets_topic_send(document, QUEUE, TOPIC)
