"""The AWS SDK for JavaScript v3 (``@aws-sdk/client-sqs``, AWS JSON 1.0) against a running server.

``js/scenario.mjs`` makes the calls and prints what they answered; the SDK itself checks the MD5
of every body sent and received, with its default settings.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from clients_support import RUN_TIMEOUT, client_env, queue_url
from sqs_asserts import attributes_md5


def md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def run_scenario(js_sdk: Path, endpoint_url: str) -> dict[str, Any]:
    node = shutil.which("node")
    assert node is not None, "Node.js is needed for the JavaScript SDK tests"
    result = subprocess.run(
        [node, "scenario.mjs", endpoint_url],
        cwd=js_sdk,
        capture_output=True,
        text=True,
        env=client_env(),
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_js_sdk_scenario(js_sdk: Path, sqs_server: Any) -> None:
    out = run_scenario(js_sdk, sqs_server.endpoint_url)
    url = queue_url(sqs_server.endpoint_url, "js-orders")
    assert out["queueUrl"] == url
    assert out["gotUrl"] == url

    body = "unicode body: ünïcödé 日本語 🎉 <&>"
    attributes = {
        "text": {"DataType": "String", "StringValue": "grüße ✓ 🎉"},
        "amount": {"DataType": "Number.float", "StringValue": "12.50"},
        "raw": {"DataType": "Binary", "BinaryValue": bytes([0, 1, 2, 127, 128, 254, 255])},
    }
    assert out["sent"]["MD5OfMessageBody"] == md5(body)
    assert out["sent"]["MD5OfMessageAttributes"] == attributes_md5(attributes)

    bodies = {
        "one": "batch one ✓",
        "two": "batch two\r\nwith lines",
        "three": "x" * 2000,
    }
    assert out["batch"]["failed"] == []
    assert sorted(entry["Id"] for entry in out["batch"]["successful"]) == sorted(bodies)
    for entry in out["batch"]["successful"]:
        assert entry["MD5OfMessageBody"] == md5(bodies[entry["Id"]])
        expected = (
            attributes_md5({"n": {"DataType": "Number", "StringValue": "-7"}})
            if entry["Id"] == "two"
            else None
        )
        assert entry["MD5OfMessageAttributes"] == expected

    received = {m["Body"]: m for m in out["received"]}
    assert sorted(received) == sorted([body, *bodies.values()])
    first = received[body]
    assert first["MessageId"] == out["sent"]["MessageId"]
    assert first["ReceiveCount"] == "1"
    assert first["MD5OfMessageAttributes"] == attributes_md5(attributes)
    assert first["MessageAttributes"] == {
        "text": attributes["text"],
        "amount": attributes["amount"],
        "raw": {
            "DataType": "Binary",
            "BinaryValue": base64.b64encode(b"\0\1\2\x7f\x80\xfe\xff").decode(),
        },
    }
    assert received[bodies["two"]]["MessageAttributes"] == {
        "n": {"DataType": "Number", "StringValue": "-7"}
    }

    assert out["again"] == [{"MessageId": first["MessageId"], "ReceiveCount": "2"}]
    assert out["deleted"] == ["d0", "d1", "d2"]
    assert out["attributes"]["DelaySeconds"] == "5"
    assert out["attributes"]["VisibilityTimeout"] == "30"
    assert out["attributes"]["ApproximateNumberOfMessages"] == "0"
    assert out["attributes"]["ApproximateNumberOfMessagesNotVisible"] == "0"
    assert out["listed"] == [url]
    assert out["afterDelete"] == []
    assert out["missingQueue"] == {
        "name": "QueueDoesNotExist",
        "code": "AWS.SimpleQueueService.NonExistentQueue",
        "status": 400,
    }
    assert out["badBatch"] == {
        "name": "EmptyBatchRequest",
        "code": "AWS.SimpleQueueService.EmptyBatchRequest",
        "status": 400,
    }

    fifo = out["fifo"]
    assert fifo["url"] == queue_url(sqs_server.endpoint_url, "js-events.fifo")
    first, second, duplicate = fifo["sent"]
    assert duplicate["MessageId"] == first["MessageId"]  # deduplicated by content
    assert int(first["SequenceNumber"]) < int(second["SequenceNumber"])
    assert [m["Body"] for m in fifo["received"]] == ["first", "second"]
    for message, sent in zip(fifo["received"], [first, second], strict=True):
        assert message["MessageId"] == sent["MessageId"]
        assert message["Attributes"] == {
            "MessageGroupId": "g1",
            "SequenceNumber": sent["SequenceNumber"],
            "MessageDeduplicationId": hashlib.sha256(message["Body"].encode()).hexdigest(),
        }
