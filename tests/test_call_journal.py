"""The call journal (``handle.calls``): every answered call, in order, with its answer."""

from __future__ import annotations

import warnings

import boto3
import pytest
from botocore.exceptions import ClientError

from sqsmock import mock_sqs
from sqsmock._testing import JournalFullWarning


def client(region: str = "us-east-1"):  # type: ignore[no-untyped-def]
    return boto3.client("sqs", region_name=region, aws_access_key_id="k", aws_secret_access_key="s")


def test_every_call_is_recorded_in_order_with_its_answer() -> None:
    with mock_sqs(clock="frozen") as sqs:
        sqs_client = client()
        url = sqs_client.create_queue(QueueName="orders")["QueueUrl"]
        start = sqs.clock.now()
        sqs.clock.advance(5)
        sent = sqs_client.send_message(QueueUrl=url, MessageBody="hello")
        got = sqs_client.receive_message(QueueUrl=url)
        assert [c.operation for c in sqs.calls] == ["CreateQueue", "SendMessage", "ReceiveMessage"]
        send = sqs.calls[1]
        assert send.params == {"QueueUrl": url, "MessageBody": "hello"}
        assert send.response == {
            "MessageId": sent["MessageId"],
            "MD5OfMessageBody": sent["MD5OfMessageBody"],
        }
        assert send.error is None and send.ok and send.status == 200
        assert send.region == "us-east-1" and send.account == "123456789012"
        assert send.time == start + 5
        assert send.queue == "orders"
        assert send.request_id == sent["ResponseMetadata"]["RequestId"]
        assert sqs.calls[2].response["Messages"][0]["Body"] == "hello"
        assert got["Messages"][0]["MessageId"] == sent["MessageId"]


def test_errors_are_recorded_by_the_code_the_sdk_shows() -> None:
    with mock_sqs() as sqs:
        with pytest.raises(ClientError) as raised:
            client().get_queue_url(QueueName="missing")
        (call,) = sqs.calls
        assert call.error == raised.value.response["Error"]["Code"]
        assert call.error == "AWS.SimpleQueueService.NonExistentQueue"
        assert call.status == 400 and call.response is None and not call.ok
        assert not call.injected


def test_of_picks_an_operation_and_optionally_a_queue() -> None:
    with mock_sqs() as sqs:
        c = client()
        a = c.create_queue(QueueName="a")["QueueUrl"]
        b = c.create_queue(QueueName="b")["QueueUrl"]
        for url in (a, b, a):
            c.send_message(QueueUrl=url, MessageBody="x")
        assert len(sqs.calls.of("SendMessage")) == 3
        assert len(sqs.calls.of("SendMessage", queue="a")) == 2
        assert len(sqs.calls.of("SendMessage", queue=b)) == 1
        assert sqs.calls.of("DeleteMessage") == []


def test_clear_forgets_the_calls() -> None:
    with mock_sqs() as sqs:
        client().list_queues()
        assert len(sqs.calls) == 1
        sqs.calls.clear()
        assert len(sqs.calls) == 0 and not sqs.calls
        client().list_queues()
        assert [c.operation for c in sqs.calls] == ["ListQueues"]


def test_the_caller_changing_its_objects_later_does_not_change_the_journal() -> None:
    with mock_sqs() as sqs:
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        entries = [{"Id": "1", "MessageBody": "one"}]
        attributes = {"kind": {"DataType": "String", "StringValue": "a"}}
        c.send_message_batch(QueueUrl=url, Entries=entries)
        c.send_message(QueueUrl=url, MessageBody="b", MessageAttributes=attributes)
        entries.clear()  # a batching producer reuses its list
        attributes["kind"]["StringValue"] = "changed"
        batch, single = sqs.calls.of("SendMessageBatch")[0], sqs.calls.of("SendMessage")[0]
        assert batch.params["Entries"] == [{"Id": "1", "MessageBody": "one"}]
        assert single.params["MessageAttributes"]["kind"]["StringValue"] == "a"
        # and what a test does to an entry does not reach the mock or the journal
        single.params["MessageAttributes"]["kind"]["StringValue"] = "mine"
        assert single.params["MessageAttributes"]["kind"]["StringValue"] == "a"
        received = c.receive_message(
            QueueUrl=url, MessageAttributeNames=["All"], MaxNumberOfMessages=10
        )
        answer = sqs.calls.of("ReceiveMessage")[0].response
        answer["Messages"][0]["Body"] = "tampered"
        assert sqs.calls.of("ReceiveMessage")[0].response["Messages"][0]["Body"] != "tampered"
        assert len(received["Messages"]) == 2


def test_binary_values_are_recorded_in_wire_form() -> None:
    with mock_sqs() as sqs:
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        c.send_message(
            QueueUrl=url,
            MessageBody="b",
            MessageAttributes={"raw": {"DataType": "Binary", "BinaryValue": b"\x00\x01"}},
        )
        params = sqs.calls.of("SendMessage")[0].params
        assert params["MessageAttributes"]["raw"]["BinaryValue"] == "AAE="


def test_the_region_is_the_clients() -> None:
    with mock_sqs() as sqs:
        client("eu-west-1").list_queues()
        assert sqs.calls[0].region == "eu-west-1"


def test_a_full_journal_drops_the_oldest_warns_once_and_counts() -> None:
    with mock_sqs(journal_limit=3) as sqs:
        c = client()
        c.list_queues()
        c.list_queues()
        c.create_queue(QueueName="q1")
        with pytest.warns(JournalFullWarning, match="limit of 3 calls"):
            c.create_queue(QueueName="q2")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            c.create_queue(QueueName="q3")  # no second warning
        assert sqs.calls.dropped == 2
        assert [c.operation for c in sqs.calls] == ["CreateQueue"] * 3
        assert "2 dropped" in repr(sqs.calls)
        sqs.calls.clear()
        assert sqs.calls.dropped == 0


def test_a_zero_limit_records_nothing_and_none_keeps_everything() -> None:
    with mock_sqs(journal_limit=0) as sqs:
        client().list_queues()
        assert len(sqs.calls) == 0 and sqs.calls.dropped == 0
    with mock_sqs(journal_limit=None) as sqs:
        for _ in range(5):
            client().list_queues()
        assert len(sqs.calls) == 5


@pytest.mark.parametrize("limit", [-1, 1.5, "10"])
def test_a_bad_limit_is_refused_at_once(limit: object) -> None:
    with pytest.raises(ValueError, match="journal_limit"):
        mock_sqs(journal_limit=limit)  # type: ignore[arg-type]


async def _async_calls(sqs) -> None:  # type: ignore[no-untyped-def]
    from sqsmock._protocol import Caller

    caller = Caller("us-east-1", "123456789012")
    await sqs.runtime.call_async("CreateQueue", {"QueueName": "q"}, caller)
    await sqs.runtime.call_async("ListQueues", {}, caller)


def test_async_calls_are_recorded_too() -> None:
    import asyncio

    with mock_sqs() as sqs:
        asyncio.run(_async_calls(sqs))
        assert [c.operation for c in sqs.calls] == ["CreateQueue", "ListQueues"]
