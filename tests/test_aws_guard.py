"""While a mock is active, no botocore request that no mock answered leaves for real AWS.

Every test here guards the network: resolving a name or opening a connection is recorded and
fails, so a request that would leave is seen without anything leaving.
"""

from __future__ import annotations

import socket

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import EndpointConnectionError
from botocore.stub import Stubber

import sqsmock
from sqsmock import AwsRequestRefused, mock_sqs
from sqsmock._adapters._guard import bound_for_aws

ONE_ATTEMPT = Config(retries={"total_max_attempts": 1}, connect_timeout=1)


@pytest.fixture
def network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Where requests tried to go: every name resolution and connection is recorded and fails."""
    attempts: list[str] = []

    def getaddrinfo(host, *args, **kwargs):
        attempts.append(str(host))
        raise socket.gaierror(socket.EAI_NONAME, "the network is guarded in this test")

    def connect(self, address):
        attempts.append(str(address[0]))
        raise ConnectionRefusedError("the network is guarded in this test")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", connect)
    return attempts


def client(service: str, **options):
    return boto3.client(service, region_name="us-east-1", config=ONE_ATTEMPT, **options)


def test_an_sts_call_is_refused_without_a_connection(network):
    with mock_sqs():
        sts = client("sts")
        with pytest.raises(AwsRequestRefused) as excinfo:
            sts.get_caller_identity()
    message = str(excinfo.value)
    assert "sts" in message
    assert "sts.us-east-1.amazonaws.com" in message
    assert "mock_sqs(allow_aws=True)" in message
    assert "sqsmock_allow_aws" in message
    assert network == []


def test_an_s3_call_is_refused_without_a_connection(network):
    with mock_sqs():
        with pytest.raises(AwsRequestRefused, match=r"\(s3: "):
            client("s3").list_buckets()
        with pytest.raises(AwsRequestRefused, match="s3"):
            client("s3").head_object(Bucket="my-bucket", Key="k")  # bucket.s3.amazonaws.com
    assert network == []


def test_allow_aws_lets_the_request_go_out(network):
    with mock_sqs(allow_aws=True), pytest.raises(EndpointConnectionError):
        client("sts").get_caller_identity()
    assert network == ["sts.us-east-1.amazonaws.com"]


def test_the_innermost_mock_decides(network):
    with mock_sqs(allow_aws=True):
        with mock_sqs(), pytest.raises(AwsRequestRefused):
            client("sts").get_caller_identity()
        assert network == []
        with pytest.raises(EndpointConnectionError):
            client("sts").get_caller_identity()
    assert network == ["sts.us-east-1.amazonaws.com"]


def test_requests_go_out_again_once_no_mock_is_active(network):
    sts = client("sts", aws_access_key_id="testing", aws_secret_access_key="testing")
    with mock_sqs(), pytest.raises(AwsRequestRefused):
        sts.get_caller_identity()
    with pytest.raises(EndpointConnectionError):
        sts.get_caller_identity()
    assert network == ["sts.us-east-1.amazonaws.com"]


def test_other_endpoints_are_untouched(network):
    with mock_sqs(), pytest.raises(EndpointConnectionError):
        client("s3", endpoint_url="http://localhost:4566").list_buckets()
    assert network == ["localhost"]


def test_sqs_calls_are_answered_whatever_the_endpoint(network):
    with mock_sqs():
        sqs = client("sqs")
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="m")
    assert network == []


def test_a_stubbed_call_is_untouched(network):
    s3 = client("s3", aws_access_key_id="testing", aws_secret_access_key="testing")
    with Stubber(s3) as stubber, mock_sqs():
        stubber.add_response("list_buckets", {"Buckets": [{"Name": "stubbed"}]})
        assert s3.list_buckets()["Buckets"] == [{"Name": "stubbed"}]
    assert network == []


def test_moto_answers_are_untouched(network):
    moto = pytest.importorskip("moto")
    with moto.mock_aws(), mock_sqs():
        assert client("sts").get_caller_identity()["Account"] == "123456789012"
        s3 = client("s3")
        s3.create_bucket(Bucket="from-moto")
        assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == ["from-moto"]
    assert network == []


@pytest.mark.parametrize(
    ("url", "aws"),
    [
        ("https://sts.amazonaws.com/", True),
        ("https://bucket.s3.eu-west-1.amazonaws.com/key", True),
        ("https://sts.cn-north-1.amazonaws.com.cn/", True),
        ("https://s3.dualstack.us-east-1.api.aws/", True),
        ("https://STS.AmazonAWS.com./", True),
        ("http://localhost:4566/", False),
        ("http://notamazonaws.com/", False),
        ("https://amazonaws.com.example.org/", False),
        ("http://127.0.0.1:9324/", False),
    ],
)
def test_which_hosts_are_aws(url, aws):
    assert bound_for_aws(url) is aws


def test_the_refusal_is_exported():
    assert sqsmock.AwsRequestRefused is AwsRequestRefused
    assert "AwsRequestRefused" in sqsmock.__all__


PLUGIN_TEST = """
import boto3, pytest, socket
from botocore.config import Config
from sqsmock import AwsRequestRefused

def sts():
    return boto3.client(
        "sts", region_name="us-east-1", config=Config(retries={"total_max_attempts": 1})
    )

@pytest.fixture(autouse=True)
def attempts(monkeypatch):
    hosts = []
    def getaddrinfo(host, *args, **kwargs):
        hosts.append(host)
        raise socket.gaierror(socket.EAI_NONAME, "guarded")
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return hosts

@pytest.mark.sqsmock
def test_default(request, attempts):
    allowed = request.config.getini("sqsmock_allow_aws")
    with pytest.raises(Exception) as excinfo:
        sts().get_caller_identity()
    assert isinstance(excinfo.value, AwsRequestRefused) is not allowed, excinfo.value
    assert attempts == (["sts.us-east-1.amazonaws.com"] if allowed else [])

@pytest.mark.sqsmock(allow_aws=True)
def test_marker_allows(attempts):
    with pytest.raises(Exception) as excinfo:
        sts().get_caller_identity()
    assert not isinstance(excinfo.value, AwsRequestRefused)
    assert attempts == ["sts.us-east-1.amazonaws.com"]

@pytest.mark.sqsmock(allow_aws=False)
def test_marker_refuses():
    with pytest.raises(AwsRequestRefused):
        sts().get_caller_identity()
"""


@pytest.mark.parametrize("ini", [None, "false", "true"])
def test_plugin_marker_and_ini(pytester: pytest.Pytester, ini: str | None) -> None:
    if ini is not None:
        pytester.makeini(
            f"[pytest]\nasyncio_default_fixture_loop_scope = function\nsqsmock_allow_aws = {ini}\n"
        )
    pytester.makepyfile(test_guard=PLUGIN_TEST)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    assert sqsmock._options.ALLOW_AWS_DEFAULT is False  # the inner session's ini did not leak
