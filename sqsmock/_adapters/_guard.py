"""Nothing leaves for real AWS while a mock is active, unless the mock allows it.

sqsmock answers SQS; a test's other AWS calls (STS, S3, ...) are answered by another mock
(moto, botocore's ``Stubber``), go to a local endpoint (LocalStack, a container), or would
reach real AWS -- with whatever credentials the machine holds, or sqsmock's placeholders.
The last is refused: the in-process adapters wrap the endpoint's ``_send``, which botocore
reaches only when no ``before-call`` or ``before-send`` handler answered (moto answers at
``before-send``), and raise before a connection is opened.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ._stack import aws_allowed

__all__ = ["AwsRequestRefused", "bound_for_aws", "refused"]


class AwsRequestRefused(RuntimeError):
    """A request bound for real AWS, answered by no mock, while a mock refuses those."""


_AWS_HOSTS = (".amazonaws.com", ".amazonaws.com.cn", ".api.aws")


def bound_for_aws(url: str) -> bool:
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    return any(host.endswith(suffix) or host == suffix[1:] for suffix in _AWS_HOSTS)


def refused(endpoint: Any, request: Any) -> AwsRequestRefused | None:
    """The error for a request about to leave for real AWS while the innermost mock refuses
    that; None when it may go."""
    url = str(getattr(request, "url", "") or "")
    if aws_allowed() or not bound_for_aws(url):
        return None
    service = getattr(endpoint, "_endpoint_prefix", None) or "an AWS service"
    return AwsRequestRefused(
        f"sqsmock refused a request to real AWS ({service}: {urlsplit(url).netloc}): while "
        "mock_sqs is active only SQS is mocked, and no other mock answered this request. Mock "
        f"{service} too (moto, botocore's Stubber), give its client a local endpoint_url, or "
        "let requests reach AWS with mock_sqs(allow_aws=True), "
        "@pytest.mark.sqsmock(allow_aws=True) or `sqsmock_allow_aws = true` in pytest's ini."
    )
