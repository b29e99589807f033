"""aioboto3 clients and resources under sqsmock.

aioboto3 pins aiobotocore 2.x, so it is installed only in the environment tests/async_support.py
builds. There these cases run; in an environment without aioboto3 (the ``test`` extra's, with
aiobotocore 3.x) this module instead runs them there and asserts that every one passed.
"""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

import pytest

from sqsmock import mock_sqs

REGION = "us-east-1"
ACCOUNT = "123456789012"

if importlib.util.find_spec("aioboto3") is None:
    import async_support

    def test_aioboto3_cases_pass_in_the_aiobotocore_2_environment() -> None:
        run = async_support.run()
        outcomes = run.outcomes.get("tests/test_async_aioboto3.py", {})
        assert len(outcomes) >= 5, run.output
        assert set(outcomes.values()) == {"PASSED"}, run.output
        assert run.versions["aioboto3"], run.output

else:
    import aioboto3
    from botocore.exceptions import ClientError
    from test_async import connections, listener

    @pytest.mark.asyncio
    async def test_client_round_trip_with_no_credentials() -> None:
        with mock_sqs():
            async with aioboto3.Session().client("sqs") as sqs:
                url = (await sqs.create_queue(QueueName="q"))["QueueUrl"]
                assert url == f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/q"
                await sqs.send_message(QueueUrl=url, MessageBody="hello")
                got = await sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20)
                assert [m["Body"] for m in got["Messages"]] == ["hello"]
                with pytest.raises(sqs.exceptions.QueueDoesNotExist):
                    await sqs.get_queue_url(QueueName="missing")

    @pytest.mark.asyncio
    async def test_resource_queue_send_receive_delete() -> None:
        with mock_sqs() as mock:
            async with aioboto3.Session().resource("sqs", region_name=REGION) as sqs:
                queue = await sqs.create_queue(QueueName="res")
                await queue.send_message(MessageBody="one")
                await queue.send_messages(
                    Entries=[{"Id": "2", "MessageBody": "two"}, {"Id": "3", "MessageBody": "3"}]
                )
                messages = await queue.receive_messages(MaxNumberOfMessages=10)
                assert sorted([await m.body for m in messages]) == ["3", "one", "two"]
                for message in messages:
                    await message.delete()
                assert mock.peek("res") == []
                same = await sqs.get_queue_by_name(QueueName="res")
                assert same.url == queue.url

    @pytest.mark.asyncio
    async def test_resource_long_poll_is_woken_by_a_send() -> None:
        with mock_sqs() as mock:
            async with aioboto3.Session().resource("sqs", region_name=REGION) as sqs:
                queue = await sqs.create_queue(QueueName="wake")
                poll = asyncio.ensure_future(queue.receive_messages(WaitTimeSeconds=20))
                backend_queue = mock.backend.get(REGION, ACCOUNT, "wake")
                for _ in range(10_000):
                    if backend_queue.waiting():
                        break
                    await asyncio.sleep(0)
                assert backend_queue.waiting() == 1
                await queue.send_message(MessageBody="ping")
                messages = await asyncio.wait_for(poll, 5)
                assert [await m.body for m in messages] == ["ping"]

    @pytest.mark.asyncio
    async def test_no_request_reaches_the_endpoint_socket() -> None:
        with listener() as (endpoint, sock), mock_sqs():
            session = aioboto3.Session()
            async with session.client("sqs", endpoint_url=endpoint) as client:
                url = (await client.create_queue(QueueName="c"))["QueueUrl"]
                await client.send_message(QueueUrl=url, MessageBody="x")
                await client.receive_message(QueueUrl=url)
                with pytest.raises(ClientError):
                    await client.delete_message(QueueUrl=url, ReceiptHandle="bad")
            async with session.resource("sqs", endpoint_url=endpoint) as resource:
                queue = await resource.get_queue_by_name(QueueName="c")
                await queue.send_message(MessageBody="y")
                received = await queue.receive_messages(MaxNumberOfMessages=10)
                assert [await m.body for m in received] == ["y"]  # "x" is in flight
            assert connections(sock) == 0

    @pytest.mark.asyncio
    async def test_client_created_before_the_mock(monkeypatch: Any) -> None:
        session = aioboto3.Session(
            aws_access_key_id="k", aws_secret_access_key="s", region_name="eu-west-1"
        )
        async with session.client("sqs", endpoint_url="http://127.0.0.1:1") as sqs:
            with mock_sqs(region="eu-west-1") as mock:
                url = (await sqs.create_queue(QueueName="early"))["QueueUrl"]
                await sqs.send_message(QueueUrl=url, MessageBody="e")
                assert [v.body for v in mock.peek("early")] == ["e"]
