"""The SNS envelope and raw delivery as AWS documents them, the same in-process and over
``sqsmock serve``: each test runs once against ``mock_sqs(sns=True)`` and once against a server.

AWS's documentation (Amazon SNS developer guide: "Fanout to Amazon SQS queues", "HTTP/HTTPS
notification JSON format", "Amazon SNS raw message delivery", "Amazon SNS message attributes")
gives the envelope's keys and their order, ``Subject`` absent when none was published,
``SignatureVersion`` 1 or 2 as the topic's attribute says, the signing certificate and
unsubscribe URLs of the topic's region, and message attributes carried as SQS message
attributes of the same type under raw delivery.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config

import sqsmock
from sqsmock import FrozenClock, mock_sqs

ENVELOPE_KEYS = [
    "Type",
    "MessageId",
    "TopicArn",
    "Message",
    "Timestamp",
    "SignatureVersion",
    "Signature",
    "SigningCertURL",
    "UnsubscribeURL",
]


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    with sqsmock.serve(port=0, clock="frozen") as running:
        yield running


@pytest.fixture(params=["in-process", "server"])
def connect(request: pytest.FixtureRequest) -> Iterator[Any]:
    """``connect(service, region)``: a client of the mock or of the server."""
    if request.param == "in-process":
        with mock_sqs(sns=True, clock=FrozenClock(start=1_700_000_000)):
            yield lambda service, region="us-east-1": boto3.client(service, region_name=region)
        return
    running = request.getfixturevalue("server")
    running.reset()
    options = {
        "endpoint_url": running.endpoint_url,
        "aws_access_key_id": "x",
        "aws_secret_access_key": "x",
        "config": Config(retries={"max_attempts": 1}),
    }
    yield lambda service, region="us-east-1": boto3.client(service, region_name=region, **options)


def fan(
    connect: Any, region: str = "us-east-1", raw: bool = False, name: str = "doc", **topic: str
) -> Any:
    """(sns, sqs, topic ARN, queue URL, subscription ARN) of a topic with one subscribed queue."""
    sns, sqs = connect("sns", region), connect("sqs", region)
    arn = sns.create_topic(Name=name, Attributes=topic)["TopicArn"]
    url = sqs.create_queue(QueueName=name)["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]
    subscription = sns.subscribe(
        TopicArn=arn,
        Protocol="sqs",
        Endpoint=queue_arn["QueueArn"],
        Attributes={"RawMessageDelivery": "true" if raw else "false"},
    )["SubscriptionArn"]
    return sns, sqs, arn, url, subscription


def received(sqs: Any, url: str) -> list[dict[str, Any]]:
    answer = sqs.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"]
    )
    return list(answer.get("Messages", []))


def test_without_subject_or_attributes_the_envelope_has_only_the_documented_keys(
    connect: Any,
) -> None:
    sns, sqs, topic, url, subscription = fan(connect)
    published = sns.publish(TopicArn=topic, Message="Hello world!")["MessageId"]
    [message] = received(sqs, url)
    body = json.loads(message["Body"])
    assert list(body) == ENVELOPE_KEYS  # no Subject, no MessageAttributes
    assert (body["Type"], body["MessageId"], body["TopicArn"]) == ("Notification", published, topic)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", body["Timestamp"])
    assert body["SignatureVersion"] == "1"
    assert len(base64.b64decode(body["Signature"], validate=True)) == 256  # an RSA-2048 size
    assert re.fullmatch(
        r"https://sns\.us-east-1\.amazonaws\.com/SimpleNotificationService-[0-9a-f]{32}\.pem",
        body["SigningCertURL"],
    )
    assert body["UnsubscribeURL"] == (
        f"https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn={subscription}"
    )
    # SNS's own layout: two-space indent, " : " between key and value.
    assert message["Body"].startswith('{\n  "Type" : "Notification",\n  "MessageId" : "')
    assert message["Body"].endswith('"\n}')


def test_signature_version_and_urls_follow_the_topic(connect: Any) -> None:
    sns, sqs, topic, url, subscription = fan(connect, "eu-west-1", SignatureVersion="2")
    assert topic.startswith("arn:aws:sns:eu-west-1:")
    sns.publish(TopicArn=topic, Message="v2")
    sns.set_topic_attributes(TopicArn=topic, AttributeName="SignatureVersion", AttributeValue="1")
    sns.publish(TopicArn=topic, Message="v1")
    bodies = {b["Message"]: b for b in (json.loads(m["Body"]) for m in received(sqs, url))}
    assert bodies["v2"]["SignatureVersion"] == "2"
    assert bodies["v1"]["SignatureVersion"] == "1"
    for body in bodies.values():
        assert body["SigningCertURL"].startswith("https://sns.eu-west-1.amazonaws.com/")
        assert body["UnsubscribeURL"] == (
            "https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn="
            + subscription
        )


TEXTS = [
    'quotes " and \\ backslashes',
    "lines\nand\r\ntabs\t",
    "unicode: grüße 日本語 🎉 \u2028 \u2029",
    '{"already": "json", "n": [1, 2.5, null]}',
    "<xml attr='1'>&amp;</xml>",
]


@pytest.mark.parametrize("raw", [False, True], ids=["enveloped", "raw"])
def test_every_message_text_arrives_exactly(connect: Any, raw: bool) -> None:
    sns, sqs, topic, url, _ = fan(connect, raw=raw)
    for text in TEXTS:
        sns.publish(TopicArn=topic, Message=text)
    bodies = [m["Body"] for m in received(sqs, url)]
    arrived = bodies if raw else [json.loads(body)["Message"] for body in bodies]
    assert sorted(arrived) == sorted(TEXTS)


def test_a_character_sqs_refuses_arrives_escaped_in_the_envelope_but_never_raw(
    connect: Any,
) -> None:
    """SNS takes any text; what it sends SQS is held to SQS's character set (#x9 | #xA | #xD |
    [#x20-#xD7FF] | ...): the envelope escapes a control character in its JSON, a raw delivery
    would be refused by SQS, so the raw queue gets nothing."""
    sns, sqs, topic, enveloped_url, _ = fan(connect, name="enveloped")
    raw_url = connect("sqs").create_queue(QueueName="raw")["QueueUrl"]
    raw_arn = f"arn:aws:sqs:us-east-1:{topic.split(':')[4]}:raw"
    sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=raw_arn, Attributes={"RawMessageDelivery": "true"}
    )
    text = "bell \x07 and backspace \x08"
    sns.publish(TopicArn=topic, Message=text)
    [message] = received(sqs, enveloped_url)
    assert json.loads(message["Body"])["Message"] == text
    assert "\x07" not in message["Body"]
    assert received(sqs, raw_url) == []


def test_raw_delivery_carries_each_attribute_type_as_an_sqs_attribute(connect: Any) -> None:
    sns, sqs, topic, url, _ = fan(connect, raw=True)
    attributes = {
        "s": {"DataType": "String", "StringValue": "text ✓"},
        "n": {"DataType": "Number", "StringValue": "-12.5e3"},
        "b": {"DataType": "Binary", "BinaryValue": b"\x00\xff\x10"},
        "a": {"DataType": "String.Array", "StringValue": '["x", 2, false, null]'},
    }
    sns.publish(TopicArn=topic, Message="typed", MessageAttributes=attributes)
    [message] = received(sqs, url)
    assert message["MessageAttributes"] == attributes

    # Enveloped, the same attributes are in the body as {"Type", "Value"}, Binary in base64.
    _, _, other, enveloped_url, _ = fan(connect, raw=False, name="enveloped")
    sns.publish(TopicArn=other, Message="typed", MessageAttributes=attributes)
    [message] = received(sqs, enveloped_url)
    assert "MessageAttributes" not in message
    assert json.loads(message["Body"])["MessageAttributes"] == {
        "s": {"Type": "String", "Value": "text ✓"},
        "n": {"Type": "Number", "Value": "-12.5e3"},
        "b": {"Type": "Binary", "Value": "AP8Q"},
        "a": {"Type": "String.Array", "Value": '["x", 2, false, null]'},
    }
