"""Hostile input on the wire: each case is refused with the 4xx SQS gives malformed input, before
the call takes effect (no message enqueued, no tag or attribute written), never a 500; every
query-protocol answer is a well-formed XML document. The server and the in-process hook share the
protocol layer, so the cases an SDK can carry are checked in process too."""

from __future__ import annotations

import json
import logging
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from server_support import Answer, admin, call_json, call_query

import sqsmock
from sqsmock import SqsServer
from sqsmock._protocol.query import (
    MAX_DEPTH,
    MAX_NAME_LENGTH,
    MAX_PARAMETERS,
    render_query_error,
    render_query_success,
)
from sqsmock._protocol.validate import MAX_NESTING

HUGE = "9" * 5000  # past Python's 4,300-digit limit for int() of text
CONTROL = "bad\x01\x08\x1f\ufffe"  # characters XML 1.0 cannot carry, not even as references


@pytest.fixture
def server(sqs_server: SqsServer, caplog: pytest.LogCaptureFixture) -> Iterator[SqsServer]:
    yield sqs_server
    # Refusing bad input is no fault of sqsmock's: nothing is logged as an error.
    failures = [r.getMessage() for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    assert not failures
    assert admin(sqs_server.endpoint_url, "GET", "health").status == 200


def make_queue(server: SqsServer, name: str = "q") -> str:
    answer = call_json(server.endpoint_url, "CreateQueue", {"QueueName": name})
    return str(answer.json()["QueueUrl"])


def query_error(answer: Answer) -> tuple[int, str, str]:
    """(status, code, message) of a query-protocol error, parsed as XML by the standard library."""
    assert answer.headers["content-type"] == "text/xml"
    root = ET.fromstring(answer.body)  # raises on a malformed document
    assert root.tag.endswith("ErrorResponse")
    return answer.status, answer.find("Error/Code") or "", answer.find("Error/Message") or ""


def json_error(answer: Answer) -> tuple[int, str]:
    assert answer.headers["content-type"] == "application/x-amz-json-1.0"
    return answer.status, answer.headers["x-amzn-query-error"].split(";")[0]


# --- Query forms past their bounds ---------------------------------------------------------------


def test_a_4_mb_name_of_dots_is_refused_at_once(server: SqsServer) -> None:
    url = make_queue(server)
    form = f"Action=SendMessage&QueueUrl={url}&MessageBody=x&".encode() + b"a." * 2_000_000 + b"a=1"
    answer = call_query(server.endpoint_url, form)
    assert query_error(answer)[:2] == (400, "InvalidQueryParameter")
    assert server.peek("q") == []


@pytest.mark.parametrize(
    "name",
    [
        "a" * (MAX_NAME_LENGTH + 1),
        ".".join(["a"] * (MAX_DEPTH + 1)),
        "Attribute." + HUGE + ".Name",  # an index past int()'s limit
    ],
    ids=["long", "deep", "huge-index"],
)
def test_form_names_past_the_bounds_are_refused(server: SqsServer, name: str) -> None:
    url = make_queue(server)
    pairs = [("Action", "SendMessage"), ("QueueUrl", url), ("MessageBody", "x"), (name, "1")]
    assert query_error(call_query(server.endpoint_url, pairs))[:2] == (400, "InvalidQueryParameter")
    assert server.peek("q") == []


def test_too_many_form_parameters_are_refused(server: SqsServer) -> None:
    url = make_queue(server)
    pairs = [("Action", "SendMessage"), ("QueueUrl", url), ("MessageBody", "x")]
    pairs += [(f"Unknown{i}", "1") for i in range(MAX_PARAMETERS)]
    assert query_error(call_query(server.endpoint_url, pairs))[:2] == (400, "InvalidQueryParameter")
    assert server.peek("q") == []


def test_the_largest_valid_request_fits_the_bounds(server: SqsServer) -> None:
    """A batch of ten entries with ten attributes each: the bounds are not SQS's limits."""
    url = make_queue(server)
    pairs = [("Action", "SendMessageBatch"), ("QueueUrl", url)]
    for entry in range(1, 11):
        prefix = f"SendMessageBatchRequestEntry.{entry}"
        pairs += [(f"{prefix}.Id", f"e{entry}"), (f"{prefix}.MessageBody", "x")]
        for index in range(1, 11):
            attribute = f"{prefix}.MessageAttribute.{index}"
            pairs += [
                (f"{attribute}.Name", f"a{index}"),
                (f"{attribute}.Value.DataType", "String"),
                (f"{attribute}.Value.StringValue", "v"),
            ]
    answer = call_query(server.endpoint_url, pairs)
    assert answer.status == 200, answer.body[:300]
    assert len(server.peek("q")) == 10


# --- Integers past Python's digit limit ----------------------------------------------------------


def test_a_huge_integer_form_value_is_invalid(server: SqsServer) -> None:
    url = make_queue(server)
    pairs = [("Action", "SendMessage"), ("QueueUrl", url), ("MessageBody", "x")]
    status, code, message = query_error(
        call_query(server.endpoint_url, [*pairs, ("DelaySeconds", HUGE)])
    )
    assert (status, code) == (400, "InvalidParameterValue")
    assert "DelaySeconds must be an integer" in message
    assert server.peek("q") == []


def test_a_huge_list_index_under_the_name_bound_still_works(server: SqsServer) -> None:
    url = make_queue(server)
    index = "9" * 200
    pairs = [
        ("Action", "SetQueueAttributes"),
        ("QueueUrl", url),
        (f"Attribute.{index}.Name", "VisibilityTimeout"),
        (f"Attribute.{index}.Value", "7"),
    ]
    assert call_query(server.endpoint_url, pairs).status == 200
    attributes = call_json(
        server.endpoint_url,
        "GetQueueAttributes",
        {"QueueUrl": url, "AttributeNames": ["VisibilityTimeout"]},
    ).json()
    assert attributes == {"Attributes": {"VisibilityTimeout": "7"}}


@pytest.mark.parametrize("protocol", ["query", "json"])
def test_a_huge_integer_queue_attribute_is_an_invalid_value(
    server: SqsServer, protocol: str
) -> None:
    url = make_queue(server)
    if protocol == "query":
        pairs = [
            ("Action", "SetQueueAttributes"),
            ("QueueUrl", url),
            ("Attribute.1.Name", "VisibilityTimeout"),
            ("Attribute.1.Value", HUGE),
        ]
        assert query_error(call_query(server.endpoint_url, pairs))[:2] == (
            400,
            "InvalidAttributeValue",
        )
    else:
        params = {"QueueUrl": url, "Attributes": {"VisibilityTimeout": HUGE}}
        answer = call_json(server.endpoint_url, "SetQueueAttributes", params)
        assert json_error(answer) == (400, "InvalidAttributeValue")


def test_a_huge_json_number_is_malformed_json(server: SqsServer) -> None:
    url = make_queue(server)
    body = f'{{"QueueUrl": "{url}", "MessageBody": "x", "DelaySeconds": {HUGE}}}'.encode()
    assert json_error(call_json(server.endpoint_url, "SendMessage", body)) == (
        400,
        "InvalidParameterValue",
    )
    assert server.peek("q") == []


@pytest.mark.parametrize("validate", [True, False])
def test_a_huge_integer_in_process_is_an_invalid_value(validate: bool) -> None:
    with sqsmock.mock_sqs() as mock:
        sqs = boto3.client(
            "sqs", region_name="us-east-1", config=Config(parameter_validation=validate)
        )
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        with pytest.raises(ClientError) as raised:
            sqs.send_message(QueueUrl=url, MessageBody="x", DelaySeconds=10**5000)
        error = raised.value.response["Error"]
        assert error["Code"] == "InvalidParameterValue"
        assert "for parameter DelaySeconds is invalid" in error["Message"]
        assert mock.peek("q") == []


# --- JSON nested past the bound ------------------------------------------------------------------


def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 600, 989])
def test_deep_json_in_an_unknown_member_is_refused_before_sending(
    server: SqsServer, depth: int
) -> None:
    url = make_queue(server)
    deep = "[" * depth + "]" * depth  # json.dumps itself could not write the deepest
    body = f'{{"QueueUrl": "{url}", "MessageBody": "x", "Unknown": {deep}}}'
    answer = call_json(server.endpoint_url, "SendMessage", body.encode())
    assert json_error(answer) == (400, "InvalidParameterValue")
    assert answer.json()["message"] == "The request body is not valid JSON."
    assert server.peek("q") == []  # nothing enqueued: an SDK retrying would not duplicate it


def test_deep_json_inside_a_known_member_is_refused(server: SqsServer) -> None:
    url = make_queue(server)
    attribute = {"DataType": "String", "StringValue": "v", "Extra": nested(700)}
    params = {"QueueUrl": url, "Entries": [{"Id": "a", "MessageBody": "x"}]}
    params["Entries"][0]["MessageAttributes"] = {"n": attribute}  # type: ignore[index]
    answer = call_json(server.endpoint_url, "SendMessageBatch", json.dumps(params).encode())
    assert json_error(answer) == (400, "InvalidParameterValue")
    assert server.peek("q") == []


def test_json_at_the_nesting_bound_is_accepted(server: SqsServer) -> None:
    url = make_queue(server)
    # The body object is the first level: the unknown member may nest one less.
    body = json.dumps({"QueueUrl": url, "MessageBody": "x", "Unknown": nested(MAX_NESTING - 1)})
    before = len(server.calls.of("SendMessage"))
    assert call_json(server.endpoint_url, "SendMessage", body.encode()).status == 200
    assert len(server.peek("q")) == 1
    assert len(server.calls.of("SendMessage")) == before + 1  # the journal copied it


def test_deep_json_in_process_without_validation_is_refused() -> None:
    with sqsmock.mock_sqs() as mock:
        sqs = boto3.client(
            "sqs", region_name="us-east-1", config=Config(parameter_validation=False)
        )
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        with pytest.raises(ClientError) as raised:
            sqs.send_message(QueueUrl=url, MessageBody="x", Unknown=nested(700))
        assert raised.value.response["Error"]["Code"] == "InvalidParameterValue"
        assert mock.peek("q") == []


# --- Text XML cannot carry -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("form", "code"),
    [
        ([("Action", "DeleteMessage"), ("ReceiptHandle", CONTROL)], "ReceiptHandleIsInvalid"),
        (
            [
                ("Action", "ChangeMessageVisibility"),
                ("ReceiptHandle", CONTROL),
                ("VisibilityTimeout", "5"),
            ],
            "ReceiptHandleIsInvalid",
        ),
        ([("Action", "GetQueueAttributes"), ("AttributeName.1", CONTROL)], "InvalidAttributeName"),
        (
            [
                ("Action", "SetQueueAttributes"),
                ("Attribute.1.Name", CONTROL),
                ("Attribute.1.Value", "1"),
            ],
            "InvalidAttributeName",
        ),
        (
            [
                ("Action", "SendMessage"),
                ("MessageBody", "x"),
                ("MessageAttribute.1.Name", CONTROL),
                ("MessageAttribute.1.Value.DataType", "String"),
                ("MessageAttribute.1.Value.StringValue", "v"),
            ],
            "InvalidParameterValue",
        ),
        (
            [("Action", "SendMessage"), ("MessageBody", "x"), ("DelaySeconds", CONTROL)],
            "InvalidParameterValue",
        ),
        (
            [("Action", "SendMessage"), ("MessageBody", "x"), ("MessageGroupId", CONTROL)],
            "InvalidParameterValue",
        ),
        (
            [
                ("Action", "SendMessageBatch"),
                ("SendMessageBatchRequestEntry.1.Id", CONTROL),
                ("SendMessageBatchRequestEntry.1.MessageBody", "x"),
            ],
            "AWS.SimpleQueueService.InvalidBatchEntryId",
        ),
        (
            [("Action", "RemovePermission"), ("Label", CONTROL)],
            "InvalidParameterValue",
        ),
        ([("Action", CONTROL)], "InvalidAction"),
    ],
    ids=[
        "receipt-handle",
        "visibility-handle",
        "attribute-name",
        "set-attribute-name",
        "message-attribute-name",
        "integer",
        "group-id",
        "batch-id",
        "label",
        "action",
    ],
)
def test_errors_quoting_control_characters_are_well_formed_xml(
    server: SqsServer, form: list[tuple[str, str]], code: str
) -> None:
    url = make_queue(server)
    status, got, message = query_error(call_query(server.endpoint_url, [*form, ("QueueUrl", url)]))
    assert (status, got) == (400, code)
    assert "\x01" not in message
    assert server.peek("q") == []


def test_error_text_never_breaks_the_document() -> None:
    """Whatever an error message quotes, the XML parses; what XML cannot carry shows as U+FFFD."""
    body = render_query_error("X", 'a\x00b\x1fc\ud800d\ufffee&<>"\r\t\n', True, "r")
    root = ET.fromstring(body)
    ns = "{http://queue.amazonaws.com/doc/2012-11-05/}"
    assert root.findtext(f"{ns}Error/{ns}Message") == 'a\ufffdb\ufffdc\ufffdd\ufffde&<>"\r\t\n'
    answer = render_query_success("GetQueueUrl", {"QueueUrl": "q\x02"}, "r")
    assert ET.fromstring(answer).findtext(f".//{ns}QueueUrl") == "q\ufffd"


@pytest.mark.parametrize("where", ["key", "value"])
@pytest.mark.parametrize("protocol", ["query", "json"])
def test_tags_xml_cannot_carry_are_refused(server: SqsServer, where: str, protocol: str) -> None:
    url = make_queue(server)
    key, value = (CONTROL, "v") if where == "key" else ("k", CONTROL)
    if protocol == "query":
        pairs = [("Action", "TagQueue"), ("QueueUrl", url), ("Tag.1.Key", key)]
        pairs.append(("Tag.1.Value", value))
        assert query_error(call_query(server.endpoint_url, pairs))[:2] == (
            400,
            "InvalidParameterValue",
        )
    else:
        answer = call_json(server.endpoint_url, "TagQueue", {"QueueUrl": url, "Tags": {key: value}})
        assert json_error(answer) == (400, "InvalidParameterValue")
    listed = call_query(server.endpoint_url, [("Action", "ListQueueTags"), ("QueueUrl", url)])
    assert listed.status == 200
    assert ET.fromstring(listed.body).find(".//{*}Tag") is None  # parses, and nothing was written


def test_create_queue_tags_xml_cannot_carry_are_refused(server: SqsServer) -> None:
    params = {"QueueName": "t", "tags": {"k": CONTROL}}
    assert json_error(call_json(server.endpoint_url, "CreateQueue", params)) == (
        400,
        "InvalidParameterValue",
    )
    assert call_json(server.endpoint_url, "ListQueues", {}).json() == {}


def test_a_queue_attribute_xml_cannot_carry_is_refused(server: SqsServer) -> None:
    url = make_queue(server)
    params = {"QueueUrl": url, "Attributes": {"KmsMasterKeyId": f"alias/{CONTROL}"}}
    answer = call_json(server.endpoint_url, "SetQueueAttributes", params)
    assert json_error(answer) == (400, "InvalidAttributeValue")
    form = [("Action", "GetQueueAttributes"), ("QueueUrl", url), ("AttributeName.1", "All")]
    listed = call_query(server.endpoint_url, form)
    assert listed.status == 200
    names = [e.text for e in ET.fromstring(listed.body).iterfind(".//{*}Attribute/{*}Name")]
    assert "KmsMasterKeyId" not in names


def test_tags_xml_cannot_carry_are_refused_in_process() -> None:
    with sqsmock.mock_sqs():
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        with pytest.raises(ClientError) as raised:
            sqs.tag_queue(QueueUrl=url, Tags={"k": CONTROL})
        assert raised.value.response["Error"]["Code"] == "InvalidParameterValue"
        assert "Tags" not in sqs.list_queue_tags(QueueUrl=url)


# --- JSON in another encoding than UTF-8 ---------------------------------------------------------


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-be"])
def test_json_that_is_not_utf8_is_malformed(server: SqsServer, encoding: str) -> None:
    body = json.dumps({"QueueName": "wide"}).encode(encoding)
    answer = call_json(server.endpoint_url, "CreateQueue", body)
    assert json_error(answer) == (400, "InvalidParameterValue")
    assert answer.json()["message"] == "The request body is not valid JSON."
    assert call_json(server.endpoint_url, "ListQueues", {}).json() == {}


def test_json_in_utf8_is_accepted_whatever_it_holds(server: SqsServer) -> None:
    url = make_queue(server)
    params = {"QueueUrl": url, "MessageBody": "caf\u00e9 \U0001f600"}
    body = json.dumps(params, ensure_ascii=False).encode("utf-8")
    assert call_json(server.endpoint_url, "SendMessage", body).status == 200
    assert [view.body for view in server.peek("q")] == ["caf\u00e9 \U0001f600"]
