"""SNS in front of SQS, in-process (``mock_sqs(sns=True)``): topics, subscriptions, the envelope
and raw delivery into sqsmock's queues, FIFO topics, and SNS's errors for bad input.

The expected texts and values are AWS's as recorded (the SNS behaviour reference): the envelope's
keys and their order, the raw delivery's MD5 of ``attr1`` Number ``99.12``, the content-based
deduplication id of ``"Test"``, the messages of every error.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from sqs_asserts import attributes_md5

from sqsmock import FrozenClock, mock_sqs

REGION = "us-east-1"
ACCOUNT = "123456789012"
START = 1_700_000_000.0


@pytest.fixture
def mock() -> Iterator[Any]:
    with mock_sqs(sns=True, clock=FrozenClock(start=START)) as handle:
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


def error_of(call: Any, **params: Any) -> dict[str, Any]:
    with pytest.raises(ClientError) as caught:
        call(**params)
    response = caught.value.response
    return {
        "Code": response["Error"]["Code"],
        "Message": response["Error"]["Message"],
        "Status": response["ResponseMetadata"]["HTTPStatusCode"],
    }


def invalid(message: str) -> dict[str, Any]:
    return {"Code": "InvalidParameter", "Message": message, "Status": 400}


# -- fan-out --------------------------------------------------------------------------------


def test_a_publish_reaches_two_queues_one_enveloped_one_raw(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="orders")["TopicArn"]
    enveloped_url, enveloped_arn = queue(sqs, "enveloped")
    raw_url, raw_arn = queue(sqs, "raw")
    first = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=enveloped_arn)
    sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=raw_arn,
        Attributes={"RawMessageDelivery": "true"},
    )
    attributes = {
        "attr1": {"DataType": "Number", "StringValue": "99.12"},
        "bin": {"DataType": "Binary", "BinaryValue": b"\x02\x03\x04"},
    }
    published = sns.publish(
        TopicArn=topic, Message="hello", Subject="greeting", MessageAttributes=attributes
    )

    [got] = receive(sqs, enveloped_url)
    assert got["MD5OfBody"] == hashlib.md5(got["Body"].encode()).hexdigest()
    assert "MessageAttributes" not in got  # the SQS message itself gets none
    body = json.loads(got["Body"])
    assert list(body) == [
        "Type",
        "MessageId",
        "TopicArn",
        "Subject",
        "Message",
        "Timestamp",
        "SignatureVersion",
        "Signature",
        "SigningCertURL",
        "UnsubscribeURL",
        "MessageAttributes",
    ]
    assert body["Type"] == "Notification"
    assert body["MessageId"] == published["MessageId"]
    assert body["TopicArn"] == topic
    assert body["Subject"] == "greeting"
    assert body["Message"] == "hello"
    assert body["Timestamp"] == "2023-11-14T22:13:20.000Z"
    assert body["SignatureVersion"] == "1"
    assert len(base64.b64decode(body["Signature"])) == 256
    assert body["SigningCertURL"].startswith(
        "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-"
    )
    assert body["UnsubscribeURL"] == (
        "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn="
        + first["SubscriptionArn"]
    )
    assert body["MessageAttributes"] == {
        "attr1": {"Type": "Number", "Value": "99.12"},
        "bin": {"Type": "Binary", "Value": "AgME"},
    }
    assert got["Body"].startswith('{\n  "Type" : "Notification",\n  "MessageId" : ')

    [raw] = receive(sqs, raw_url)
    assert raw["Body"] == "hello"
    assert raw["MessageAttributes"] == {
        "attr1": {"DataType": "Number", "StringValue": "99.12"},
        "bin": {"DataType": "Binary", "BinaryValue": b"\x02\x03\x04"},
    }
    assert raw["MD5OfMessageAttributes"] == attributes_md5(raw["MessageAttributes"])


def test_raw_delivery_digests_attributes_as_aws_recorded(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    url, arn = queue(sqs, "q")
    sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=arn,
        Attributes={"RawMessageDelivery": "true"},
    )
    sns.publish(
        TopicArn=topic,
        Message="m",
        MessageAttributes={"attr1": {"DataType": "Number", "StringValue": "99.12"}},
    )
    [got] = receive(sqs, url)
    assert got["MD5OfMessageAttributes"] == "d302007e9aa062660afc85fd0a482472"


def test_message_structure_json_sends_the_sqs_entry_else_the_default(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    url, arn = queue(sqs, "q")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    sns.publish(
        TopicArn=topic,
        MessageStructure="json",
        Message=json.dumps({"default": "for all", "sqs": "for queues"}),
    )
    sns.publish(
        TopicArn=topic,
        MessageStructure="json",
        Message=json.dumps({"default": "for all", "sqs": {"not": "a string"}}),
    )
    messages = [json.loads(m["Body"])["Message"] for m in receive(sqs, url)]
    assert sorted(messages) == ["for all", "for queues"]


def test_a_deleted_queue_drops_the_message_and_the_subscription_stays(
    mock: Any, sns: Any, sqs: Any
) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    url, arn = queue(sqs, "gone")
    subscription = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)["SubscriptionArn"]
    sqs.delete_queue(QueueUrl=url)
    assert "MessageId" in sns.publish(TopicArn=topic, Message="lost")
    found = mock._runtime.backend.topics.subscription(subscription)
    assert (found.delivered, found.dropped) == (0, 1)
    listed = sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]
    assert [s["SubscriptionArn"] for s in listed] == [subscription]


def test_publish_batch_delivers_every_entry(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    url, arn = queue(sqs, "q")
    sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "true"}
    )
    answer = sns.publish_batch(
        TopicArn=topic,
        PublishBatchRequestEntries=[{"Id": "a", "Message": "one"}, {"Id": "b", "Message": "two"}],
    )
    assert [entry["Id"] for entry in answer["Successful"]] == ["a", "b"]
    assert answer["Failed"] == []
    assert sorted(m["Body"] for m in receive(sqs, url)) == ["one", "two"]


# -- FIFO -----------------------------------------------------------------------------------


def test_fifo_topic_to_fifo_queue_with_content_based_deduplication(
    mock: Any, sns: Any, sqs: Any
) -> None:
    topic = sns.create_topic(
        Name="t.fifo", Attributes={"FifoTopic": "true", "ContentBasedDeduplication": "true"}
    )["TopicArn"]
    url, arn = queue(sqs, "q.fifo", FifoQueue="true")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    first = sns.publish(TopicArn=topic, Message="Test", MessageGroupId="g")
    again = sns.publish(TopicArn=topic, Message="Test", MessageGroupId="other")
    assert again["MessageId"] == first["MessageId"]  # the topic deduplicates across groups
    assert again["SequenceNumber"] == first["SequenceNumber"]
    [got] = receive(sqs, url)
    assert got["Attributes"]["MessageGroupId"] == "g"
    assert got["Attributes"]["MessageDeduplicationId"] == (
        "532eaabd9574880dbf76b9b8cc00832c20a6ec113d682299550d7a6e0f345e25"
    )
    body = json.loads(got["Body"])
    assert list(body) == [
        "Type",
        "MessageId",
        "SequenceNumber",
        "TopicArn",
        "Message",
        "Timestamp",
        "UnsubscribeURL",
    ]
    assert body["SequenceNumber"] == first["SequenceNumber"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=got["ReceiptHandle"])
    mock.clock.advance(301)  # past the topic's five-minute window
    later = sns.publish(TopicArn=topic, Message="Test", MessageGroupId="g")
    assert later["MessageId"] != first["MessageId"]
    assert int(later["SequenceNumber"]) > int(first["SequenceNumber"])


def test_fifo_rules(sns: Any, sqs: Any) -> None:
    fifo = sns.create_topic(Name="t.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    standard = sns.create_topic(Name="t")["TopicArn"]
    _, fifo_queue = queue(sqs, "q.fifo", FifoQueue="true")
    assert error_of(sns.publish, TopicArn=fifo, Message="m") == invalid(
        "Invalid parameter: The MessageGroupId parameter is required for FIFO topics"
    )
    assert error_of(sns.publish, TopicArn=fifo, Message="m", MessageGroupId="g") == invalid(
        "Invalid parameter: The topic should either have ContentBasedDeduplication enabled or "
        "MessageDeduplicationId provided explicitly"
    )
    assert error_of(
        sns.publish, TopicArn=standard, Message="m", MessageDeduplicationId="d"
    ) == invalid(
        "Invalid parameter: MessageDeduplicationId Reason: The request includes "
        "MessageDeduplicationId parameter that is not valid for this topic type"
    )
    assert error_of(
        sns.subscribe, TopicArn=standard, Protocol="sqs", Endpoint=fifo_queue
    ) == invalid(
        "Invalid parameter: Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be "
        "subscribed to standard SNS topics"
    )


# -- topics ---------------------------------------------------------------------------------


def test_topic_attributes_as_aws_answers_them(sns: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    attributes = sns.get_topic_attributes(TopicArn=topic)["Attributes"]
    assert set(attributes) == {
        "DisplayName",
        "EffectiveDeliveryPolicy",
        "Owner",
        "Policy",
        "SubscriptionsConfirmed",
        "SubscriptionsDeleted",
        "SubscriptionsPending",
        "TopicArn",
    }
    assert attributes["Owner"] == ACCOUNT
    policy = json.loads(attributes["Policy"])
    assert policy["Statement"][0]["Resource"] == topic
    assert policy["Statement"][0]["Condition"] == {"StringEquals": {"AWS:SourceOwner": ACCOUNT}}
    sns.set_topic_attributes(TopicArn=topic, AttributeName="DisplayName", AttributeValue="Hi")
    assert sns.get_topic_attributes(TopicArn=topic)["Attributes"]["DisplayName"] == "Hi"
    fifo = sns.create_topic(Name="f.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    fifo_attributes = sns.get_topic_attributes(TopicArn=fifo)["Attributes"]
    assert fifo_attributes["FifoTopic"] == "true"
    assert fifo_attributes["ContentBasedDeduplication"] == "false"
    assert error_of(
        sns.set_topic_attributes, TopicArn=fifo, AttributeName="FifoTopic", AttributeValue="x"
    ) == invalid("Invalid parameter: AttributeName")


def test_create_topic_is_idempotent_only_with_the_same_attributes(sns: Any) -> None:
    arn = sns.create_topic(Name="t", Attributes={"DisplayName": "a"})["TopicArn"]
    assert sns.create_topic(Name="t")["TopicArn"] == arn
    assert sns.create_topic(Name="t", Attributes={"DisplayName": "a"})["TopicArn"] == arn
    assert sns.create_topic(Name="t", Attributes={"FifoTopic": "false"})["TopicArn"] == arn
    assert error_of(
        sns.create_topic, Name="t", Attributes={"DisplayName": "a", "SignatureVersion": "2"}
    ) == invalid(
        "Invalid parameter: Attributes Reason: Topic already exists with different attributes"
    )
    assert error_of(sns.create_topic, Name="t", Tags=[{"Key": "k", "Value": "v"}]) == invalid(
        "Invalid parameter: Tags Reason: Topic already exists with different tags"
    )
    for name, attributes in (("a b", {}), ("x.fifo", {}), ("x", {"FifoTopic": "true"})):
        assert error_of(sns.create_topic, Name=name, Attributes=attributes) == invalid(
            "Invalid parameter: Topic Name"
        )


def test_list_topics_pages_by_a_hundred(sns: Any) -> None:
    made = {sns.create_topic(Name=f"t{i:03d}")["TopicArn"] for i in range(101)}
    first = sns.list_topics()
    assert len(first["Topics"]) == 100
    second = sns.list_topics(NextToken=first["NextToken"])
    assert len(second["Topics"]) == 1
    assert "NextToken" not in second
    assert {t["TopicArn"] for t in first["Topics"] + second["Topics"]} == made


def test_delete_topic_takes_its_subscriptions_and_is_quiet_when_missing(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    _, arn = queue(sqs, "q")
    subscription = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)["SubscriptionArn"]
    sns.delete_topic(TopicArn=topic)
    sns.delete_topic(TopicArn=topic)
    assert sns.list_topics()["Topics"] == []
    assert sns.list_subscriptions()["Subscriptions"] == []
    assert error_of(sns.get_subscription_attributes, SubscriptionArn=subscription) == {
        "Code": "NotFound",
        "Message": "Subscription does not exist",
        "Status": 404,
    }


# -- subscriptions --------------------------------------------------------------------------


def test_subscription_attributes(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    _, arn = queue(sqs, "q")
    subscription = sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "TrUe"}
    )["SubscriptionArn"]
    attributes = sns.get_subscription_attributes(SubscriptionArn=subscription)["Attributes"]
    assert attributes == {
        "ConfirmationWasAuthenticated": "true",
        "Endpoint": arn,
        "Owner": ACCOUNT,
        "PendingConfirmation": "false",
        "Protocol": "sqs",
        "RawMessageDelivery": "true",
        "SubscriptionArn": subscription,
        "SubscriptionPrincipal": f"arn:aws:iam::{ACCOUNT}:user/sqsmock",
        "TopicArn": topic,
    }
    set_attribute = sns.set_subscription_attributes
    set_attribute(
        SubscriptionArn=subscription,
        AttributeName="FilterPolicyScope",
        AttributeValue="MessageBody",
    )
    shown = sns.get_subscription_attributes(SubscriptionArn=subscription)["Attributes"]
    assert "FilterPolicyScope" not in shown  # the scope shows only beside a policy
    policy = '{"store": ["example_corp"]}'
    set_attribute(SubscriptionArn=subscription, AttributeName="FilterPolicy", AttributeValue=policy)
    shown = sns.get_subscription_attributes(SubscriptionArn=subscription)["Attributes"]
    assert (shown["FilterPolicy"], shown["FilterPolicyScope"]) == (policy, "MessageBody")
    set_attribute(SubscriptionArn=subscription, AttributeName="FilterPolicy", AttributeValue="")
    shown = sns.get_subscription_attributes(SubscriptionArn=subscription)["Attributes"]
    assert "FilterPolicy" not in shown
    errors = [
        (
            "RawMessageDelivery",
            "test-ValUe",
            "RawMessageDelivery: Invalid value [test-ValUe]. Must be true or false.",
        ),
        (
            "FilterPolicyScope",
            "RandomValue",
            "FilterPolicyScope: Invalid value [RandomValue]. "
            "Please use either MessageBody or MessageAttributes",
        ),
        (
            "RedrivePolicy",
            '{"deadLetterTargetArn": "nope"}',
            "RedrivePolicy: deadLetterTargetArn is an invalid arn",
        ),
        ("Nonsense", "x", "AttributeName"),
    ]
    for name, value, message in errors:
        assert error_of(
            set_attribute, SubscriptionArn=subscription, AttributeName=name, AttributeValue=value
        ) == invalid("Invalid parameter: " + message)
    not_json = error_of(
        set_attribute,
        SubscriptionArn=subscription,
        AttributeName="FilterPolicy",
        AttributeValue="{invalidjson}",
    )
    assert not_json["Message"] == (
        "Invalid parameter: FilterPolicy: failed to parse JSON. Unexpected character ('i' (code "
        "105)): was expecting double-quote to start field name\n at [Source: REDACTED "
        "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 2]"
    )


def test_subscribe_is_idempotent_and_refuses_other_attributes(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    _, arn = queue(sqs, "q")
    first = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)["SubscriptionArn"]
    again = sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "false"}
    )
    assert again["SubscriptionArn"] == first
    assert error_of(
        sns.subscribe,
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=arn,
        Attributes={"RawMessageDelivery": "true"},
    ) == invalid(
        "Invalid parameter: Attributes Reason: Subscription already exists with different "
        "attributes"
    )
    assert error_of(
        sns.subscribe,
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=arn,
        Attributes={"RawMessageDelivery": "wrongvalue"},
    ) == invalid(
        "Invalid parameter: Attributes Reason: RawMessageDelivery: Invalid value [wrongvalue]. "
        "Must be true or false."
    )


def test_unsubscribe_and_subscription_listing(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    _, arn = queue(sqs, "q")
    subscription = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)["SubscriptionArn"]
    listed = sns.list_subscriptions()["Subscriptions"]
    assert listed == [
        {
            "SubscriptionArn": subscription,
            "Owner": ACCOUNT,
            "Protocol": "sqs",
            "Endpoint": arn,
            "TopicArn": topic,
        }
    ]
    sns.unsubscribe(SubscriptionArn=subscription)
    sns.unsubscribe(SubscriptionArn=subscription)  # unknown: 200
    assert sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"] == []
    counts = sns.get_topic_attributes(TopicArn=topic)["Attributes"]
    assert (counts["SubscriptionsConfirmed"], counts["SubscriptionsDeleted"]) == ("0", "1")
    assert error_of(
        sns.unsubscribe, SubscriptionArn=f"arn:aws:sns:{REGION}:111111111111:random"
    ) == invalid("Invalid parameter: SubscriptionId")


# -- errors ---------------------------------------------------------------------------------


def test_bad_arns_and_missing_topics(sns: Any, sqs: Any) -> None:
    for arn, count in (("randomstring", 1), ("randomstring:1", 2), (f"arn:aws:sns:{REGION}:x", 5)):
        assert error_of(sns.publish, TopicArn=arn, Message="m") == invalid(
            f"Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not {count}"
        )
    missing = f"arn:aws:sns:{REGION}:{ACCOUNT}:missing"
    assert error_of(sns.publish, TopicArn=missing, Message="m") == {
        "Code": "NotFound",
        "Message": "Topic does not exist",
        "Status": 404,
    }
    other_region = f"arn:aws:sns:eu-west-1:{ACCOUNT}:t"
    assert error_of(sns.get_topic_attributes, TopicArn=other_region) == invalid(
        "Invalid parameter: TopicArn"
    )
    topic = sns.create_topic(Name="t")["TopicArn"]
    for endpoint in ("unknown", "https://sqs.us-east-1.amazonaws.com/123456789012/q"):
        assert error_of(
            sns.subscribe, TopicArn=topic, Protocol="sqs", Endpoint=endpoint
        ) == invalid("Invalid parameter: SQS endpoint ARN")
    assert error_of(
        sns.subscribe, TopicArn=topic, Protocol="test-protocol", Endpoint="x"
    ) == invalid(
        "Invalid parameter: Amazon SNS does not support this protocol string: test-protocol"
    )


def test_publish_refuses_bad_messages(sns: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    limit = 262144
    assert "MessageId" in sns.publish(TopicArn=topic, Message="x" * limit)
    assert error_of(sns.publish, TopicArn=topic, Message="x" * (limit + 1)) == invalid(
        "Invalid parameter: Message too long"
    )
    assert error_of(sns.publish, TopicArn=topic, Message="") == invalid(
        "Invalid parameter: Empty message"
    )
    for subject in ("", " starts with a space", "two\nlines", "é", "x" * 100):
        assert error_of(sns.publish, TopicArn=topic, Message="m", Subject=subject) == invalid(
            "Invalid parameter: Subject"
        )
    assert "MessageId" in sns.publish(TopicArn=topic, Message="m", Subject="!" + "x" * 98)
    assert error_of(sns.publish, TopicArn=topic, Message="{", MessageStructure="json") == invalid(
        "Invalid parameter: Message Structure - JSON message body failed to parse"
    )
    assert error_of(
        sns.publish, TopicArn=topic, Message='{"sqs": "x"}', MessageStructure="json"
    ) == invalid("Invalid parameter: Message Structure - No default entry in JSON message body")


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        (
            "attr1",
            {"DataType": "String", "StringValue": ""},
            "The message attribute 'attr1' must contain non-empty message attribute value for "
            "message attribute type 'String'.",
        ),
        (
            "attr1",
            {"DataType": "Number", "BinaryValue": b"x"},
            "The message attribute 'attr1' with type 'Number' must use field 'String'.",
        ),
        (
            "attr1",
            {"DataType": "Binary", "StringValue": "x"},
            "The message attribute 'attr1' with type 'Binary' must use field 'Binary'.",
        ),
        (
            "attr1",
            {"DataType": "String.", "StringValue": "x"},
            "The message attribute 'attr1' has an invalid message attribute type, the set of "
            "supported type prefixes is Binary, Number, and String.",
        ),
        (
            "a^*?",
            {"DataType": "String", "StringValue": "x"},
            "Invalid non-alphanumeric character '#x5E' was found in the message attribute name. "
            "Can only include alphanumeric characters, hyphens, underscores, or dots.",
        ),
        (
            ".abc",
            {"DataType": "String", "StringValue": "x"},
            "Invalid message attribute name starting with character '.' was found.",
        ),
        (
            "abc.",
            {"DataType": "String", "StringValue": "x"},
            "Invalid message attribute name ending with character '.' was found.",
        ),
        (
            "a..bc",
            {"DataType": "String", "StringValue": "x"},
            "Message attribute name can not have successive '.' character.",
        ),
        (
            "a" * 257,
            {"DataType": "String", "StringValue": "x"},
            "Length of message attribute name must be less than 256 bytes.",
        ),
    ],
)
def test_message_attribute_errors(sns: Any, name: str, value: Any, message: str) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    assert error_of(sns.publish, TopicArn=topic, Message="m", MessageAttributes={name: value}) == {
        "Code": "ParameterValueInvalid",
        "Message": message,
        "Status": 400,
    }
    entry = {"Id": "1", "Message": "m", "MessageAttributes": {name: value}}
    assert error_of(sns.publish_batch, TopicArn=topic, PublishBatchRequestEntries=[entry]) == {
        "Code": "ParameterValueInvalid",
        "Message": message,
        "Status": 400,
    }


def test_publish_batch_rules(sns: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]

    def batch(entries: list[dict[str, Any]]) -> dict[str, Any]:
        return error_of(sns.publish_batch, TopicArn=topic, PublishBatchRequestEntries=entries)

    eleven = [{"Id": str(i), "Message": "m"} for i in range(11)]
    assert batch(eleven)["Code"] == "TooManyEntriesInBatchRequest"
    assert batch([{"Id": "a", "Message": "m"}, {"Id": "a", "Message": "n"}]) == {
        "Code": "BatchEntryIdsNotDistinct",
        "Message": "Two or more batch entries in the request have the same Id.",
        "Status": 400,
    }
    big = [{"Id": str(i), "Message": "x" * 100_000} for i in range(3)]
    assert batch(big) == {
        "Code": "BatchRequestTooLong",
        "Message": "The length of all the messages put together is more than the limit.",
        "Status": 400,
    }
    assert batch([{"Id": "a b", "Message": "m"}])["Code"] == "InvalidBatchEntryId"


def test_the_innermost_mock_decides_whether_sqsmock_answers_sns(sns: Any) -> None:
    sns.create_topic(Name="outer")
    with mock_sqs():  # does not ask for SNS: sqsmock leaves it alone (here: refused for AWS)
        with pytest.raises(Exception, match="AWS") as caught:
            sns.list_topics()
        assert not isinstance(caught.value, ClientError)
    assert len(sns.list_topics()["Topics"]) == 1


def test_the_trace_header_of_a_publish_becomes_the_messages_aws_trace_header(
    sns: Any, sqs: Any
) -> None:
    trace = "Root=1-3152b799-8954dae64eda91bc9a23a7e8;Parent=7fa8c0f79203be72;Sampled=1"

    def add_trace(params: Any, **_: Any) -> None:
        params["headers"]["X-Amzn-Trace-Id"] = trace

    sns.meta.events.register("before-call.sns.Publish", add_trace)
    topic = sns.create_topic(Name="t")["TopicArn"]
    url, arn = queue(sqs, "q")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    sns.publish(TopicArn=topic, Message="m")
    [got] = receive(sqs, url)
    assert got["Attributes"]["AWSTraceHeader"] == trace


def test_a_queue_in_another_region_receives(mock: Any, sns: Any) -> None:
    other = boto3.client("sqs", region_name="eu-west-1")
    url, arn = queue(other, "far")
    topic = sns.create_topic(Name="t")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    sns.publish(TopicArn=topic, Message="m")
    [got] = receive(other, url)
    assert json.loads(got["Body"])["TopicArn"] == topic


#: Values every member of every SNS request is tried with (alone, and beside good ones).
_VALUES = ("", "x", "{", "arn:aws:sns:us-east-1:123456789012:t", "arn:aws:sns:us-east-1:1:t:s")
_NESTED = (".entry.1.key=a", ".entry.1.value=a", ".member.1.Key=a", ".member.1.Id=a")
_GOOD = (
    "&Name=t&TopicArn=arn:aws:sns:us-east-1:123456789012:t&Message=m&Protocol=sqs"
    "&Endpoint=arn:aws:sqs:us-east-1:123456789012:q&AttributeName=RawMessageDelivery"
)


def test_no_malformed_sns_request_fails_other_than_as_sns_does(mock: Any, sns: Any) -> None:
    """Every form a client could send (what botocore would refuse included) is answered with
    SNS's error or its answer: never an exception of sqsmock's own (a 500 over HTTP)."""
    from sqsmock._protocol import Call
    from sqsmock._protocol import sns as protocol
    from sqsmock._protocol.query import form_pairs
    from sqsmock._protocol.sns_shapes import OPERATIONS, SHAPES
    from sqsmock._service.sns import SNS_ACTIONS

    sns.create_topic(Name="t")
    forms = []
    for action in sorted(SNS_ACTIONS):
        shape = OPERATIONS[action][0]
        for _, _, _, wire, _ in SHAPES[shape][1] if shape else ():
            tried = [f"{wire}={value}" for value in _VALUES] + [wire + n for n in _NESTED]
            forms += [f"Action={action}&{one}" for one in tried]
            forms += [f"Action={action}&{one}{_GOOD}" for one in tried]
    answered = []
    for form in forms:
        try:
            operation, params = protocol.decode(form_pairs(form))
        except Exception as error:  # the error sqsmock answers before any call
            assert type(error).__name__ == "SqsError", form
            continue
        result = mock._runtime.call_sns(operation, params, Call(REGION, ACCOUNT))
        assert result.status < 500, form
        answered.append(protocol.render(result))
    assert len(forms) > 500
    assert len(answered) > 250


@pytest.mark.asyncio
async def test_aiobotocore_clients_are_answered_too() -> None:
    from aiobotocore.session import get_session

    with mock_sqs(sns=True):
        session = get_session()
        async with (
            session.create_client("sns", region_name=REGION) as sns,
            session.create_client("sqs", region_name=REGION) as sqs,
        ):
            topic = (await sns.create_topic(Name="t"))["TopicArn"]
            url = (await sqs.create_queue(QueueName="q"))["QueueUrl"]
            endpoint = f"arn:aws:sqs:{REGION}:{ACCOUNT}:q"
            await sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=endpoint)
            published = await sns.publish(TopicArn=topic, Message="hi")
            [got] = (await sqs.receive_message(QueueUrl=url))["Messages"]
            assert json.loads(got["Body"])["MessageId"] == published["MessageId"]
            with pytest.raises(ClientError) as caught:
                await sns.publish(TopicArn=f"arn:aws:sns:{REGION}:{ACCOUNT}:nope", Message="m")
            assert caught.value.response["Error"]["Code"] == "NotFound"


def test_wait_for_sees_what_a_publish_delivered(mock: Any, sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    _, arn = queue(sqs, "q")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    sns.publish_batch(
        TopicArn=topic,
        PublishBatchRequestEntries=[{"Id": "a", "Message": "one"}, {"Id": "b", "Message": "two"}],
    )
    events = mock.wait_for("q", "sent", count=2, timeout=0)
    assert [json.loads(event.body)["Message"] for event in events] == ["one", "two"]


def test_topic_tags(sns: Any) -> None:
    topic = sns.create_topic(Name="t", Tags=[{"Key": "team", "Value": "billing"}])["TopicArn"]
    assert sns.create_topic(Name="t", Tags=[{"Key": "team", "Value": "billing"}])
    sns.tag_resource(ResourceArn=topic, Tags=[{"Key": "env", "Value": "test"}])
    listed = sns.list_tags_for_resource(ResourceArn=topic)["Tags"]
    assert listed == [{"Key": "env", "Value": "test"}, {"Key": "team", "Value": "billing"}]
    sns.untag_resource(ResourceArn=topic, TagKeys=["team"])
    assert sns.list_tags_for_resource(ResourceArn=topic)["Tags"] == [
        {"Key": "env", "Value": "test"}
    ]
    twice = [{"Key": "k", "Value": "1"}, {"Key": "k", "Value": "2"}]
    assert error_of(sns.tag_resource, ResourceArn=topic, Tags=twice) == invalid(
        "Invalid parameter: Duplicated keys are not allowed."
    )
    missing = f"arn:aws:sns:{REGION}:{ACCOUNT}:missing"
    assert error_of(sns.list_tags_for_resource, ResourceArn=missing)["Code"] == "ResourceNotFound"


def test_inside_motos_mock_aws_sqsmock_answers_sns_when_asked() -> None:
    import moto
    import moto.sns.models

    with moto.mock_aws(), mock_sqs(sns=True):
        sns = boto3.client("sns", region_name=REGION)
        topic = sns.create_topic(Name="ours")["TopicArn"]
        assert [t["TopicArn"] for t in sns.list_topics()["Topics"]] == [topic]
        assert not moto.sns.models.sns_backends[ACCOUNT][REGION].topics


def test_group_ids_reach_queues_as_aws_forwards_them(sns: Any, sqs: Any) -> None:
    standard = sns.create_topic(Name="s")["TopicArn"]
    fifo = sns.create_topic(Name="f.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    fair_url, fair = queue(sqs, "fair")
    plain_url, plain = queue(sqs, "plain")
    sns.subscribe(TopicArn=standard, Protocol="sqs", Endpoint=fair)
    sns.subscribe(TopicArn=fifo, Protocol="sqs", Endpoint=plain)
    sns.publish(TopicArn=standard, Message="m", MessageGroupId="my-group-id-1")
    sns.publish(TopicArn=fifo, Message="m", MessageGroupId="g", MessageDeduplicationId="d")
    [fair_message] = receive(sqs, fair_url)
    assert fair_message["Attributes"]["MessageGroupId"] == "my-group-id-1"  # fair queues
    [plain_message] = receive(sqs, plain_url)  # a FIFO topic's message in a standard queue
    assert "MessageGroupId" not in plain_message["Attributes"]
    assert "MessageDeduplicationId" not in plain_message["Attributes"]


def test_raw_delivery_of_more_than_ten_attributes_is_dropped(mock: Any, sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    url, arn = queue(sqs, "q")
    arn_raw = sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "true"}
    )["SubscriptionArn"]
    many = {f"a{i}": {"DataType": "String", "StringValue": "v"} for i in range(11)}
    sns.publish(TopicArn=topic, Message="m", MessageAttributes=many)
    assert receive(sqs, url) == []
    assert mock._runtime.backend.topics.subscription(arn_raw).dropped == 1


def test_a_data_protection_policy_is_kept_and_echoed(sns: Any) -> None:
    policy = json.dumps({"Name": "p", "Version": "2021-06-01", "Statement": []})
    topic = sns.create_topic(Name="t", DataProtectionPolicy=policy)["TopicArn"]
    assert sns.get_data_protection_policy(ResourceArn=topic)["DataProtectionPolicy"] == policy
    other = json.dumps({"Name": "q", "Version": "2021-06-01", "Statement": []})
    sns.put_data_protection_policy(ResourceArn=topic, DataProtectionPolicy=other)
    assert sns.get_data_protection_policy(ResourceArn=topic)["DataProtectionPolicy"] == other


def test_an_attribute_without_a_data_type_is_a_validation_error(mock: Any, sns: Any) -> None:
    """Only over the wire (botocore requires DataType): SNS's ValidationError names where."""
    from sqsmock._protocol import Call
    from sqsmock._protocol import sns as protocol
    from sqsmock._protocol.query import form_pairs

    topic = sns.create_topic(Name="t")["TopicArn"]
    forms = {
        "messageAttributes.attr1.member.dataType": (
            f"Action=Publish&TopicArn={topic}&Message=m"
            "&MessageAttributes.entry.1.Name=attr1&MessageAttributes.entry.1.Value.StringValue=v"
        ),
        "publishBatchRequestEntries.1.member.messageAttributes.attr1.member.dataType": (
            f"Action=PublishBatch&TopicArn={topic}&PublishBatchRequestEntries.member.1.Id=a"
            "&PublishBatchRequestEntries.member.1.Message=m"
            "&PublishBatchRequestEntries.member.1.MessageAttributes.entry.1.Name=attr1"
            "&PublishBatchRequestEntries.member.1.MessageAttributes.entry.1.Value.StringValue=v"
        ),
    }
    for path, form in forms.items():
        operation, params = protocol.decode(form_pairs(form))
        result = mock._runtime.call_sns(operation, params, Call(REGION, ACCOUNT))
        assert result.error is not None
        assert (result.error.code, result.status) == ("ValidationError", 400)
        assert result.error.message == (
            f"1 validation error detected: Value null at '{path}' failed to satisfy constraint: "
            "Member must not be null"
        )


def test_publishes_from_many_threads_reach_a_fifo_queue_in_sequence_order(
    mock: Any, sns: Any, sqs: Any
) -> None:
    import sys
    import threading

    topic = sns.create_topic(Name="t.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    _, arn = queue(sqs, "q.fifo", FifoQueue="true")
    sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"RawMessageDelivery": "true"}
    )
    sequence: dict[str, int] = {}

    def publish(thread: int) -> None:
        client = boto3.client("sns", region_name=REGION)
        for n in range(25):
            body = f"{thread}-{n}"
            answer = client.publish(
                TopicArn=topic, Message=body, MessageGroupId="g", MessageDeduplicationId=body
            )
            sequence[body] = int(answer["SequenceNumber"])

    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns as often as they can
    try:
        threads = [threading.Thread(target=publish, args=(t,)) for t in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switching)
    bodies = [view.body for view in mock.peek("q.fifo")]
    assert len(bodies) == 150
    assert bodies == sorted(bodies, key=sequence.__getitem__)


def test_the_readmes_example_runs_as_written() -> None:
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## SNS in front of SQS", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(example, {"boto3": boto3, "json": json, "mock_sqs": mock_sqs})
