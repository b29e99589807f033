"""``check_types`` against botocore's own parameter validation, on JSON-wire requests.

For every sample request of every operation, and for each way of breaking it (a member of the
wrong type at any depth, a missing member), ``check_types`` must raise exactly the error the
botocore-based check raised: the first error botocore's validator reports, unknown members aside.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.serialize import JSONSerializer
from botocore.validate import ParamValidator
from protocol_samples import REQUESTS, URL, json_model

from sqsmock._errors import SqsError
from sqsmock._protocol.validate import check_types

JSON = json_model()
CASES = [(op, i) for op, samples in sorted(REQUESTS.items()) for i in range(len(samples))]
WRONG = [5, "x", None, True, 1.5, [1], ["x"], {"k": 1}, {"k": "v"}, b"raw"]


def wire(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    body = JSONSerializer().serialize_to_request(params, JSON.operation_model(operation))["body"]
    return dict(json.loads(body)) if body else {}


def botocore_verdict(operation: str, params: dict[str, Any]) -> tuple[str, str] | None:
    """(legacy code, message) the botocore-based check answered, or None."""
    shape = JSON.operation_model(operation).input_shape
    report = ParamValidator().validate(params, shape)
    errors = [error for error in report._errors if error[0] != "unknown field"]
    if not errors:
        return None
    kind, _, details = errors[0]
    if kind == "missing required field":
        error = SqsError("MissingParameter", name=details["required_name"])
    else:
        error = SqsError("ParameterFailsModel", report=report._format_error(errors[0]))
    return error.code, error.message


def verdict(operation: str, params: dict[str, Any]) -> tuple[str, str] | None:
    try:
        check_types(operation, params)
    except SqsError as error:
        return error.code, error.message
    return None


def paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON-wire value: dict keys and list indexes, depth first."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key)
            yield from paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*path, index)
            yield from paths(item, (*path, index))


def replaced(params: dict[str, Any], path: tuple[Any, ...], new: Any) -> dict[str, Any]:
    result = copy.deepcopy(params)
    target = result
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return result


def removed(params: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any] | None:
    result = copy.deepcopy(params)
    target = result
    for step in path[:-1]:
        target = target[step]
    if not isinstance(target, dict):
        return None
    del target[path[-1]]
    return result


@pytest.mark.parametrize(("operation", "index"), CASES)
def test_valid_samples_pass(operation: str, index: int) -> None:
    params = wire(operation, REQUESTS[operation][index])
    assert botocore_verdict(operation, params) is None
    check_types(operation, params)


@pytest.mark.parametrize(("operation", "index"), CASES)
def test_every_broken_member_gets_botocores_verdict(operation: str, index: int) -> None:
    params = wire(operation, REQUESTS[operation][index])
    checked = 0
    for path in paths(params):
        variants = [replaced(params, path, new) for new in WRONG]
        variants.append(removed(params, path))
        for variant in variants:
            if variant is None:
                continue
            assert verdict(operation, variant) == botocore_verdict(operation, variant), (
                path,
                variant,
            )
            checked += 1
    assert checked >= len(WRONG) or not params


@pytest.mark.parametrize("operation", sorted(REQUESTS))
def test_an_empty_request_gets_botocores_verdict(operation: str) -> None:
    assert verdict(operation, {}) == botocore_verdict(operation, {})


@pytest.mark.parametrize(
    ("operation", "params", "message"),
    [
        (
            "SendMessage",
            {"QueueUrl": URL, "MessageBody": 5},
            "Invalid type for parameter MessageBody, value: 5, type: <class 'int'>, "
            "valid types: <class 'str'>.",
        ),
        (
            "SendMessage",
            {"QueueUrl": URL, "MessageBody": "x", "MessageAttributes": {"a": {"DataType": 5}}},
            "Invalid type for parameter MessageAttributes.a.DataType, value: 5, "
            "type: <class 'int'>, valid types: <class 'str'>.",
        ),
        (
            "GetQueueAttributes",
            {"QueueUrl": URL, "AttributeNames": [{"a": 1}]},
            "Invalid type for parameter AttributeNames[0], value: {'a': 1}, "
            "type: <class 'dict'>, valid types: <class 'str'>.",
        ),
        (
            "TagQueue",
            {"QueueUrl": URL, "Tags": {"k": 1}},
            "Invalid type for parameter Tags.k, value: 1, type: <class 'int'>, "
            "valid types: <class 'str'>.",
        ),
        (
            "SendMessage",
            {
                "QueueUrl": URL,
                "MessageBody": "x",
                "MessageAttributes": {"a": {"DataType": "B", "BinaryValue": 5}},
            },
            "Invalid type for parameter MessageAttributes.a.BinaryValue, value: 5, "
            "type: <class 'int'>, valid types: <class 'bytes'>, <class 'bytearray'>, "
            "file-like object.",
        ),
    ],
)
def test_type_errors_read_as_botocore_writes_them(
    operation: str, params: dict[str, Any], message: str
) -> None:
    assert verdict(operation, params) == ("InvalidParameterValue", message)


def test_missing_members_are_missing_parameters_depth_first() -> None:
    assert verdict("SendMessage", {"QueueUrl": URL}) == (
        "MissingParameter",
        "The request must contain the parameter MessageBody.",
    )
    entries = [{"Id": "a", "MessageBody": "x"}, {"Id": "b"}]
    assert verdict("SendMessageBatch", {"QueueUrl": URL, "Entries": entries}) == (
        "MissingParameter",
        "The request must contain the parameter MessageBody.",
    )


def test_unknown_members_are_ignored() -> None:
    check_types("ListQueues", {"Unknown": 5, "QueueNamePrefix": "p"})
    check_types("SendMessage", {"QueueUrl": URL, "MessageBody": "x", "Extra": {"a": [1]}})
    entries = [{"Id": "a", "MessageBody": "x", "Nope": 1}]
    check_types("SendMessageBatch", {"QueueUrl": URL, "Entries": entries})


def test_unknown_operations_and_inputs_that_are_not_objects() -> None:
    check_types("NoSuchOperation", {"anything": 1})
    error = verdict("ListQueues", [])  # type: ignore[arg-type]
    assert error is not None
    assert error[1] == (
        "Invalid type for parameter input, value: [], type: <class 'list'>, "
        "valid types: <class 'dict'>."
    )
