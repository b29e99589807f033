"""A LocalStack init script (``ready.d``) that builds an SNS fan-out with ``awslocal`` -- a topic,
two queues subscribed with different filter policies (one on message attributes, one on the
body with raw delivery) -- and publishes, run by ``sqsmock serve --localstack`` as LocalStack
runs it; the test then reads what each queue received."""

from __future__ import annotations

import json
import os
import select
import shutil
import sys
import urllib.request
from pathlib import Path
from typing import Any

import boto3
import pytest

import sqsmock

SCRIPT = r"""set -e
T=$(awslocal sns create-topic --name orders --query TopicArn --output text)
awslocal sqs create-queue --queue-name eu-orders
awslocal sqs create-queue --queue-name big-orders
Q=arn:aws:sqs:us-east-1:000000000000
EU=$(awslocal sns subscribe --topic-arn "$T" --protocol sqs --notification-endpoint $Q:eu-orders \
  --return-subscription-arn --query SubscriptionArn --output text)
awslocal sns set-subscription-attributes --subscription-arn "$EU" \
  --attribute-name FilterPolicy --attribute-value '{"region": ["eu-west-1", "eu-central-1"]}'
BIG=$(awslocal sns subscribe --topic-arn "$T" --protocol sqs --notification-endpoint $Q:big-orders \
  --attributes RawMessageDelivery=true,FilterPolicyScope=MessageBody \
  --return-subscription-arn --query SubscriptionArn --output text)
awslocal sns set-subscription-attributes --subscription-arn "$BIG" \
  --attribute-name FilterPolicy --attribute-value '{"amount": [{"numeric": [">=", 100]}]}'
publish() {
  awslocal sns publish --topic-arn "$T" --message "$2" \
    --message-attributes "{\"region\": {\"DataType\": \"String\", \"StringValue\": \"$1\"}}"
}
publish eu-west-1 '{"order": 1, "amount": 50}'
publish us-east-1 '{"order": 2, "amount": 500}'
publish eu-central-1 '{"order": 3, "amount": 100}'
aws sns list-subscriptions-by-topic --topic-arn "$T" > "$(dirname "$0")/../subscriptions.json"
"""


def test_an_init_script_fans_out_through_two_filter_policies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = Path(sys.executable).parent
    assert shutil.which("awslocal", path=str(bin_dir)), "awscli-local is part of the test extra"
    ready = tmp_path / "ready.d"
    ready.mkdir()
    (ready / "01-fan-out.sh").write_text(SCRIPT)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    with sqsmock.serve(port=0, localstack=True, init_dir=ready) as running:
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
            region_name="us-east-1",
            aws_access_key_id="test",
            aws_secret_access_key="test",
        )

        def received(name: str) -> list[dict[str, Any]]:
            url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
            return sqs.receive_message(
                QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"]
            ).get("Messages", [])

        eu = [json.loads(m["Body"]) for m in received("eu-orders")]
        assert [json.loads(e["Message"])["order"] for e in eu] == [1, 3]
        assert [e["MessageAttributes"]["region"]["Value"] for e in eu] == [
            "eu-west-1",
            "eu-central-1",
        ]
        big = received("big-orders")
        assert [json.loads(m["Body"])["order"] for m in big] == [2, 3]
        assert [m["MessageAttributes"]["region"]["StringValue"] for m in big] == [
            "us-east-1",
            "eu-central-1",
        ]

    listed = json.loads((tmp_path / "subscriptions.json").read_text())["Subscriptions"]
    assert sorted(s["Endpoint"] for s in listed) == [
        "arn:aws:sqs:us-east-1:000000000000:big-orders",
        "arn:aws:sqs:us-east-1:000000000000:eu-orders",
    ]
