"""Fault injection: errors answered as AWS answers them, retried by botocore as in production."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from sqsmock import mock_sqs
from sqsmock._errors import SqsError
from sqsmock._protocol import Call, Result, http


def client(mode: str = "standard", attempts: int = 5) -> Any:
    """``attempts``: in all, the first one included."""
    return boto3.client(
        "sqs",
        region_name="us-east-1",
        aws_access_key_id="k",
        aws_secret_access_key="s",
        config=Config(retries={"mode": mode, "total_max_attempts": attempts}),
    )


@pytest.fixture
def sqs() -> Any:
    with mock_sqs(clock="frozen") as handle:
        yield handle


@pytest.fixture
def real_sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every real sleep of more than a millisecond asked for during the test (``time.sleep``
    and ``asyncio.sleep``, which botocore's and aiobotocore's retries use): on a frozen mock
    clock a back-off moves the clock instead, so the list must stay empty."""
    asked: list[float] = []
    real_sleep, real_async_sleep = time.sleep, asyncio.sleep

    def sleep(seconds: float) -> None:
        if seconds > 0.001:
            asked.append(seconds)
        real_sleep(seconds)

    async def async_sleep(seconds: float, *args: Any, **kwargs: Any) -> Any:
        if seconds > 0.001:
            asked.append(seconds)
        return await real_async_sleep(seconds, *args, **kwargs)

    monkeypatch.setattr(time, "sleep", sleep)
    monkeypatch.setattr(asyncio, "sleep", async_sleep)
    return asked


def test_standard_retries_a_throttled_send_and_succeeds_without_sleeping(
    sqs: Any, real_sleeps: list[float]
) -> None:
    c = client("standard")
    url = c.create_queue(QueueName="orders")["QueueUrl"]
    sqs.faults.add(operation="SendMessage", error="RequestThrottled", times=2)
    start = sqs.clock.now()
    sent = c.send_message(QueueUrl=url, MessageBody="hello")
    assert sent["ResponseMetadata"]["RetryAttempts"] == 2
    attempts = sqs.calls.of("SendMessage")
    assert [(a.error, a.status, a.injected) for a in attempts] == [
        ("RequestThrottled", 403, True),
        ("RequestThrottled", 403, True),
        (None, 200, False),
    ]
    assert attempts[0].time == start < attempts[1].time < attempts[2].time  # the back-off
    assert sqs.clock.now() > start
    assert real_sleeps == []
    assert [m.body for m in sqs.peek("orders")] == ["hello"]
    assert not sqs.faults  # spent


@pytest.mark.parametrize("error", ["InternalError", "ServiceUnavailable", "ThrottlingException"])
def test_legacy_mode_retries_server_errors_and_throttling(sqs: Any, error: str) -> None:
    c = client("legacy")
    url = c.create_queue(QueueName="q")["QueueUrl"]
    sqs.faults.add("ReceiveMessage", error=error, times=1)
    c.send_message(QueueUrl=url, MessageBody="m")
    got = c.receive_message(QueueUrl=url)
    assert got["Messages"][0]["Body"] == "m"
    assert got["ResponseMetadata"]["RetryAttempts"] == 1
    assert [a.error for a in sqs.calls.of("ReceiveMessage")] == [error, None]


def test_a_server_error_past_the_attempts_reaches_the_caller_as_aws_sends_it(
    sqs: Any, real_sleeps: list[float]
) -> None:
    c = client("standard", attempts=3)
    url = c.create_queue(QueueName="q")["QueueUrl"]
    fault = sqs.faults.add("SendMessage", error="ServiceUnavailable")
    with pytest.raises(ClientError) as raised:
        c.send_message(QueueUrl=url, MessageBody="m")
    assert real_sleeps == []
    response = raised.value.response
    assert response["Error"] == {
        "Code": "ServiceUnavailable",
        "Message": "The request has failed due to a temporary failure of the server.",
        "QueryErrorCode": "ServiceUnavailable",
        "Type": "Receiver",
    }
    meta = response["ResponseMetadata"]
    assert meta["HTTPStatusCode"] == 503 and meta["RetryAttempts"] == 2
    assert meta["HTTPHeaders"]["x-amzn-query-error"] == "ServiceUnavailable;Receiver"
    assert fault.fired == 3 and fault.remaining is None
    assert len(sqs.calls.of("SendMessage")) == 3
    fault.remove()
    c.send_message(QueueUrl=url, MessageBody="m")
    assert len(sqs.peek("q")) == 1


def test_a_modeled_error_is_raised_as_its_exception_without_retries(sqs: Any) -> None:
    c = client()
    url = c.create_queue(QueueName="q")["QueueUrl"]
    sqs.faults.add("DeleteMessage", error="ReceiptHandleIsInvalid", times=1)
    with pytest.raises(c.exceptions.ReceiptHandleIsInvalid) as raised:
        c.delete_message(QueueUrl=url, ReceiptHandle="whatever")
    assert raised.value.response["ResponseMetadata"]["RetryAttempts"] == 0
    assert "<handle>" in raised.value.response["Error"]["Message"]
    assert len(sqs.calls.of("DeleteMessage")) == 1


def test_an_error_may_be_named_by_its_code_and_its_message_fields_given(sqs: Any) -> None:
    c = client()
    sqs.faults.add("GetQueueUrl", error="AWS.SimpleQueueService.NonExistentQueue", times=1)
    sqs.faults.add("CreateQueue", error="QueueNameExists", error_params={"name": "Policy"})
    with pytest.raises(c.exceptions.QueueDoesNotExist):
        c.get_queue_url(QueueName="anything")
    with pytest.raises(c.exceptions.QueueNameExists, match="attribute Policy"):
        c.create_queue(QueueName="x")


def test_a_queue_scoped_fault_leaves_other_queues_alone(sqs: Any) -> None:
    c = client()
    a = c.create_queue(QueueName="a")["QueueUrl"]
    b = c.create_queue(QueueName="b")["QueueUrl"]
    sqs.faults.add("SendMessage", error="QueueDoesNotExist", queue="a")
    c.send_message(QueueUrl=b, MessageBody="ok")
    with pytest.raises(c.exceptions.QueueDoesNotExist):
        c.send_message(QueueUrl=a, MessageBody="no")
    assert [m.body for m in sqs.peek("b")] == ["ok"] and sqs.peek("a") == []


def _pattern(seed: int) -> list[bool]:
    with mock_sqs(clock="frozen") as sqs:
        c = client(attempts=1)
        url = c.create_queue(QueueName="q")["QueueUrl"]
        sqs.faults.add("SendMessage", error="InternalError", probability=0.5, seed=seed)
        outcome = []
        for _ in range(20):
            try:
                c.send_message(QueueUrl=url, MessageBody="m")
                outcome.append(True)
            except ClientError:
                outcome.append(False)
        return outcome


def test_a_probability_with_a_seed_repeats_exactly() -> None:
    first = _pattern(7)
    assert first == _pattern(7)
    assert True in first and False in first
    assert first != _pattern(8)


def test_chosen_batch_entries_fail_the_others_are_sent(sqs: Any) -> None:
    c = client()
    url = c.create_queue(QueueName="q")["QueueUrl"]
    sqs.faults.add("SendMessageBatch", entry_error="InternalError", entries=["2"], times=1)
    answer = c.send_message_batch(
        QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": f"m{i}"} for i in (1, 2, 3)]
    )
    assert [e["Id"] for e in answer["Successful"]] == ["1", "3"]
    assert answer["Failed"] == [
        {
            "Id": "2",
            "SenderFault": False,
            "Code": "InternalError",
            "Message": "We encountered an internal error. Please try again.",
        }
    ]
    assert sorted(m.body for m in sqs.peek("q")) == ["m1", "m3"]
    (call,) = sqs.calls.of("SendMessageBatch")
    assert call.injected and len(call.params["Entries"]) == 3
    assert call.response["Failed"][0]["Id"] == "2"


def test_every_entry_may_fail_and_deletes_fail_too(sqs: Any) -> None:
    c = client()
    url = c.create_queue(QueueName="q")["QueueUrl"]
    sqs.faults.add("SendMessageBatch", entry_error="RequestThrottled", times=1)
    answer = c.send_message_batch(QueueUrl=url, Entries=[{"Id": "a", "MessageBody": "x"}])
    assert answer["Successful"] == [] and answer["Failed"][0]["SenderFault"] is True
    assert sqs.peek("q") == []
    c.send_message(QueueUrl=url, MessageBody="x")
    handle = c.receive_message(QueueUrl=url)["Messages"][0]["ReceiptHandle"]
    sqs.faults.add("DeleteMessageBatch", entry_error="ReceiptHandleIsInvalid", entries=["d"])
    answer = c.delete_message_batch(QueueUrl=url, Entries=[{"Id": "d", "ReceiptHandle": handle}])
    assert answer["Failed"][0]["Code"] == "ReceiptHandleIsInvalid"
    assert len(sqs.peek("q")) == 1


def test_latency_moves_the_mock_clock(sqs: Any) -> None:
    c = client()
    url = c.create_queue(QueueName="q")["QueueUrl"]
    sqs.faults.add("ReceiveMessage", latency=2.5, times=2)
    start = sqs.clock.now()
    c.receive_message(QueueUrl=url)
    c.receive_message(QueueUrl=url)
    c.receive_message(QueueUrl=url)
    assert sqs.clock.now() == start + 5.0
    assert [a.injected for a in sqs.calls.of("ReceiveMessage")] == [False] * 3


def test_latency_with_an_error_and_any_operation(sqs: Any) -> None:
    c = client(attempts=1)
    sqs.faults.add(error="InternalError", latency=1, times=1)
    start = sqs.clock.now()
    with pytest.raises(ClientError):
        c.list_queues()
    assert sqs.clock.now() == start + 1
    c.list_queues()


def test_faults_apply_to_async_calls_through_the_runtime(sqs: Any) -> None:
    sqs.faults.add("ListQueues", error="ThrottlingException", times=1)
    caller = Call("us-east-1", "123456789012")

    async def calls() -> list[Result]:
        return [await sqs.runtime.call_async("ListQueues", {}, caller) for _ in range(2)]

    first, second = asyncio.run(calls())
    assert first.status == 400 and first.error is not None
    assert first.error.code == "ThrottlingException"
    assert second.error is None


def test_the_http_answer_of_a_server_error_is_a_receiver_fault() -> None:
    result = Result.of_error("SendMessage", SqsError("InternalError"))
    json_answer = http.render("json", result)
    assert json_answer.status == 500
    assert json_answer.headers["x-amzn-query-error"] == "InternalError;Receiver"
    assert b"com.amazonaws.sqs#InternalError" in json_answer.body
    xml_answer = http.render("query", result)
    assert xml_answer.status == 500
    assert b"<Type>Receiver</Type>" in xml_answer.body
    assert b"<Code>InternalError</Code>" in xml_answer.body


def test_rules_are_listed_removed_and_cleared(sqs: Any) -> None:
    a = sqs.faults.add("SendMessage", error="InternalError")
    b = sqs.faults.add("ReceiveMessage", latency=1)
    assert list(sqs.faults) == [a, b] and len(sqs.faults) == 2
    a.remove()
    assert list(sqs.faults) == [b]
    sqs.faults.clear()
    assert not sqs.faults
    assert "ReceiveMessage" in repr(b)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"operation": "Nope", "error": "InternalError"}, "unknown SQS operation"),
        ({"operation": "SendMessage", "error": "NotAnError"}, "unknown SQS error"),
        ({"operation": "SendMessage"}, "needs error, entry_error or latency"),
        ({"operation": "SendMessage", "entry_error": "InternalError"}, "batch operations"),
        (
            {"operation": "SendMessageBatch", "error": "InternalError", "entry_error": "X"},
            "not both",
        ),
        ({"operation": "SendMessage", "error": "InternalError", "entries": ["1"]}, "entries"),
        ({"operation": "SendMessage", "error": "InternalError", "times": 0}, "times"),
        ({"operation": "SendMessage", "error": "InternalError", "probability": 2}, "probability"),
        ({"operation": "SendMessage", "latency": -1}, "latency"),
    ],
)
def test_bad_rules_are_refused(sqs: Any, kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        sqs.faults.add(**kwargs)


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"latency": NAN}, "latency must be a number of seconds from 0 to 60"),
        ({"latency": INF}, "latency"),
        ({"latency": -INF}, "latency"),
        ({"latency": 60.5}, "latency"),
        ({"latency": 10**400}, "latency"),
        ({"latency": "1"}, "latency"),
        ({"latency": True}, "latency"),
        ({"error": "InternalError", "probability": NAN}, "probability must be a number from 0"),
        ({"error": "InternalError", "probability": True}, "probability"),
        ({"error": "InternalError", "probability": "0.5"}, "probability"),
        ({"error": "InternalError", "times": True}, "times must be a whole number from 1 to"),
        ({"error": "InternalError", "times": 1.5}, "times"),
        ({"error": "InternalError", "times": 10**10}, "times"),
        ({"error": "InternalError", "seed": NAN}, "seed"),
        ({"error": "InternalError", "seed": 1.5}, "seed"),
    ],
)
def test_numbers_out_of_their_range_are_refused(
    sqs: Any, kwargs: dict[str, Any], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        sqs.faults.add("SendMessage", **kwargs)
    assert not sqs.faults


def test_entries_must_be_ids(sqs: Any) -> None:
    for entries in ("12", [1, 2]):
        with pytest.raises(ValueError, match="entries must be a list of batch entry Ids"):
            sqs.faults.add("SendMessageBatch", entry_error="InternalError", entries=entries)
    rule = sqs.faults.add(
        "SendMessageBatch", entry_error="InternalError", entries=(i for i in ["1", "2"])
    )
    assert rule.entries == {"1", "2"}


def test_the_longest_latency_is_accepted(sqs: Any) -> None:
    rule = sqs.faults.add("ListQueues", latency=60, times=10**9, probability=1, seed=2**80)
    before = sqs.clock.now()
    client().list_queues()
    assert sqs.clock.now() - before == 60 and rule.fired == 1


@pytest.mark.parametrize(
    "number", [b"NaN", b"Infinity", b"-Infinity", b"1e999", b"61", b"true", b'"5"']
)
def test_admin_refuses_a_latency_that_is_no_finite_number_in_range(sqs: Any, number: bytes) -> None:
    import json

    from sqsmock._features import routes as admin

    body = b'{"operation": "SendMessage", "latency": ' + number + b"}"
    status, answer = admin.answer(sqs.runtime, "POST", "/_sqsmock/faults", {}, body)
    assert status == 400
    assert answer["error"].startswith("latency must be a number of seconds from 0 to 60")
    _, listed = admin.answer(sqs.runtime, "GET", "/_sqsmock/faults", {}, b"")
    assert listed == {"faults": []}
    json.dumps(listed, allow_nan=False)


# -- over HTTP: what a server's /_sqsmock/calls and /_sqsmock/faults answer ----------------------


def test_admin_faults_are_added_listed_and_removed(sqs: Any) -> None:
    from sqsmock._features import routes as admin

    rt = sqs.runtime
    body = b'{"operation": "SendMessage", "error": "InternalError", "times": 2}'
    status, added = admin.answer(rt, "POST", "/_sqsmock/faults", {}, body)
    assert status == 201 and added["operation"] == ["SendMessage"] and added["remaining"] == 2
    status, listed = admin.answer(rt, "GET", "/_sqsmock/faults", {}, b"")
    assert status == 200 and [f["id"] for f in listed["faults"]] == [added["id"]]
    c = client(attempts=1)
    url = c.create_queue(QueueName="q")["QueueUrl"]
    with pytest.raises(ClientError):
        c.send_message(QueueUrl=url, MessageBody="m")
    assert admin.answer(rt, "GET", "/_sqsmock/faults", {}, b"")[1]["faults"][0]["fired"] == 1
    assert admin.answer(rt, "DELETE", f"/_sqsmock/faults/{added['id']}", {}, b"") == (204, None)
    assert not sqs.faults
    assert admin.answer(rt, "DELETE", "/_sqsmock/faults/nope", {}, b"")[0] == 404
    admin.answer(rt, "POST", "/_sqsmock/faults", {}, b'{"operation": "ListQueues", "latency": 1}')
    assert admin.answer(rt, "DELETE", "/_sqsmock/faults", {}, b"") == (204, None)
    assert not sqs.faults


@pytest.mark.parametrize(
    ("body", "match"),
    [
        (b"not json", "JSON object"),
        (b"[1]", "JSON object"),
        (b'{"operation": "SendMessage", "eror": "InternalError"}', "unknown keywords"),
        (b'{"operation": "SendMessage", "error": "Nope"}', "unknown SQS error"),
    ],
)
def test_admin_refuses_bad_rules(sqs: Any, body: bytes, match: str) -> None:
    from sqsmock._features import routes as admin

    status, answer = admin.answer(sqs.runtime, "POST", "/_sqsmock/faults", {}, body)
    assert status == 400 and match in answer["error"]


def test_admin_calls_are_listed_filtered_and_cleared(sqs: Any) -> None:
    import json

    from sqsmock._features import routes as admin

    rt = sqs.runtime
    c = client()
    url = c.create_queue(QueueName="q")["QueueUrl"]
    c.send_message(QueueUrl=url, MessageBody="m")
    status, listed = admin.answer(rt, "GET", "/_sqsmock/calls", {}, b"")
    assert status == 200 and listed["dropped"] == 0
    assert [x["operation"] for x in listed["calls"]] == ["CreateQueue", "SendMessage"]
    json.dumps(listed)  # JSON-able as it is
    _, sends = admin.answer(rt, "GET", "/_sqsmock/calls", {"operation": "SendMessage"}, b"")
    assert sends["calls"][0]["params"]["MessageBody"] == "m"
    _, on_q = admin.answer(rt, "GET", "/_sqsmock/calls", {"queue": "q"}, b"")
    assert len(on_q["calls"]) == 2
    assert admin.answer(rt, "POST", "/_sqsmock/calls", {}, b"")[0] == 405
    assert admin.answer(rt, "DELETE", "/_sqsmock/calls", {}, b"") == (204, None)
    assert len(sqs.calls) == 0
    assert admin.answer(rt, "GET", "/_sqsmock/other", {}, b"") is None
    assert admin.answer(rt, "GET", "/", {}, b"") is None
    assert admin.answer(rt, "PUT", "/_sqsmock/faults", {}, b"")[0] == 405
    assert admin.answer(rt, "GET", "/_sqsmock/faults/a/b", {}, b"")[0] == 404


def test_adaptive_mode_throttled_again_and_again_takes_no_real_time(
    sqs: Any, real_sleeps: list[float]
) -> None:
    c = client("adaptive", attempts=4)
    url = c.create_queue(QueueName="q")["QueueUrl"]
    sqs.faults.add("SendMessage", error="ThrottlingException", probability=0.6, seed=1)
    start = sqs.clock.now()
    sent = failed = 0
    for _ in range(30):
        try:
            c.send_message(QueueUrl=url, MessageBody="m")
            sent += 1
        except ClientError:
            failed += 1
    # the client's rate limiter engaged (it waits seconds per send at its low rate), and
    # waited on the mock's clock
    assert real_sleeps == []
    assert sqs.clock.now() - start > 5
    assert sent > 0 and len(sqs.peek("q")) == sent


def test_entry_faults_keep_the_checks_of_the_call(sqs: Any) -> None:
    c = client()
    url = c.create_queue(QueueName="q")["QueueUrl"]
    sqs.faults.add("SendMessageBatch", entry_error="InternalError")
    with pytest.raises(c.exceptions.QueueDoesNotExist):
        c.send_message_batch(QueueUrl=url + "-missing", Entries=[{"Id": "1", "MessageBody": "x"}])
    with pytest.raises(c.exceptions.EmptyBatchRequest):  # the rule matches, yet it is refused
        c.send_message_batch(QueueUrl=url, Entries=[])
    assert not any(call.injected for call in sqs.calls.of("SendMessageBatch"))


@pytest.mark.parametrize("mode", ["standard", "legacy"])
def test_aiobotocore_retries_a_throttled_send_without_sleeping(
    mode: str, real_sleeps: list[float]
) -> None:
    from aiobotocore.config import AioConfig
    from aiobotocore.session import get_session

    async def scenario(sqs: Any) -> Any:
        config = AioConfig(retries={"mode": mode, "total_max_attempts": 4})
        async with get_session().create_client(
            "sqs",
            region_name="us-east-1",
            aws_access_key_id="k",
            aws_secret_access_key="s",
            config=config,
        ) as c:
            url = (await c.create_queue(QueueName="q"))["QueueUrl"]
            sqs.faults.add("SendMessage", error="RequestThrottled", times=2)
            sent = await c.send_message(QueueUrl=url, MessageBody="x")
            with pytest.raises(c.exceptions.QueueDoesNotExist):
                sqs.faults.add("GetQueueUrl", error="QueueDoesNotExist", times=1)
                await c.get_queue_url(QueueName="q")
            return sent

    with mock_sqs(clock="frozen") as sqs:
        start = sqs.clock.now()
        sent = asyncio.run(scenario(sqs))
        assert real_sleeps == []
        assert sent["ResponseMetadata"]["RetryAttempts"] == 2
        assert [a.error for a in sqs.calls.of("SendMessage")] == [
            "RequestThrottled",
            "RequestThrottled",
            None,
        ]
        assert sqs.clock.now() > start
        assert [m.body for m in sqs.peek("q")] == ["x"]
