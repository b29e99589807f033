"""SendMessage and SendMessageBatch on standard queues, checked against real SQS behaviour."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest
from botocore.exceptions import ClientError
from sqs_asserts import assert_error, attributes_md5

pytestmark = pytest.mark.sqsmock(clock="frozen")

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
MIB = 1048576
TRACE_HEADER = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
TRACE_HEADER_MD5 = "5ae4d5d7636402d80f4eb6d213245a88"
TOO_LONG = "One or more parameters are invalid. Reason: Message must be shorter than {} bytes."
# Recorded from SQS: inside SendMessageBatch the same limit is worded "cannot be validated".
TOO_LONG_IN_BATCH = (
    "One or more parameters cannot be validated. Reason: Message must be shorter than {} bytes."
)
GROUP_ID_INVALID = (
    "Value {} for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include "
    "alphanumeric and punctuation characters. 1 to 128 in length."
)
BAD_BATCH_ID = (
    "A batch entry id can only contain alphanumeric characters, hyphens and underscores. "
    "It can be at most 80 letters long."
)


def string_attr(value: str, data_type: str = "String") -> dict[str, str]:
    return {"DataType": data_type, "StringValue": value}


def assert_invalid_parameter(exc: pytest.ExceptionInfo[ClientError], message: str | None = None):
    assert_error(exc, "InvalidParameterValue", "InvalidParameterValueException", message)


@pytest.fixture
def queue_url(sqs_client: Any) -> str:
    return sqs_client.create_queue(QueueName="send-tests")["QueueUrl"]


@pytest.fixture
def small_queue_url(sqs_client: Any) -> str:
    """A queue whose MaximumMessageSize is the smallest allowed, 1024 bytes."""
    return sqs_client.create_queue(
        QueueName="small-send-tests", Attributes={"MaximumMessageSize": "1024"}
    )["QueueUrl"]


def receive_one(sqs_client: Any, queue_url: str, **kwargs: Any) -> dict[str, Any]:
    messages = sqs_client.receive_message(QueueUrl=queue_url, **kwargs).get("Messages", [])
    assert len(messages) == 1
    return messages[0]


def queue_counts(sqs_client: Any, queue_url: str) -> dict[str, str]:
    return sqs_client.get_queue_attributes(
        QueueUrl=queue_url,
        AttributeNames=[
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed",
        ],
    )["Attributes"]


# --- response shape and digests ---------------------------------------------------------------


def test_send_response_has_message_id_and_body_md5_only(sqs_client, queue_url):
    response = sqs_client.send_message(QueueUrl=queue_url, MessageBody="message")
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert set(response) == {"MessageId", "MD5OfMessageBody", "ResponseMetadata"}
    assert UUID_RE.match(response["MessageId"])
    assert response["MD5OfMessageBody"] == "78e731027d8fd50ed642340b7c9a63b3"


def test_message_ids_are_unique(sqs_client, queue_url):
    ids = {sqs_client.send_message(QueueUrl=queue_url, MessageBody="x")["MessageId"] for _ in "abc"}
    assert len(ids) == 3


def test_attribute_md5_vector_string(sqs_client, queue_url):
    response = sqs_client.send_message(
        QueueUrl=queue_url, MessageBody="message", MessageAttributes={"Foo": string_attr("Bar")}
    )
    assert response["MD5OfMessageAttributes"] == "ae7155c6026991b6d54b11589678bf9c"
    assert "MD5OfMessageSystemAttributes" not in response
    assert "SequenceNumber" not in response


def test_attribute_md5_vector_number(sqs_client, queue_url):
    response = sqs_client.send_message(
        QueueUrl=queue_url,
        MessageBody="message",
        MessageAttributes={"timestamp": string_attr("1493147359900", "Number")},
    )
    assert response["MD5OfMessageAttributes"] == "235c5c510d26fb653d073faed50ae77c"


def test_attribute_md5_algorithm_matches_reference_vectors():
    assert attributes_md5({"Foo": string_attr("Bar")}) == "ae7155c6026991b6d54b11589678bf9c"
    assert (
        attributes_md5({"timestamp": string_attr("1493147359900", "Number")})
        == "235c5c510d26fb653d073faed50ae77c"
    )


MIXED_ATTRIBUTES: dict[str, dict[str, Any]] = {
    "zeta": string_attr("last by name"),
    "alpha": string_attr("-12.5", "Number"),
    "blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01\xfe\xff"},
    "custom.str": string_attr("héllo wörld ✓", "String.custom"),
    "custom-num": string_attr("42", "Number.int"),
    "image": {"DataType": "Binary.png", "BinaryValue": b"\x89PNG\r\n"},
    "Upper": string_attr("capital sorts first"),
}


def test_attribute_md5_of_mixed_types_matches_independent_computation(sqs_client, queue_url):
    response = sqs_client.send_message(
        QueueUrl=queue_url, MessageBody="body", MessageAttributes=MIXED_ATTRIBUTES
    )
    assert response["MD5OfMessageAttributes"] == attributes_md5(MIXED_ATTRIBUTES)


def test_received_mixed_attributes_round_trip_with_same_md5(sqs_client, queue_url):
    sqs_client.send_message(
        QueueUrl=queue_url, MessageBody="body", MessageAttributes=MIXED_ATTRIBUTES
    )
    message = receive_one(sqs_client, queue_url, MessageAttributeNames=["All"])
    assert message["MessageAttributes"] == MIXED_ATTRIBUTES
    assert message["MD5OfMessageAttributes"] == attributes_md5(MIXED_ATTRIBUTES)


def test_binary_attribute_comes_back_as_bytes(sqs_client, queue_url):
    payload = bytes(range(256))
    sqs_client.send_message(
        QueueUrl=queue_url,
        MessageBody="bin",
        MessageAttributes={"data": {"DataType": "Binary", "BinaryValue": payload}},
    )
    message = receive_one(sqs_client, queue_url, MessageAttributeNames=["data"])
    value = message["MessageAttributes"]["data"]
    assert value["DataType"] == "Binary"
    assert isinstance(value["BinaryValue"], bytes)
    assert value["BinaryValue"] == payload
    assert "StringValue" not in value


# --- body size and contents ---------------------------------------------------------------------


def test_one_character_body_is_accepted(sqs_client, queue_url):
    sqs_client.send_message(QueueUrl=queue_url, MessageBody="x")
    assert receive_one(sqs_client, queue_url)["Body"] == "x"


def test_empty_body_is_missing_parameter(sqs_client, queue_url):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(QueueUrl=queue_url, MessageBody="")
    assert_error(
        exc,
        "MissingParameter",
        "MissingRequiredParameterException",
        "The request must contain the parameter MessageBody.",
    )


def test_body_of_default_maximum_size_is_accepted(sqs_client, queue_url):
    response = sqs_client.send_message(QueueUrl=queue_url, MessageBody="a" * MIB)
    assert response["MD5OfMessageBody"] == hashlib.md5(b"a" * MIB).hexdigest()


def test_body_over_default_maximum_size_is_rejected(sqs_client, queue_url):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(QueueUrl=queue_url, MessageBody="a" * (MIB + 1))
    assert_invalid_parameter(exc, TOO_LONG.format(MIB))


def test_multibyte_body_is_measured_in_utf8_bytes_at_default_limit(sqs_client, queue_url):
    sqs_client.send_message(QueueUrl=queue_url, MessageBody="é" * (MIB // 2))
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(QueueUrl=queue_url, MessageBody="é" * (MIB // 2 + 1))
    assert_invalid_parameter(exc, TOO_LONG.format(MIB))


@pytest.mark.parametrize(
    ("fits", "too_big"),
    [
        ("é" * 512, "é" * 513),
        ("€" * 341 + "a", "€" * 342),
        ("😀" * 256, "😀" * 256 + "a"),
    ],
    ids=["two-byte", "three-byte", "four-byte"],
)
def test_multibyte_body_is_measured_in_utf8_bytes(sqs_client, small_queue_url, fits, too_big):
    assert len(fits.encode()) == 1024
    sqs_client.send_message(QueueUrl=small_queue_url, MessageBody=fits)
    assert receive_one(sqs_client, small_queue_url)["Body"] == fits
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(QueueUrl=small_queue_url, MessageBody=too_big)
    assert_invalid_parameter(exc, TOO_LONG.format(1024))


def test_lowered_maximum_message_size_is_enforced(sqs_client, small_queue_url):
    sqs_client.send_message(QueueUrl=small_queue_url, MessageBody="a" * 1024)
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(QueueUrl=small_queue_url, MessageBody="a" * 1025)
    assert_invalid_parameter(exc, TOO_LONG.format(1024))


def test_maximum_message_size_lowered_after_creation_applies(sqs_client, queue_url):
    sqs_client.set_queue_attributes(QueueUrl=queue_url, Attributes={"MaximumMessageSize": "2048"})
    sqs_client.send_message(QueueUrl=queue_url, MessageBody="a" * 2048)
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(QueueUrl=queue_url, MessageBody="a" * 2049)
    assert_invalid_parameter(exc, TOO_LONG.format(2048))


@pytest.mark.parametrize(
    "char",
    ["\x00", "\x08", "\x0b", "\x0c", "\x1f", "\ud800", "\udfff", "\ufffe", "\uffff"],
    ids=[
        "nul",
        "backspace",
        "vtab",
        "formfeed",
        "unit-sep",
        "surrogate-lo",
        "surrogate-hi",
        "fffe",
        "ffff",
    ],
)
def test_forbidden_code_points_are_invalid_message_contents(sqs_client, queue_url, char):
    with pytest.raises(sqs_client.exceptions.InvalidMessageContents) as exc:
        sqs_client.send_message(QueueUrl=queue_url, MessageBody=f"before{char}after")
    assert_error(exc, "InvalidMessageContents", "InvalidMessageContents")
    assert sqs_client.receive_message(QueueUrl=queue_url).get("Messages") is None


@pytest.mark.parametrize(
    "char",
    ["\t", "\n", "\r", " ", "\ud7ff", "\ue000", "\ufffd", "\U00010000", "\U0010ffff"],
    ids=["tab", "lf", "cr", "space", "d7ff", "e000", "fffd", "10000", "10ffff"],
)
def test_allowed_edge_code_points_round_trip(sqs_client, queue_url, char):
    body = f"<{char}>"
    response = sqs_client.send_message(QueueUrl=queue_url, MessageBody=body)
    message = receive_one(sqs_client, queue_url)
    assert message["Body"] == body
    assert response["MD5OfMessageBody"] == hashlib.md5(body.encode()).hexdigest()
    assert message["MD5OfBody"] == response["MD5OfMessageBody"]


@pytest.mark.parametrize(
    "body",
    [
        "line one\r\nline two\rline three\n",
        "&quot;quoted&quot; &amp; &lt;tag&gt; &#x41;",
        '<?xml version="1.0"?><root a="1"><![CDATA[x]]></root>',
        "emoji 😀🎉 and 🇪🇺 flags",
        "  padded with spaces  ",
        '{"json": ["value", 1, null]}',
        "\\n is not a newline, %20 is not a space, + is a plus",
    ],
    ids=["cr-lf", "entities", "xml", "emoji", "spaces", "json", "escapes"],
)
def test_body_round_trips_byte_exact(sqs_client, queue_url, body):
    response = sqs_client.send_message(QueueUrl=queue_url, MessageBody=body)
    message = receive_one(sqs_client, queue_url)
    assert message["Body"].encode("utf-8") == body.encode("utf-8")
    assert response["MD5OfMessageBody"] == hashlib.md5(body.encode("utf-8")).hexdigest()
    assert message["MD5OfBody"] == response["MD5OfMessageBody"]


def test_forbidden_code_point_in_attribute_value_is_invalid_parameter_value(sqs_client, queue_url):
    # Recorded from SQS: unlike the body, an attribute value answers InvalidParameterValue.
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(
            QueueUrl=queue_url, MessageBody="ok", MessageAttributes={"a": string_attr("x\x00y")}
        )
    assert_error(exc, "InvalidParameterValue", "InvalidParameterValueException")


# --- size including attributes -------------------------------------------------------------------


@pytest.mark.parametrize(
    "attributes",
    [
        {"ab": string_attr("v" * 16)},  # 2 + 6 + 16
        {"n": string_attr("1" * 17, "Number")},  # 1 + 6 + 17
        {"bin": {"DataType": "Binary", "BinaryValue": b"\xff" * 15}},  # 3 + 6 + 15
        {"ab": string_attr("v" * 14, "String.x")},  # 2 + 8 + 14
        {"é": string_attr("ü" * 8)},  # 2 + 6 + 16
        {"a": string_attr("v" * 5), "b": string_attr("w" * 5)},  # 2 * (1 + 6 + 5)
    ],
    ids=["string", "number", "binary", "custom-type", "multibyte", "two-attributes"],
)
def test_size_counts_attribute_name_type_and_value(sqs_client, small_queue_url, attributes):
    """Each attribute set adds exactly 24 bytes; 1000 + 24 fits in 1024, 1001 + 24 does not."""
    sqs_client.send_message(
        QueueUrl=small_queue_url, MessageBody="a" * 1000, MessageAttributes=attributes
    )
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(
            QueueUrl=small_queue_url, MessageBody="a" * 1001, MessageAttributes=attributes
        )
    assert_invalid_parameter(exc, TOO_LONG.format(1024))


def test_attributes_push_full_size_body_over_default_limit(sqs_client, queue_url):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(
            QueueUrl=queue_url, MessageBody="a" * MIB, MessageAttributes={"k": string_attr("v")}
        )
    assert_invalid_parameter(exc, TOO_LONG.format(MIB))


def test_system_attributes_do_not_count_toward_size(sqs_client, small_queue_url):
    response = sqs_client.send_message(
        QueueUrl=small_queue_url,
        MessageBody="a" * 1024,
        MessageSystemAttributes={
            "AWSTraceHeader": {"DataType": "String", "StringValue": TRACE_HEADER}
        },
    )
    assert response["MD5OfMessageSystemAttributes"] == TRACE_HEADER_MD5


# --- DelaySeconds -------------------------------------------------------------------------------


@pytest.mark.parametrize("delay", [0, 1, 900])
def test_delay_seconds_in_range_is_accepted(sqs_client, queue_url, delay):
    sqs_client.send_message(QueueUrl=queue_url, MessageBody="x", DelaySeconds=delay)
    expected_delayed = "1" if delay else "0"
    assert queue_counts(sqs_client, queue_url)["ApproximateNumberOfMessagesDelayed"] == (
        expected_delayed
    )


@pytest.mark.parametrize("delay", [-1, 901])
def test_delay_seconds_out_of_range_is_rejected(sqs_client, queue_url, delay):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(QueueUrl=queue_url, MessageBody="x", DelaySeconds=delay)
    assert_invalid_parameter(exc)
    assert queue_counts(sqs_client, queue_url) == {
        "ApproximateNumberOfMessages": "0",
        "ApproximateNumberOfMessagesNotVisible": "0",
        "ApproximateNumberOfMessagesDelayed": "0",
    }


def test_delayed_message_is_counted_and_becomes_receivable(sqs_client, sqs_mock, queue_url):
    sqs_client.send_message(QueueUrl=queue_url, MessageBody="later", DelaySeconds=30)
    assert queue_counts(sqs_client, queue_url) == {
        "ApproximateNumberOfMessages": "0",
        "ApproximateNumberOfMessagesNotVisible": "0",
        "ApproximateNumberOfMessagesDelayed": "1",
    }
    assert [m.state for m in sqs_mock.peek(queue_url)] == ["delayed"]
    sqs_mock.clock.advance(29)
    assert "Messages" not in sqs_client.receive_message(QueueUrl=queue_url)
    sqs_mock.clock.advance(1)
    assert queue_counts(sqs_client, queue_url)["ApproximateNumberOfMessagesDelayed"] == "0"
    assert queue_counts(sqs_client, queue_url)["ApproximateNumberOfMessages"] == "1"
    assert receive_one(sqs_client, queue_url)["Body"] == "later"


def test_queue_delay_applies_when_message_delay_omitted(sqs_client, sqs_mock):
    url = sqs_client.create_queue(QueueName="delayed-queue", Attributes={"DelaySeconds": "60"})[
        "QueueUrl"
    ]
    sqs_client.send_message(QueueUrl=url, MessageBody="x")
    sqs_mock.clock.advance(59)
    assert "Messages" not in sqs_client.receive_message(QueueUrl=url)
    sqs_mock.clock.advance(1)
    assert receive_one(sqs_client, url)["Body"] == "x"


def test_message_delay_zero_overrides_queue_delay(sqs_client):
    url = sqs_client.create_queue(QueueName="delayed-queue", Attributes={"DelaySeconds": "60"})[
        "QueueUrl"
    ]
    sqs_client.send_message(QueueUrl=url, MessageBody="now", DelaySeconds=0)
    assert receive_one(sqs_client, url)["Body"] == "now"


def test_shorter_message_delay_overrides_longer_queue_delay(sqs_client, sqs_mock):
    url = sqs_client.create_queue(QueueName="delayed-queue", Attributes={"DelaySeconds": "600"})[
        "QueueUrl"
    ]
    sqs_client.send_message(QueueUrl=url, MessageBody="soon", DelaySeconds=5)
    sqs_mock.clock.advance(4)
    assert "Messages" not in sqs_client.receive_message(QueueUrl=url)
    sqs_mock.clock.advance(1)
    assert receive_one(sqs_client, url)["Body"] == "soon"


def test_longer_message_delay_overrides_queue_delay(sqs_client, sqs_mock):
    url = sqs_client.create_queue(QueueName="delayed-queue", Attributes={"DelaySeconds": "5"})[
        "QueueUrl"
    ]
    sqs_client.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=20)
    sqs_mock.clock.advance(19)
    assert "Messages" not in sqs_client.receive_message(QueueUrl=url)
    sqs_mock.clock.advance(1)
    assert receive_one(sqs_client, url)["Body"] == "later"


# --- message attributes --------------------------------------------------------------------------


def test_ten_message_attributes_are_accepted(sqs_client, queue_url):
    attributes = {f"attr{i}": string_attr(str(i)) for i in range(10)}
    response = sqs_client.send_message(
        QueueUrl=queue_url, MessageBody="x", MessageAttributes=attributes
    )
    assert response["MD5OfMessageAttributes"] == attributes_md5(attributes)


def test_eleven_message_attributes_are_rejected(sqs_client, queue_url):
    attributes = {f"attr{i}": string_attr(str(i)) for i in range(11)}
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(QueueUrl=queue_url, MessageBody="x", MessageAttributes=attributes)
    assert_invalid_parameter(exc)


@pytest.mark.parametrize(
    "name",
    [
        "AWS.thing",
        "aws.thing",
        "Aws.Thing",
        "Amazon.thing",
        "amazon.thing",
        "AMAZON.thing",
        ".leading",
        "trailing.",
        "double..dot",
        "a" * 257,
        "with space",
        "slash/char",
    ],
    ids=[
        "AWS.",
        "aws.",
        "Aws.",
        "Amazon.",
        "amazon.",
        "AMAZON.",
        "leading-dot",
        "trailing-dot",
        "double-dot",
        "257-chars",
        "space",
        "slash",
    ],
)
def test_invalid_attribute_names_are_rejected(sqs_client, queue_url, name):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(
            QueueUrl=queue_url, MessageBody="x", MessageAttributes={name: string_attr("v")}
        )
    assert_invalid_parameter(exc)


@pytest.mark.parametrize(
    "name",
    ["a" * 256, "a.b.c", "with-dash_and_underscore", "AWSish", "amazonian", "Ünïcödé", "名前"],
    ids=["256-chars", "dots", "dash-underscore", "AWS-no-dot", "amazon-no-dot", "latin", "cjk"],
)
def test_valid_attribute_names_are_accepted(sqs_client, queue_url, name):
    attributes = {name: string_attr("v")}
    response = sqs_client.send_message(
        QueueUrl=queue_url, MessageBody="x", MessageAttributes=attributes
    )
    assert response["MD5OfMessageAttributes"] == attributes_md5(attributes)
    message = receive_one(sqs_client, queue_url, MessageAttributeNames=["All"])
    assert message["MessageAttributes"] == attributes


@pytest.mark.parametrize(
    "attribute",
    [
        string_attr("text", "String"),
        string_attr("1.5", "Number"),
        {"DataType": "Binary", "BinaryValue": b"\x01"},
        string_attr("text", "String.custom"),
        string_attr("7", "Number.integer"),
        {"DataType": "Binary.jpeg", "BinaryValue": b"\xff\xd8"},
        string_attr("text", "String." + "x" * 249),
    ],
    ids=[
        "String",
        "Number",
        "Binary",
        "String.custom",
        "Number.integer",
        "Binary.jpeg",
        "256-char-type",
    ],
)
def test_valid_data_types_are_accepted(sqs_client, queue_url, attribute):
    response = sqs_client.send_message(
        QueueUrl=queue_url, MessageBody="x", MessageAttributes={"attr": attribute}
    )
    assert response["MD5OfMessageAttributes"] == attributes_md5({"attr": attribute})


@pytest.mark.parametrize(
    "data_type",
    ["Integer", "Text", "Text.custom", "String." + "x" * 250],
    ids=["Integer", "Text", "Text.custom", "257-char-type"],
)
def test_invalid_data_types_are_rejected(sqs_client, queue_url, data_type):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(
            QueueUrl=queue_url,
            MessageBody="x",
            MessageAttributes={"attr": string_attr("1", data_type)},
        )
    assert_invalid_parameter(exc)


def test_number_with_38_digits_is_accepted(sqs_client, queue_url):
    attributes = {"big": string_attr("9" * 38, "Number")}
    sqs_client.send_message(QueueUrl=queue_url, MessageBody="x", MessageAttributes=attributes)
    message = receive_one(sqs_client, queue_url, MessageAttributeNames=["big"])
    assert message["MessageAttributes"] == attributes


def test_number_with_39_digits_is_rejected(sqs_client, queue_url):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(
            QueueUrl=queue_url,
            MessageBody="x",
            MessageAttributes={"big": string_attr("9" * 39, "Number")},
        )
    assert_invalid_parameter(exc)


def test_empty_string_attribute_value_is_rejected(sqs_client, queue_url):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(
            QueueUrl=queue_url, MessageBody="x", MessageAttributes={"X": string_attr("")}
        )
    assert_invalid_parameter(
        exc, "Message (user) attribute 'X' must contain a non-empty value of type 'String'."
    )


def test_attribute_without_any_value_is_rejected(sqs_client, queue_url):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(
            QueueUrl=queue_url, MessageBody="x", MessageAttributes={"X": {"DataType": "String"}}
        )
    assert_invalid_parameter(exc)


# --- message system attributes -------------------------------------------------------------------


def test_trace_header_md5_and_round_trip(sqs_client, queue_url):
    response = sqs_client.send_message(
        QueueUrl=queue_url,
        MessageBody="traced",
        MessageSystemAttributes={
            "AWSTraceHeader": {"DataType": "String", "StringValue": TRACE_HEADER}
        },
    )
    assert response["MD5OfMessageSystemAttributes"] == TRACE_HEADER_MD5
    assert "MD5OfMessageAttributes" not in response
    message = receive_one(sqs_client, queue_url, MessageSystemAttributeNames=["AWSTraceHeader"])
    assert message["Attributes"] == {"AWSTraceHeader": TRACE_HEADER}
    assert "MessageAttributes" not in message


def test_trace_header_md5_matches_attribute_algorithm():
    trace = {"AWSTraceHeader": string_attr(TRACE_HEADER)}
    assert attributes_md5(trace) == TRACE_HEADER_MD5


def test_system_attributes_do_not_change_message_attributes_md5(sqs_client, queue_url):
    response = sqs_client.send_message(
        QueueUrl=queue_url,
        MessageBody="message",
        MessageAttributes={"Foo": string_attr("Bar")},
        MessageSystemAttributes={
            "AWSTraceHeader": {"DataType": "String", "StringValue": TRACE_HEADER}
        },
    )
    assert response["MD5OfMessageAttributes"] == "ae7155c6026991b6d54b11589678bf9c"
    assert response["MD5OfMessageSystemAttributes"] == TRACE_HEADER_MD5
    message = receive_one(sqs_client, queue_url, MessageAttributeNames=["All"])
    assert message["MessageAttributes"] == {"Foo": string_attr("Bar")}
    assert message["MD5OfMessageAttributes"] == "ae7155c6026991b6d54b11589678bf9c"


@pytest.mark.parametrize("name", ["SenderId", "SentTimestamp", "Foo"])
def test_only_trace_header_is_accepted_as_system_attribute(sqs_client, queue_url, name):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(
            QueueUrl=queue_url,
            MessageBody="x",
            MessageSystemAttributes={name: {"DataType": "String", "StringValue": "v"}},
        )
    assert_invalid_parameter(exc)


# --- MessageGroupId on a standard queue -----------------------------------------------------------


def test_message_group_id_is_accepted_and_returned_on_receive(sqs_client, queue_url):
    response = sqs_client.send_message(
        QueueUrl=queue_url, MessageBody="fair", MessageGroupId="tenant-1"
    )
    assert "SequenceNumber" not in response
    message = receive_one(sqs_client, queue_url, MessageSystemAttributeNames=["MessageGroupId"])
    assert message["Attributes"] == {"MessageGroupId": "tenant-1"}


def test_message_group_id_with_all_punctuation_and_128_chars(sqs_client, queue_url):
    punctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
    for group_id in (punctuation, "g" * 128):
        sqs_client.send_message(QueueUrl=queue_url, MessageBody="x", MessageGroupId=group_id)
    received = sqs_client.receive_message(
        QueueUrl=queue_url, MaxNumberOfMessages=10, MessageSystemAttributeNames=["MessageGroupId"]
    )["Messages"]
    assert sorted(m["Attributes"]["MessageGroupId"] for m in received) == sorted(
        [punctuation, "g" * 128]
    )


@pytest.mark.parametrize("group_id", ["has space", "g" * 129], ids=["space", "129-chars"])
def test_invalid_message_group_id_is_rejected(sqs_client, queue_url, group_id):
    with pytest.raises(ClientError) as exc:
        sqs_client.send_message(QueueUrl=queue_url, MessageBody="x", MessageGroupId=group_id)
    assert_invalid_parameter(exc, GROUP_ID_INVALID.format(group_id))


# --- SendMessageBatch: whole-request errors ------------------------------------------------------


def entries(count: int, body: str = "x") -> list[dict[str, Any]]:
    return [{"Id": f"e{i}", "MessageBody": body} for i in range(count)]


def test_batch_with_no_entries_is_empty_batch_request(sqs_client, queue_url):
    with pytest.raises(sqs_client.exceptions.EmptyBatchRequest) as exc:
        sqs_client.send_message_batch(QueueUrl=queue_url, Entries=[])
    assert_error(exc, "AWS.SimpleQueueService.EmptyBatchRequest", "EmptyBatchRequest")


def test_batch_with_eleven_entries_is_too_many(sqs_client, queue_url):
    with pytest.raises(sqs_client.exceptions.TooManyEntriesInBatchRequest) as exc:
        sqs_client.send_message_batch(QueueUrl=queue_url, Entries=entries(11))
    assert_error(
        exc,
        "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
        "TooManyEntriesInBatchRequest",
        "Maximum number of entries per request are 10. You have sent 11.",
    )
    assert queue_counts(sqs_client, queue_url)["ApproximateNumberOfMessages"] == "0"


def test_batch_with_duplicate_ids_is_rejected(sqs_client, queue_url):
    batch = [{"Id": "same", "MessageBody": "a"}, {"Id": "same", "MessageBody": "b"}]
    with pytest.raises(sqs_client.exceptions.BatchEntryIdsNotDistinct) as exc:
        sqs_client.send_message_batch(QueueUrl=queue_url, Entries=batch)
    assert_error(exc, "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", "BatchEntryIdsNotDistinct")
    assert queue_counts(sqs_client, queue_url)["ApproximateNumberOfMessages"] == "0"


@pytest.mark.parametrize(
    "entry_id",
    ["i" * 81, "has.dot", "has space", "ünï"],
    ids=["81-chars", "dot", "space", "non-ascii"],
)
def test_batch_with_bad_entry_id_is_rejected(sqs_client, queue_url, entry_id):
    batch = [{"Id": "ok", "MessageBody": "a"}, {"Id": entry_id, "MessageBody": "b"}]
    with pytest.raises(sqs_client.exceptions.InvalidBatchEntryId) as exc:
        sqs_client.send_message_batch(QueueUrl=queue_url, Entries=batch)
    assert_error(
        exc, "AWS.SimpleQueueService.InvalidBatchEntryId", "InvalidBatchEntryId", BAD_BATCH_ID
    )
    assert queue_counts(sqs_client, queue_url)["ApproximateNumberOfMessages"] == "0"


def test_batch_entry_id_of_80_allowed_chars_is_accepted(sqs_client, queue_url):
    entry_id = ("Az09-_" * 14)[:80]
    response = sqs_client.send_message_batch(
        QueueUrl=queue_url, Entries=[{"Id": entry_id, "MessageBody": "a"}]
    )
    assert [e["Id"] for e in response["Successful"]] == [entry_id]


def test_batch_over_one_mib_is_too_long(sqs_client, queue_url):
    batch = [
        {"Id": "first", "MessageBody": "a" * (MIB // 2)},
        {"Id": "second", "MessageBody": "b" * (MIB // 2 + 1)},
    ]
    with pytest.raises(sqs_client.exceptions.BatchRequestTooLong) as exc:
        sqs_client.send_message_batch(QueueUrl=queue_url, Entries=batch)
    assert_error(
        exc,
        "AWS.SimpleQueueService.BatchRequestTooLong",
        "BatchRequestTooLong",
        "Batch requests cannot be longer than 1048576 bytes. You have sent 1048577 bytes.",
    )
    assert queue_counts(sqs_client, queue_url)["ApproximateNumberOfMessages"] == "0"


def test_batch_size_is_counted_in_utf8_bytes(sqs_client, queue_url):
    batch = [
        {"Id": "first", "MessageBody": "é" * (MIB // 4)},
        {"Id": "second", "MessageBody": "ü" * (MIB // 4)},
        {"Id": "third", "MessageBody": "a"},
    ]
    with pytest.raises(sqs_client.exceptions.BatchRequestTooLong) as exc:
        sqs_client.send_message_batch(QueueUrl=queue_url, Entries=batch)
    assert_error(
        exc,
        "AWS.SimpleQueueService.BatchRequestTooLong",
        "BatchRequestTooLong",
        "Batch requests cannot be longer than 1048576 bytes. You have sent 1048577 bytes.",
    )


def test_batch_of_exactly_one_mib_is_accepted(sqs_client, queue_url):
    batch = [
        {"Id": "first", "MessageBody": "a" * (MIB // 2)},
        {"Id": "second", "MessageBody": "b" * (MIB // 2)},
    ]
    response = sqs_client.send_message_batch(QueueUrl=queue_url, Entries=batch)
    assert len(response["Successful"]) == 2
    assert "Failed" not in response


# --- SendMessageBatch: per-entry results ------------------------------------------------------


def test_successful_batch_entries_and_no_failed_key(sqs_client, queue_url):
    batch = [
        {"Id": "plain", "MessageBody": "message"},
        {"Id": "attrs", "MessageBody": "message", "MessageAttributes": {"Foo": string_attr("Bar")}},
        {
            "Id": "traced",
            "MessageBody": "message",
            "MessageSystemAttributes": {
                "AWSTraceHeader": {"DataType": "String", "StringValue": TRACE_HEADER}
            },
        },
    ]
    response = sqs_client.send_message_batch(QueueUrl=queue_url, Entries=batch)
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert "Failed" not in response
    by_id = {entry["Id"]: entry for entry in response["Successful"]}
    assert set(by_id) == {"plain", "attrs", "traced"}
    for entry in by_id.values():
        assert UUID_RE.match(entry["MessageId"])
        assert entry["MD5OfMessageBody"] == "78e731027d8fd50ed642340b7c9a63b3"
        assert "SequenceNumber" not in entry
    assert set(by_id["plain"]) == {"Id", "MessageId", "MD5OfMessageBody"}
    assert set(by_id["attrs"]) == {"Id", "MessageId", "MD5OfMessageBody", "MD5OfMessageAttributes"}
    assert by_id["attrs"]["MD5OfMessageAttributes"] == "ae7155c6026991b6d54b11589678bf9c"
    assert set(by_id["traced"]) == {
        "Id",
        "MessageId",
        "MD5OfMessageBody",
        "MD5OfMessageSystemAttributes",
    }
    assert by_id["traced"]["MD5OfMessageSystemAttributes"] == TRACE_HEADER_MD5
    assert len({entry["MessageId"] for entry in by_id.values()}) == 3


def test_batch_messages_are_stored_with_their_ids(sqs_client, queue_url):
    batch = [{"Id": f"e{i}", "MessageBody": f"body {i}"} for i in range(10)]
    response = sqs_client.send_message_batch(QueueUrl=queue_url, Entries=batch)
    sent = {entry["MessageId"]: entry["Id"] for entry in response["Successful"]}
    received = sqs_client.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]
    assert {m["MessageId"]: m["Body"] for m in received} == {
        message_id: f"body {entry_id[1:]}" for message_id, entry_id in sent.items()
    }


def test_batch_entry_delay_is_per_entry(sqs_client, sqs_mock, queue_url):
    batch = [
        {"Id": "now", "MessageBody": "now"},
        {"Id": "later", "MessageBody": "later", "DelaySeconds": 10},
    ]
    sqs_client.send_message_batch(QueueUrl=queue_url, Entries=batch)
    assert queue_counts(sqs_client, queue_url) == {
        "ApproximateNumberOfMessages": "1",
        "ApproximateNumberOfMessagesNotVisible": "0",
        "ApproximateNumberOfMessagesDelayed": "1",
    }
    sqs_mock.clock.advance(10)
    assert queue_counts(sqs_client, queue_url)["ApproximateNumberOfMessages"] == "2"


def test_batch_per_entry_failures_give_successful_and_failed(sqs_client, small_queue_url):
    batch = [
        {"Id": "good", "MessageBody": "fine"},
        {"Id": "big", "MessageBody": "a" * 1025},
        {"Id": "badchar", "MessageBody": "bad\x00char"},
    ]
    response = sqs_client.send_message_batch(QueueUrl=small_queue_url, Entries=batch)
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert [entry["Id"] for entry in response["Successful"]] == ["good"]
    failed = {entry["Id"]: entry for entry in response["Failed"]}
    assert set(failed) == {"big", "badchar"}
    assert failed["big"] == {
        "Id": "big",
        "SenderFault": True,
        "Code": "InvalidParameterValue",
        "Message": TOO_LONG_IN_BATCH.format(1024),
    }
    assert failed["badchar"]["SenderFault"] is True
    assert failed["badchar"]["Code"] == "InvalidMessageContents"
    assert failed["badchar"]["Message"]
    received = sqs_client.receive_message(QueueUrl=small_queue_url, MaxNumberOfMessages=10)
    assert [m["Body"] for m in received["Messages"]] == ["fine"]


def test_batch_where_every_entry_fails_is_still_200(sqs_client, small_queue_url):
    batch = [{"Id": "a", "MessageBody": "a" * 1025}, {"Id": "b", "MessageBody": "\x01"}]
    response = sqs_client.send_message_batch(QueueUrl=small_queue_url, Entries=batch)
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert "Successful" not in response  # SQS leaves out an empty list
    assert sorted(entry["Id"] for entry in response["Failed"]) == ["a", "b"]
    assert queue_counts(sqs_client, small_queue_url)["ApproximateNumberOfMessages"] == "0"
