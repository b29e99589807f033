"""``aws sns`` of both AWS CLI v1 versions the suite installs, against ``sqsmock serve`` and
``sqsmock serve --localstack``: topics, subscriptions with filter policies, raw and enveloped
delivery, batches, FIFO topics and SNS's errors, read back through ``aws sqs``.

Both CLIs speak SNS's query protocol (SNS has no other in their models); the two versions still
differ in their botocore, its serialisers and its parsers.
"""

from __future__ import annotations

import base64
import json
import subprocess
from typing import Any

import pytest
from clients_support import AwsCli, AwsCliDriver, client_env


class SnsCli(AwsCli):
    """``aws --endpoint-url <server> --output json sns ...``."""

    def run(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        full = ["--endpoint-url", self.endpoint_url, "--output", "json", "sns", *args]
        return self.driver.run(full, env or client_env())


@pytest.fixture
def cli(
    awscli_executable: tuple[str, Any], awscli_driver: AwsCliDriver, sns_server: Any
) -> tuple[SnsCli, AwsCli]:
    """(``aws sns``, ``aws sqs``) against ``sns_server``, once per CLI version and server mode."""
    protocol, endpoint = awscli_executable[0], sns_server.endpoint_url
    return SnsCli(awscli_driver, protocol, endpoint), AwsCli(awscli_driver, protocol, endpoint)


def queue(sqs: AwsCli, name: str, *extra: str) -> tuple[str, str]:
    """(URL, ARN) of a new queue."""
    url = sqs("create-queue", "--queue-name", name, *extra)["QueueUrl"]
    attributes = sqs("get-queue-attributes", "--queue-url", url, "--attribute-names", "QueueArn")
    return url, attributes["Attributes"]["QueueArn"]


def receive(sqs: AwsCli, url: str) -> list[dict[str, Any]]:
    out = sqs(
        "receive-message",
        "--queue-url",
        url,
        "--max-number-of-messages",
        "10",
        "--message-attribute-names",
        "All",
        "--attribute-names",
        "All",
    )
    return (out or {}).get("Messages", [])


def test_fan_out_with_filter_policies(cli: tuple[SnsCli, AwsCli]) -> None:
    sns, sqs = cli
    topic = sns("create-topic", "--name", "orders", "--tags", "Key=team,Value=billing")["TopicArn"]
    assert topic.startswith("arn:aws:sns:us-east-1:") and topic.endswith(":orders")
    assert sns("create-topic", "--name", "orders", "--tags", "Key=team,Value=billing") == {
        "TopicArn": topic
    }
    paid_url, paid_arn = queue(sqs, "paid")
    all_url, all_arn = queue(sqs, "everything")
    paid_policy = {"kind": ["paid"], "amount": [{"numeric": [">", 10]}]}
    paid = sns(
        "subscribe",
        "--topic-arn",
        topic,
        "--protocol",
        "sqs",
        "--notification-endpoint",
        paid_arn,
        "--attributes",
        json.dumps({"FilterPolicy": json.dumps(paid_policy)}),
        "--return-subscription-arn",
    )["SubscriptionArn"]
    assert paid.startswith(topic + ":")
    raw = sns(
        "subscribe",
        "--topic-arn",
        topic,
        "--protocol",
        "sqs",
        "--notification-endpoint",
        all_arn,
        "--attributes",
        '{"RawMessageDelivery": "true"}',
    )["SubscriptionArn"]

    def publish(message: str, kind: str, amount: str) -> str:
        attributes = {
            "kind": {"DataType": "String", "StringValue": kind},
            "amount": {"DataType": "Number", "StringValue": amount},
            "blob": {"DataType": "Binary", "BinaryValue": "bytes!"},
        }
        return sns(
            "publish",
            "--topic-arn",
            topic,
            "--message",
            message,
            "--subject",
            "an order",
            "--message-attributes",
            json.dumps(attributes),
        )["MessageId"]

    first = publish("order 1 ✓", "paid", "42")
    publish("order 2", "refund", "42")  # filtered out for "paid"
    publish("order 3", "paid", "5")  # so is this one (amount)

    [enveloped] = receive(sqs, paid_url)
    body = json.loads(enveloped["Body"])
    assert body["Type"] == "Notification"
    assert (body["MessageId"], body["TopicArn"]) == (first, topic)
    assert (body["Subject"], body["Message"]) == ("an order", "order 1 ✓")
    assert body["SignatureVersion"] == "1"
    assert body["UnsubscribeURL"].endswith(f"SubscriptionArn={paid}")
    assert body["MessageAttributes"] == {
        "amount": {"Type": "Number", "Value": "42"},
        "blob": {"Type": "Binary", "Value": base64.b64encode(b"bytes!").decode()},
        "kind": {"Type": "String", "Value": "paid"},
    }
    assert enveloped.get("MessageAttributes") is None  # enveloped: attributes in the body

    delivered = receive(sqs, all_url)
    assert sorted(m["Body"] for m in delivered) == ["order 1 ✓", "order 2", "order 3"]
    by_body = {m["Body"]: m for m in delivered}
    assert by_body["order 1 ✓"]["MessageAttributes"] == {
        "kind": {"DataType": "String", "StringValue": "paid"},
        "amount": {"DataType": "Number", "StringValue": "42"},
        "blob": {"DataType": "Binary", "BinaryValue": base64.b64encode(b"bytes!").decode()},
    }

    listed = sns("list-subscriptions-by-topic", "--topic-arn", topic)["Subscriptions"]
    assert sorted((s["SubscriptionArn"], s["Endpoint"]) for s in listed) == sorted(
        [(paid, paid_arn), (raw, all_arn)]
    )
    assert {s["Protocol"] for s in listed} == {"sqs"}
    assert len(sns("list-subscriptions")["Subscriptions"]) == 2
    attributes = sns("get-subscription-attributes", "--subscription-arn", paid)["Attributes"]
    assert json.loads(attributes["FilterPolicy"]) == paid_policy
    assert attributes["RawMessageDelivery"] == "false"
    assert attributes["PendingConfirmation"] == "false"
    sns(
        "set-subscription-attributes",
        "--subscription-arn",
        paid,
        "--attribute-name",
        "FilterPolicy",
        "--attribute-value",
        '{"kind": ["refund"]}',
    )
    publish("order 4", "refund", "1")
    assert [json.loads(m["Body"])["Message"] for m in receive(sqs, paid_url)] == ["order 4"]

    counts = sns("get-topic-attributes", "--topic-arn", topic)["Attributes"]
    assert counts["SubscriptionsConfirmed"] == "2"
    assert counts["TopicArn"] == topic
    assert sns("list-tags-for-resource", "--resource-arn", topic)["Tags"] == [
        {"Key": "team", "Value": "billing"}
    ]
    sns("unsubscribe", "--subscription-arn", raw)
    assert [s["SubscriptionArn"] for s in sns("list-subscriptions")["Subscriptions"]] == [paid]
    sns("delete-topic", "--topic-arn", topic)
    assert sns("list-topics")["Topics"] == []


def test_publish_batch_and_message_structure(cli: tuple[SnsCli, AwsCli]) -> None:
    sns, sqs = cli
    topic = sns("create-topic", "--name", "batched")["TopicArn"]
    url, arn = queue(sqs, "batched")
    sns("subscribe", "--topic-arn", topic, "--protocol", "sqs", "--notification-endpoint", arn)
    entries = [
        {"Id": "a", "Message": "first"},
        {"Id": "b", "Message": json.dumps({"default": "fallback", "sqs": "for sqs"})},
    ]
    entries[1]["MessageStructure"] = "json"
    answer = sns(
        "publish-batch",
        "--topic-arn",
        topic,
        "--publish-batch-request-entries",
        json.dumps(entries),
    )
    assert sorted(e["Id"] for e in answer["Successful"]) == ["a", "b"]
    assert answer.get("Failed", []) == []
    messages = sorted(json.loads(m["Body"])["Message"] for m in receive(sqs, url))
    assert messages == ["first", "for sqs"]
    duplicate = [{"Id": "x", "Message": "1"}, {"Id": "x", "Message": "2"}]
    error = sns.fail(
        "publish-batch",
        "--topic-arn",
        topic,
        "--publish-batch-request-entries",
        json.dumps(duplicate),
    )
    assert "BatchEntryIdsNotDistinct" in error


def test_fifo_topic_into_a_fifo_queue(cli: tuple[SnsCli, AwsCli]) -> None:
    sns, sqs = cli
    topic = sns(
        "create-topic",
        "--name",
        "events.fifo",
        "--attributes",
        '{"FifoTopic": "true", "ContentBasedDeduplication": "true"}',
    )["TopicArn"]
    url, arn = queue(sqs, "events.fifo", "--attributes", '{"FifoQueue": "true"}')
    sns("subscribe", "--topic-arn", topic, "--protocol", "sqs", "--notification-endpoint", arn)
    sent = [
        sns("publish", "--topic-arn", topic, "--message", body, "--message-group-id", "g1")
        for body in ("one", "two", "one")
    ]
    assert sent[2]["MessageId"] == sent[0]["MessageId"]  # deduplicated by content
    assert int(sent[0]["SequenceNumber"]) < int(sent[1]["SequenceNumber"])
    got = receive(sqs, url)
    assert [json.loads(m["Body"])["Message"] for m in got] == ["one", "two"]
    assert [json.loads(m["Body"])["SequenceNumber"] for m in got] == [
        s["SequenceNumber"] for s in sent[:2]
    ]
    assert {m["Attributes"]["MessageGroupId"] for m in got} == {"g1"}
    error = sns.fail("publish", "--topic-arn", topic, "--message", "no group")
    assert "InvalidParameter" in error


def test_snss_errors(cli: tuple[SnsCli, AwsCli]) -> None:
    sns, sqs = cli
    topic = sns("create-topic", "--name", "errors")["TopicArn"]
    missing = topic.replace(":errors", ":missing")
    error = sns.fail("publish", "--topic-arn", missing, "--message", "m")
    assert "(NotFound)" in error and "Topic does not exist" in error
    error = sns.fail("publish", "--topic-arn", "not-an-arn", "--message", "m")
    assert "(InvalidParameter)" in error
    _, arn = queue(sqs, "errors")
    error = sns.fail(
        "subscribe",
        "--topic-arn",
        topic,
        "--protocol",
        "sqs",
        "--notification-endpoint",
        arn,
        "--attributes",
        '{"FilterPolicy": "not json"}',
    )
    assert "(InvalidParameter)" in error and "FilterPolicy" in error
    assert "(InvalidParameter)" in sns.fail("create-topic", "--name", "bad name!")
