"""Filter policies applied to what a topic delivers: each subscription's queue gets only the
messages its policy matches, in attribute scope and in body scope; a policy AWS refuses is
refused at Subscribe and at SetSubscriptionAttributes with AWS's words."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from sqsmock import mock_sqs

REGION = "us-east-1"


@pytest.fixture
def clients() -> Iterator[tuple[Any, Any, Any]]:
    with mock_sqs(sns=True, clock="frozen") as mock:
        yield mock, boto3.client("sns", region_name=REGION), boto3.client("sqs", region_name=REGION)


def subscribed(sns: Any, sqs: Any, topic: str, name: str, **attributes: str) -> str:
    url = sqs.create_queue(QueueName=name)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]
    sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=arn["QueueArn"],
        Attributes={"RawMessageDelivery": "true", **attributes},
    )
    return str(url)


def bodies(sqs: Any, url: str) -> list[str]:
    answer = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
    return sorted(message["Body"] for message in answer.get("Messages", []))


def test_each_queue_gets_what_its_attribute_policy_matches(clients: Any) -> None:
    _, sns, sqs = clients
    topic = sns.create_topic(Name="orders")["TopicArn"]
    big = subscribed(
        sns, sqs, topic, "big", FilterPolicy=json.dumps({"total": [{"numeric": [">=", 100]}]})
    )
    eu = subscribed(sns, sqs, topic, "eu", FilterPolicy=json.dumps({"region": [{"prefix": "eu-"}]}))
    everything = subscribed(sns, sqs, topic, "all")
    for body, total, region in (
        ("a", "250", "eu-west-1"),
        ("b", "5", "us-east-1"),
        ("c", "99", "eu-central-1"),
    ):
        sns.publish(
            TopicArn=topic,
            Message=body,
            MessageAttributes={
                "total": {"DataType": "Number", "StringValue": total},
                "region": {"DataType": "String", "StringValue": region},
            },
        )
    assert bodies(sqs, big) == ["a"]
    assert bodies(sqs, eu) == ["a", "c"]
    assert bodies(sqs, everything) == ["a", "b", "c"]


def test_a_body_scope_policy_reads_the_json_message(clients: Any) -> None:
    _, sns, sqs = clients
    topic = sns.create_topic(Name="events")["TopicArn"]
    url = subscribed(
        sns,
        sqs,
        topic,
        "shipped",
        FilterPolicyScope="MessageBody",
        FilterPolicy=json.dumps({"detail": {"status": ["shipped"]}}),
    )
    for status in ("shipped", "cancelled"):
        sns.publish(TopicArn=topic, Message=json.dumps({"detail": {"status": status}}))
    sns.publish(TopicArn=topic, Message="not json")
    [kept] = bodies(sqs, url)
    assert json.loads(kept) == {"detail": {"status": "shipped"}}


def test_a_policy_set_later_applies_to_later_publishes(clients: Any) -> None:
    _, sns, sqs = clients
    topic = sns.create_topic(Name="t")["TopicArn"]
    url = subscribed(sns, sqs, topic, "q")
    [subscription] = sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]
    sns.set_subscription_attributes(
        SubscriptionArn=subscription["SubscriptionArn"],
        AttributeName="FilterPolicy",
        AttributeValue=json.dumps({"kind": ["keep"]}),
    )
    for kind in ("keep", "drop"):
        sns.publish(
            TopicArn=topic,
            Message=kind,
            MessageAttributes={"kind": {"DataType": "String", "StringValue": kind}},
        )
    assert bodies(sqs, url) == ["keep"]


def test_a_policy_aws_refuses_is_refused_with_its_words(clients: Any) -> None:
    _, sns, sqs = clients
    topic = sns.create_topic(Name="t")["TopicArn"]
    arn = sqs.get_queue_attributes(
        QueueUrl=sqs.create_queue(QueueName="q")["QueueUrl"], AttributeNames=["QueueArn"]
    )["Attributes"]["QueueArn"]
    bad = json.dumps({"price": [{"numeric": [">", "ten"]}]})
    with pytest.raises(ClientError) as at_subscribe:
        sns.subscribe(
            TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={"FilterPolicy": bad}
        )
    error = at_subscribe.value.response["Error"]
    assert error["Code"] == "InvalidParameter"
    assert error["Message"].startswith("Invalid parameter: Attributes Reason: FilterPolicy: ")
    assert sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"] == []

    subscription = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)["SubscriptionArn"]
    with pytest.raises(ClientError) as at_set:
        sns.set_subscription_attributes(
            SubscriptionArn=subscription, AttributeName="FilterPolicy", AttributeValue=bad
        )
    assert at_set.value.response["Error"]["Message"].startswith("Invalid parameter: FilterPolicy: ")
    shown = sns.get_subscription_attributes(SubscriptionArn=subscription)["Attributes"]
    assert "FilterPolicy" not in shown
