"""Assertions and reference computations shared by the test modules."""

from __future__ import annotations

import hashlib
import struct
from typing import Any

import pytest
from botocore.exceptions import ClientError


def assert_error(
    exc: pytest.ExceptionInfo[ClientError],
    code: str,
    query_code: str,
    message: str | None = None,
    status: int = 400,
) -> None:
    """An SQS error answer: legacy code, QueryErrorCode, sender fault, status, message."""
    response = exc.value.response
    assert response["ResponseMetadata"]["HTTPStatusCode"] == status
    assert response["Error"]["Code"] == code
    assert response["Error"]["QueryErrorCode"] == query_code
    assert response["Error"]["Type"] == "Sender"
    if message is not None:
        assert response["Error"]["Message"] == message


def _put(buf: bytearray, data: bytes) -> None:
    buf += struct.pack(">I", len(data))
    buf += data


def attributes_md5(attributes: dict[str, dict[str, Any]]) -> str:
    """MD5 of message attributes as SQS computes it (independent of sqsmock)."""
    buf = bytearray()
    for name in sorted(attributes, key=lambda n: n.encode("utf-8")):
        attr = attributes[name]
        data_type = attr["DataType"]
        _put(buf, name.encode("utf-8"))
        _put(buf, data_type.encode("utf-8"))
        if data_type.split(".", 1)[0] == "Binary":
            buf.append(2)
            _put(buf, bytes(attr["BinaryValue"]))
        else:
            buf.append(1)
            _put(buf, attr["StringValue"].encode("utf-8"))
    return hashlib.md5(buf).hexdigest()
