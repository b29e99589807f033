"""The AWS SDK for JavaScript v3 ``SNSClient`` (``@aws-sdk/client-sns``, SNS's query protocol)
beside ``SQSClient``, against ``sqsmock serve`` and ``sqsmock serve --localstack``: fan-out with a
body-scope filter policy, raw delivery of every attribute type, batches, FIFO topics and SNS's
errors as the SDK's exception classes. ``js/sns_scenario.mjs`` makes the calls."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from clients_support import RUN_TIMEOUT, client_env
from sqs_asserts import attributes_md5


def run_scenario(js_sdk: Path, endpoint_url: str) -> dict[str, Any]:
    node = shutil.which("node")
    assert node is not None, "Node.js is needed for the JavaScript SDK tests"
    result = subprocess.run(
        [node, "sns_scenario.mjs", endpoint_url],
        cwd=js_sdk,
        capture_output=True,
        text=True,
        env=client_env(),
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_js_sns_client_fans_out(js_sdk: Path, sns_server: Any) -> None:
    out = run_scenario(js_sdk, sns_server.endpoint_url)
    topic = out["topic"]
    account = topic.split(":")[4]
    assert topic == f"arn:aws:sns:us-east-1:{account}:js-orders"
    assert out["euSubscription"].startswith(topic + ":")
    assert out["batch"] == {"successful": ["eu", "us"], "failed": []}

    # Body scope: only the two orders from an "eu-" region reach the filtered queue, enveloped.
    envelopes = [json.loads(m["Body"]) for m in out["eu"]]
    assert [json.loads(e["Message"])["order"]["region"] for e in envelopes] == [
        "eu-west-1",
        "eu-central-1",
    ]
    first = envelopes[0]
    assert list(first) == [
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
    assert (first["MessageId"], first["Subject"]) == (out["published"], "js subject")
    assert first["MessageAttributes"] == {
        "text": {"Type": "String", "Value": "grüße ✓"},
        "n": {"Type": "Number", "Value": "12.5"},
        "raw": {"Type": "Binary", "Value": "AAEC/v8="},
        "list": {"Type": "String.Array", "Value": '["a", 1, true]'},
    }
    assert "Subject" not in envelopes[1] and "MessageAttributes" not in envelopes[1]
    assert all(m["MessageAttributes"] == {} for m in out["eu"])

    # Raw delivery: every message, the attributes as SQS message attributes (the SDK checked
    # the body MD5s; the attribute MD5 is SQS's over what arrived).
    raw = {json.loads(m["Body"])["order"]["region"]: m for m in out["all"]}
    assert sorted(raw) == ["eu-central-1", "eu-west-1", "us-east-1"]
    attributes = raw["eu-west-1"]["MessageAttributes"]
    assert attributes == {
        "text": {"DataType": "String", "StringValue": "grüße ✓"},
        "n": {"DataType": "Number", "StringValue": "12.5"},
        "raw": {"DataType": "Binary", "BinaryValue": "AAEC/v8="},
        "list": {"DataType": "String.Array", "StringValue": '["a", 1, true]'},
    }
    reference = dict(attributes, raw={"DataType": "Binary", "BinaryValue": b"\0\1\2\xfe\xff"})
    assert raw["eu-west-1"]["MD5OfMessageAttributes"] == attributes_md5(reference)

    subscription = out["subscriptionAttributes"]
    assert subscription["FilterPolicyScope"] == "MessageBody"
    assert json.loads(subscription["FilterPolicy"]) == {"order": {"region": [{"prefix": "eu-"}]}}
    assert subscription["PendingConfirmation"] == "false"
    assert out["topicAttributes"]["SubscriptionsConfirmed"] == "2"
    assert out["listed"] == sorted(
        f"arn:aws:sqs:us-east-1:{account}:{name}" for name in ("js-all", "js-eu")
    )
    assert out["afterUnsubscribe"] == [f"arn:aws:sqs:us-east-1:{account}:js-all"]

    assert out["missingTopic"] == {
        "name": "NotFoundException",
        "message": "Topic does not exist",
        "status": 404,
    }
    assert out["badPolicy"]["name"] == "InvalidParameterException"
    assert out["badPolicy"]["message"].startswith(
        "Invalid parameter: Attributes Reason: FilterPolicy: failed to parse JSON."
    )
    assert out["badAttribute"] == {
        "name": "InvalidParameterValueException",
        "message": "Could not cast message attribute 'n' value to number.",
        "status": 400,
    }

    first_sent, second_sent, duplicate = out["fifo"]["sent"]
    assert duplicate == first_sent  # the same deduplication id within five minutes
    assert int(first_sent["SequenceNumber"]) < int(second_sent["SequenceNumber"])
    received = out["fifo"]["received"]
    assert [json.loads(m["Body"])["Message"] for m in received] == ["a", "b"]
    assert [json.loads(m["Body"])["SequenceNumber"] for m in received] == [
        first_sent["SequenceNumber"],
        second_sent["SequenceNumber"],
    ]
    assert [m["Attributes"]["MessageDeduplicationId"] for m in received] == ["1", "2"]
    assert {m["Attributes"]["MessageGroupId"] for m in received} == {"g"}
    assert out["topics"] == [topic]
