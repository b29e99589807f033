"""AddPermission and RemovePermission, and the Policy document they write."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

ARN = "arn:aws:sqs:us-east-1:123456789012:shared"
ALREADY_EXISTS = "Value {} for parameter Label is invalid. Reason: Already exists."
NO_LABEL = "Value {} for parameter Label is invalid. Reason: can't find label."


def assert_invalid_parameter(exc: pytest.ExceptionInfo[ClientError], message: str) -> None:
    response = exc.value.response
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert response["Error"]["Code"] == "InvalidParameterValue"
    assert response["Error"]["QueryErrorCode"] == "InvalidParameterValueException"
    assert response["Error"]["Type"] == "Sender"
    assert response["Error"]["Message"] == message


@pytest.fixture
def queue_url(sqs_client: Any) -> str:
    return sqs_client.create_queue(QueueName="shared")["QueueUrl"]


def policy_of(client: Any, url: str) -> dict[str, Any] | None:
    got = client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return json.loads(got["Policy"]) if "Policy" in got else None


def add(client: Any, url: str, label: str, accounts: list[str], actions: list[str]) -> None:
    client.add_permission(QueueUrl=url, Label=label, AWSAccountIds=accounts, Actions=actions)


def statement(label: str, principal: Any, action: Any) -> dict[str, Any]:
    return {
        "Sid": label,
        "Effect": "Allow",
        "Principal": {"AWS": principal},
        "Action": action,
        "Resource": ARN,
    }


def document(*statements: dict[str, Any]) -> dict[str, Any]:
    return {
        "Version": "2008-10-17",
        "Id": ARN + "/SQSDefaultPolicy",
        "Statement": list(statements),
    }


def test_add_permission_single_account_single_action(sqs_client, queue_url):
    add(sqs_client, queue_url, "send-only", ["111122223333"], ["SendMessage"])
    assert policy_of(sqs_client, queue_url) == document(
        statement("send-only", "arn:aws:iam::111122223333:root", "SQS:SendMessage")
    )


def test_add_permission_several_accounts_are_a_list(sqs_client, queue_url):
    add(sqs_client, queue_url, "team", ["111122223333", "444455556666"], ["SendMessage"])
    assert policy_of(sqs_client, queue_url) == document(
        statement(
            "team",
            ["arn:aws:iam::111122223333:root", "arn:aws:iam::444455556666:root"],
            "SQS:SendMessage",
        )
    )


def test_add_permission_several_actions_are_a_list(sqs_client, queue_url):
    add(sqs_client, queue_url, "rw", ["111122223333"], ["SendMessage", "ReceiveMessage"])
    assert policy_of(sqs_client, queue_url) == document(
        statement(
            "rw",
            "arn:aws:iam::111122223333:root",
            ["SQS:SendMessage", "SQS:ReceiveMessage"],
        )
    )


def test_add_permission_all_actions(sqs_client, queue_url):
    add(sqs_client, queue_url, "everything", ["111122223333"], ["*"])
    (only,) = policy_of(sqs_client, queue_url)["Statement"]
    assert only["Action"] == "SQS:*"


def test_second_label_adds_a_second_statement(sqs_client, queue_url):
    add(sqs_client, queue_url, "first", ["111122223333"], ["SendMessage"])
    add(sqs_client, queue_url, "second", ["444455556666"], ["DeleteMessage"])
    assert policy_of(sqs_client, queue_url) == document(
        statement("first", "arn:aws:iam::111122223333:root", "SQS:SendMessage"),
        statement("second", "arn:aws:iam::444455556666:root", "SQS:DeleteMessage"),
    )


def test_duplicate_label_is_invalid(sqs_client, queue_url):
    add(sqs_client, queue_url, "dup", ["111122223333"], ["SendMessage"])
    with pytest.raises(ClientError) as exc:
        add(sqs_client, queue_url, "dup", ["444455556666"], ["ReceiveMessage"])
    assert_invalid_parameter(exc, ALREADY_EXISTS.format("dup"))
    assert policy_of(sqs_client, queue_url) == document(
        statement("dup", "arn:aws:iam::111122223333:root", "SQS:SendMessage")
    )


def test_remove_unknown_label_is_invalid(sqs_client, queue_url):
    add(sqs_client, queue_url, "known", ["111122223333"], ["SendMessage"])
    with pytest.raises(ClientError) as exc:
        sqs_client.remove_permission(QueueUrl=queue_url, Label="unknown")
    assert_invalid_parameter(exc, NO_LABEL.format("unknown"))


def test_remove_label_from_queue_without_policy_is_invalid(sqs_client, queue_url):
    with pytest.raises(ClientError) as exc:
        sqs_client.remove_permission(QueueUrl=queue_url, Label="ghost")
    assert_invalid_parameter(exc, NO_LABEL.format("ghost"))


def test_remove_one_of_two_labels_keeps_the_other(sqs_client, queue_url):
    add(sqs_client, queue_url, "first", ["111122223333"], ["SendMessage"])
    add(sqs_client, queue_url, "second", ["444455556666"], ["DeleteMessage"])
    sqs_client.remove_permission(QueueUrl=queue_url, Label="first")
    assert policy_of(sqs_client, queue_url) == document(
        statement("second", "arn:aws:iam::444455556666:root", "SQS:DeleteMessage")
    )


def test_removing_the_last_label_removes_the_policy(sqs_client, queue_url):
    add(sqs_client, queue_url, "only", ["111122223333"], ["SendMessage"])
    sqs_client.remove_permission(QueueUrl=queue_url, Label="only")
    assert policy_of(sqs_client, queue_url) is None
    response = sqs_client.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["Policy"])
    assert "Policy" not in response.get("Attributes", {})


def test_label_can_be_added_again_after_removal(sqs_client, queue_url):
    add(sqs_client, queue_url, "again", ["111122223333"], ["SendMessage"])
    sqs_client.remove_permission(QueueUrl=queue_url, Label="again")
    add(sqs_client, queue_url, "again", ["444455556666"], ["ReceiveMessage"])
    assert policy_of(sqs_client, queue_url) == document(
        statement("again", "arn:aws:iam::444455556666:root", "SQS:ReceiveMessage")
    )


def test_add_permission_to_unknown_queue(sqs_client):
    with pytest.raises(sqs_client.exceptions.QueueDoesNotExist) as exc:
        add(
            sqs_client,
            "https://sqs.us-east-1.amazonaws.com/123456789012/missing",
            "x",
            ["111122223333"],
            ["SendMessage"],
        )
    assert exc.value.response["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue"


def test_add_permission_by_queue_name(sqs_client, queue_url):
    add(sqs_client, "shared", "by-name", ["111122223333"], ["SendMessage"])
    assert policy_of(sqs_client, queue_url)["Statement"][0]["Sid"] == "by-name"


def test_concurrent_add_permission_calls_keep_every_statement(sqs_client, queue_url):
    import threading

    import boto3

    clients = [boto3.client("sqs", region_name="us-east-1") for _ in range(8)]
    errors: list[BaseException] = []

    def add_labels(n: int) -> None:
        try:
            for i in range(10):
                add(clients[n], queue_url, f"t{n}-{i}", ["111122223333"], ["SendMessage"])
        except BaseException as exc:  # handed to the main thread
            errors.append(exc)

    threads = [threading.Thread(target=add_labels, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors
    policy = policy_of(sqs_client, queue_url)
    assert policy is not None
    assert len(policy["Statement"]) == 80
