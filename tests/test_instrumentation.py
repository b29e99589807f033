"""Tracing instrumentation under sqsmock, in process: what aws-xray-sdk and OpenTelemetry put on a
request reaches the queue as AWS would keep it, so a consumer continues the producer's trace.

Both inject the ``X-Amzn-Trace-Id`` header by wrapping botocore's request building; SQS turns that
header into the message's ``AWSTraceHeader`` system attribute. aws-xray-sdk's patch cannot be
undone, so its tests run in a fresh interpreter; OpenTelemetry's is undone after each test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import boto3
import botocore.client
import botocore.endpoint
import pytest

from sqsmock import mock_sqs

#: An in-memory X-Ray emitter: segments are kept, nothing is sent to a daemon; the socket module
#: refuses to send anything at all.
XRAY_SETUP = """
import json, socket

def no_traffic(*args, **kwargs):
    raise AssertionError("network traffic")

socket.socket.sendto = no_traffic
socket.socket.connect = no_traffic

from aws_xray_sdk.core import patch, xray_recorder


class Emitter:
    def __init__(self):
        self.entities = []

    def send_entity(self, entity):
        self.entities.append(entity)

    def set_daemon_address(self, address):
        pass


emitter = Emitter()
xray_recorder.configure(emitter=emitter, sampling=False, context_missing="RUNTIME_ERROR")
"""

XRAY_BOTOCORE = """
import boto3
from sqsmock import mock_sqs

patch(["botocore"])
with mock_sqs():
    sqs = boto3.client("sqs", region_name="us-east-1")
    xray_recorder.begin_segment("setup")
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    xray_recorder.end_segment()
    segment = xray_recorder.begin_segment("producer")
    sqs.send_message(QueueUrl=url, MessageBody="order")
    [send] = [s for s in segment.subsegments if s.aws.get("operation") == "SendMessage"]
    xray_recorder.end_segment()
    xray_recorder.begin_segment("consumer")
    got = sqs.receive_message(QueueUrl=url, MessageSystemAttributeNames=["AWSTraceHeader"])
    xray_recorder.end_segment()
print(json.dumps({
    "header": got["Messages"][0]["Attributes"]["AWSTraceHeader"],
    "trace": segment.trace_id,
    "parent": send.id,
    "segments": [e.name for e in emitter.entities],
}))
"""

XRAY_AIOBOTOCORE = """
import asyncio
from aws_xray_sdk.core.async_context import AsyncContext
from aiobotocore.session import get_session
from sqsmock import mock_sqs

patch(["aiobotocore"])

async def main():
    xray_recorder.configure(context=AsyncContext(loop=asyncio.get_running_loop()))
    with mock_sqs():
        async with get_session().create_client("sqs", region_name="us-east-1") as sqs:
            async with xray_recorder.in_segment_async("setup"):
                url = (await sqs.create_queue(QueueName="orders"))["QueueUrl"]
            async with xray_recorder.in_segment_async("producer") as segment:
                await sqs.send_message(QueueUrl=url, MessageBody="order")
                [send] = [s for s in segment.subsegments if s.aws.get("operation") == "SendMessage"]
            async with xray_recorder.in_segment_async("consumer"):
                got = await sqs.receive_message(
                    QueueUrl=url, MessageSystemAttributeNames=["AWSTraceHeader"]
                )
    return got, segment, send

got, segment, send = asyncio.run(main())
print(json.dumps({
    "header": got["Messages"][0]["Attributes"]["AWSTraceHeader"],
    "trace": segment.trace_id,
    "parent": send.id,
    "segments": [e.name for e in emitter.entities],
}))
"""


def run_xray(program: str) -> dict[str, object]:
    import json

    pytest.importorskip("aws_xray_sdk")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(XRAY_SETUP) + textwrap.dedent(program)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.slow
@pytest.mark.parametrize("program", [XRAY_BOTOCORE, XRAY_AIOBOTOCORE], ids=["boto3", "aio"])
def test_xray_trace_reaches_the_consumer(program: str) -> None:
    out = run_xray(program)
    assert out["header"] == f"Root={out['trace']};Parent={out['parent']};Sampled=1"
    assert out["segments"] == ["setup", "producer", "consumer"]  # kept in memory, never sent


@pytest.fixture
def otel():
    """OpenTelemetry's botocore instrumentation with an in-memory exporter, undone afterwards."""
    pytest.importorskip("opentelemetry.instrumentation.botocore")
    from opentelemetry.instrumentation.botocore import BotocoreInstrumentor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    make_api_call = botocore.client.BaseClient._make_api_call
    prepare_request = vars(botocore.endpoint.Endpoint)["prepare_request"]
    instrumentor = BotocoreInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    yield provider, exporter
    instrumentor.uninstrument()
    assert botocore.client.BaseClient._make_api_call is make_api_call
    assert vars(botocore.endpoint.Endpoint)["prepare_request"] is prepare_request


def test_opentelemetry_trace_context_reaches_the_consumer(otel) -> None:
    from opentelemetry import trace
    from opentelemetry.propagators.aws import AwsXRayPropagator

    provider, exporter = otel
    with mock_sqs():
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.create_queue(QueueName="orders")["QueueUrl"]
        with provider.get_tracer("test").start_as_current_span("produce") as produce:
            sqs.send_message(QueueUrl=url, MessageBody="order")
        got = sqs.receive_message(QueueUrl=url, MessageSystemAttributeNames=["AWSTraceHeader"])
    header = got["Messages"][0]["Attributes"]["AWSTraceHeader"]
    consumer = AwsXRayPropagator().extract({"X-Amzn-Trace-Id": header})
    parent = trace.get_current_span(consumer).get_span_context()
    spans = {s.name: s for s in exporter.get_finished_spans()}
    assert parent.trace_id == produce.get_span_context().trace_id
    assert parent.span_id == spans["SQS.SendMessage"].context.span_id
    # the spans describe the calls as against AWS
    assert spans["SQS.SendMessage"].attributes["rpc.method"] == "SendMessage"
    assert spans["SQS.ReceiveMessage"].status.is_ok


def test_opentelemetry_instrumented_while_a_mock_is_active(otel) -> None:
    """Instrumented after the mock started, OpenTelemetry wraps sqsmock's wrapper: both work,
    and once both are undone botocore's own method is back."""
    from opentelemetry.instrumentation.botocore import BotocoreInstrumentor

    provider, exporter = otel
    instrumentor = BotocoreInstrumentor()
    instrumentor.uninstrument()
    original = botocore.client.BaseClient._make_api_call
    with mock_sqs():
        instrumentor.instrument(tracer_provider=provider)
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.create_queue(QueueName="orders")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="order")
        got = sqs.receive_message(QueueUrl=url, MessageSystemAttributeNames=["AWSTraceHeader"])
    assert "AWSTraceHeader" in got["Messages"][0]["Attributes"]
    assert [s.name for s in exporter.get_finished_spans()] == [
        "SQS.CreateQueue",
        "SQS.SendMessage",
        "SQS.ReceiveMessage",
    ]
    # sqsmock's wrapper was taken out from under OpenTelemetry's when the mock stopped
    assert vars(botocore.client.BaseClient)["_make_api_call"].__wrapped__ is original
    with mock_sqs():  # and goes beneath it again
        assert "QueueUrls" not in sqs.list_queues()
    instrumentor.uninstrument()
    assert botocore.client.BaseClient._make_api_call is original
