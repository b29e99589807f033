"""The query protocol against botocore, the real client of both SQS wire protocols.

A form botocore's ``QuerySerializer`` builds with the last query-protocol SQS model must decode to
exactly the JSON body its ``JSONSerializer`` builds with the current model; an XML answer rendered
by sqsmock must parse, with botocore's ``QueryParser``, to what its ``JSONParser`` makes of the
same answer as JSON.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

import pytest
from botocore.model import ServiceModel
from botocore.parsers import JSONParser, QueryParser
from botocore.serialize import JSONSerializer, QuerySerializer
from protocol_samples import ANSWERS, BODIES, REQUESTS, URL, json_model, query_model

from sqsmock._errors import SqsError
from sqsmock._protocol import shapes
from sqsmock._protocol.query import (
    decode_query,
    form_pairs,
    render_query_error,
    render_query_success,
)

ROOT = Path(__file__).resolve().parent.parent
QUERY = query_model()
JSON = json_model()

REQUEST_CASES = [(op, i) for op, samples in sorted(REQUESTS.items()) for i in range(len(samples))]
ANSWER_CASES = [(op, i) for op, samples in sorted(ANSWERS.items()) for i in range(len(samples))]


def form_of(params: dict[str, Any], operation: str, model: ServiceModel = QUERY) -> list[Any]:
    """The form pairs a server receives: botocore's body, url-encoded as botocore sends it."""
    body = QuerySerializer().serialize_to_request(params, model.operation_model(operation))
    return parse_qsl(urlencode(body["body"], doseq=True), keep_blank_values=True)


def json_wire(params: dict[str, Any], operation: str) -> dict[str, Any]:
    body = JSONSerializer().serialize_to_request(params, JSON.operation_model(operation))["body"]
    return dict(json.loads(body)) if body else {}


def error_of(pairs: list[tuple[str, str]]) -> SqsError:
    with pytest.raises(SqsError) as exc:
        decode_query(pairs)
    return exc.value


# --- The shape table ----------------------------------------------------------------------------


def test_every_operation_of_both_models_is_in_the_table() -> None:
    assert set(shapes.OPERATIONS) == set(JSON.operation_names) == set(REQUESTS)
    assert set(QUERY.operation_names) <= set(shapes.OPERATIONS)


def test_regenerating_the_table_gives_the_committed_file() -> None:
    spec = importlib.util.spec_from_file_location("gen_shapes", ROOT / "tools" / "gen_shapes.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (ROOT / "sqsmock" / "_protocol" / "shapes.py").read_text(encoding="utf-8")
    assert module.generate() == committed
    sns = (ROOT / "sqsmock" / "_protocol" / "sns_shapes.py").read_text(encoding="utf-8")
    assert module.generate_sns() == sns


def test_the_protocol_modules_import_nothing_of_botocore() -> None:
    for name in ("shapes", "validate", "query", "sns_shapes", "sns"):
        path = ROOT / "sqsmock" / "_protocol" / f"{name}.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not {m for m in imported if m.split(".")[0] in ("botocore", "boto3")}, name
    assert "botocore" not in sys.modules["sqsmock._protocol.query"].__dict__


# --- Requests -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("operation", "index"), REQUEST_CASES)
def test_a_botocore_form_decodes_to_the_json_body_botocore_sends(
    operation: str, index: int
) -> None:
    params = REQUESTS[operation][index]
    assert decode_query(form_of(params, operation)) == (operation, json_wire(params, operation))


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"MessageSystemAttributeNames": ["All"]}, "MessageSystemAttributeNames.1"),
        (
            {
                "MessageSystemAttributeNames": ["SenderId", "SentTimestamp"],
                "AttributeNames": ["All"],
            },
            "MessageSystemAttributeNames.2",
        ),
    ],
)
def test_members_newer_than_the_query_model_take_the_standard_query_names(
    params: dict[str, Any], key: str
) -> None:
    """The query model predates MessageSystemAttributeNames; botocore's rules name it."""
    params = {"QueueUrl": URL, **params}
    pairs = form_of(params, "ReceiveMessage", JSON)
    assert key in dict(pairs)
    # Every other list of the old model keeps its singular query name.
    pairs = [(k.replace("AttributeNames.", "AttributeName."), v) for k, v in pairs]
    assert decode_query(pairs) == ("ReceiveMessage", json_wire(params, "ReceiveMessage"))


def test_the_singular_form_of_a_new_list_is_accepted_too() -> None:
    pairs = [
        ("Action", "ReceiveMessage"),
        ("QueueUrl", URL),
        ("MessageSystemAttributeName.1", "All"),
    ]
    assert decode_query(pairs)[1]["MessageSystemAttributeNames"] == ["All"]


def test_auth_and_version_parameters_are_ignored() -> None:
    pairs = [
        ("Action", "GetQueueUrl"),
        ("Version", "2012-11-05"),
        ("AWSAccessKeyId", "AKID"),
        ("SignatureVersion", "2"),
        ("SignatureMethod", "HmacSHA256"),
        ("Signature", "c2ln"),
        ("Timestamp", "2026-01-01T00:00:00Z"),
        ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
        ("X-Amz-Credential", "AKID/20260101/us-east-1/sqs/aws4_request"),
        ("X-Amz-Date", "20260101T000000Z"),
        ("X-Amz-Security-Token", "tok"),
        ("X-Amz-Signature", "abc"),
        ("QueueName", "q"),
        ("Unknown", "x"),
    ]
    assert decode_query(pairs) == ("GetQueueUrl", {"QueueName": "q"})


def test_list_and_map_items_are_taken_in_number_order() -> None:
    pairs = [
        ("Action", "SendMessageBatch"),
        ("QueueUrl", URL),
        ("SendMessageBatchRequestEntry.10.Id", "ten"),
        ("SendMessageBatchRequestEntry.10.MessageBody", "b10"),
        ("SendMessageBatchRequestEntry.2.Id", "two"),
        ("SendMessageBatchRequestEntry.2.MessageBody", "b2"),
        ("SendMessageBatchRequestEntry.2.MessageAttribute.3.Name", "z"),
        ("SendMessageBatchRequestEntry.2.MessageAttribute.3.Value.DataType", "String"),
        ("SendMessageBatchRequestEntry.2.MessageAttribute.3.Value.StringValue", "3"),
        ("SendMessageBatchRequestEntry.2.MessageAttribute.1.Name", "a"),
        ("SendMessageBatchRequestEntry.2.MessageAttribute.1.Value.DataType", "Number"),
        ("SendMessageBatchRequestEntry.2.MessageAttribute.1.Value.StringValue", "1"),
    ]
    _, params = decode_query(pairs)
    assert [entry["Id"] for entry in params["Entries"]] == ["two", "ten"]
    assert list(params["Entries"][0]["MessageAttributes"]) == ["a", "z"]


def test_an_empty_value_is_an_empty_string_and_a_bare_list_name_an_empty_list() -> None:
    pairs = [("Action", "SendMessage"), ("QueueUrl", URL), ("MessageBody", "")]
    assert decode_query(pairs)[1] == {"QueueUrl": URL, "MessageBody": ""}
    pairs = [("Action", "SendMessageBatch"), ("QueueUrl", URL), ("Entries", "")]
    assert decode_query(pairs)[1] == {"QueueUrl": URL, "Entries": []}


def test_integers_convert_with_sign_and_leading_zeros() -> None:
    for text, value in [("10", 10), ("+7", 7), ("-3", -3), ("007", 7), ("2147483647", 2**31 - 1)]:
        pairs = [("Action", "ReceiveMessage"), ("QueueUrl", URL), ("WaitTimeSeconds", text)]
        assert decode_query(pairs)[1]["WaitTimeSeconds"] == value


def test_missing_action() -> None:
    error = error_of([("QueueUrl", URL)])
    assert (error.code, error.status) == ("MissingAction", 400)
    assert error_of([("Action", ""), ("QueueUrl", URL)]).code == "MissingAction"


def test_unknown_action() -> None:
    error = error_of([("Action", "SendMessages")])
    assert (error.code, error.message) == (
        "InvalidAction",
        "The action SendMessages is not valid for this endpoint.",
    )


@pytest.mark.parametrize("text", ["abc", "", "1.0", " 1", "1e3", "٣", "2147483648", "-2147483649"])
def test_a_value_that_is_not_an_integer(text: str) -> None:
    error = error_of(
        [("Action", "ReceiveMessage"), ("QueueUrl", URL), ("MaxNumberOfMessages", text)]
    )
    assert (error.code, error.status) == ("InvalidParameterValue", 400)
    assert error.message == (
        f"Value {text} for parameter MaxNumberOfMessages is invalid. "
        "Reason: MaxNumberOfMessages must be an integer."
    )


def test_a_bad_integer_deep_in_a_batch_is_named_by_its_query_key() -> None:
    pairs = [
        ("Action", "ChangeMessageVisibilityBatch"),
        ("QueueUrl", URL),
        ("ChangeMessageVisibilityBatchRequestEntry.1.Id", "a"),
        ("ChangeMessageVisibilityBatchRequestEntry.1.VisibilityTimeout", "x"),
    ]
    assert "parameter ChangeMessageVisibilityBatchRequestEntry.1.VisibilityTimeout " in (
        error_of(pairs).message
    )


def test_a_long_takes_64_bits() -> None:
    # No query input is a long today; the decoder handles it as the model says.
    from sqsmock._protocol import query

    assert query._decode("long", {None: str(2**40)}, "N") == 2**40
    with pytest.raises(SqsError):
        query._decode("long", {None: str(2**63)}, "N")
    assert query._decode("boolean", {None: "TRUE"}, "B") is True
    with pytest.raises(SqsError) as exc:
        query._decode("boolean", {None: "yes"}, "B")
    assert exc.value.message == "Value yes for parameter B is invalid. Reason: B must be a boolean."


@pytest.mark.parametrize(
    ("pairs", "missing"),
    [
        ([("Attribute.1.Value", "10")], "Attribute.1.Name"),
        ([("Attribute.1.Name", "VisibilityTimeout")], "Attribute.1.Value"),
        (
            [("Attribute.2.Name", "A"), ("Attribute.2.Value", "1"), ("Attribute.3.Name", "B")],
            "Attribute.3.Value",
        ),
    ],
)
def test_a_map_entry_needs_its_name_and_value(pairs: list[tuple[str, str]], missing: str) -> None:
    error = error_of([("Action", "SetQueueAttributes"), ("QueueUrl", URL), *pairs])
    assert (error.code, error.message) == (
        "MissingParameter",
        f"The request must contain the parameter {missing}.",
    )


def test_malformed_indexes_are_ignored() -> None:
    pairs = [
        ("Action", "UntagQueue"),
        ("QueueUrl", URL),
        ("TagKey.x", "a"),
        ("TagKey.0", "b"),
        ("TagKey.", "c"),
        ("TagKey.2", "d"),
        ("QueueUrl.1", "ignored"),
    ]
    assert decode_query(pairs)[1] == {"QueueUrl": URL, "TagKeys": ["d"]}


def test_a_repeated_parameter_keeps_its_last_value() -> None:
    pairs = [("Action", "GetQueueUrl"), ("QueueName", "a"), ("QueueName", "b")]
    assert decode_query(pairs)[1] == {"QueueName": "b"}


# --- Answers ------------------------------------------------------------------------------------


def _without_empty(value: Any) -> Any:
    """The query protocol cannot tell an empty list or map from a missing one."""
    if isinstance(value, dict):
        return {k: _without_empty(v) for k, v in value.items() if v != [] and v != {}}
    if isinstance(value, list):
        return [_without_empty(v) for v in value]
    return value


def parse_xml(operation: str, body: bytes, status: int = 200) -> dict[str, Any]:
    shape = QUERY.operation_model(operation).output_shape if status == 200 else None
    response = {"headers": {}, "status_code": status, "body": body}
    return dict(QueryParser().parse(response, shape))


@pytest.mark.parametrize(("operation", "index"), ANSWER_CASES)
def test_an_xml_answer_parses_to_what_botocore_makes_of_the_json_answer(
    operation: str, index: int
) -> None:
    payload = ANSWERS[operation][index]
    body = render_query_success(operation, payload, "req-1")
    got = parse_xml(operation, body)
    assert got.pop("ResponseMetadata")["RequestId"] == "req-1"
    response = {"headers": {}, "status_code": 200, "body": json.dumps(payload).encode()}
    expected = JSONParser().parse(response, JSON.operation_model(operation).output_shape)
    expected.pop("ResponseMetadata")
    assert got == _without_empty(expected)


def test_bodies_round_trip_byte_exact() -> None:
    payload = {"Messages": [{"MessageId": str(i), "Body": body} for i, body in enumerate(BODIES)]}
    got = parse_xml("ReceiveMessage", render_query_success("ReceiveMessage", payload, "r"))
    assert [m["Body"] for m in got["Messages"]] == BODIES
    body = render_query_success("ReceiveMessage", {"Messages": [{"Body": "a\rb"}]}, "r")
    assert b"<Body>a&#xD;b</Body>" in body


@pytest.mark.parametrize("operation", sorted(set(shapes.OPERATIONS) - set(ANSWERS)))
def test_operations_without_an_answer_render_only_the_request_id(operation: str) -> None:
    body = render_query_success(operation, {}, "req-2")
    assert (
        body
        == (
            f'<?xml version="1.0"?><{operation}Response xmlns="{shapes.XML_NAMESPACE}">'
            f"<ResponseMetadata><RequestId>req-2</RequestId></ResponseMetadata>"
            f"</{operation}Response>"
        ).encode()
    )
    assert parse_xml(operation, body)["ResponseMetadata"]["RequestId"] == "req-2"


def test_an_empty_result_is_an_empty_element() -> None:
    body = render_query_success("ReceiveMessage", {}, "r")
    assert b"<ReceiveMessageResult/><ResponseMetadata>" in body
    assert set(parse_xml("ReceiveMessage", body)) == {"ResponseMetadata"}


def test_the_answer_layout_is_the_one_sqs_sends() -> None:
    body = render_query_success(
        "GetQueueAttributes", {"Attributes": {"VisibilityTimeout": "30"}}, "rid"
    )
    assert body == (
        b'<?xml version="1.0"?><GetQueueAttributesResponse '
        b'xmlns="http://queue.amazonaws.com/doc/2012-11-05/"><GetQueueAttributesResult>'
        b"<Attribute><Name>VisibilityTimeout</Name><Value>30</Value></Attribute>"
        b"</GetQueueAttributesResult><ResponseMetadata><RequestId>rid</RequestId>"
        b"</ResponseMetadata></GetQueueAttributesResponse>"
    )


@pytest.mark.parametrize(
    ("code", "message", "sender"),
    [
        ("AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist.", True),
        ("InvalidParameterValue", 'Value <"x"> & \r y for parameter A is invalid.', True),
        ("InternalError", "We encountered an internal error. Please try again.", False),
        ("InvalidMessageContents", "Invalid binary character '#x1' 😀", True),
    ],
)
def test_an_error_parses_to_its_code_message_and_type(
    code: str, message: str, sender: bool
) -> None:
    body = render_query_error(code, message, sender, "req-3")
    got = parse_xml("SendMessage", body, status=400)
    assert got["Error"]["Code"] == code
    assert got["Error"]["Message"] == message
    assert got["Error"]["Type"] == ("Sender" if sender else "Receiver")
    assert got["ResponseMetadata"]["RequestId"] == "req-3"


def test_the_error_layout_is_the_one_sqs_sends() -> None:
    body = render_query_error("AWS.SimpleQueueService.NonExistentQueue", "Gone.", True, "rid")
    assert body == (
        b'<?xml version="1.0"?><ErrorResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/">'
        b"<Error><Type>Sender</Type><Code>AWS.SimpleQueueService.NonExistentQueue</Code>"
        b"<Message>Gone.</Message><Detail/></Error><RequestId>rid</RequestId></ErrorResponse>"
    )


def test_an_sqs_error_renders_with_its_legacy_code() -> None:
    error = SqsError("QueueDoesNotExist")
    got = parse_xml("GetQueueUrl", render_query_error(error.code, error.message, True, "r"), 400)
    assert got["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
    assert got["Error"]["Message"] == "The specified queue does not exist."


def test_form_pairs_read_a_form_as_parse_qsl_does() -> None:
    """Names and values with and without escapes, valid or not, UTF-8 or not: the same pairs,
    or the same UnicodeDecodeError reason, as ``parse_qsl(keep_blank_values=True)``."""
    rng = random.Random(7)
    pieces = [
        *"abcXZ09_-.~*'()!:;,?/@ \t\x00\x0b_",
        *("%2F", "%3a", "%3D", "%26", "%2B", "%25", "%C3%A9", "%e2%82%ac", "%00", "%0A"),
        *("%0D", "%7F", "%FF", "%C3", "%zz", "%4", "%", "+", "=", "&", "\r", "\n", "é"),
    ]

    def outcome(read: Callable[[str], object], text: str) -> object:
        try:
            return read(text)
        except UnicodeDecodeError as error:
            return ("UnicodeDecodeError", error.reason)

    def reference(text: str) -> object:
        return parse_qsl(text, keep_blank_values=True, errors="strict")

    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert outcome(form_pairs, text) == outcome(reference, text), text
    url = "QueueUrl=http%3A%2F%2F127.0.0.1%3A9324%2Fqueue%2Fus-east-1%2F000000000000%2Fq"
    assert form_pairs(url) == [("QueueUrl", "http://127.0.0.1:9324/queue/us-east-1/000000000000/q")]


def test_a_queue_url_is_read_as_parse_qsl_does_every_time() -> None:
    """Queue URLs are decoded once and remembered: the second reading of the same text, and a
    bad escape read again, give what ``parse_qsl`` gives; what is remembered stays bounded."""
    from sqsmock._protocol import query

    rng = random.Random(11)
    pieces = ["http", "%3A", "%2F", "%2f", "q", "%C3%A9", "%FF", "%zz", "%", "+", "é", ".", "1"]

    def outcome(text: str) -> object:
        try:
            return form_pairs(text)
        except UnicodeDecodeError as error:
            return ("UnicodeDecodeError", error.reason)

    def reference(text: str) -> object:
        try:
            return parse_qsl(text, keep_blank_values=True, errors="strict")
        except UnicodeDecodeError as error:
            return ("UnicodeDecodeError", error.reason)

    for _ in range(3000):
        text = "QueueUrl=" + "".join(rng.choice(pieces) for _ in range(rng.randint(1, 10)))
        first = outcome(text)
        assert first == reference(text), text
        assert outcome(text) == first, text  # remembered (or refused again)
        assert len(query._QUEUE_URLS) <= query._QUEUE_URLS_KEPT
    assert "%FF" not in "".join(query._QUEUE_URLS)  # a refused escape is never kept
    long = "%2F" * query._QUEUE_URL_LONGEST
    assert form_pairs("QueueUrl=" + long) == [("QueueUrl", "/" * query._QUEUE_URL_LONGEST)]
    assert long not in query._QUEUE_URLS  # decoded, but not kept


def _outcome(decode: Callable[[list[tuple[str, str]]], Any], pairs: list[tuple[str, str]]) -> Any:
    try:
        return decode(pairs)
    except SqsError as error:
        return (error.code, error.message)


def test_a_form_of_plain_names_decodes_as_the_tree_of_names_would() -> None:
    """A form naming only members of the request itself is read without building the tree of
    dotted names: every operation, every top-level member (each name it may go by), values
    that convert and values that do not, repeated and unknown names, and a missing or unknown
    Action decode -- or fail -- exactly as through the tree."""
    from sqsmock._protocol import query

    rng = random.Random(7)
    samples = ["x", "", "10", "0007", "-3", "+4", "true", "False", "2147483648", "1e3", "٣", "a b"]
    forms: list[list[tuple[str, str]]] = [[], [("Version", "2012-11-05")], [("Action", "Nope")]]
    for operation, (request, _, _) in shapes.OPERATIONS.items():
        members = shapes.SHAPES[request][1] if request is not None else ()
        names = [n for member in members for n in (member[3], *member[4])]
        forms.append([("Action", operation)])
        for name in names:
            for value in rng.sample(samples, 4):
                forms.append([("Action", operation), ("Version", "2012-11-05"), (name, value)])
        for _ in range(20):
            chosen = rng.sample(names, min(len(names), rng.randint(1, 4))) if names else []
            pairs = [(name, rng.choice(samples)) for name in chosen + chosen[:1]]
            pairs.insert(rng.randint(0, len(pairs)), ("Action", operation))
            forms.append([*pairs, ("Unknown", "1")])
    assert len(forms) > 700
    for pairs in forms:
        assert _outcome(query.decode_query, pairs) == _outcome(query._decode_tree, pairs), pairs
