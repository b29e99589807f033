"""aiobotocore clients: handlers after ``before-call`` run in process, ``before-call`` handlers see
the serialized request, OpenTelemetry's trace context reaches the consumer, and nothing leaves
for real AWS.

Runs with whichever aiobotocore is installed: 3.x through the ``test`` extra, 2.x in the
environment tests/test_async_versions.py builds.
"""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest
from aiobotocore.config import AioConfig
from aiobotocore.session import get_session
from botocore.exceptions import EndpointConnectionError

from sqsmock import AwsRequestRefused, mock_sqs

REGION = "us-east-1"
TRACE = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
OWN_TRACE = "Root=1-67891233-abcdef012345678912345678;Parent=463ac35c9f6413ad;Sampled=0"
ONE_ATTEMPT = AioConfig(retries={"total_max_attempts": 1}, connect_timeout=1)


def client(service: str = "sqs", **options: Any) -> Any:
    options.setdefault("region_name", REGION)
    return get_session().create_client(service, **options)


def add_trace_header(request: Any, **kwargs: Any) -> None:
    request.headers["X-Amzn-Trace-Id"] = TRACE


async def received_trace(sqs: Any, url: str) -> list[str | None]:
    got = await sqs.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, MessageSystemAttributeNames=["AWSTraceHeader"]
    )
    return [m.get("Attributes", {}).get("AWSTraceHeader") for m in got["Messages"]]


@pytest.mark.asyncio
async def test_before_send_handler_header_becomes_the_aws_trace_header() -> None:
    with mock_sqs():
        async with client() as sqs:
            url = (await sqs.create_queue(QueueName="traced"))["QueueUrl"]
            sqs.meta.events.register("before-send.sqs.SendMessage", add_trace_header)
            await sqs.send_message(QueueUrl=url, MessageBody="traced")
            await sqs.send_message(
                QueueUrl=url,
                MessageBody="own",
                MessageSystemAttributes={
                    "AWSTraceHeader": {"DataType": "String", "StringValue": OWN_TRACE}
                },
            )
            assert sorted(await received_trace(sqs, url)) == sorted([TRACE, OWN_TRACE])


@pytest.mark.asyncio
async def test_an_async_before_send_handler_runs_too() -> None:
    async def add_later(request: Any, **kwargs: Any) -> None:
        request.headers["X-Amzn-Trace-Id"] = TRACE

    with mock_sqs():
        async with client() as sqs:
            url = (await sqs.create_queue(QueueName="traced"))["QueueUrl"]
            sqs.meta.events.register("before-send", add_later)
            await sqs.send_message(QueueUrl=url, MessageBody="traced")
            assert await received_trace(sqs, url) == [TRACE]
            with pytest.raises(sqs.exceptions.QueueDoesNotExist):
                await sqs.get_queue_url(QueueName="missing")


@pytest.mark.asyncio
async def test_before_call_handler_sees_the_serialized_request() -> None:
    seen: list[tuple[Any, ...]] = []

    def inspect(params: Any, **kwargs: Any) -> None:
        body = json.loads(params["body"])
        seen.append((body.get("DelaySeconds"), params["headers"]["X-Amz-Target"]))

    with mock_sqs(clock="frozen") as mock:
        async with client() as sqs:
            url = (await sqs.create_queue(QueueName="delayed"))["QueueUrl"]
            sqs.meta.events.register("before-call.sqs.SendMessage", inspect)
            await sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=7)
            assert "Messages" not in await sqs.receive_message(QueueUrl=url)
            mock.clock.advance(7)
            assert len((await sqs.receive_message(QueueUrl=url))["Messages"]) == 1
    assert seen == [(7, "AmazonSQS.SendMessage")]


@pytest.fixture
def network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Where requests tried to go: every name resolution and connection is recorded and fails."""
    attempts: list[str] = []

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        attempts.append(str(host))
        raise socket.gaierror(socket.EAI_NONAME, "the network is guarded in this test")

    async def loop_getaddrinfo(self: Any, host: Any, *args: Any, **kwargs: Any) -> Any:
        return getaddrinfo(host)

    def connect(self: Any, address: Any) -> None:
        attempts.append(str(address[0]))
        raise ConnectionRefusedError("the network is guarded in this test")

    import asyncio

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(asyncio.BaseEventLoop, "getaddrinfo", loop_getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", connect)
    return attempts


@pytest.mark.asyncio
async def test_an_sts_call_is_refused_without_a_connection(network: list[str]) -> None:
    with mock_sqs():
        async with client("sts", config=ONE_ATTEMPT) as sts:
            with pytest.raises(AwsRequestRefused, match="sts"):
                await sts.get_caller_identity()
        async with client("s3", config=ONE_ATTEMPT) as s3:
            with pytest.raises(AwsRequestRefused, match=r"mock_sqs\(allow_aws=True\)"):
                await s3.list_buckets()
    assert network == []


@pytest.mark.asyncio
async def test_allow_aws_lets_the_request_go_out(network: list[str]) -> None:
    with mock_sqs(allow_aws=True):
        async with client("sts", config=ONE_ATTEMPT) as sts:
            with pytest.raises(EndpointConnectionError):
                await sts.get_caller_identity()
    assert network and set(network) == {"sts.us-east-1.amazonaws.com"}


@pytest.mark.asyncio
async def test_opentelemetry_trace_context_reaches_the_consumer() -> None:
    pytest.importorskip("opentelemetry.instrumentation.botocore")
    from opentelemetry import trace
    from opentelemetry.instrumentation.botocore import AiobotocoreInstrumentor
    from opentelemetry.propagators.aws import AwsXRayPropagator
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = AiobotocoreInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        with mock_sqs():
            async with client() as sqs:
                url = (await sqs.create_queue(QueueName="orders"))["QueueUrl"]
                with provider.get_tracer("test").start_as_current_span("produce") as produce:
                    await sqs.send_message(QueueUrl=url, MessageBody="order")
                [header] = await received_trace(sqs, url)
    finally:
        instrumentor.uninstrument()
    assert header is not None
    consumer = AwsXRayPropagator().extract({"X-Amzn-Trace-Id": header})
    parent = trace.get_current_span(consumer).get_span_context()
    [send] = [s for s in exporter.get_finished_spans() if s.name == "SQS.SendMessage"]
    assert parent.trace_id == produce.get_span_context().trace_id
    assert parent.span_id == send.context.span_id


@pytest.mark.asyncio
async def test_stopping_the_mock_ends_a_long_poll_on_the_full_path() -> None:
    import asyncio

    mock = mock_sqs().start()
    try:
        async with client() as sqs:
            sqs.meta.events.register("before-send", add_trace_header)
            url = (await sqs.create_queue(QueueName="stop"))["QueueUrl"]
            poll = asyncio.ensure_future(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))
            queue = mock.backend.get(REGION, "123456789012", "stop")
            for _ in range(10_000):
                if queue.waiting():
                    break
                await asyncio.sleep(0)
            assert queue.waiting() == 1
            mock.stop()
            answer = await asyncio.wait_for(poll, 5)
            assert "Messages" not in answer
    finally:
        mock.stop()
