"""Assertions shared by the test modules."""

from __future__ import annotations

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
