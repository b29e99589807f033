"""SNS over ``sqsmock serve``: SNS's query protocol on the SQS port, answered as in-process.

boto3 with an endpoint URL signs SNS calls for ``sns``; an unsigned form naming an action only
SNS has (``Action=Publish``) is SNS's too. A request signed for any other service still gets 501.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

import sqsmock

REGION = "us-east-1"


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    with sqsmock.serve(port=0, clock="frozen") as running:
        yield running


@pytest.fixture
def clients(server: Any) -> Iterator[tuple[Any, Any]]:
    server.reset()
    options = {
        "endpoint_url": server.endpoint_url,
        "region_name": REGION,
        "aws_access_key_id": "x",
        "aws_secret_access_key": "x",
        "config": Config(retries={"max_attempts": 1}),
    }
    yield boto3.client("sns", **options), boto3.client("sqs", **options)


def test_fan_out_to_two_queues_over_the_server(clients: tuple[Any, Any]) -> None:
    sns, sqs = clients
    topic = sns.create_topic(Name="orders")["TopicArn"]
    urls = []
    for name, raw in (("enveloped", "false"), ("raw", "true")):
        url = sqs.create_queue(QueueName=name)["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]
        sns.subscribe(
            TopicArn=topic,
            Protocol="sqs",
            Endpoint=arn["QueueArn"],
            Attributes={"RawMessageDelivery": raw},
        )
        urls.append(url)
    attributes = {"attr1": {"DataType": "Number", "StringValue": "99.12"}}
    published = sns.publish(TopicArn=topic, Message="hello", MessageAttributes=attributes)
    enveloped = sqs.receive_message(QueueUrl=urls[0])["Messages"][0]
    body = json.loads(enveloped["Body"])
    assert (body["MessageId"], body["Message"]) == (published["MessageId"], "hello")
    assert body["MessageAttributes"] == {"attr1": {"Type": "Number", "Value": "99.12"}}
    raw = sqs.receive_message(QueueUrl=urls[1], MessageAttributeNames=["All"])["Messages"][0]
    assert raw["Body"] == "hello"
    assert raw["MD5OfMessageAttributes"] == "d302007e9aa062660afc85fd0a482472"
    assert [t["TopicArn"] for t in sns.list_topics()["Topics"]] == [topic]


def test_fifo_topic_to_fifo_queue_over_the_server(clients: tuple[Any, Any]) -> None:
    sns, sqs = clients
    topic = sns.create_topic(Name="t.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    url = sqs.create_queue(QueueName="q.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn["QueueArn"])
    answer = sns.publish(
        TopicArn=topic, Message="m", MessageGroupId="g", MessageDeduplicationId="d"
    )
    assert answer["SequenceNumber"].isdigit()
    [got] = sqs.receive_message(QueueUrl=url, MessageSystemAttributeNames=["All"])["Messages"]
    assert got["Attributes"]["MessageDeduplicationId"] == "d"
    assert json.loads(got["Body"])["SequenceNumber"] == answer["SequenceNumber"]


def test_errors_over_the_server_are_snss(clients: tuple[Any, Any]) -> None:
    sns, _ = clients
    with pytest.raises(ClientError) as caught:
        sns.publish(TopicArn="randomstring", Message="m")
    assert caught.value.response["Error"] == {
        "Type": "Sender",
        "Code": "InvalidParameter",
        "Message": "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, "
        "not 1",
    }
    with pytest.raises(sns.exceptions.NotFoundException) as missing:
        sns.get_topic_attributes(TopicArn=f"arn:aws:sns:{REGION}:123456789012:nope")
    assert missing.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def test_an_unsigned_form_naming_an_sns_action_is_answered_by_sns(
    server: Any, clients: tuple[Any, Any]
) -> None:
    sns, _ = clients
    form = b"Action=CreateTopic&Version=2010-03-31&Name=plain"
    request = urllib.request.Request(
        server.endpoint_url + "/",
        data=form,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    with urllib.request.urlopen(request) as response:
        document = response.read().decode()
    assert response.status == 200
    assert document.startswith(
        '<CreateTopicResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/">'
    )
    assert "<TopicArn>arn:aws:sns:us-east-1:" in document
    assert [t["TopicArn"].rsplit(":", 1)[1] for t in sns.list_topics()["Topics"]] == ["plain"]


@pytest.mark.slow
def test_the_aws_cli_fans_out_through_the_server(server: Any) -> None:
    server.reset()
    aws = shutil.which("aws", path=str(Path(sys.executable).parent))
    assert aws, "the AWS CLI is part of the test extra"
    environment = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "x",
        "AWS_SECRET_ACCESS_KEY": "x",
        "AWS_DEFAULT_REGION": REGION,
    }

    def run(*arguments: str) -> Any:
        done = subprocess.run(
            [aws, *arguments, "--output", "json", "--endpoint-url", server.endpoint_url],
            env=environment,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return json.loads(done.stdout) if done.stdout.strip() else None

    topic = run("sns", "create-topic", "--name", "cli")["TopicArn"]
    url = run("sqs", "create-queue", "--queue-name", "cli")["QueueUrl"]
    endpoint = f"arn:aws:sqs:{REGION}:123456789012:cli"
    run(
        "sns",
        "subscribe",
        "--topic-arn",
        topic,
        "--protocol",
        "sqs",
        "--notification-endpoint",
        endpoint,
    )
    published = run("sns", "publish", "--topic-arn", topic, "--message", "from the cli")
    [got] = run("sqs", "receive-message", "--queue-url", url)["Messages"]
    body = json.loads(got["Body"])
    assert (body["MessageId"], body["Message"]) == (published["MessageId"], "from the cli")


def test_a_malformed_request_signed_for_sns_gets_snss_error_document(server: Any) -> None:
    signed = "AWS4-HMAC-SHA256 Credential=x/20240101/us-east-1/sns/aws4_request, Signature=x"
    request = urllib.request.Request(
        server.endpoint_url + "/",
        data=b"Action=Publish&Message=%FF",
        headers={"Authorization": signed},
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request)
    assert caught.value.code == 400
    document = caught.value.read().decode()
    assert document.startswith('<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/">')
    assert "<Type>Sender</Type>" in document


@pytest.mark.slow
def test_a_localstack_init_script_fans_out_with_awslocal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    awslocal = shutil.which("awslocal", path=str(Path(sys.executable).parent))
    assert awslocal, "awscli-local is part of the test extra"
    subscribe = "awslocal sns subscribe --topic-arn $T --protocol sqs --notification-endpoint"
    queue = "arn:aws:sqs:us-east-1:000000000000"
    (tmp_path / "01-fan-out.sh").write_text(
        "set -e\n"
        "T=$(awslocal sns create-topic --name orders --query TopicArn --output text)\n"
        "awslocal sqs create-queue --queue-name billing\n"
        "awslocal sqs create-queue --queue-name shipping\n"
        f"{subscribe} {queue}:billing\n"
        f"{subscribe} {queue}:shipping --attributes RawMessageDelivery=true\n"
        "awslocal sns publish --topic-arn $T --message paid\n"
    )
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    with sqsmock.serve(port=0, localstack=True, init_dir=tmp_path) as running:
        state: dict[str, Any] = {}
        for _ in range(600):  # a real process's script: a bounded poll
            with urllib.request.urlopen(running.endpoint_url + "/_localstack/init/ready") as got:
                state = json.loads(got.read())
            if state["completed"]:
                break
            select.select([], [], [], 0.2)
        assert [s["state"] for s in state["scripts"]] == ["SUCCESSFUL"], state
        sqs = boto3.client(
            "sqs",
            endpoint_url=running.endpoint_url,
            region_name=REGION,
            aws_access_key_id="test",
            aws_secret_access_key="test",
        )
        billing = sqs.get_queue_url(QueueName="billing")["QueueUrl"]
        shipping = sqs.get_queue_url(QueueName="shipping")["QueueUrl"]
        [enveloped] = sqs.receive_message(QueueUrl=billing)["Messages"]
        assert json.loads(enveloped["Body"])["Message"] == "paid"
        [raw] = sqs.receive_message(QueueUrl=shipping)["Messages"]
        assert raw["Body"] == "paid"


def test_a_queue_of_another_account_confirms_its_subscription_first(server: Any) -> None:
    server.reset()

    def client(service: str, account: str) -> Any:
        return boto3.client(
            service,
            endpoint_url=server.endpoint_url,
            region_name=REGION,
            aws_access_key_id=account,  # a 12-digit key selects the account
            aws_secret_access_key="x",
        )

    sns, sqs = client("sns", "111111111111"), client("sqs", "222222222222")
    topic = sns.create_topic(Name="shared")["TopicArn"]
    url = sqs.create_queue(QueueName="theirs")["QueueUrl"]
    arn = f"arn:aws:sqs:{REGION}:222222222222:theirs"
    answer = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    assert answer["SubscriptionArn"] == "pending confirmation"
    counts = sns.get_topic_attributes(TopicArn=topic)["Attributes"]
    assert (counts["SubscriptionsPending"], counts["SubscriptionsConfirmed"]) == ("1", "0")
    [listed] = sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]
    assert listed["SubscriptionArn"] == "PendingConfirmation"
    [asking] = sqs.receive_message(QueueUrl=url)["Messages"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=asking["ReceiptHandle"])
    request = json.loads(asking["Body"])
    assert request["Type"] == "SubscriptionConfirmation"
    assert request["TopicArn"] == topic
    assert request["SubscribeURL"].endswith(f"&Token={request['Token']}")
    sns.publish(TopicArn=topic, Message="before")  # a pending subscription gets nothing
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    with pytest.raises(ClientError):
        client("sns", "222222222222").confirm_subscription(TopicArn=topic, Token="wrong")
    confirmed = client("sns", "222222222222").confirm_subscription(
        TopicArn=topic, Token=request["Token"]
    )
    assert confirmed["SubscriptionArn"].startswith(topic + ":")
    sns.publish(TopicArn=topic, Message="after")
    [got] = sqs.receive_message(QueueUrl=url)["Messages"]
    assert json.loads(got["Body"])["Message"] == "after"
