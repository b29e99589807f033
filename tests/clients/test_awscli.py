"""Every ``aws sqs`` command of the AWS CLI v1 against a running server, in both wire protocols:
the newest CLI sends AWS JSON 1.0, awscli 1.32.89 the query protocol (form bodies, XML answers)."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
from typing import Any

from clients_support import ACCOUNT, REGION, AwsCli, client_env, queue_url
from sqs_asserts import attributes_md5

BODIES = [
    "plain",
    "unicode: héllo wörld ✓ 日本語 🎉",
    "markup <order id=\"7\"> & </order> 'quoted'",
    "line one\r\nline two\ttabbed\rcarriage",
]


def md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def arn(name: str) -> str:
    return f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name}"


def create(aws: AwsCli, name: str, *extra: str) -> str:
    url = aws("create-queue", "--queue-name", name, *extra)["QueueUrl"]
    assert url == queue_url(aws.endpoint_url, name)
    return url


def attributes(aws: AwsCli, url: str, *names: str) -> dict[str, str]:
    return aws("get-queue-attributes", "--queue-url", url, "--attribute-names", *names)[
        "Attributes"
    ]


def receive(aws: AwsCli, url: str, *extra: str) -> list[dict[str, Any]]:
    out = aws("receive-message", "--queue-url", url, "--max-number-of-messages", "10", *extra)
    return (out or {}).get("Messages", [])


def test_queue_lifecycle(aws: AwsCli) -> None:
    url = create(
        aws,
        "orders",
        "--attributes",
        json.dumps({"VisibilityTimeout": "45", "DelaySeconds": "2"}),
        "--tags",
        json.dumps({"team": "billing"}),
    )
    create(aws, "orders-audit")
    create(aws, "other")
    # Creating again with the same attributes answers the same URL.
    assert aws("create-queue", "--queue-name", "orders")["QueueUrl"] == url
    assert "QueueAlreadyExists" in aws.fail(
        "create-queue", "--queue-name", "orders", "--attributes", '{"VisibilityTimeout":"1"}'
    )

    assert aws("get-queue-url", "--queue-name", "orders") == {"QueueUrl": url}
    assert aws("list-queues", "--queue-name-prefix", "orders") == {
        "QueueUrls": [url, queue_url(aws.endpoint_url, "orders-audit")]
    }
    assert len(aws("list-queues")["QueueUrls"]) == 3

    everything = attributes(aws, url, "All")
    assert everything["VisibilityTimeout"] == "45"
    assert everything["DelaySeconds"] == "2"
    assert everything["QueueArn"] == arn("orders")
    assert everything["ApproximateNumberOfMessages"] == "0"
    assert int(everything["CreatedTimestamp"]) > 1_600_000_000

    aws(
        "set-queue-attributes",
        "--queue-url",
        url,
        "--attributes",
        json.dumps({"VisibilityTimeout": "10", "MaximumMessageSize": "2048"}),
    )
    assert attributes(aws, url, "VisibilityTimeout", "MaximumMessageSize") == {
        "VisibilityTimeout": "10",
        "MaximumMessageSize": "2048",
    }

    assert aws("list-queue-tags", "--queue-url", url) == {"Tags": {"team": "billing"}}
    aws("tag-queue", "--queue-url", url, "--tags", json.dumps({"env": "test", "team": "ops"}))
    assert aws("list-queue-tags", "--queue-url", url) == {"Tags": {"team": "ops", "env": "test"}}
    aws("untag-queue", "--queue-url", url, "--tag-keys", "team")
    assert aws("list-queue-tags", "--queue-url", url) == {"Tags": {"env": "test"}}

    aws(
        "add-permission",
        "--queue-url",
        url,
        "--label",
        "let-them-send",
        "--aws-account-ids",
        "111122223333",
        "--actions",
        "SendMessage",
    )
    policy = json.loads(attributes(aws, url, "Policy")["Policy"])
    [statement] = policy["Statement"]
    assert statement["Sid"] == "let-them-send"
    assert statement["Action"] == "SQS:SendMessage"
    assert statement["Resource"] == arn("orders")
    aws("remove-permission", "--queue-url", url, "--label", "let-them-send")
    assert "Policy" not in attributes(aws, url, "All")

    aws("delete-queue", "--queue-url", url)
    assert len(aws("list-queues")["QueueUrls"]) == 2
    error = aws.fail("get-queue-url", "--queue-name", "orders")
    assert "(AWS.SimpleQueueService.NonExistentQueue)" in error
    assert "The specified queue does not exist" in error


def test_messages(aws: AwsCli) -> None:
    url = create(aws, "work", "--attributes", '{"VisibilityTimeout":"60"}')
    message_attributes = {
        "kind": {"DataType": "String", "StringValue": "ünïcode ✓"},
        "count": {"DataType": "Number", "StringValue": "42"},
        "blob": {"DataType": "Binary", "BinaryValue": "raw-bytes"},
    }
    sent = aws(
        "send-message",
        "--queue-url",
        url,
        "--message-body",
        BODIES[0],
        "--message-attributes",
        json.dumps(message_attributes),
    )
    assert sent["MD5OfMessageBody"] == md5(BODIES[0])
    reference = dict(message_attributes, blob={"DataType": "Binary", "BinaryValue": b"raw-bytes"})
    assert sent["MD5OfMessageAttributes"] == attributes_md5(reference)

    batch = aws(
        "send-message-batch",
        "--queue-url",
        url,
        "--entries",
        json.dumps([{"Id": f"m{i}", "MessageBody": body} for i, body in enumerate(BODIES[1:])]),
    )
    assert sorted(entry["Id"] for entry in batch["Successful"]) == ["m0", "m1", "m2"]
    for entry in batch["Successful"]:
        assert entry["MD5OfMessageBody"] == md5(BODIES[1 + int(entry["Id"][1:])])
    assert "Failed" not in batch or batch["Failed"] == []

    messages = receive(aws, url, "--attribute-names", "All", "--message-attribute-names", "All")
    assert sorted(m["Body"] for m in messages) == sorted(BODIES)
    by_body = {m["Body"]: m for m in messages}
    first = by_body[BODIES[0]]
    assert first["MessageId"] == sent["MessageId"]
    assert first["MD5OfBody"] == md5(BODIES[0])
    assert first["Attributes"]["ApproximateReceiveCount"] == "1"
    assert first["Attributes"]["SenderId"]
    assert first["MessageAttributes"] == {
        "kind": {"DataType": "String", "StringValue": "ünïcode ✓"},
        "count": {"DataType": "Number", "StringValue": "42"},
        "blob": {
            "DataType": "Binary",
            "BinaryValue": base64.b64encode(b"raw-bytes").decode(),
        },
    }
    for body, message in by_body.items():
        assert message["MD5OfBody"] == md5(body)
    assert receive(aws, url) == []  # all in flight

    # Make two visible again: one alone, one in a batch; the rest stay hidden.
    handles = {m["Body"]: m["ReceiptHandle"] for m in messages}
    aws(
        "change-message-visibility",
        "--queue-url",
        url,
        "--receipt-handle",
        handles[BODIES[0]],
        "--visibility-timeout",
        "0",
    )
    changed = aws(
        "change-message-visibility-batch",
        "--queue-url",
        url,
        "--entries",
        json.dumps(
            [
                {"Id": "a", "ReceiptHandle": handles[BODIES[1]], "VisibilityTimeout": 0},
                {"Id": "b", "ReceiptHandle": handles[BODIES[2]], "VisibilityTimeout": 120},
            ]
        ),
    )
    assert sorted(entry["Id"] for entry in changed["Successful"]) == ["a", "b"]
    again = receive(aws, url, "--attribute-names", "ApproximateReceiveCount")
    assert sorted(m["Body"] for m in again) == sorted(BODIES[:2])
    assert {m["Attributes"]["ApproximateReceiveCount"] for m in again} == {"2"}

    fresh = {m["Body"]: m["ReceiptHandle"] for m in again}
    aws("delete-message", "--queue-url", url, "--receipt-handle", fresh[BODIES[0]])
    deleted = aws(
        "delete-message-batch",
        "--queue-url",
        url,
        "--entries",
        json.dumps(
            [
                {"Id": "x", "ReceiptHandle": fresh[BODIES[1]]},
                {"Id": "y", "ReceiptHandle": "not-a-receipt-handle"},
            ]
        ),
    )
    assert [entry["Id"] for entry in deleted["Successful"]] == ["x"]
    [failed] = deleted["Failed"]
    assert failed["Id"] == "y"
    assert failed["Code"] == "ReceiptHandleIsInvalid"
    assert failed["SenderFault"] is True

    counts = attributes(
        aws, url, "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"
    )
    assert counts == {
        "ApproximateNumberOfMessages": "0",
        "ApproximateNumberOfMessagesNotVisible": "2",
    }
    aws("purge-queue", "--queue-url", url)
    counts = attributes(aws, url, "ApproximateNumberOfMessagesNotVisible")
    assert counts == {"ApproximateNumberOfMessagesNotVisible": "0"}


def test_dead_letters_and_move_tasks(aws: AwsCli) -> None:
    dlq = create(aws, "jobs-dlq")
    redrive = {"deadLetterTargetArn": arn("jobs-dlq"), "maxReceiveCount": "1"}
    source = create(aws, "jobs", "--attributes", json.dumps({"RedrivePolicy": json.dumps(redrive)}))
    create(aws, "unrelated")
    assert aws("list-dead-letter-source-queues", "--queue-url", dlq) == {"queueUrls": [source]}

    aws(
        "send-message-batch",
        "--queue-url",
        source,
        "--entries",
        json.dumps([{"Id": str(i), "MessageBody": f"job {i}"} for i in range(3)]),
    )
    # The first receive delivers them; the second would exceed maxReceiveCount: they move.
    assert len(receive(aws, source, "--visibility-timeout", "0")) == 3
    assert receive(aws, source, "--visibility-timeout", "0") == []
    dead = receive(aws, dlq, "--visibility-timeout", "0", "--attribute-names", "All")
    assert sorted(m["Body"] for m in dead) == ["job 0", "job 1", "job 2"]
    assert {m["Attributes"]["DeadLetterQueueSourceArn"] for m in dead} == {arn("jobs")}

    # A slow task (one message a second) can be listed and cancelled.
    started = aws(
        "start-message-move-task",
        "--source-arn",
        arn("jobs-dlq"),
        "--max-number-of-messages-per-second",
        "1",
    )
    handle = started["TaskHandle"]
    [task] = aws("list-message-move-tasks", "--source-arn", arn("jobs-dlq"))["Results"]
    assert task["Status"] == "RUNNING"
    assert task["TaskHandle"] == handle
    assert task["ApproximateNumberOfMessagesToMove"] == 3
    assert task["MaxNumberOfMessagesPerSecond"] == 1
    assert aws("cancel-message-move-task", "--task-handle", handle)[
        "ApproximateNumberOfMessagesMoved"
    ] in (0, 1, 2)
    [task] = aws("list-message-move-tasks", "--source-arn", arn("jobs-dlq"))["Results"]
    assert task["Status"] == "CANCELLED"
    assert "TaskHandle" not in task
    assert "ResourceNotFoundException" in aws.fail(
        "cancel-message-move-task", "--task-handle", handle
    )

    # Without a rate, everything goes back to where it was dead-lettered from.
    aws("start-message-move-task", "--source-arn", arn("jobs-dlq"))
    tasks = aws("list-message-move-tasks", "--source-arn", arn("jobs-dlq"), "--max-results", "10")[
        "Results"
    ]
    assert [t["Status"] for t in tasks] == ["COMPLETED", "CANCELLED"]
    assert attributes(aws, source, "ApproximateNumberOfMessages") == {
        "ApproximateNumberOfMessages": "3"
    }
    assert attributes(aws, dlq, "ApproximateNumberOfMessages") == {
        "ApproximateNumberOfMessages": "0"
    }

    error = aws.fail("start-message-move-task", "--source-arn", arn("unrelated"))
    assert "Source queue must be configured as a Dead Letter Queue." in error


def test_region_from_credential_scope_and_account_from_access_key(aws: AwsCli) -> None:
    url = aws(
        "create-queue",
        "--queue-name",
        "eu",
        env=client_env(AWS_DEFAULT_REGION="eu-west-1", AWS_REGION="eu-west-1"),
    )["QueueUrl"]
    assert url == queue_url(aws.endpoint_url, "eu", region="eu-west-1")
    other = client_env(AWS_ACCESS_KEY_ID="210987654321")
    url = aws("create-queue", "--queue-name", "mine", env=other)["QueueUrl"]
    assert url == queue_url(aws.endpoint_url, "mine", account="210987654321")
    assert aws("list-queues", env=other) == {"QueueUrls": [url]}
    assert "QueueUrls" not in (aws("list-queues") or {})  # the default account has none here


def test_each_cli_speaks_the_protocol_it_stands_for(awscli_executable: Any) -> None:
    """The two CLIs really cover both wire protocols: their bundled SQS model says which."""
    protocol, executable = awscli_executable
    script = (
        "try:\n"
        "    from awscli.botocore import session\n"  # newer CLIs bundle their botocore
        "except ImportError:\n"
        "    from botocore import session\n"
        "print(session.get_session().get_service_model('sqs').protocol)\n"
    )
    out = subprocess.run(
        [str(executable.with_name("python")), "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env=client_env(),
        timeout=60,
    )
    assert out.stdout.strip() == protocol


def test_the_aws_command_itself(awscli_executable: Any, sqs_server: Any) -> None:
    """The installed ``aws`` script, in its own process (the other tests share one process)."""
    _, executable = awscli_executable

    def aws(*args: str) -> Any:
        result = subprocess.run(
            [str(executable), "--endpoint-url", sqs_server.endpoint_url, "sqs", *args],
            capture_output=True,
            text=True,
            env=client_env(),
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    url = aws("create-queue", "--queue-name", "from-the-shell")["QueueUrl"]
    assert url == queue_url(sqs_server.endpoint_url, "from-the-shell")
    assert aws("send-message", "--queue-url", url, "--message-body", "hi")[
        "MD5OfMessageBody"
    ] == md5("hi")
    assert aws("list-queues") == {"QueueUrls": [url]}
