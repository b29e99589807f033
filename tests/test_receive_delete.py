"""ReceiveMessage, DeleteMessage and ChangeMessageVisibility on standard queues."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from sqs_asserts import assert_error, attributes_md5

pytestmark = pytest.mark.sqsmock(clock="frozen")

SYSTEM_ATTRIBUTES = {
    "SenderId",
    "SentTimestamp",
    "ApproximateReceiveCount",
    "ApproximateFirstReceiveTimestamp",
}
VISIBILITY_LIMIT = (
    "Value {} for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for "
    "the message is beyond the limit [43200 seconds]."
)
NOT_AVAILABLE = (
    "Value {} for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not "
    "available for visibility timeout change."
)
GARBAGE = 'The input receipt handle "garbage" is not a valid receipt handle.'


def assert_invalid_parameter(exc: pytest.ExceptionInfo[ClientError], message: str | None = None):
    assert_error(exc, "InvalidParameterValue", "InvalidParameterValueException", message)


@pytest.fixture
def queue_url(sqs_client: Any) -> str:
    return sqs_client.create_queue(QueueName="receive-tests")["QueueUrl"]


def make_queue(sqs_client: Any, name: str, **attributes: int) -> str:
    return sqs_client.create_queue(
        QueueName=name, Attributes={key: str(value) for key, value in attributes.items()}
    )["QueueUrl"]


def send(sqs_client: Any, queue_url: str, body: str = "body", **kwargs: Any) -> str:
    return sqs_client.send_message(QueueUrl=queue_url, MessageBody=body, **kwargs)["MessageId"]


def receive(sqs_client: Any, queue_url: str, **kwargs: Any) -> list[dict[str, Any]]:
    response = sqs_client.receive_message(QueueUrl=queue_url, **kwargs)
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    return response.get("Messages", [])


def receive_one(sqs_client: Any, queue_url: str, **kwargs: Any) -> dict[str, Any]:
    messages = receive(sqs_client, queue_url, **kwargs)
    assert len(messages) == 1
    return messages[0]


def counts(sqs_client: Any, queue_url: str) -> tuple[int, int, int]:
    """(visible, in flight, delayed) as GetQueueAttributes reports them."""
    attrs = sqs_client.get_queue_attributes(
        QueueUrl=queue_url,
        AttributeNames=[
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed",
        ],
    )["Attributes"]
    return (
        int(attrs["ApproximateNumberOfMessages"]),
        int(attrs["ApproximateNumberOfMessagesNotVisible"]),
        int(attrs["ApproximateNumberOfMessagesDelayed"]),
    )


def epoch_ms(seconds: float) -> int:
    return int(seconds * 1000)


# --- ReceiveMessage parameters -------------------------------------------------------------------


def test_empty_queue_has_no_messages_key(sqs_client, queue_url):
    response = sqs_client.receive_message(QueueUrl=queue_url)
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert "Messages" not in response


def test_default_max_number_of_messages_is_one(sqs_client, queue_url):
    for i in range(3):
        send(sqs_client, queue_url, f"m{i}")
    assert len(receive(sqs_client, queue_url)) == 1


@pytest.mark.parametrize("count", [1, 5, 10])
def test_max_number_of_messages_caps_the_result(sqs_client, queue_url, count):
    for i in range(12):
        send(sqs_client, queue_url, f"m{i}")
    assert len(receive(sqs_client, queue_url, MaxNumberOfMessages=count)) == count


@pytest.mark.parametrize("count", [0, 11, -1])
def test_max_number_of_messages_out_of_range(sqs_client, queue_url, count):
    send(sqs_client, queue_url)
    with pytest.raises(ClientError) as exc:
        sqs_client.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=count)
    assert_invalid_parameter(
        exc,
        f"Value {count} for parameter MaxNumberOfMessages is invalid. "
        "Reason: Must be between 1 and 10, if provided.",
    )
    assert counts(sqs_client, queue_url) == (1, 0, 0)


@pytest.mark.parametrize("wait", [-1, 21])
def test_wait_time_seconds_out_of_range(sqs_client, queue_url, wait):
    with pytest.raises(ClientError) as exc:
        sqs_client.receive_message(QueueUrl=queue_url, WaitTimeSeconds=wait)
    assert_invalid_parameter(
        exc,
        f"Value {wait} for parameter WaitTimeSeconds is invalid. "
        "Reason: Must be >= 0 and <= 20, if provided.",
    )


def test_wait_time_seconds_of_20_is_accepted(sqs_client, queue_url):
    send(sqs_client, queue_url, "x")
    assert receive_one(sqs_client, queue_url, WaitTimeSeconds=20)["Body"] == "x"


@pytest.mark.parametrize("timeout", [-1, 43201])
def test_receive_visibility_timeout_out_of_range(sqs_client, queue_url, timeout):
    send(sqs_client, queue_url)
    with pytest.raises(ClientError) as exc:
        sqs_client.receive_message(QueueUrl=queue_url, VisibilityTimeout=timeout)
    assert_invalid_parameter(exc)
    assert counts(sqs_client, queue_url) == (1, 0, 0)


def test_receive_visibility_timeout_of_43200_is_accepted(sqs_client, sqs_mock, queue_url):
    send(sqs_client, queue_url)
    receive_one(sqs_client, queue_url, VisibilityTimeout=43200)
    sqs_mock.clock.advance(43199)
    assert receive(sqs_client, queue_url) == []
    sqs_mock.clock.advance(1)
    assert len(receive(sqs_client, queue_url)) == 1


def test_receive_visibility_timeout_zero_leaves_message_visible(sqs_client, queue_url):
    message_id = send(sqs_client, queue_url)
    receive_one(sqs_client, queue_url, VisibilityTimeout=0)
    assert counts(sqs_client, queue_url) == (1, 0, 0)
    assert receive_one(sqs_client, queue_url)["MessageId"] == message_id


def test_receive_visibility_timeout_overrides_queue_default(sqs_client, sqs_mock):
    url = make_queue(sqs_client, "vis-queue", VisibilityTimeout=100)
    send(sqs_client, url)
    receive_one(sqs_client, url, VisibilityTimeout=5)
    sqs_mock.clock.advance(4)
    assert receive(sqs_client, url) == []
    sqs_mock.clock.advance(1)
    assert len(receive(sqs_client, url)) == 1


def test_queue_visibility_timeout_applies_when_omitted(sqs_client, sqs_mock):
    url = make_queue(sqs_client, "vis-queue", VisibilityTimeout=10)
    send(sqs_client, url)
    receive_one(sqs_client, url)
    sqs_mock.clock.advance(9)
    assert receive(sqs_client, url) == []
    sqs_mock.clock.advance(1)
    assert len(receive(sqs_client, url)) == 1


# --- system attributes on receive ----------------------------------------------------------------


def test_no_attributes_key_without_attribute_names(sqs_client, queue_url):
    send(sqs_client, queue_url)
    message = receive_one(sqs_client, queue_url)
    assert "Attributes" not in message
    assert "MessageAttributes" not in message
    assert set(message) == {"MessageId", "ReceiptHandle", "MD5OfBody", "Body"}


@pytest.mark.parametrize("parameter", ["AttributeNames", "MessageSystemAttributeNames"])
def test_all_system_attributes(sqs_client, queue_url, parameter):
    send(sqs_client, queue_url)
    message = receive_one(sqs_client, queue_url, **{parameter: ["All"]})
    assert set(message["Attributes"]) == SYSTEM_ATTRIBUTES
    assert message["Attributes"]["SenderId"]
    assert message["Attributes"]["ApproximateReceiveCount"] == "1"


@pytest.mark.parametrize("parameter", ["AttributeNames", "MessageSystemAttributeNames"])
def test_selected_system_attributes_only(sqs_client, queue_url, parameter):
    send(sqs_client, queue_url)
    message = receive_one(
        sqs_client, queue_url, **{parameter: ["SentTimestamp", "ApproximateReceiveCount"]}
    )
    assert set(message["Attributes"]) == {"SentTimestamp", "ApproximateReceiveCount"}


def test_attribute_names_and_system_attribute_names_are_united(sqs_client, queue_url):
    send(sqs_client, queue_url)
    message = receive_one(
        sqs_client,
        queue_url,
        AttributeNames=["SentTimestamp"],
        MessageSystemAttributeNames=["ApproximateReceiveCount"],
    )
    assert set(message["Attributes"]) == {"SentTimestamp", "ApproximateReceiveCount"}


def test_sequence_number_is_omitted_on_standard_queue(sqs_client, queue_url):
    send(sqs_client, queue_url)
    message = receive_one(
        sqs_client, queue_url, MessageSystemAttributeNames=["SequenceNumber", "SentTimestamp"]
    )
    assert set(message["Attributes"]) == {"SentTimestamp"}


def test_timestamps_are_epoch_milliseconds_of_mock_clock(sqs_client, sqs_mock, queue_url):
    sent_at = sqs_mock.clock.now()
    send(sqs_client, queue_url)
    sqs_mock.clock.advance(123.456)
    received_at = sqs_mock.clock.now()
    attrs = receive_one(sqs_client, queue_url, MessageSystemAttributeNames=["All"])["Attributes"]
    assert attrs["SentTimestamp"].isdigit()
    assert attrs["ApproximateFirstReceiveTimestamp"].isdigit()
    assert abs(int(attrs["SentTimestamp"]) - epoch_ms(sent_at)) <= 1
    assert abs(int(attrs["ApproximateFirstReceiveTimestamp"]) - epoch_ms(received_at)) <= 1
    assert int(attrs["ApproximateFirstReceiveTimestamp"]) - int(attrs["SentTimestamp"]) in range(
        123455, 123458
    )


def test_first_receive_timestamp_is_kept_and_receive_count_counts_up(
    sqs_client, sqs_mock, queue_url
):
    send(sqs_client, queue_url)
    seen = []
    for _ in range(3):
        message = receive_one(
            sqs_client, queue_url, VisibilityTimeout=0, MessageSystemAttributeNames=["All"]
        )
        seen.append(message["Attributes"])
        sqs_mock.clock.advance(10)
    assert [a["ApproximateReceiveCount"] for a in seen] == ["1", "2", "3"]
    assert len({a["ApproximateFirstReceiveTimestamp"] for a in seen}) == 1
    assert len({a["SentTimestamp"] for a in seen}) == 1


def test_receive_count_in_peek(sqs_client, sqs_mock, queue_url):
    send(sqs_client, queue_url)
    receive_one(sqs_client, queue_url, VisibilityTimeout=0)
    receive_one(sqs_client, queue_url, VisibilityTimeout=30)
    (view,) = sqs_mock.peek(queue_url)
    assert view.receive_count == 2
    assert view.state == "inflight"


# --- message attributes on receive ---------------------------------------------------------------

ATTRIBUTES: dict[str, dict[str, Any]] = {
    "foo.a": {"DataType": "String", "StringValue": "A"},
    "foo.b": {"DataType": "Number", "StringValue": "2"},
    "bar": {"DataType": "Binary", "BinaryValue": b"\x00bar"},
    "foobar": {"DataType": "String.custom", "StringValue": "fb"},
}


@pytest.fixture
def attributed_url(sqs_client: Any, queue_url: str) -> str:
    response = sqs_client.send_message(
        QueueUrl=queue_url, MessageBody="attributed", MessageAttributes=ATTRIBUTES
    )
    assert response["MD5OfMessageAttributes"] == attributes_md5(ATTRIBUTES)
    return queue_url


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["All"], set(ATTRIBUTES)),
        ([".*"], set(ATTRIBUTES)),
        (["foo.*"], {"foo.a", "foo.b", "foobar"}),  # "prefix.*": names starting with "foo"
        (["bar"], {"bar"}),
        (["foo.a", "foobar"], {"foo.a", "foobar"}),
        (["bar", "missing"], {"bar"}),
    ],
    ids=["All", "dot-star", "prefix", "exact", "two-exact", "exact-and-unknown"],
)
def test_message_attribute_names_select_subset(sqs_client, attributed_url, names, expected):
    message = receive_one(sqs_client, attributed_url, MessageAttributeNames=names)
    subset = {name: ATTRIBUTES[name] for name in expected}
    assert message["MessageAttributes"] == subset
    assert message["MD5OfMessageAttributes"] == attributes_md5(subset)


@pytest.mark.parametrize(
    "names", [None, ["missing"], ["baz.*"], ["Bar"]], ids=["none", "unknown", "prefix", "case"]
)
def test_unmatched_message_attribute_names_give_no_attributes_and_no_md5(
    sqs_client, attributed_url, names
):
    kwargs = {} if names is None else {"MessageAttributeNames": names}
    message = receive_one(sqs_client, attributed_url, **kwargs)
    assert "MessageAttributes" not in message
    assert "MD5OfMessageAttributes" not in message
    assert message["Body"] == "attributed"


def test_trace_header_is_returned_when_asked(sqs_client, queue_url):
    trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
    send(
        sqs_client,
        queue_url,
        MessageSystemAttributes={"AWSTraceHeader": {"DataType": "String", "StringValue": trace}},
    )
    message = receive_one(sqs_client, queue_url, MessageSystemAttributeNames=["All"])
    assert message["Attributes"]["AWSTraceHeader"] == trace
    assert set(message["Attributes"]) == SYSTEM_ATTRIBUTES | {"AWSTraceHeader"}


# --- receipt handles and order -------------------------------------------------------------------


def test_each_receive_issues_new_receipt_handle(sqs_client, queue_url):
    message_id = send(sqs_client, queue_url)
    received = [receive_one(sqs_client, queue_url, VisibilityTimeout=0) for _ in range(3)]
    assert {m["MessageId"] for m in received} == {message_id}
    assert len({m["ReceiptHandle"] for m in received}) == 3


def test_visible_messages_come_out_oldest_first(sqs_client, sqs_mock, queue_url):
    ids = []
    for i in range(5):
        ids.append(send(sqs_client, queue_url, f"m{i}"))
        sqs_mock.clock.advance(1)
    received = receive(sqs_client, queue_url, MaxNumberOfMessages=10)
    assert [m["MessageId"] for m in received] == ids


def test_lapsed_message_goes_back_to_its_old_place(sqs_client, sqs_mock, queue_url):
    first = send(sqs_client, queue_url, "first")
    receive_one(sqs_client, queue_url, VisibilityTimeout=10)
    sqs_mock.clock.advance(1)
    later = [send(sqs_client, queue_url, f"later{i}") for i in range(3)]
    sqs_mock.clock.advance(10)
    received = receive(sqs_client, queue_url, MaxNumberOfMessages=10)
    assert [m["MessageId"] for m in received] == [first, *later]


def test_message_made_visible_by_change_visibility_goes_back_to_its_old_place(
    sqs_client, sqs_mock, queue_url
):
    first = send(sqs_client, queue_url, "first")
    handle = receive_one(sqs_client, queue_url)["ReceiptHandle"]
    sqs_mock.clock.advance(1)
    second = send(sqs_client, queue_url, "second")
    sqs_client.change_message_visibility(
        QueueUrl=queue_url, ReceiptHandle=handle, VisibilityTimeout=0
    )
    received = receive(sqs_client, queue_url, MaxNumberOfMessages=10)
    assert [m["MessageId"] for m in received] == [first, second]


def test_received_body_and_md5(sqs_client, queue_url):
    body = "message"
    send(sqs_client, queue_url, body)
    message = receive_one(sqs_client, queue_url)
    assert message["Body"] == body
    assert message["MD5OfBody"] == "78e731027d8fd50ed642340b7c9a63b3"


# --- DeleteMessage -------------------------------------------------------------------------------


def test_delete_removes_message(sqs_client, sqs_mock, queue_url):
    send(sqs_client, queue_url)
    handle = receive_one(sqs_client, queue_url)["ReceiptHandle"]
    response = sqs_client.delete_message(QueueUrl=queue_url, ReceiptHandle=handle)
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert counts(sqs_client, queue_url) == (0, 0, 0)
    assert sqs_mock.peek(queue_url) == []


def test_delete_same_handle_twice_is_ok(sqs_client, queue_url):
    send(sqs_client, queue_url)
    handle = receive_one(sqs_client, queue_url)["ReceiptHandle"]
    sqs_client.delete_message(QueueUrl=queue_url, ReceiptHandle=handle)
    response = sqs_client.delete_message(QueueUrl=queue_url, ReceiptHandle=handle)
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert counts(sqs_client, queue_url) == (0, 0, 0)


def test_delete_with_lapsed_handle_still_deletes(sqs_client, sqs_mock, queue_url):
    send(sqs_client, queue_url)
    handle = receive_one(sqs_client, queue_url, VisibilityTimeout=5)["ReceiptHandle"]
    sqs_mock.clock.advance(6)
    assert counts(sqs_client, queue_url) == (1, 0, 0)
    sqs_client.delete_message(QueueUrl=queue_url, ReceiptHandle=handle)
    assert counts(sqs_client, queue_url) == (0, 0, 0)
    assert receive(sqs_client, queue_url) == []
    assert sqs_mock.peek(queue_url) == []


def test_delete_garbage_handle_is_receipt_handle_invalid(sqs_client, queue_url):
    with pytest.raises(sqs_client.exceptions.ReceiptHandleIsInvalid) as exc:
        sqs_client.delete_message(QueueUrl=queue_url, ReceiptHandle="garbage")
    assert_error(exc, "ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", GARBAGE)


def test_delete_message_batch_mixed_handles(sqs_client, sqs_mock, queue_url):
    send(sqs_client, queue_url, "a")
    send(sqs_client, queue_url, "b")
    handles = [m["ReceiptHandle"] for m in receive(sqs_client, queue_url, MaxNumberOfMessages=10)]
    entries = [
        {"Id": "one", "ReceiptHandle": handles[0]},
        {"Id": "bad", "ReceiptHandle": "garbage"},
        {"Id": "two", "ReceiptHandle": handles[1]},
    ]
    response = sqs_client.delete_message_batch(QueueUrl=queue_url, Entries=entries)
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert sorted(e["Id"] for e in response["Successful"]) == ["one", "two"]
    assert response["Failed"] == [
        {"Id": "bad", "SenderFault": True, "Code": "ReceiptHandleIsInvalid", "Message": GARBAGE}
    ]
    assert sqs_mock.peek(queue_url) == []


def test_delete_message_batch_all_good_has_no_failed_key(sqs_client, queue_url):
    send(sqs_client, queue_url)
    handle = receive_one(sqs_client, queue_url)["ReceiptHandle"]
    response = sqs_client.delete_message_batch(
        QueueUrl=queue_url, Entries=[{"Id": "x", "ReceiptHandle": handle}]
    )
    assert response["Successful"] == [{"Id": "x"}]
    assert "Failed" not in response


def test_delete_message_batch_empty_and_duplicate_ids(sqs_client, queue_url):
    with pytest.raises(sqs_client.exceptions.EmptyBatchRequest) as exc:
        sqs_client.delete_message_batch(QueueUrl=queue_url, Entries=[])
    assert_error(exc, "AWS.SimpleQueueService.EmptyBatchRequest", "EmptyBatchRequest")
    duplicate = [{"Id": "x", "ReceiptHandle": "garbage"}] * 2
    with pytest.raises(sqs_client.exceptions.BatchEntryIdsNotDistinct) as exc:
        sqs_client.delete_message_batch(QueueUrl=queue_url, Entries=duplicate)
    assert_error(exc, "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", "BatchEntryIdsNotDistinct")


# --- ChangeMessageVisibility ---------------------------------------------------------------------


def test_change_visibility_counts_from_now(sqs_client, sqs_mock, queue_url):
    send(sqs_client, queue_url)
    handle = receive_one(sqs_client, queue_url, VisibilityTimeout=30)["ReceiptHandle"]
    sqs_mock.clock.advance(20)
    sqs_client.change_message_visibility(
        QueueUrl=queue_url, ReceiptHandle=handle, VisibilityTimeout=30
    )
    sqs_mock.clock.advance(29)
    assert receive(sqs_client, queue_url) == []
    assert counts(sqs_client, queue_url) == (0, 1, 0)
    sqs_mock.clock.advance(1)
    assert len(receive(sqs_client, queue_url)) == 1


def test_change_visibility_can_shorten(sqs_client, sqs_mock, queue_url):
    send(sqs_client, queue_url)
    handle = receive_one(sqs_client, queue_url, VisibilityTimeout=300)["ReceiptHandle"]
    sqs_client.change_message_visibility(
        QueueUrl=queue_url, ReceiptHandle=handle, VisibilityTimeout=5
    )
    sqs_mock.clock.advance(5)
    assert len(receive(sqs_client, queue_url)) == 1


def test_change_visibility_zero_makes_message_visible_now(sqs_client, queue_url):
    message_id = send(sqs_client, queue_url)
    handle = receive_one(sqs_client, queue_url)["ReceiptHandle"]
    assert counts(sqs_client, queue_url) == (0, 1, 0)
    sqs_client.change_message_visibility(
        QueueUrl=queue_url, ReceiptHandle=handle, VisibilityTimeout=0
    )
    assert counts(sqs_client, queue_url) == (1, 0, 0)
    assert receive_one(sqs_client, queue_url)["MessageId"] == message_id


def test_change_visibility_total_limit_after_one_second(sqs_client, sqs_mock, queue_url):
    send(sqs_client, queue_url)
    handle = receive_one(sqs_client, queue_url)["ReceiptHandle"]
    sqs_mock.clock.advance(1)
    with pytest.raises(ClientError) as exc:
        sqs_client.change_message_visibility(
            QueueUrl=queue_url, ReceiptHandle=handle, VisibilityTimeout=43200
        )
    assert_invalid_parameter(exc, VISIBILITY_LIMIT.format(43200))
    sqs_client.change_message_visibility(
        QueueUrl=queue_url, ReceiptHandle=handle, VisibilityTimeout=43199
    )
    sqs_mock.clock.advance(43198)
    assert receive(sqs_client, queue_url) == []
    sqs_mock.clock.advance(1)
    assert len(receive(sqs_client, queue_url)) == 1


def test_change_visibility_total_limit_counts_since_receipt(sqs_client, sqs_mock, queue_url):
    send(sqs_client, queue_url)
    handle = receive_one(sqs_client, queue_url, VisibilityTimeout=43200)["ReceiptHandle"]
    sqs_mock.clock.advance(43000)
    with pytest.raises(ClientError) as exc:
        sqs_client.change_message_visibility(
            QueueUrl=queue_url, ReceiptHandle=handle, VisibilityTimeout=201
        )
    assert_invalid_parameter(exc, VISIBILITY_LIMIT.format(201))
    sqs_client.change_message_visibility(
        QueueUrl=queue_url, ReceiptHandle=handle, VisibilityTimeout=200
    )


@pytest.mark.parametrize("timeout", [-1, 43201])
def test_change_visibility_out_of_range(sqs_client, queue_url, timeout):
    send(sqs_client, queue_url)
    handle = receive_one(sqs_client, queue_url)["ReceiptHandle"]
    with pytest.raises(ClientError) as exc:
        sqs_client.change_message_visibility(
            QueueUrl=queue_url, ReceiptHandle=handle, VisibilityTimeout=timeout
        )
    assert_invalid_parameter(exc)


def test_change_visibility_on_deleted_message(sqs_client, queue_url):
    send(sqs_client, queue_url)
    handle = receive_one(sqs_client, queue_url)["ReceiptHandle"]
    sqs_client.delete_message(QueueUrl=queue_url, ReceiptHandle=handle)
    with pytest.raises(ClientError) as exc:
        sqs_client.change_message_visibility(
            QueueUrl=queue_url, ReceiptHandle=handle, VisibilityTimeout=10
        )
    assert_invalid_parameter(exc, NOT_AVAILABLE.format(handle))


def test_change_visibility_on_lapsed_message_is_ok_and_changes_nothing(
    sqs_client, sqs_mock, queue_url
):
    message_id = send(sqs_client, queue_url)
    handle = receive_one(sqs_client, queue_url, VisibilityTimeout=10)["ReceiptHandle"]
    sqs_mock.clock.advance(11)
    response = sqs_client.change_message_visibility(
        QueueUrl=queue_url, ReceiptHandle=handle, VisibilityTimeout=600
    )
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert counts(sqs_client, queue_url) == (1, 0, 0)
    assert receive_one(sqs_client, queue_url)["MessageId"] == message_id


def test_change_visibility_garbage_handle(sqs_client, queue_url):
    with pytest.raises(sqs_client.exceptions.ReceiptHandleIsInvalid) as exc:
        sqs_client.change_message_visibility(
            QueueUrl=queue_url, ReceiptHandle="garbage", VisibilityTimeout=10
        )
    assert_error(exc, "ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", GARBAGE)


def test_change_visibility_batch_with_per_entry_failures(sqs_client, sqs_mock, queue_url):
    for body in ("keep", "gone", "long"):
        send(sqs_client, queue_url, body)
    received = receive(sqs_client, queue_url, MaxNumberOfMessages=10)
    handles = {m["Body"]: m["ReceiptHandle"] for m in received}
    sqs_client.delete_message(QueueUrl=queue_url, ReceiptHandle=handles["gone"])
    sqs_mock.clock.advance(1)
    entries = [
        {"Id": "keep", "ReceiptHandle": handles["keep"], "VisibilityTimeout": 0},
        {"Id": "bad", "ReceiptHandle": "garbage", "VisibilityTimeout": 0},
        {"Id": "gone", "ReceiptHandle": handles["gone"], "VisibilityTimeout": 0},
        {"Id": "long", "ReceiptHandle": handles["long"], "VisibilityTimeout": 43200},
    ]
    response = sqs_client.change_message_visibility_batch(QueueUrl=queue_url, Entries=entries)
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert response["Successful"] == [{"Id": "keep"}]
    failed = {entry["Id"]: entry for entry in response["Failed"]}
    assert failed == {
        "bad": {
            "Id": "bad",
            "SenderFault": True,
            "Code": "ReceiptHandleIsInvalid",
            "Message": GARBAGE,
        },
        "gone": {
            "Id": "gone",
            "SenderFault": True,
            "Code": "InvalidParameterValue",
            "Message": NOT_AVAILABLE.format(handles["gone"]),
        },
        "long": {
            "Id": "long",
            "SenderFault": True,
            "Code": "InvalidParameterValue",
            "Message": VISIBILITY_LIMIT.format(43200),
        },
    }
    assert counts(sqs_client, queue_url) == (1, 1, 0)


def test_change_visibility_batch_all_good_has_no_failed_key(sqs_client, queue_url):
    send(sqs_client, queue_url)
    handle = receive_one(sqs_client, queue_url)["ReceiptHandle"]
    response = sqs_client.change_message_visibility_batch(
        QueueUrl=queue_url, Entries=[{"Id": "x", "ReceiptHandle": handle, "VisibilityTimeout": 0}]
    )
    assert response["Successful"] == [{"Id": "x"}]
    assert "Failed" not in response
    assert counts(sqs_client, queue_url) == (1, 0, 0)


def test_change_visibility_batch_too_many_entries(sqs_client, queue_url):
    entries = [{"Id": f"e{i}", "ReceiptHandle": "garbage"} for i in range(11)]
    with pytest.raises(sqs_client.exceptions.TooManyEntriesInBatchRequest) as exc:
        sqs_client.change_message_visibility_batch(QueueUrl=queue_url, Entries=entries)
    assert_error(
        exc,
        "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
        "TooManyEntriesInBatchRequest",
        "Maximum number of entries per request are 10. You have sent 11.",
    )


# --- long polling on the frozen clock ------------------------------------------------------------


def test_long_poll_on_empty_queue_advances_clock_by_wait(sqs_client, sqs_mock, queue_url):
    start = sqs_mock.clock.now()
    assert receive(sqs_client, queue_url, WaitTimeSeconds=5) == []
    assert sqs_mock.clock.now() == pytest.approx(start + 5)


def test_short_poll_does_not_move_frozen_clock(sqs_client, sqs_mock, queue_url):
    start = sqs_mock.clock.now()
    assert receive(sqs_client, queue_url, WaitTimeSeconds=0) == []
    assert sqs_mock.clock.now() == start


def test_long_poll_returns_delayed_message_at_its_delay_end(sqs_client, sqs_mock, queue_url):
    start = sqs_mock.clock.now()
    message_id = send(sqs_client, queue_url, DelaySeconds=3)
    message = receive_one(sqs_client, queue_url, WaitTimeSeconds=10)
    assert message["MessageId"] == message_id
    assert sqs_mock.clock.now() == pytest.approx(start + 3)


def test_long_poll_ends_before_delay_ends(sqs_client, sqs_mock, queue_url):
    start = sqs_mock.clock.now()
    send(sqs_client, queue_url, DelaySeconds=30)
    assert receive(sqs_client, queue_url, WaitTimeSeconds=10) == []
    assert sqs_mock.clock.now() == pytest.approx(start + 10)
    assert counts(sqs_client, queue_url) == (0, 0, 1)


def test_long_poll_returns_message_whose_visibility_lapses(sqs_client, sqs_mock, queue_url):
    message_id = send(sqs_client, queue_url)
    receive_one(sqs_client, queue_url, VisibilityTimeout=4)
    start = sqs_mock.clock.now()
    assert receive_one(sqs_client, queue_url, WaitTimeSeconds=20)["MessageId"] == message_id
    assert sqs_mock.clock.now() == pytest.approx(start + 4)


def test_long_poll_with_visible_message_returns_at_once(sqs_client, sqs_mock, queue_url):
    send(sqs_client, queue_url)
    start = sqs_mock.clock.now()
    assert len(receive(sqs_client, queue_url, WaitTimeSeconds=20)) == 1
    assert sqs_mock.clock.now() == start


def test_omitted_wait_time_uses_queue_receive_wait(sqs_client, sqs_mock):
    url = make_queue(sqs_client, "long-poll", ReceiveMessageWaitTimeSeconds=7)
    start = sqs_mock.clock.now()
    assert receive(sqs_client, url) == []
    assert sqs_mock.clock.now() == pytest.approx(start + 7)


def test_explicit_zero_wait_overrides_queue_receive_wait(sqs_client, sqs_mock):
    url = make_queue(sqs_client, "long-poll", ReceiveMessageWaitTimeSeconds=7)
    start = sqs_mock.clock.now()
    assert receive(sqs_client, url, WaitTimeSeconds=0) == []
    assert sqs_mock.clock.now() == start


# --- retention -----------------------------------------------------------------------------------


def test_message_is_gone_after_retention_period(sqs_client, sqs_mock):
    url = make_queue(sqs_client, "retention", MessageRetentionPeriod=60)
    send(sqs_client, url)
    sqs_mock.clock.advance(59)
    assert counts(sqs_client, url) == (1, 0, 0)
    sqs_mock.clock.advance(2)
    assert counts(sqs_client, url) == (0, 0, 0)
    assert sqs_mock.peek(url) == []
    assert receive(sqs_client, url) == []


def test_in_flight_message_is_gone_after_retention_period(sqs_client, sqs_mock):
    url = make_queue(sqs_client, "retention", MessageRetentionPeriod=60)
    send(sqs_client, url)
    sqs_mock.clock.advance(30)
    receive_one(sqs_client, url, VisibilityTimeout=600)
    assert counts(sqs_client, url) == (0, 1, 0)
    sqs_mock.clock.advance(31)
    assert counts(sqs_client, url) == (0, 0, 0)
    assert sqs_mock.peek(url) == []
    sqs_mock.clock.advance(600)
    assert receive(sqs_client, url) == []


def test_retention_counts_from_send_not_from_receive(sqs_client, sqs_mock):
    url = make_queue(sqs_client, "retention", MessageRetentionPeriod=60)
    send(sqs_client, url, "old")
    sqs_mock.clock.advance(40)
    send(sqs_client, url, "young")
    receive(sqs_client, url, MaxNumberOfMessages=10, VisibilityTimeout=0)
    sqs_mock.clock.advance(21)
    assert [m["Body"] for m in receive(sqs_client, url, MaxNumberOfMessages=10)] == ["young"]


# --- counters ------------------------------------------------------------------------------------


def test_counters_through_send_receive_delete_and_lapse(sqs_client, sqs_mock, queue_url):
    assert counts(sqs_client, queue_url) == (0, 0, 0)
    send(sqs_client, queue_url, "a")
    send(sqs_client, queue_url, "b")
    send(sqs_client, queue_url, "c", DelaySeconds=60)
    assert counts(sqs_client, queue_url) == (2, 0, 1)

    first = receive_one(sqs_client, queue_url, VisibilityTimeout=30)
    assert counts(sqs_client, queue_url) == (1, 1, 1)
    states = sorted(view.state for view in sqs_mock.peek(queue_url))
    assert states == ["delayed", "inflight", "visible"]

    second = receive_one(sqs_client, queue_url, VisibilityTimeout=10)
    assert counts(sqs_client, queue_url) == (0, 2, 1)

    sqs_client.delete_message(QueueUrl=queue_url, ReceiptHandle=first["ReceiptHandle"])
    assert counts(sqs_client, queue_url) == (0, 1, 1)

    sqs_mock.clock.advance(10)
    assert counts(sqs_client, queue_url) == (1, 0, 1)

    sqs_mock.clock.advance(50)
    assert counts(sqs_client, queue_url) == (2, 0, 0)
    assert {m["Body"] for m in receive(sqs_client, queue_url, MaxNumberOfMessages=10)} == {
        second["Body"],
        "c",
    }
    assert counts(sqs_client, queue_url) == (0, 2, 0)


def test_a_current_handle_is_taken_without_decoding_it(
    sqs_client: Any, queue_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The handle a message was last received with is known to its queue: DeleteMessage and
    ChangeMessageVisibility take it without decoding it (a regular expression and base64 on
    every call). An older handle of the message, or one of another queue, is still decoded."""
    from sqsmock._service import visibility

    decoded: list[str] = []
    decode = visibility.decode_receipt
    monkeypatch.setattr(
        visibility, "decode_receipt", lambda handle: decoded.append(handle) or decode(handle)
    )
    other = sqs_client.create_queue(QueueName="receive-tests-other")["QueueUrl"]
    for url in (queue_url, other):
        sqs_client.send_message(QueueUrl=url, MessageBody="m")
    first = sqs_client.receive_message(QueueUrl=queue_url, VisibilityTimeout=0)["Messages"][0]
    current = sqs_client.receive_message(QueueUrl=queue_url)["Messages"][0]
    foreign = sqs_client.receive_message(QueueUrl=other)["Messages"][0]["ReceiptHandle"]
    sqs_client.change_message_visibility(
        QueueUrl=queue_url, ReceiptHandle=current["ReceiptHandle"], VisibilityTimeout=30
    )
    assert decoded == []
    with pytest.raises(sqs_client.exceptions.ReceiptHandleIsInvalid):
        sqs_client.delete_message(QueueUrl=queue_url, ReceiptHandle=foreign)
    assert decoded == [foreign]
    sqs_client.delete_message(QueueUrl=queue_url, ReceiptHandle=first["ReceiptHandle"])
    assert decoded == [foreign, first["ReceiptHandle"]]  # an older handle deletes, decoded
    assert "Messages" not in sqs_client.receive_message(QueueUrl=queue_url, VisibilityTimeout=0)
