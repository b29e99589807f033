"""The pytest plugin: the ``sqs_mock`` and ``sqs_client`` fixtures and the ``sqsmock`` marker."""

from __future__ import annotations

import pytest

HEADER = """
import boto3
import pytest
import time_machine
from botocore.config import Config
from botocore.exceptions import EndpointConnectionError

import sqsmock


def unreachable_client(region="us-east-1"):
    return boto3.client(
        "sqs",
        region_name=region,
        endpoint_url="http://127.0.0.1:1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"max_attempts": 0}, connect_timeout=0.5),
    )
"""


def make_tests(pytester: pytest.Pytester, body: str) -> None:
    pytester.makepyfile(test_generated=HEADER + body)


def test_sqs_mock_fixture_is_an_active_handle(pytester):
    make_tests(
        pytester,
        """
def test_handle(sqs_mock):
    assert isinstance(sqs_mock, sqsmock.MockSQS)
    assert sqs_mock.active
    url = unreachable_client().create_queue(QueueName="q")["QueueUrl"]
    assert url == "https://sqs.us-east-1.amazonaws.com/123456789012/q"
    assert [v.body for v in sqs_mock.peek("q")] == []
""",
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_sqs_client_fixture_talks_to_the_mock(pytester):
    make_tests(
        pytester,
        """
def test_client(sqs_client, sqs_mock):
    assert sqs_client.meta.region_name == "us-east-1"
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="hello")
    assert [v.body for v in sqs_mock.peek(url)] == ["hello"]
    got = sqs_client.receive_message(QueueUrl=url)
    assert got["Messages"][0]["Body"] == "hello"


def test_client_alone(sqs_client):
    assert "QueueUrls" not in sqs_client.list_queues()
""",
    )
    pytester.runpytest().assert_outcomes(passed=2)


def test_fixtures_are_fresh_per_test(pytester):
    make_tests(
        pytester,
        """
handles = []


def test_first(sqs_client, sqs_mock):
    handles.append(sqs_mock)
    assert "QueueUrls" not in sqs_client.list_queues()
    sqs_client.create_queue(QueueName="from-first")


def test_second(sqs_client, sqs_mock):
    assert not handles[0].active
    assert "QueueUrls" not in sqs_client.list_queues()
    with pytest.raises(sqs_client.exceptions.QueueDoesNotExist):
        sqs_client.get_queue_url(QueueName="from-first")


def test_third_without_fixture():
    with pytest.raises(EndpointConnectionError):
        unreachable_client().list_queues()
""",
    )
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=3)


def test_mock_is_inactive_after_the_test(pytester):
    make_tests(
        pytester,
        """
def test_uses_mock(sqs_client):
    sqs_client.create_queue(QueueName="q")


def test_after():
    with pytest.raises(EndpointConnectionError):
        unreachable_client().list_queues()
""",
    )
    pytester.runpytest().assert_outcomes(passed=2)


def test_marker_frozen_clock(pytester):
    make_tests(
        pytester,
        """
@pytest.mark.sqsmock(clock="frozen")
def test_frozen(sqs_mock):
    first = sqs_mock.clock.now()
    with time_machine.travel(first + 1000, tick=False):
        assert sqs_mock.clock.now() == first
    sqs_mock.clock.advance(30)
    assert sqs_mock.clock.now() == first + 30


def test_default_is_wall(sqs_mock):
    with time_machine.travel(1_000_000.0, tick=False):
        assert sqs_mock.clock.now() == 1_000_000.0
""",
    )
    pytester.runpytest().assert_outcomes(passed=2)


def test_marker_region_changes_client_and_queue_url(pytester):
    make_tests(
        pytester,
        """
@pytest.mark.sqsmock(region="eu-west-1")
def test_region(sqs_client, sqs_mock):
    assert sqs_mock.region == "eu-west-1"
    assert sqs_client.meta.region_name == "eu-west-1"
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    assert url == "https://sqs.eu-west-1.amazonaws.com/123456789012/q"
""",
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_marker_account_id(pytester):
    make_tests(
        pytester,
        """
@pytest.mark.sqsmock(account_id="111122223333")
def test_account(sqs_client):
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    assert url == "https://sqs.us-east-1.amazonaws.com/111122223333/q"
""",
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_marker_on_class_applies_to_its_tests(pytester):
    make_tests(
        pytester,
        """
@pytest.mark.sqsmock(region="ap-south-1")
class TestGroup:
    def test_one(self, sqs_client):
        assert sqs_client.meta.region_name == "ap-south-1"

    def test_two(self, sqs_mock):
        assert sqs_mock.region == "ap-south-1"
""",
    )
    pytester.runpytest().assert_outcomes(passed=2)


def test_marker_alone_activates_the_mock(pytester):
    make_tests(
        pytester,
        """
@pytest.mark.sqsmock
def test_marker_only():
    client = unreachable_client()
    url = client.create_queue(QueueName="q")["QueueUrl"]
    assert url == "https://sqs.us-east-1.amazonaws.com/123456789012/q"


@pytest.mark.sqsmock(clock="frozen", region="eu-west-2")
def test_marker_with_options_only():
    url = unreachable_client("eu-west-2").create_queue(QueueName="q")["QueueUrl"]
    assert url == "https://sqs.eu-west-2.amazonaws.com/123456789012/q"


def test_unmarked():
    with pytest.raises(EndpointConnectionError):
        unreachable_client().list_queues()
""",
    )
    pytester.runpytest().assert_outcomes(passed=3)


def test_marker_is_registered(pytester):
    make_tests(
        pytester,
        """
@pytest.mark.sqsmock(clock="frozen")
def test_marked(sqs_client):
    sqs_client.list_queues()
""",
    )
    result = pytester.runpytest("--strict-markers")
    result.assert_outcomes(passed=1)
    assert "PytestUnknownMarkWarning" not in result.stdout.str()


def test_marker_is_listed_in_markers_help(pytester):
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.sqsmock*"])


@pytest.mark.parametrize("request_fixture", [True, False], ids=["fixture", "marker-only"])
def test_marker_positional_args_are_a_usage_error(pytester, request_fixture):
    signature = "sqs_mock" if request_fixture else ""
    make_tests(
        pytester,
        f"""
@pytest.mark.sqsmock("frozen")
def test_positional({signature}):
    pass
""",
    )
    result = pytester.runpytest()
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) == 0
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*UsageError*"])
