"""Regions reaching the server: only names of AWS's form get to the engine.

A region comes in through a request's SigV4 credential scope (``Authorization`` or a presigned
``X-Amz-Credential``), a queue URL's ``/queue/<region>/...`` path, the admin API's ``region=``,
and the front ends' ``region`` options. Each bad name is refused with a 4xx naming it, before
anything is created; AWS's own names keep working.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator

import pytest
from server_support import ACCOUNT, REGION, Answer, call_json, call_query, client, request

import sqsmock
from sqsmock import SqsServer

BAD = [
    "a:b",
    "<x y>",
    "..",
    "ü",
    "us-ü-1",
    "US-EAST-1",
    "us-east-1;drop",
    "us-" + "a" * 5000 + "-1",
    "x" * 5000,
]
NO_DOTS = [region for region in BAD if region != ".."]  # a path's ".." is resolved by the URL
GOOD = [
    "us-east-1",
    "eu-west-2",
    "us-gov-west-1",
    "ap-southeast-5",
    "cn-north-1",
    "il-central-1",
    "mx-central-1",
]


def ids(region: str) -> str:
    return region if len(region) < 20 else f"{region[:8]}...({len(region)})"


@pytest.fixture(scope="module")
def module_server() -> Iterator[SqsServer]:
    with sqsmock.serve(port=0) as server:
        yield server


@pytest.fixture
def server(module_server: SqsServer) -> SqsServer:
    module_server.reset()
    return module_server


def authorization(region: str) -> bytes:
    """A SigV4 ``Authorization`` header scoped to ``region`` (as UTF-8 bytes on the wire)."""
    return (
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/"
        f"{region}/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=00"
    ).encode()


def named(answer: Answer, region: str) -> bool:
    """Whether the error message quotes the region (its first 64 characters, if long)."""
    text = answer.body.decode()
    if answer.headers["content-type"].startswith("application/x-amz-json"):
        text = answer.json()["message"]
    return region[:64].replace("<", "&lt;").replace(">", "&gt;") in text or region[:64] in text


def nothing_created(server: SqsServer) -> bool:
    return not server.backend.queues()


# -- the credential scope --------------------------------------------------------------------


@pytest.mark.parametrize("region", BAD, ids=ids)
def test_a_bad_scope_region_is_refused_over_json(server: SqsServer, region: str) -> None:
    headers = {"Authorization": authorization(region)}
    answer = call_json(server.endpoint_url, "CreateQueue", {"QueueName": "q"}, headers)  # type: ignore[dict-item]
    assert answer.status == 403
    assert answer.error_code == "SignatureDoesNotMatch"
    assert answer.json()["message"].startswith("Credential should be scoped to a valid region")
    assert named(answer, region)
    assert nothing_created(server)


@pytest.mark.parametrize("region", BAD, ids=ids)
def test_a_bad_scope_region_is_refused_over_query(server: SqsServer, region: str) -> None:
    headers = {"Authorization": authorization(region)}
    pairs = [("Action", "CreateQueue"), ("QueueName", "q")]
    answer = call_query(server.endpoint_url, pairs, headers=headers)  # type: ignore[arg-type]
    assert answer.status == 403
    assert answer.error_code == "SignatureDoesNotMatch"
    assert named(answer, region)
    assert nothing_created(server)


@pytest.mark.parametrize("region", BAD, ids=ids)
def test_a_bad_presigned_scope_region_is_refused(server: SqsServer, region: str) -> None:
    query = urllib.parse.urlencode(
        {
            "Action": "CreateQueue",
            "QueueName": "q",
            "X-Amz-Credential": f"AKIDEXAMPLE/20260101/{region}/sqs/aws4_request",
        }
    )
    answer = request(server.endpoint_url, "GET", f"/?{query}")
    assert answer.status == 403
    assert answer.error_code == "SignatureDoesNotMatch"
    assert nothing_created(server)


# -- queue URLs ----------------------------------------------------------------------------------


@pytest.mark.parametrize("region", BAD, ids=ids)
def test_a_queue_url_of_a_bad_region_is_refused(server: SqsServer, region: str) -> None:
    url = client(server.endpoint_url).create_queue(QueueName="q")["QueueUrl"]
    bad = url.replace(f"/queue/{REGION}/", f"/queue/{region}/")
    over_json = call_json(server.endpoint_url, "SendMessage", {"QueueUrl": bad, "MessageBody": "x"})
    over_query = call_query(
        server.endpoint_url, [("Action", "SendMessage"), ("QueueUrl", bad), ("MessageBody", "x")]
    )
    for answer in (over_json, over_query):
        assert answer.status == 404
        assert answer.error_code == "InvalidAddress"
        assert named(answer, region)
    assert server.peek("q") == []
    assert [queue.region for queue in server.backend.queues()] == [REGION]


@pytest.mark.parametrize("region", NO_DOTS, ids=ids)
def test_posting_to_a_queue_path_of_a_bad_region_is_refused(server: SqsServer, region: str) -> None:
    client(server.endpoint_url).create_queue(QueueName="q")
    path = f"/queue/{urllib.parse.quote(region)}/{ACCOUNT}/q"
    answer = call_query(
        server.endpoint_url, [("Action", "SendMessage"), ("MessageBody", "x")], path
    )
    assert answer.status == 404
    assert answer.error_code == "InvalidAddress"
    assert server.peek("q") == []


# -- the admin API -------------------------------------------------------------------------------


@pytest.mark.parametrize("region", BAD, ids=ids)
def test_the_admin_api_refuses_a_bad_region(server: SqsServer, region: str) -> None:
    quoted = urllib.parse.quote(region, safe="")
    paths = [
        f"/_sqsmock/messages?queue=q&region={quoted}",
        "/_sqsmock/messages?queue="
        + urllib.parse.quote(f"http://localhost/queue/{region}/{ACCOUNT}/q", safe=""),
    ]
    if region != "..":
        paths.append(f"/_sqsmock/queues/{quoted}/{ACCOUNT}/q/messages")
    for path in paths:
        answer = request(server.endpoint_url, "GET", path)
        assert answer.status == 400, path
        assert "is not an AWS region" in answer.json()["error"]


# -- AWS's names work ----------------------------------------------------------------------------


@pytest.mark.parametrize("region", GOOD)
def test_aws_regions_work(server: SqsServer, region: str) -> None:
    sqs = client(server.endpoint_url, region)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    assert url == f"{server.endpoint_url}/queue/{region}/{ACCOUNT}/q"
    sqs.send_message(QueueUrl=url, MessageBody="tea")
    peeked = request(server.endpoint_url, "GET", f"/_sqsmock/messages?queue=q&region={region}")
    assert [m["body"] for m in peeked.json()] == ["tea"]
    headers = {"Authorization": authorization(region)}
    listed = call_query(server.endpoint_url, [("Action", "ListQueues")], headers=headers)  # type: ignore[arg-type]
    assert listed.find("ListQueuesResult/QueueUrl") == url


# -- the front ends ------------------------------------------------------------------------------


@pytest.mark.parametrize("region", BAD, ids=ids)
def test_front_ends_refuse_a_bad_region(region: str) -> None:
    with pytest.raises(ValueError, match="is not an AWS region"):
        sqsmock.serve(port=0, region=region)
    with pytest.raises(ValueError, match="is not an AWS region"):
        sqsmock.mock_sqs(region=region)


@pytest.mark.parametrize("region", GOOD)
def test_front_ends_take_aws_regions(region: str) -> None:
    assert sqsmock.serve(port=0, region=region).region == region
    assert sqsmock.mock_sqs(region=region).region == region


def test_every_region_botocore_knows_is_of_aws_form() -> None:
    from botocore.loaders import create_loader

    from sqsmock._regions import is_region

    partitions = create_loader().load_data("endpoints")["partitions"]
    names = [name for partition in partitions for name in partition["regions"]]
    assert len(names) > 30
    assert [name for name in names if not is_region(name)] == []


def test_a_credential_scope_is_read_the_same_when_remembered() -> None:
    """The scope of an ``Authorization`` header is remembered by the header's text up to its
    first comma: each header reads as the regular expressions read it, the first time and
    the next, however its signature differs; what is remembered stays bounded."""
    import re as regex

    from sqsmock._protocol import http

    def reference(header: str) -> tuple[str | None, str | None, str | None]:
        found = http._SIGV4.match(header)
        if found is not None:
            key, region, service = found.groups()
            return key, region, service.lower()
        scope = http._CREDENTIAL.search(header)
        signed = http._SERVICE.search(header)
        return (
            None if scope is None else scope.group(1),
            None if scope is None else scope.group(2),
            None if signed is None else signed.group(1).lower(),
        )

    headers = [
        "AWS4-HMAC-SHA256 Credential=AKID/20260101/eu-west-1/sqs/aws4_request, "
        "SignedHeaders=host, Signature={}",
        "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/SQS/aws4_request,Signature={}",
        "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/s3/aws4_request, Signature={}",
        "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1, Signature={}",  # cut short
        "AWS4-HMAC-SHA256 SignedHeaders=host, Credential=K2/d/ap-south-1/sqs/x, Signature={}",
        "AWS AKID:{}",  # SigV2
        "Bearer {}",
        "",
    ]
    for n in range(http._SCOPES_KEPT * 2):
        for template in headers:
            header = template.format(n)
            assert http._signed(header) == reference(header), header
            assert http._signed(header) == reference(header), header
        key = f"AWS4-HMAC-SHA256 Credential=K{n}/20260101/eu-west-1/sqs/aws4_request, Signature=0"
        assert http._signed(key) == (f"K{n}", "eu-west-1", "sqs")
        assert len(http._SCOPES) <= http._SCOPES_KEPT
    assert not any(regex.search(r"Signature", head) for head in http._SCOPES)
