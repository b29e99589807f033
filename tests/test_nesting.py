"""Distinct mocks nested: a state of their own by default, moto's shared state with ``join``.

moto's nested ``mock_aws()`` share one state (moto resets only when the outermost starts);
suites written for it create a queue in one fixture's ``with mock_aws():`` and use it in
another's. With ``join`` (or the ``sqsmock_join`` ini option) sqsmock nests that way too.
"""

from __future__ import annotations

import boto3
import pytest

from sqsmock import mock_sqs

AIRFLOW_STYLE = """
import boto3
import pytest
from sqsmock import mock_sqs as mock_aws


@pytest.fixture(autouse=True)
def queue():
    with mock_aws():
        boto3.client("sqs", region_name="us-east-1").create_queue(QueueName="jobs")
        yield


@pytest.fixture
def hook():
    with mock_aws():
        yield boto3.client("sqs", region_name="us-east-1")


def test_send(hook):
    url = hook.get_queue_url(QueueName="jobs")["QueueUrl"]
    hook.send_message(QueueUrl=url, MessageBody="run")
    assert hook.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "run"
"""


def client():
    return boto3.client("sqs", region_name="us-east-1")


def test_a_nested_mock_has_its_own_state_by_default() -> None:
    with mock_sqs():
        client().create_queue(QueueName="outer")
        with mock_sqs():
            assert "QueueUrls" not in client().list_queues()
        assert client().list_queues()["QueueUrls"][0].endswith("/outer")


def test_a_joining_mock_shares_the_active_state_and_leaves_it_running() -> None:
    with mock_sqs() as outer:
        url = client().create_queue(QueueName="outer")["QueueUrl"]
        with mock_sqs(join=True) as inner:
            client().send_message(QueueUrl=url, MessageBody="m")
            assert [m.body for m in inner.peek("outer")] == ["m"]
            assert inner.active
        assert not inner.active
        assert [m.body for m in outer.peek("outer")] == ["m"]
        assert client().list_queues()["QueueUrls"] == [url]


def test_a_joining_mock_with_other_options_has_its_own_state() -> None:
    with mock_sqs():
        client().create_queue(QueueName="outer")
        with mock_sqs(join=True, account_id="111111111111"):
            assert "QueueUrls" not in client().list_queues()
        with mock_sqs(join=True, clock="frozen"):
            assert "QueueUrls" not in client().list_queues()


def test_joining_goes_on_when_the_first_mock_stops() -> None:
    """moto resets only when the outermost mock starts: a mock joining one that stops first
    keeps nothing running, and the next one starts afresh."""
    first = mock_sqs().start()
    second = mock_sqs(join=True).start()
    client().create_queue(QueueName="q")
    second.stop()
    assert client().list_queues()["QueueUrls"]
    first.stop()
    with mock_sqs(join=True):
        assert "QueueUrls" not in client().list_queues()


@pytest.mark.parametrize("ini,outcome", [("", "failed"), ("sqsmock_join = true", "passed")])
def test_airflow_style_fixtures_work_with_the_ini_option(pytester, ini: str, outcome: str) -> None:
    pytester.makeini(f"[pytest]\nasyncio_default_fixture_loop_scope = function\n{ini}\n")
    pytester.makepyfile(test_airflow_style=AIRFLOW_STYLE)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(**{outcome: 1})
