"""The front ends of sqsmock: decorator, context manager, start()/stop(), the handle, options."""

from __future__ import annotations

import asyncio
import inspect
import time
import unittest
from datetime import timedelta

import boto3
import pytest
import time_machine
from botocore.config import Config
from botocore.exceptions import ClientError, EndpointConnectionError

import sqsmock
from sqsmock import mock_sqs

UNREACHABLE = "http://127.0.0.1:1"
DEFAULT_URL = "https://sqs.us-east-1.amazonaws.com/123456789012/"


def make_client(region: str = "us-east-1"):
    """An SQS client whose endpoint refuses connections: only sqsmock can answer it."""
    return boto3.client(
        "sqs",
        region_name=region,
        endpoint_url=UNREACHABLE,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"max_attempts": 0}, connect_timeout=0.5),
    )


def assert_not_mocked() -> None:
    """No mock answers SQS calls: the request goes to the (unreachable) network."""
    with pytest.raises(EndpointConnectionError):
        make_client().list_queues()


def queue_names(client) -> list[str]:
    return [url.rsplit("/", 1)[1] for url in client.list_queues().get("QueueUrls", [])]


def assert_no_queue(client, name: str) -> None:
    with pytest.raises(client.exceptions.QueueDoesNotExist):
        client.get_queue_url(QueueName=name)


# -- decorating functions ------------------------------------------------------------------------


def test_bare_decorator_activates_mock_only_during_the_call():
    @mock_sqs
    def work():
        client = make_client()
        before = queue_names(client)
        url = client.create_queue(QueueName="leaky")["QueueUrl"]
        return before, url

    assert work() == ([], DEFAULT_URL + "leaky")
    assert_not_mocked()
    # A second call is a fresh activation: the queue of the first call is gone.
    assert work() == ([], DEFAULT_URL + "leaky")
    assert_not_mocked()


def test_decorator_with_options_applies_them():
    @mock_sqs(region="eu-west-1", account_id="111122223333", clock="frozen")
    def work():
        client = make_client("eu-west-1")
        return client.create_queue(QueueName="q")["QueueUrl"]

    assert work() == "https://sqs.eu-west-1.amazonaws.com/111122223333/q"
    assert_not_mocked()


def test_decorator_with_frozen_clock_freezes_time_inside():
    @mock_sqs(clock="frozen")
    def work():
        client = make_client()
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="a")
        client.send_message(QueueUrl=url, MessageBody="b")
        got = client.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, MessageSystemAttributeNames=["SentTimestamp"]
        )
        return {m["Attributes"]["SentTimestamp"] for m in got["Messages"]}

    assert len(work()) == 1


def test_decorated_function_passes_arguments_and_return_value():
    @mock_sqs
    def work(name, *, body):
        client = make_client()
        url = client.create_queue(QueueName=name)["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody=body)
        return client.receive_message(QueueUrl=url)["Messages"][0]["Body"]

    assert work("q", body="hello") == "hello"


def test_exception_in_decorated_function_deactivates():
    @mock_sqs
    def work():
        make_client().create_queue(QueueName="q")
        raise KeyError("boom")

    with pytest.raises(KeyError):
        work()
    assert_not_mocked()


def test_async_function_is_mocked_across_awaits():
    @mock_sqs
    async def work():
        client = make_client()
        await asyncio.sleep(0)
        url = client.create_queue(QueueName="q")["QueueUrl"]
        await asyncio.sleep(0)
        client.send_message(QueueUrl=url, MessageBody="after await")
        await asyncio.sleep(0)
        return client.receive_message(QueueUrl=url)["Messages"][0]["Body"]

    assert asyncio.run(work()) == "after await"
    assert_not_mocked()


def test_async_function_with_options_is_mocked_and_fresh_each_run():
    @mock_sqs(clock="frozen", region="ap-southeast-2")
    async def work():
        await asyncio.sleep(0)
        client = make_client("ap-southeast-2")
        before = queue_names(client)
        url = client.create_queue(QueueName="q")["QueueUrl"]
        return before, url

    expected = ([], "https://sqs.ap-southeast-2.amazonaws.com/123456789012/q")
    assert asyncio.run(work()) == expected
    assert asyncio.run(work()) == expected
    assert_not_mocked()


def test_decorated_async_function_is_still_a_coroutine_function():
    @mock_sqs
    async def work():
        return 1

    assert inspect.iscoroutinefunction(work)
    assert asyncio.run(work()) == 1


def test_mock_is_not_active_before_the_coroutine_runs():
    @mock_sqs
    async def work():
        return queue_names(make_client())

    coroutine = work()
    assert_not_mocked()
    assert asyncio.run(coroutine) == []
    assert_not_mocked()


def sample(queue_name: str, count: int = 1, *, wait: float | None = None) -> list[str]:
    """Collect messages."""
    return []


async def async_sample(queue_name: str, *, wait: int = 0) -> list[str]:
    """Collect messages asynchronously."""
    return []


@pytest.mark.parametrize("func", [sample, async_sample], ids=["sync", "async"])
@pytest.mark.parametrize("decorate", [mock_sqs, mock_sqs(clock="frozen")], ids=["bare", "options"])
def test_decorated_function_keeps_name_doc_and_signature(decorate, func):
    decorated = decorate(func)
    assert decorated.__name__ == func.__name__
    assert decorated.__qualname__ == func.__qualname__
    assert decorated.__doc__ == func.__doc__
    assert inspect.signature(decorated) == inspect.signature(func)


# -- decorating classes --------------------------------------------------------------------------


def run_case(case: type[unittest.TestCase]) -> unittest.TestResult:
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(case).run(result)
    return result


def test_testcase_class_is_mocked_in_setup_test_and_teardown():
    seen: list[tuple[str, object]] = []

    @mock_sqs
    class Case(unittest.TestCase):
        def setUp(self):
            self.client = make_client()
            seen.append(("setUp", queue_names(self.client)))
            self.url = self.client.create_queue(QueueName="q")["QueueUrl"]

        def test_one(self):
            self.client.send_message(QueueUrl=self.url, MessageBody="one")
            seen.append(("test", self._testMethodName))

        def test_two(self):
            self.client.send_message(QueueUrl=self.url, MessageBody="two")
            seen.append(("test", self._testMethodName))

        def tearDown(self):
            got = self.client.receive_message(QueueUrl=self.url, MaxNumberOfMessages=10)
            seen.append(("tearDown", [m["Body"] for m in got["Messages"]]))

    result = run_case(Case)

    assert result.wasSuccessful(), result.errors + result.failures
    assert result.testsRun == 2
    # Each test starts empty: setUp never sees the queue created for the previous test.
    assert seen == [
        ("setUp", []),
        ("test", "test_one"),
        ("tearDown", ["one"]),
        ("setUp", []),
        ("test", "test_two"),
        ("tearDown", ["two"]),
    ]
    assert_not_mocked()


def test_testcase_class_with_options():
    urls: list[str] = []

    @mock_sqs(region="eu-central-1", account_id="210987654321")
    class Case(unittest.TestCase):
        def test_url(self):
            urls.append(make_client("eu-central-1").create_queue(QueueName="q")["QueueUrl"])

    result = run_case(Case)

    assert result.wasSuccessful(), result.errors + result.failures
    assert urls == ["https://sqs.eu-central-1.amazonaws.com/210987654321/q"]
    assert_not_mocked()


def test_testcase_failure_still_deactivates():
    @mock_sqs
    class Case(unittest.TestCase):
        def test_fails(self):
            make_client().create_queue(QueueName="q")
            self.fail("expected")

    result = run_case(Case)

    assert len(result.failures) == 1
    assert not result.errors
    assert_not_mocked()


def test_isolated_asyncio_testcase_is_mocked():
    seen: list[tuple[str, object]] = []

    @mock_sqs
    class Case(unittest.IsolatedAsyncioTestCase):
        async def asyncSetUp(self):
            self.client = make_client()
            seen.append(("asyncSetUp", queue_names(self.client)))
            self.url = self.client.create_queue(QueueName="q")["QueueUrl"]

        async def test_one(self):
            await asyncio.sleep(0)
            self.client.send_message(QueueUrl=self.url, MessageBody="one")
            await asyncio.sleep(0)
            got = self.client.receive_message(QueueUrl=self.url)
            seen.append(("test", got["Messages"][0]["Body"]))

        async def test_two(self):
            await asyncio.sleep(0)
            seen.append(("test", queue_names(self.client)))

        async def asyncTearDown(self):
            self.client.delete_queue(QueueUrl=self.url)
            seen.append(("asyncTearDown", queue_names(self.client)))

    result = run_case(Case)

    assert result.wasSuccessful(), result.errors + result.failures
    assert result.testsRun == 2
    assert seen == [
        ("asyncSetUp", []),
        ("test", "one"),
        ("asyncTearDown", []),
        ("asyncSetUp", []),
        ("test", ["q"]),
        ("asyncTearDown", []),
    ]
    assert_not_mocked()


def test_plain_class_test_methods_are_wrapped_and_others_are_not():
    @mock_sqs
    class Plain:
        def test_creates(self):
            client = make_client()
            before = queue_names(client)
            client.create_queue(QueueName="q")
            return before, queue_names(client)

        def helper(self):
            return queue_names(make_client())

    plain = Plain()
    assert plain.test_creates() == ([], ["q"])
    assert plain.test_creates() == ([], ["q"])
    with pytest.raises(EndpointConnectionError):
        plain.helper()
    assert_not_mocked()


def test_plain_class_wrapped_methods_keep_name_and_signature():
    class Plain:
        def test_method(self, a: int, b: str = "x") -> None:
            """Docstring."""

    original = inspect.signature(Plain.test_method)
    Decorated = mock_sqs(Plain)

    assert Decorated.test_method.__name__ == "test_method"
    assert Decorated.test_method.__doc__ == "Docstring."
    assert inspect.signature(Decorated.test_method) == original


def test_plain_class_async_test_method_is_mocked():
    @mock_sqs(clock="frozen")
    class Plain:
        async def test_async(self):
            await asyncio.sleep(0)
            return make_client().create_queue(QueueName="q")["QueueUrl"]

    assert asyncio.run(Plain().test_async()) == DEFAULT_URL + "q"
    assert_not_mocked()


# -- context manager and start/stop ------------------------------------------------------------


def test_context_manager_returns_active_handle():
    m = mock_sqs()
    with m as handle:
        assert handle is m
        assert isinstance(handle, sqsmock.MockSQS)
        assert handle.active
        assert make_client().create_queue(QueueName="q")["QueueUrl"] == DEFAULT_URL + "q"
    assert not m.active
    assert_not_mocked()


def test_async_context_manager():
    async def work():
        async with mock_sqs(clock="frozen") as handle:
            assert handle.active
            await asyncio.sleep(0)
            return make_client().create_queue(QueueName="q")["QueueUrl"], handle

    url, handle = asyncio.run(work())
    assert url == DEFAULT_URL + "q"
    assert not handle.active
    assert_not_mocked()


def test_start_returns_handle_and_stop_deactivates():
    m = mock_sqs()
    handle = m.start()
    try:
        assert handle is m
        assert m.active
        assert queue_names(make_client()) == []
    finally:
        m.stop()
    assert not m.active
    assert_not_mocked()


@pytest.mark.parametrize("how", ["with", "start"])
def test_each_activation_starts_empty(how):
    m = mock_sqs()
    client = make_client()
    for _ in range(2):
        if how == "with":
            with m:
                assert_no_queue(client, "q")
                client.create_queue(QueueName="q")
                assert queue_names(client) == ["q"]
        else:
            m.start()
            try:
                assert_no_queue(client, "q")
                client.create_queue(QueueName="q")
            finally:
                m.stop()


def test_nesting_the_same_mock_keeps_one_state_until_outermost_exit():
    m = mock_sqs()
    client = make_client()
    with m as outer:
        url = client.create_queue(QueueName="q")["QueueUrl"]
        with m as inner:
            assert inner is outer
            assert queue_names(client) == ["q"]
            client.send_message(QueueUrl=url, MessageBody="inner")
        assert m.active
        assert [v.body for v in m.peek("q")] == ["inner"]
        assert queue_names(client) == ["q"]
    assert not m.active
    assert_not_mocked()


def test_nesting_two_mocks_inner_answers_with_its_own_state():
    client = make_client()
    with mock_sqs() as outer:
        url = client.create_queue(QueueName="outer-q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="kept")
        with mock_sqs(clock="frozen") as inner:
            assert queue_names(client) == []
            assert_no_queue(client, "outer-q")
            client.create_queue(QueueName="inner-q")
            assert queue_names(client) == ["inner-q"]
        assert not inner.active
        assert outer.active
        assert queue_names(client) == ["outer-q"]
        assert client.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "kept"
    assert_not_mocked()


def test_start_twice_then_stop_twice():
    m = mock_sqs()
    m.start()
    m.start()
    make_client().create_queue(QueueName="q")
    m.stop()
    assert m.active
    assert queue_names(make_client()) == ["q"]
    m.stop()
    assert not m.active
    assert_not_mocked()


def test_extra_stop_does_not_raise_or_reactivate():
    m = mock_sqs()
    m.start()
    m.stop()
    m.stop()
    assert not m.active
    assert_not_mocked()
    # A later activation still works and is counted from zero.
    with m:
        assert queue_names(make_client()) == []
    assert not m.active
    assert_not_mocked()


def test_stop_without_start_does_nothing():
    m = mock_sqs()
    m.stop()
    assert not m.active
    assert_not_mocked()


def test_exception_inside_with_deactivates():
    m = mock_sqs()
    with pytest.raises(ZeroDivisionError), m:
        make_client().create_queue(QueueName="q")
        1 / 0  # noqa: B018
    assert not m.active
    assert_not_mocked()


# -- the handle: clock ---------------------------------------------------------------------------


@pytest.mark.parametrize("clock", ["wall", "frozen"])
def test_clock_now_is_epoch_seconds_near_time_time(clock):
    with mock_sqs(clock=clock) as m:
        now = m.clock.now()
        assert isinstance(now, float)
        assert abs(now - time.time()) < 5


def test_frozen_clock_stands_still_and_advances_by_float_exactly():
    with mock_sqs(clock="frozen") as m:
        start = m.clock.now()
        with time_machine.travel(start + 1000, tick=False):
            assert m.clock.now() == start
        m.clock.advance(1.5)
        assert m.clock.now() == start + 1.5


def test_frozen_advance_by_timedelta_is_exact():
    with mock_sqs(clock="frozen") as m:
        start = m.clock.now()
        m.clock.advance(timedelta(minutes=2, seconds=3))
        assert m.clock.now() == start + 123.0


def test_frozen_advance_moves_sent_timestamp():
    with mock_sqs(clock=sqsmock.FrozenClock(start=2_000_000.0)) as m:
        client = make_client()
        url = client.create_queue(QueueName="q")["QueueUrl"]
        m.clock.advance(timedelta(seconds=90))
        client.send_message(QueueUrl=url, MessageBody="x")
        got = client.receive_message(QueueUrl=url, MessageSystemAttributeNames=["SentTimestamp"])
        assert got["Messages"][0]["Attributes"]["SentTimestamp"] == "2000090000"


@pytest.mark.parametrize("clock", ["wall", "frozen"])
def test_negative_advance_raises_value_error(clock):
    with mock_sqs(clock=clock) as m:
        for step in (-1, -0.001, timedelta(seconds=-5)):
            before = m.clock.now()
            with pytest.raises(ValueError):
                m.clock.advance(step)
            if clock == "frozen":
                assert m.clock.now() == before


def test_wall_clock_follows_time_time_plus_offset():
    with mock_sqs(clock="wall") as m:
        m.clock.advance(3600)
        m.clock.advance(timedelta(seconds=0.5))
        with time_machine.travel(1_000_000.0, tick=False):
            assert m.clock.now() == 1_003_600.5
        with time_machine.travel(1_000_100.0, tick=False):
            assert m.clock.now() == 1_003_700.5


def test_wall_clock_without_advance_is_time_time():
    with mock_sqs() as m, time_machine.travel(5_000_000.0, tick=False):
        assert m.clock.now() == 5_000_000.0
        m.clock.advance(timedelta(hours=1))
        assert m.clock.now() == 5_003_600.0


@pytest.mark.parametrize("when", ["before start", "after stop"])
def test_clock_on_inactive_mock_raises_runtime_error(when):
    m = mock_sqs()
    if when == "after stop":
        m.start()
        m.stop()
    with pytest.raises(RuntimeError):
        m.clock  # noqa: B018


# -- the handle: reset ---------------------------------------------------------------------------


def test_reset_drops_all_queues():
    with mock_sqs() as m:
        client = make_client()
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.create_queue(QueueName="other")
        client.send_message(QueueUrl=url, MessageBody="x")
        m.reset()
        assert m.active
        assert_no_queue(client, "q")
        assert "QueueUrls" not in client.list_queues()
        with pytest.raises(client.exceptions.QueueDoesNotExist):
            client.receive_message(QueueUrl=url)


# -- the handle: peek ----------------------------------------------------------------------------


@pytest.fixture
def peeked():
    """A frozen mock with a queue holding one in-flight, one delayed and one visible message."""
    with mock_sqs(clock=sqsmock.FrozenClock(start=1_500_000.0)) as m:
        client = make_client()
        url = client.create_queue(QueueName="peek-q")["QueueUrl"]
        client.send_message(
            QueueUrl=url,
            MessageBody="inflight",
            MessageAttributes={"colour": {"DataType": "String", "StringValue": "red"}},
        )
        client.send_message(QueueUrl=url, MessageBody="delayed", DelaySeconds=60)
        client.send_message(QueueUrl=url, MessageBody="visible")
        got = client.receive_message(QueueUrl=url, MaxNumberOfMessages=1)
        assert got["Messages"][0]["Body"] == "inflight"
        yield m, client, url


def by_body(views) -> dict[str, sqsmock.MessageView]:
    return {v.body: v for v in views}


@pytest.mark.parametrize("ref", ["url", "name"])
def test_peek_lists_messages_with_states(peeked, ref):
    m, _, url = peeked
    views = by_body(m.peek(url if ref == "url" else "peek-q"))
    assert set(views) == {"inflight", "delayed", "visible"}
    assert views["inflight"].state == "inflight"
    assert views["delayed"].state == "delayed"
    assert views["visible"].state == "visible"


def test_peek_shows_receive_count(peeked):
    m, _, url = peeked
    views = by_body(m.peek(url))
    assert views["inflight"].receive_count == 1
    assert views["delayed"].receive_count == 0
    assert views["visible"].receive_count == 0


def test_peek_shows_message_and_system_attributes(peeked):
    m, _, url = peeked
    views = by_body(m.peek(url))
    assert views["inflight"].message_attributes == {
        "colour": {"DataType": "String", "StringValue": "red"}
    }
    assert views["visible"].message_attributes == {}
    for view in views.values():
        assert view.attributes["SentTimestamp"] == "1500000000"


def test_peek_message_id_matches_the_sent_one():
    with mock_sqs() as m:
        client = make_client()
        url = client.create_queue(QueueName="q")["QueueUrl"]
        sent = client.send_message(QueueUrl=url, MessageBody="x")
        (view,) = m.peek("q")
        assert view.message_id == sent["MessageId"]


def test_peek_changes_nothing(peeked):
    m, client, url = peeked
    names = [
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesNotVisible",
        "ApproximateNumberOfMessagesDelayed",
    ]
    counters = client.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
    first = m.peek(url)
    second = m.peek(url)
    assert first == second
    assert client.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"] == counters
    assert counters == {
        "ApproximateNumberOfMessages": "1",
        "ApproximateNumberOfMessagesNotVisible": "1",
        "ApproximateNumberOfMessagesDelayed": "1",
    }
    got = client.receive_message(
        QueueUrl=url, MessageSystemAttributeNames=["ApproximateReceiveCount"]
    )
    (message,) = got["Messages"]
    assert message["Body"] == "visible"
    assert message["Attributes"]["ApproximateReceiveCount"] == "1"


def test_peek_of_unknown_queue_raises():
    with mock_sqs() as m:
        with pytest.raises(Exception, match="does not exist") as excinfo:
            m.peek("no-such-queue")
        assert not isinstance(excinfo.value, ClientError)


# -- options -------------------------------------------------------------------------------------


def test_default_region_and_account():
    with mock_sqs() as m:
        assert m.region == "us-east-1"
        assert m.account_id == "123456789012"
        client = make_client()
        url = client.create_queue(QueueName="q")["QueueUrl"]
        arn = client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
        assert url == "https://sqs.us-east-1.amazonaws.com/123456789012/q"
        assert arn["Attributes"]["QueueArn"] == "arn:aws:sqs:us-east-1:123456789012:q"


def test_custom_region_and_account():
    with mock_sqs(region="eu-west-1", account_id="111122223333") as m:
        assert m.region == "eu-west-1"
        assert m.account_id == "111122223333"
        client = make_client("eu-west-1")
        url = client.create_queue(QueueName="q")["QueueUrl"]
        arn = client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
        assert url == "https://sqs.eu-west-1.amazonaws.com/111122223333/q"
        assert arn["Attributes"]["QueueArn"] == "arn:aws:sqs:eu-west-1:111122223333:q"


@pytest.mark.parametrize(
    "account_id", ["12345678901", "1234567890123", "12345678901a", 123456789012]
)
def test_invalid_account_id_raises_value_error(account_id):
    with pytest.raises(ValueError):
        mock_sqs(account_id=account_id)


@pytest.mark.parametrize("clock", ["slow", 42])
def test_invalid_clock_raises_value_error(clock):
    with pytest.raises(ValueError):
        mock_sqs(clock=clock)


def test_custom_clock_instance_is_used():
    clock = sqsmock.FrozenClock(start=1_000_000.0)
    with mock_sqs(clock=clock) as m:
        assert m.clock is clock
        client = make_client()
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="x")
        got = client.receive_message(QueueUrl=url, MessageSystemAttributeNames=["SentTimestamp"])
        assert got["Messages"][0]["Attributes"]["SentTimestamp"] == "1000000000"
        assert m.peek("q")[0].attributes["SentTimestamp"] == "1000000000"
