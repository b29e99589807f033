"""``@mock_sqs`` on a plain (non-``TestCase``) class covers pytest's xunit-style fixtures:
``setup_method``/``teardown_method`` and ``setup_class``/``teardown_class`` run mocked, in one
activation with the test, as moto's ``mock_aws`` users expect."""

from __future__ import annotations

import pytest

HEADER = """
import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import EndpointConnectionError

from sqsmock import mock_sqs

SEEN = []


def client():
    # An unreachable endpoint: only sqsmock can answer.
    return boto3.client(
        "sqs",
        region_name="us-east-1",
        endpoint_url="http://127.0.0.1:1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"max_attempts": 0}, connect_timeout=0.5),
    )


def bodies(url):
    got = client().receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=0)
    return sorted(m["Body"] for m in got.get("Messages", []))


def assert_not_mocked():
    with pytest.raises(EndpointConnectionError):
        client().list_queues()
"""


def run(pytester: pytest.Pytester, body: str, **outcomes: int) -> None:
    pytester.makepyfile(test_generated=HEADER + body)
    pytester.runpytest().assert_outcomes(**outcomes)


def test_setup_method_and_teardown_method_share_the_test_s_mock(pytester):
    run(
        pytester,
        """
@mock_sqs
class TestOrders:
    def setup_method(self, method):
        self.url = client().create_queue(QueueName="orders")["QueueUrl"]
        client().send_message(QueueUrl=self.url, MessageBody="from setup")

    def teardown_method(self, method):
        SEEN.append(bodies(self.url))

    def test_one(self):
        client().send_message(QueueUrl=self.url, MessageBody="one")
        assert bodies(self.url) == ["from setup", "one"]

    def test_two(self):
        # a fresh mock for each test: "one" is gone
        assert bodies(self.url) == ["from setup"]


def test_after():
    assert SEEN == [["from setup", "one"], ["from setup"]]
    assert_not_mocked()
""",
        passed=3,
    )


def test_setup_method_without_the_method_argument(pytester):
    run(
        pytester,
        """
@mock_sqs
class TestOrders:
    def setup_method(self):
        self.url = client().create_queue(QueueName="orders")["QueueUrl"]

    def test_one(self):
        assert client().list_queues()["QueueUrls"] == [self.url]


def test_after():
    assert_not_mocked()
""",
        passed=2,
    )


def test_only_teardown_method_still_runs_mocked(pytester):
    run(
        pytester,
        """
@mock_sqs
class TestOrders:
    def teardown_method(self, method):
        SEEN.append(client().list_queues()["QueueUrls"])

    def test_one(self):
        client().create_queue(QueueName="orders")


def test_after():
    assert SEEN == [["https://sqs.us-east-1.amazonaws.com/123456789012/orders"]]
    assert_not_mocked()
""",
        passed=2,
    )


@pytest.mark.parametrize(
    "decorator", ["@classmethod\n    ", ""], ids=["classmethod", "plain-function"]
)
def test_setup_class_state_is_there_for_every_test_of_the_class(pytester, decorator):
    run(
        pytester,
        f"""
@mock_sqs
class TestOrders:
    {decorator}def setup_class(cls):
        cls.url = client().create_queue(QueueName="orders")["QueueUrl"]

    {decorator}def teardown_class(cls):
        SEEN.append(bodies(cls.url))

    def test_one(self):
        client().send_message(QueueUrl=self.url, MessageBody="one")

    def test_two(self):
        client().send_message(QueueUrl=self.url, MessageBody="two")
        assert bodies(self.url) == ["one", "two"]


def test_after():
    assert SEEN == [["one", "two"]]
    assert_not_mocked()
""",
        passed=3,
    )


def test_class_and_method_fixtures_together(pytester):
    run(
        pytester,
        """
@mock_sqs
class TestOrders:
    @classmethod
    def setup_class(cls):
        cls.url = client().create_queue(QueueName="orders")["QueueUrl"]

    def setup_method(self, method):
        client().send_message(QueueUrl=self.url, MessageBody=method.__name__)

    def test_one(self):
        assert bodies(self.url) == ["test_one"]

    def test_two(self):
        assert bodies(self.url) == ["test_one", "test_two"]


def test_after():
    assert_not_mocked()
""",
        passed=3,
    )


def test_a_failing_setup_method_leaves_no_mock_active(pytester):
    run(
        pytester,
        """
@mock_sqs
class TestOrders:
    def setup_method(self, method):
        raise RuntimeError("set-up failed")

    def test_one(self):
        pass


def test_after():
    assert_not_mocked()
""",
        passed=1,
        errors=1,
    )


def test_a_failing_teardown_method_still_stops_the_mock(pytester):
    run(
        pytester,
        """
@mock_sqs
class TestOrders:
    def teardown_method(self, method):
        raise RuntimeError("tear-down failed")

    def test_one(self):
        client().create_queue(QueueName="orders")


def test_after():
    assert_not_mocked()
""",
        passed=2,
        errors=1,
    )
