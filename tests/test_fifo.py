"""FIFO queues: creation, sending, ordering, group blocking and deduplication, as real SQS does."""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

import pytest
from botocore.exceptions import ClientError
from sqs_asserts import assert_error

pytestmark = pytest.mark.sqsmock(clock="frozen")

GROUP_ID_INVALID = (
    "Value {} for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include "
    "alphanumeric and punctuation characters. 1 to 128 in length."
)
FIFO_DELAY_INVALID = (
    "Value {} for parameter DelaySeconds is invalid. Reason: The request include parameter "
    "that is not valid for this queue type."
)
NO_DEDUP = (
    "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId "
    "provided explicitly"
)
HANDLE_EXPIRED = (
    "Value {} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired."
)
STANDARD_ALL = {
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesDelayed",
    "ApproximateNumberOfMessagesNotVisible",
    "CreatedTimestamp",
    "LastModifiedTimestamp",
    "DelaySeconds",
    "MaximumMessageSize",
    "MessageRetentionPeriod",
    "QueueArn",
    "ReceiveMessageWaitTimeSeconds",
    "SqsManagedSseEnabled",
    "VisibilityTimeout",
}
FIFO_DEFAULTS = {
    "FifoQueue": "true",
    "ContentBasedDeduplication": "false",
    "DeduplicationScope": "queue",
    "FifoThroughputLimit": "perQueue",
}
PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"


def assert_invalid_parameter(
    exc: pytest.ExceptionInfo[ClientError], message: str | None = None
) -> None:
    assert_error(exc, "InvalidParameterValue", "InvalidParameterValueException", message)


def create_fifo(client: Any, name: str = "orders.fifo", **attributes: str) -> str:
    return client.create_queue(QueueName=name, Attributes={"FifoQueue": "true", **attributes})[
        "QueueUrl"
    ]


@pytest.fixture
def fifo_url(sqs_client: Any) -> str:
    return create_fifo(sqs_client)


@pytest.fixture
def cbd_url(sqs_client: Any) -> str:
    """A FIFO queue with content-based deduplication."""
    return create_fifo(sqs_client, "cbd.fifo", ContentBasedDeduplication="true")


def send(
    client: Any, url: str, body: str, group: str = "g", dedup: str | None = None, **kwargs: Any
) -> dict[str, Any]:
    """Send to a FIFO queue; the dedup id defaults to the body."""
    return client.send_message(
        QueueUrl=url,
        MessageBody=body,
        MessageGroupId=group,
        MessageDeduplicationId=body if dedup is None else dedup,
        **kwargs,
    )


def receive(client: Any, url: str, count: int = 10, **kwargs: Any) -> list[dict[str, Any]]:
    return client.receive_message(QueueUrl=url, MaxNumberOfMessages=count, **kwargs).get(
        "Messages", []
    )


def bodies(messages: list[dict[str, Any]]) -> list[str]:
    return [m["Body"] for m in messages]


def delete_all(client: Any, url: str, messages: list[dict[str, Any]]) -> None:
    for message in messages:
        client.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])


def drain(client: Any, url: str) -> list[str]:
    """Receive and delete until the queue returns nothing; the bodies in receive order."""
    out: list[str] = []
    while True:
        messages = receive(client, url)
        if not messages:
            return out
        out += bodies(messages)
        delete_all(client, url, messages)


def attributes(client: Any, url: str, *names: str) -> dict[str, str]:
    return client.get_queue_attributes(QueueUrl=url, AttributeNames=list(names) or ["All"])[
        "Attributes"
    ]


# --- creation ---------------------------------------------------------------------------------


def test_create_fifo_queue(sqs_client):
    url = create_fifo(sqs_client)
    assert url == "https://sqs.us-east-1.amazonaws.com/123456789012/orders.fifo"
    assert sqs_client.get_queue_url(QueueName="orders.fifo")["QueueUrl"] == url


def test_fifo_flag_without_suffix_is_invalid(sqs_client):
    with pytest.raises(ClientError) as exc:
        sqs_client.create_queue(QueueName="orders", Attributes={"FifoQueue": "true"})
    assert_invalid_parameter(exc)


def test_standard_queue_with_fifo_suffix_is_invalid(sqs_client):
    with pytest.raises(ClientError) as exc:
        sqs_client.create_queue(QueueName="orders.fifo")
    assert_invalid_parameter(exc)


def test_fifo_name_of_80_characters_including_suffix_is_accepted(sqs_client):
    name = "q" * 75 + ".fifo"
    url = create_fifo(sqs_client, name)
    assert url.endswith("/" + name)


def test_fifo_name_of_81_characters_including_suffix_is_invalid(sqs_client):
    with pytest.raises(ClientError) as exc:
        create_fifo(sqs_client, "q" * 76 + ".fifo")
    assert_invalid_parameter(exc)


@pytest.mark.parametrize("flag", ["true", "True"])
def test_fifo_flag_accepts_capitalised_true(sqs_client, flag):
    url = sqs_client.create_queue(QueueName="cap.fifo", Attributes={"FifoQueue": flag})["QueueUrl"]
    assert attributes(sqs_client, url, "FifoQueue") == {"FifoQueue": "true"}


def test_get_all_attributes_of_new_fifo_queue(sqs_client, fifo_url):
    got = attributes(sqs_client, fifo_url)
    assert set(got) == STANDARD_ALL | set(FIFO_DEFAULTS)
    for name, value in FIFO_DEFAULTS.items():
        assert got[name] == value
    assert got["QueueArn"] == "arn:aws:sqs:us-east-1:123456789012:orders.fifo"


def test_content_based_deduplication_can_be_enabled_at_creation(sqs_client, cbd_url):
    assert attributes(sqs_client, cbd_url, "ContentBasedDeduplication") == {
        "ContentBasedDeduplication": "true"
    }


def test_creating_the_same_fifo_queue_again_returns_its_url(sqs_client, fifo_url):
    assert create_fifo(sqs_client) == fifo_url


def test_fifo_queue_cannot_be_turned_into_a_standard_queue(sqs_client, fifo_url):
    with pytest.raises(ClientError) as exc:
        sqs_client.set_queue_attributes(QueueUrl=fifo_url, Attributes={"FifoQueue": "false"})
    assert_error(exc, "InvalidAttributeValue", "InvalidAttributeValue")
    assert exc.value.response["Error"]["Message"].endswith(
        "Reason: Modifying queue type is not supported."
    )
    assert attributes(sqs_client, fifo_url, "FifoQueue") == {"FifoQueue": "true"}


def test_per_group_throughput_needs_message_group_scope_at_creation(sqs_client):
    with pytest.raises(ClientError) as exc:
        create_fifo(sqs_client, "tp.fifo", FifoThroughputLimit="perMessageGroupId")
    assert_error(exc, "InvalidAttributeValue", "InvalidAttributeValue")


def test_per_group_throughput_with_message_group_scope_is_accepted(sqs_client):
    url = create_fifo(
        sqs_client,
        "tp.fifo",
        FifoThroughputLimit="perMessageGroupId",
        DeduplicationScope="messageGroup",
    )
    got = attributes(sqs_client, url, "FifoThroughputLimit", "DeduplicationScope")
    assert got == {"FifoThroughputLimit": "perMessageGroupId", "DeduplicationScope": "messageGroup"}


def test_per_group_throughput_needs_message_group_scope_when_set_later(sqs_client, fifo_url):
    with pytest.raises(ClientError) as exc:
        sqs_client.set_queue_attributes(
            QueueUrl=fifo_url, Attributes={"FifoThroughputLimit": "perMessageGroupId"}
        )
    assert_error(exc, "InvalidAttributeValue", "InvalidAttributeValue")


def test_dedup_scope_changed_to_message_group_later_keeps_queue_scope(sqs_client, fifo_url):
    sqs_client.set_queue_attributes(
        QueueUrl=fifo_url, Attributes={"DeduplicationScope": "messageGroup"}
    )
    send(sqs_client, fifo_url, "first", group="a", dedup="same")
    send(sqs_client, fifo_url, "second", group="b", dedup="same")
    assert drain(sqs_client, fifo_url) == ["first"]


def test_dedup_scope_changed_to_queue_later_keeps_message_group_scope(sqs_client):
    url = create_fifo(sqs_client, "scoped.fifo", DeduplicationScope="messageGroup")
    sqs_client.set_queue_attributes(QueueUrl=url, Attributes={"DeduplicationScope": "queue"})
    send(sqs_client, url, "first", group="a", dedup="same")
    send(sqs_client, url, "second", group="b", dedup="same")
    assert sorted(drain(sqs_client, url)) == ["first", "second"]


# --- sending ----------------------------------------------------------------------------------


def test_send_response_has_sequence_number(sqs_client, fifo_url):
    response = send(sqs_client, fifo_url, "message")
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert set(response) == {"MessageId", "MD5OfMessageBody", "SequenceNumber", "ResponseMetadata"}
    assert response["MD5OfMessageBody"] == "78e731027d8fd50ed642340b7c9a63b3"
    assert response["SequenceNumber"].isdigit()


def test_sequence_numbers_strictly_increase_across_the_queue(sqs_client, fifo_url):
    numbers = [
        int(send(sqs_client, fifo_url, f"m{i}", group=f"g{i % 3}")["SequenceNumber"])
        for i in range(9)
    ]
    assert all(a < b for a, b in itertools.pairwise(numbers))


def test_standard_queue_send_has_no_sequence_number(sqs_client):
    url = sqs_client.create_queue(QueueName="plain")["QueueUrl"]
    response = sqs_client.send_message(QueueUrl=url, MessageBody="x", MessageGroupId="g")
    assert "SequenceNumber" not in response


def test_missing_message_group_id_is_missing_parameter(sqs_client, fifo_url):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(QueueUrl=fifo_url, MessageBody="x", MessageDeduplicationId="d")
    assert_error(
        exc,
        "MissingParameter",
        "MissingRequiredParameterException",
        "The request must contain the parameter MessageGroupId.",
    )


@pytest.mark.parametrize("group", ["with space", "x" * 129, "tab\tid", "caf\u00e9"])
def test_invalid_message_group_id(sqs_client, fifo_url, group):
    with pytest.raises(ClientError) as exc:
        send(sqs_client, fifo_url, "x", group=group)
    assert_invalid_parameter(exc, GROUP_ID_INVALID.format(group))


@pytest.mark.parametrize("group", ["a", "x" * 128, PUNCTUATION, "Group-1_A.b"])
def test_valid_message_group_id_is_returned_on_receive(sqs_client, fifo_url, group):
    send(sqs_client, fifo_url, "x", group=group)
    (message,) = receive(sqs_client, fifo_url, MessageSystemAttributeNames=["MessageGroupId"])
    assert message["Attributes"]["MessageGroupId"] == group


@pytest.mark.parametrize("dedup", ["with space", "x" * 129, "caf\u00e9"])
def test_invalid_message_deduplication_id(sqs_client, fifo_url, dedup):
    with pytest.raises(ClientError) as exc:
        send(sqs_client, fifo_url, "x", dedup=dedup)
    assert_invalid_parameter(exc)


@pytest.mark.parametrize("dedup", ["x" * 128, PUNCTUATION])
def test_valid_message_deduplication_id_is_returned_on_receive(sqs_client, fifo_url, dedup):
    send(sqs_client, fifo_url, "x", dedup=dedup)
    (message,) = receive(
        sqs_client, fifo_url, MessageSystemAttributeNames=["MessageDeduplicationId"]
    )
    assert message["Attributes"]["MessageDeduplicationId"] == dedup


@pytest.mark.parametrize("delay", [2, 900])
def test_per_message_delay_is_invalid_on_fifo(sqs_client, fifo_url, delay):
    with pytest.raises(ClientError) as exc:
        send(sqs_client, fifo_url, "x", DelaySeconds=delay)
    assert_invalid_parameter(exc, FIFO_DELAY_INVALID.format(delay))
    assert receive(sqs_client, fifo_url) == []


def test_per_message_delay_zero_is_accepted_and_queue_delay_applies(sqs_client, sqs_mock):
    url = create_fifo(sqs_client, "delayed.fifo", DelaySeconds="10")
    send(sqs_client, url, "x", DelaySeconds=0)
    assert receive(sqs_client, url) == []
    sqs_mock.clock.advance(10)
    assert bodies(receive(sqs_client, url)) == ["x"]


def test_missing_dedup_id_without_content_based_dedup(sqs_client, fifo_url):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(QueueUrl=fifo_url, MessageBody="x", MessageGroupId="g")
    assert_invalid_parameter(exc, NO_DEDUP)


# --- ordering ---------------------------------------------------------------------------------


def test_strict_order_within_a_group(sqs_client, fifo_url):
    for i in range(10):
        send(sqs_client, fifo_url, f"m{i}")
    assert bodies(receive(sqs_client, fifo_url)) == [f"m{i}" for i in range(10)]


def test_strict_order_within_a_group_over_many_receives(sqs_client, fifo_url):
    for i in range(7):
        send(sqs_client, fifo_url, f"m{i}")
    seen: list[str] = []
    for _ in range(7):
        messages = receive(sqs_client, fifo_url, count=1)
        seen += bodies(messages)
        delete_all(sqs_client, fifo_url, messages)
    assert seen == [f"m{i}" for i in range(7)]


def test_one_receive_returns_whole_groups_in_order(sqs_client, fifo_url):
    for i in range(3):
        send(sqs_client, fifo_url, f"a{i}", group="a")
        send(sqs_client, fifo_url, f"b{i}", group="b")
    got = bodies(receive(sqs_client, fifo_url))
    assert got in (
        ["a0", "a1", "a2", "b0", "b1", "b2"],
        ["b0", "b1", "b2", "a0", "a1", "a2"],
    )


def test_receive_count_is_filled_from_one_group_first(sqs_client, fifo_url):
    for i in range(3):
        send(sqs_client, fifo_url, f"a{i}", group="a")
        send(sqs_client, fifo_url, f"b{i}", group="b")
    got = bodies(receive(sqs_client, fifo_url, count=2))
    assert got in (["a0", "a1"], ["b0", "b1"])


def test_group_just_received_goes_to_the_back_of_the_rotation(sqs_client, fifo_url):
    send(sqs_client, fifo_url, "a0", group="a")
    send(sqs_client, fifo_url, "a1", group="a")
    send(sqs_client, fifo_url, "b0", group="b")
    send(sqs_client, fifo_url, "c0", group="c")
    groups: list[str] = []
    for _ in range(4):
        messages = receive(sqs_client, fifo_url, count=1)
        assert len(messages) == 1
        groups.append(messages[0]["Body"][0])
        delete_all(sqs_client, fifo_url, messages)
    assert len(set(groups[:3])) == 3
    assert sorted(groups) == ["a", "a", "b", "c"]


# --- group blocking ---------------------------------------------------------------------------


def test_group_with_message_in_flight_is_blocked(sqs_client, fifo_url):
    send(sqs_client, fifo_url, "a0", group="a")
    send(sqs_client, fifo_url, "a1", group="a")
    assert bodies(receive(sqs_client, fifo_url, count=1)) == ["a0"]
    assert receive(sqs_client, fifo_url) == []


def test_new_send_does_not_unblock_a_group(sqs_client, fifo_url):
    send(sqs_client, fifo_url, "a0", group="a")
    assert bodies(receive(sqs_client, fifo_url)) == ["a0"]
    send(sqs_client, fifo_url, "a1", group="a")
    assert receive(sqs_client, fifo_url) == []


def test_blocking_is_per_group(sqs_client, fifo_url):
    send(sqs_client, fifo_url, "a0", group="a")
    send(sqs_client, fifo_url, "a1", group="a")
    send(sqs_client, fifo_url, "b0", group="b")
    first = receive(sqs_client, fifo_url, count=1)
    assert bodies(first) == ["a0"]
    assert bodies(receive(sqs_client, fifo_url)) == ["b0"]


def test_deleting_in_flight_messages_unblocks_the_group(sqs_client, fifo_url):
    send(sqs_client, fifo_url, "a0", group="a")
    send(sqs_client, fifo_url, "a1", group="a")
    messages = receive(sqs_client, fifo_url, count=1)
    delete_all(sqs_client, fifo_url, messages)
    assert bodies(receive(sqs_client, fifo_url)) == ["a1"]


def test_group_stays_blocked_until_every_in_flight_message_is_deleted(sqs_client, fifo_url):
    for i in range(3):
        send(sqs_client, fifo_url, f"a{i}", group="a")
    messages = receive(sqs_client, fifo_url, count=2)
    assert bodies(messages) == ["a0", "a1"]
    delete_all(sqs_client, fifo_url, messages[:1])
    assert receive(sqs_client, fifo_url) == []
    delete_all(sqs_client, fifo_url, messages[1:])
    assert bodies(receive(sqs_client, fifo_url)) == ["a2"]


def test_lapsed_visibility_unblocks_the_group_head_first(sqs_client, sqs_mock, fifo_url):
    send(sqs_client, fifo_url, "a0", group="a")
    send(sqs_client, fifo_url, "a1", group="a")
    assert bodies(receive(sqs_client, fifo_url, count=1)) == ["a0"]
    sqs_mock.clock.advance(29)
    assert receive(sqs_client, fifo_url) == []
    sqs_mock.clock.advance(2)
    assert bodies(receive(sqs_client, fifo_url)) == ["a0", "a1"]


def test_visibility_zero_unblocks_the_group(sqs_client, fifo_url):
    send(sqs_client, fifo_url, "a0", group="a")
    send(sqs_client, fifo_url, "a1", group="a")
    (message,) = receive(sqs_client, fifo_url, count=1)
    sqs_client.change_message_visibility(
        QueueUrl=fifo_url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
    )
    assert bodies(receive(sqs_client, fifo_url)) == ["a0", "a1"]


def test_message_behind_an_invisible_head_is_not_returned(sqs_client, sqs_mock, fifo_url):
    send(sqs_client, fifo_url, "a0", group="a")
    send(sqs_client, fifo_url, "a1", group="a")
    messages = receive(sqs_client, fifo_url, count=2)
    assert bodies(messages) == ["a0", "a1"]
    sqs_client.change_message_visibility(
        QueueUrl=fifo_url, ReceiptHandle=messages[1]["ReceiptHandle"], VisibilityTimeout=0
    )
    assert receive(sqs_client, fifo_url) == []
    sqs_mock.clock.advance(31)
    again = receive(sqs_client, fifo_url)
    assert bodies(again)[0] == "a0"
    assert bodies(again) == ["a0", "a1"]


def test_blocked_group_is_counted_in_approximate_number_of_messages(sqs_client, fifo_url):
    for i in range(3):
        send(sqs_client, fifo_url, f"a{i}", group="a")
    receive(sqs_client, fifo_url, count=1)
    got = attributes(
        sqs_client,
        fifo_url,
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesNotVisible",
    )
    assert got == {
        "ApproximateNumberOfMessages": "2",
        "ApproximateNumberOfMessagesNotVisible": "1",
    }


# --- deduplication ----------------------------------------------------------------------------


def test_duplicate_is_accepted_but_not_delivered(sqs_client, fifo_url):
    send(sqs_client, fifo_url, "first", dedup="d")
    duplicate = send(sqs_client, fifo_url, "second", dedup="d")
    assert duplicate["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert duplicate["MessageId"]
    assert drain(sqs_client, fifo_url) == ["first"]


def test_duplicate_is_not_counted(sqs_client, fifo_url):
    send(sqs_client, fifo_url, "first", dedup="d")
    send(sqs_client, fifo_url, "second", dedup="d")
    assert attributes(sqs_client, fifo_url, "ApproximateNumberOfMessages") == {
        "ApproximateNumberOfMessages": "1"
    }


def test_dedup_window_is_five_minutes_from_first_send(sqs_client, sqs_mock, fifo_url):
    send(sqs_client, fifo_url, "first", dedup="d")
    sqs_mock.clock.advance(299)
    send(sqs_client, fifo_url, "at-4m59s", dedup="d")
    sqs_mock.clock.advance(1)
    send(sqs_client, fifo_url, "at-5m00s", dedup="d")
    assert drain(sqs_client, fifo_url) == ["first", "at-5m00s"]


def test_dedup_id_accepted_again_long_after_the_window(sqs_client, sqs_mock, fifo_url):
    send(sqs_client, fifo_url, "first", dedup="d")
    sqs_mock.clock.advance(3600)
    send(sqs_client, fifo_url, "later", dedup="d")
    assert drain(sqs_client, fifo_url) == ["first", "later"]


def test_dedup_is_kept_after_the_message_is_deleted(sqs_client, sqs_mock, fifo_url):
    send(sqs_client, fifo_url, "first", dedup="d")
    assert drain(sqs_client, fifo_url) == ["first"]
    sqs_mock.clock.advance(60)
    send(sqs_client, fifo_url, "again", dedup="d")
    assert receive(sqs_client, fifo_url) == []


def test_queue_scope_dedups_across_groups(sqs_client, fifo_url):
    send(sqs_client, fifo_url, "first", group="a", dedup="same")
    send(sqs_client, fifo_url, "second", group="b", dedup="same")
    assert drain(sqs_client, fifo_url) == ["first"]


def test_message_group_scope_dedups_per_group(sqs_client):
    url = create_fifo(sqs_client, "scoped.fifo", DeduplicationScope="messageGroup")
    send(sqs_client, url, "first", group="a", dedup="same")
    send(sqs_client, url, "second", group="b", dedup="same")
    send(sqs_client, url, "third", group="a", dedup="same")
    assert sorted(drain(sqs_client, url)) == ["first", "second"]


def test_content_based_dedup_id_is_sha256_of_the_body(sqs_client, cbd_url):
    sqs_client.send_message(QueueUrl=cbd_url, MessageBody="hello", MessageGroupId="g")
    (message,) = receive(sqs_client, cbd_url, MessageSystemAttributeNames=["All"])
    expected = hashlib.sha256(b"hello").hexdigest()
    assert message["Attributes"]["MessageDeduplicationId"] == expected


def test_content_based_dedup_suppresses_same_body(sqs_client, cbd_url):
    sqs_client.send_message(QueueUrl=cbd_url, MessageBody="hello", MessageGroupId="g")
    sqs_client.send_message(QueueUrl=cbd_url, MessageBody="hello", MessageGroupId="g")
    sqs_client.send_message(QueueUrl=cbd_url, MessageBody="other", MessageGroupId="g")
    assert drain(sqs_client, cbd_url) == ["hello", "other"]


def test_content_based_dedup_ignores_message_attributes(sqs_client, cbd_url):
    sqs_client.send_message(
        QueueUrl=cbd_url,
        MessageBody="hello",
        MessageGroupId="g",
        MessageAttributes={"k": {"DataType": "String", "StringValue": "one"}},
    )
    sqs_client.send_message(
        QueueUrl=cbd_url,
        MessageBody="hello",
        MessageGroupId="g",
        MessageAttributes={"k": {"DataType": "String", "StringValue": "two"}},
    )
    assert drain(sqs_client, cbd_url) == ["hello"]


def test_explicit_dedup_id_wins_over_content(sqs_client, cbd_url):
    send(sqs_client, cbd_url, "hello", dedup="one")
    send(sqs_client, cbd_url, "hello", dedup="two")
    messages = receive(sqs_client, cbd_url, MessageSystemAttributeNames=["MessageDeduplicationId"])
    assert bodies(messages) == ["hello", "hello"]
    assert [m["Attributes"]["MessageDeduplicationId"] for m in messages] == ["one", "two"]


def test_explicit_dedup_id_equal_to_body_hash_is_a_duplicate(sqs_client, cbd_url):
    sqs_client.send_message(QueueUrl=cbd_url, MessageBody="hello", MessageGroupId="g")
    send(sqs_client, cbd_url, "different", dedup=hashlib.sha256(b"hello").hexdigest())
    assert drain(sqs_client, cbd_url) == ["hello"]


def test_purge_clears_the_dedup_cache(sqs_client, fifo_url):
    send(sqs_client, fifo_url, "first", dedup="d")
    sqs_client.purge_queue(QueueUrl=fifo_url)
    send(sqs_client, fifo_url, "second", dedup="d")
    assert drain(sqs_client, fifo_url) == ["second"]


# --- ReceiveRequestAttemptId ------------------------------------------------------------------


def test_retry_with_same_attempt_id_returns_same_messages(sqs_client, fifo_url):
    for i in range(3):
        send(sqs_client, fifo_url, f"a{i}", group="a")
    first = receive(sqs_client, fifo_url, count=2, ReceiveRequestAttemptId="attempt-1")
    retry = receive(sqs_client, fifo_url, count=2, ReceiveRequestAttemptId="attempt-1")
    assert bodies(first) == ["a0", "a1"]
    assert [m["MessageId"] for m in retry] == [m["MessageId"] for m in first]
    assert [m["ReceiptHandle"] for m in retry] == [m["ReceiptHandle"] for m in first]


def test_retry_handles_can_delete_the_messages(sqs_client, fifo_url):
    send(sqs_client, fifo_url, "a0", group="a")
    send(sqs_client, fifo_url, "a1", group="a")
    receive(sqs_client, fifo_url, count=1, ReceiveRequestAttemptId="attempt-1")
    retry = receive(sqs_client, fifo_url, count=1, ReceiveRequestAttemptId="attempt-1")
    delete_all(sqs_client, fifo_url, retry)
    assert bodies(receive(sqs_client, fifo_url)) == ["a1"]


def test_different_attempt_id_does_not_return_the_same_messages(sqs_client, fifo_url):
    send(sqs_client, fifo_url, "a0", group="a")
    send(sqs_client, fifo_url, "a1", group="a")
    assert bodies(receive(sqs_client, fifo_url, ReceiveRequestAttemptId="attempt-1")) == [
        "a0",
        "a1",
    ]
    assert receive(sqs_client, fifo_url, ReceiveRequestAttemptId="attempt-2") == []


# --- receipt handles --------------------------------------------------------------------------


def test_delete_with_lapsed_handle_is_invalid(sqs_client, sqs_mock, fifo_url):
    send(sqs_client, fifo_url, "a0")
    (message,) = receive(sqs_client, fifo_url, VisibilityTimeout=10)
    sqs_mock.clock.advance(11)
    handle = message["ReceiptHandle"]
    with pytest.raises(ClientError) as exc:
        sqs_client.delete_message(QueueUrl=fifo_url, ReceiptHandle=handle)
    assert_invalid_parameter(exc, HANDLE_EXPIRED.format(handle))
    assert bodies(receive(sqs_client, fifo_url)) == ["a0"]


def test_delete_within_visibility_succeeds(sqs_client, sqs_mock, fifo_url):
    send(sqs_client, fifo_url, "a0")
    (message,) = receive(sqs_client, fifo_url, VisibilityTimeout=10)
    sqs_mock.clock.advance(9)
    sqs_client.delete_message(QueueUrl=fifo_url, ReceiptHandle=message["ReceiptHandle"])
    sqs_mock.clock.advance(60)
    assert receive(sqs_client, fifo_url) == []


def test_extending_visibility_in_time_keeps_handle_valid(sqs_client, sqs_mock, fifo_url):
    send(sqs_client, fifo_url, "a0")
    (message,) = receive(sqs_client, fifo_url, VisibilityTimeout=10)
    sqs_mock.clock.advance(8)
    sqs_client.change_message_visibility(
        QueueUrl=fifo_url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=30
    )
    sqs_mock.clock.advance(20)
    sqs_client.delete_message(QueueUrl=fifo_url, ReceiptHandle=message["ReceiptHandle"])
    sqs_mock.clock.advance(60)
    assert receive(sqs_client, fifo_url) == []


# --- batches ----------------------------------------------------------------------------------


def test_batch_entry_missing_group_id_fails_whole_request(sqs_client, fifo_url):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message_batch(
            QueueUrl=fifo_url,
            Entries=[
                {
                    "Id": "ok",
                    "MessageBody": "a",
                    "MessageGroupId": "g",
                    "MessageDeduplicationId": "a",
                },
                {"Id": "bad", "MessageBody": "b", "MessageDeduplicationId": "b"},
            ],
        )
    assert_invalid_parameter(exc)
    assert receive(sqs_client, fifo_url) == []


def test_batch_entry_missing_dedup_id_fails_whole_request(sqs_client, fifo_url):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message_batch(
            QueueUrl=fifo_url,
            Entries=[
                {
                    "Id": "ok",
                    "MessageBody": "a",
                    "MessageGroupId": "g",
                    "MessageDeduplicationId": "a",
                },
                {"Id": "bad", "MessageBody": "b", "MessageGroupId": "g"},
            ],
        )
    assert_invalid_parameter(exc)
    assert receive(sqs_client, fifo_url) == []


def test_batch_entries_keep_order_and_get_sequence_numbers(sqs_client, fifo_url):
    response = sqs_client.send_message_batch(
        QueueUrl=fifo_url,
        Entries=[
            {
                "Id": f"e{i}",
                "MessageBody": f"m{i}",
                "MessageGroupId": "g",
                "MessageDeduplicationId": f"m{i}",
            }
            for i in range(5)
        ],
    )
    assert "Failed" not in response
    by_id = {entry["Id"]: entry for entry in response["Successful"]}
    numbers = [int(by_id[f"e{i}"]["SequenceNumber"]) for i in range(5)]
    assert all(a < b for a, b in itertools.pairwise(numbers))
    assert bodies(receive(sqs_client, fifo_url)) == [f"m{i}" for i in range(5)]


def test_batch_with_content_based_dedup_needs_no_dedup_ids(sqs_client, cbd_url):
    response = sqs_client.send_message_batch(
        QueueUrl=cbd_url,
        Entries=[
            {"Id": "one", "MessageBody": "same", "MessageGroupId": "g"},
            {"Id": "two", "MessageBody": "same", "MessageGroupId": "g"},
            {"Id": "three", "MessageBody": "other", "MessageGroupId": "g"},
        ],
    )
    assert "Failed" not in response
    assert len(response["Successful"]) == 3
    assert drain(sqs_client, cbd_url) == ["same", "other"]


# --- attributes on receive --------------------------------------------------------------------


def test_fifo_system_attributes_with_all(sqs_client, fifo_url):
    sent = send(sqs_client, fifo_url, "x", group="grp", dedup="dd")
    (message,) = receive(sqs_client, fifo_url, MessageSystemAttributeNames=["All"])
    got = message["Attributes"]
    assert got["MessageGroupId"] == "grp"
    assert got["MessageDeduplicationId"] == "dd"
    assert got["SequenceNumber"] == sent["SequenceNumber"]
    assert message["MessageId"] == sent["MessageId"]


@pytest.mark.parametrize("name", ["MessageGroupId", "MessageDeduplicationId", "SequenceNumber"])
def test_fifo_system_attribute_by_name(sqs_client, fifo_url, name):
    sent = send(sqs_client, fifo_url, "x", group="grp", dedup="dd")
    expected = {
        "MessageGroupId": "grp",
        "MessageDeduplicationId": "dd",
        "SequenceNumber": sent["SequenceNumber"],
    }
    (message,) = receive(sqs_client, fifo_url, MessageSystemAttributeNames=[name])
    assert message["Attributes"] == {name: expected[name]}


def test_fifo_system_attributes_with_legacy_attribute_names(sqs_client, fifo_url):
    sent = send(sqs_client, fifo_url, "x", group="grp", dedup="dd")
    (message,) = receive(sqs_client, fifo_url, AttributeNames=["SequenceNumber"])
    assert message["Attributes"] == {"SequenceNumber": sent["SequenceNumber"]}


# --- fair queues (standard queues with MessageGroupId) ----------------------------------------


def test_standard_queue_accepts_message_group_id(sqs_client):
    url = sqs_client.create_queue(QueueName="fair")["QueueUrl"]
    response = sqs_client.send_message(QueueUrl=url, MessageBody="x", MessageGroupId="tenant-1")
    assert "SequenceNumber" not in response
    (message,) = receive(sqs_client, url, MessageSystemAttributeNames=["All"])
    assert message["Attributes"]["MessageGroupId"] == "tenant-1"
    assert "SequenceNumber" not in message["Attributes"]
    assert "MessageDeduplicationId" not in message["Attributes"]


def test_standard_queue_omits_requested_sequence_number(sqs_client):
    url = sqs_client.create_queue(QueueName="fair")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="x", MessageGroupId="tenant-1")
    (message,) = receive(sqs_client, url, MessageSystemAttributeNames=["SequenceNumber"])
    assert "SequenceNumber" not in message.get("Attributes", {})


def test_standard_queue_group_does_not_block(sqs_client):
    url = sqs_client.create_queue(QueueName="fair")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="a0", MessageGroupId="a")
    sqs_client.send_message(QueueUrl=url, MessageBody="a1", MessageGroupId="a")
    first = receive(sqs_client, url, count=1)
    second = receive(sqs_client, url, count=1)
    assert sorted(bodies(first + second)) == ["a0", "a1"]


# -- the head rule: a group is ready when its first message is visible -------------------------


def _send_group(client: Any, url: str, *bodies: str, group: str = "g") -> None:
    for body in bodies:
        client.send_message(
            QueueUrl=url, MessageBody=body, MessageGroupId=group, MessageDeduplicationId=body
        )


def test_head_made_visible_unblocks_while_later_messages_are_in_flight(sqs_client, fifo_url):
    _send_group(sqs_client, fifo_url, "A", "B", "C")
    got = sqs_client.receive_message(QueueUrl=fifo_url, MaxNumberOfMessages=2)["Messages"]
    assert [m["Body"] for m in got] == ["A", "B"]
    sqs_client.change_message_visibility(
        QueueUrl=fifo_url, ReceiptHandle=got[0]["ReceiptHandle"], VisibilityTimeout=0
    )
    again = sqs_client.receive_message(QueueUrl=fifo_url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in again] == ["A"]  # never C ahead of B, still in flight


def test_head_that_lapses_unblocks_while_a_later_message_was_extended(
    sqs_client, sqs_mock, fifo_url
):
    _send_group(sqs_client, fifo_url, "A", "B", "C")
    got = sqs_client.receive_message(
        QueueUrl=fifo_url, MaxNumberOfMessages=2, VisibilityTimeout=30
    )["Messages"]
    sqs_client.change_message_visibility(
        QueueUrl=fifo_url, ReceiptHandle=got[1]["ReceiptHandle"], VisibilityTimeout=300
    )
    sqs_mock.clock.advance(31)
    again = sqs_client.receive_message(QueueUrl=fifo_url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in again] == ["A"]


def test_attempt_id_retry_after_the_visibility_lapsed_is_a_new_receive(
    sqs_client, sqs_mock, fifo_url
):
    _send_group(sqs_client, fifo_url, "A")
    first = sqs_client.receive_message(
        QueueUrl=fifo_url, VisibilityTimeout=10, ReceiveRequestAttemptId="try-1"
    )["Messages"][0]
    sqs_mock.clock.advance(11)
    retry = sqs_client.receive_message(
        QueueUrl=fifo_url, VisibilityTimeout=10, ReceiveRequestAttemptId="try-1"
    )["Messages"][0]
    assert retry["MessageId"] == first["MessageId"]
    assert retry["ReceiptHandle"] != first["ReceiptHandle"]  # a fresh receive, a fresh handle
    assert sqs_client.receive_message(QueueUrl=fifo_url).get("Messages") is None
    sqs_client.delete_message(QueueUrl=fifo_url, ReceiptHandle=retry["ReceiptHandle"])


def test_attempt_id_retry_within_the_window_restarts_the_visibility_timeout(
    sqs_client, sqs_mock, fifo_url
):
    # AWS: "If a retry occurs within the deduplication interval, it resets the visibility
    # timeout." The first deadline (t=10) passes; the retry's own (t=8+10) holds.
    _send_group(sqs_client, fifo_url, "A", "B")
    request = {
        "QueueUrl": fifo_url,
        "MaxNumberOfMessages": 10,
        "VisibilityTimeout": 10,
        "ReceiveRequestAttemptId": "try-1",
    }
    first = sqs_client.receive_message(**request)["Messages"]
    sqs_mock.clock.advance(8)
    retry = sqs_client.receive_message(**request)["Messages"]
    assert [(m["MessageId"], m["ReceiptHandle"]) for m in retry] == [
        (m["MessageId"], m["ReceiptHandle"]) for m in first
    ]
    assert [m["Body"] for m in retry] == ["A", "B"]
    sqs_mock.clock.advance(9)  # t=17: past the first deadline, before the retry's
    assert sqs_client.receive_message(QueueUrl=fifo_url).get("Messages") is None
    attributes = sqs_client.get_queue_attributes(
        QueueUrl=fifo_url, AttributeNames=["ApproximateNumberOfMessagesNotVisible"]
    )["Attributes"]
    assert attributes["ApproximateNumberOfMessagesNotVisible"] == "2"
    # The handles still work: they are the current ones.
    sqs_client.change_message_visibility(
        QueueUrl=fifo_url, ReceiptHandle=retry[1]["ReceiptHandle"], VisibilityTimeout=60
    )
    sqs_mock.clock.advance(2)  # t=19: past the retry's deadline; "B" was extended to t=77
    again = sqs_client.receive_message(
        QueueUrl=fifo_url, MaxNumberOfMessages=10, MessageSystemAttributeNames=["All"]
    )["Messages"]
    assert [(m["Body"], m["Attributes"]["ApproximateReceiveCount"]) for m in again] == [("A", "2")]


def test_a_second_retry_restarts_the_visibility_timeout_again(sqs_client, sqs_mock, fifo_url):
    _send_group(sqs_client, fifo_url, "A")
    request = {"QueueUrl": fifo_url, "VisibilityTimeout": 10, "ReceiveRequestAttemptId": "t"}
    first = sqs_client.receive_message(**request)["Messages"][0]
    for _ in range(3):  # each retry at 8 seconds keeps the message in flight
        sqs_mock.clock.advance(8)
        retry = sqs_client.receive_message(**request)["Messages"][0]
        assert retry["ReceiptHandle"] == first["ReceiptHandle"]
    sqs_mock.clock.advance(9)  # t=33: 9 seconds after the last retry
    assert sqs_client.receive_message(QueueUrl=fifo_url).get("Messages") is None
    sqs_client.delete_message(QueueUrl=fifo_url, ReceiptHandle=first["ReceiptHandle"])
    assert sqs_client.receive_message(QueueUrl=fifo_url).get("Messages") is None
