"""Other libraries' wrappers of botocore's methods beside sqsmock's, in every order.

Tracing agents wrap ``BaseClient._make_api_call`` (and aiobotocore's) with wrapt, and undo it by
putting back what their proxy wraps -- if the attribute is still their proxy. Whatever order
mocks start and stop and a library instruments and un-instruments in, the wrappers left in
place must be exactly the ones the library believes are there: each runs once per call, and
once no mock is active botocore's own method is under them and nothing of sqsmock's is left.
"""

from __future__ import annotations

import asyncio
import importlib
import itertools
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import botocore.client
import botocore.endpoint
import pytest
import wrapt

from sqsmock import mock_sqs
from sqsmock._adapters._sdk.chain import is_proxy

ORIGINAL = vars(botocore.client.BaseClient)["_make_api_call"]
STEPS = ("on", "off", "start", "stop")
SDKS = ("botocore", "aiobotocore")
#: What OpenTelemetry's ``unwrap`` checks for (wrapt 2 calls its base proxy ``BaseObjectProxy``).
PROXY = getattr(wrapt, "BaseObjectProxy", wrapt.ObjectProxy)


def chain(cls: type, name: str = "_make_api_call") -> list[Any]:
    """The attribute's chain of wrappers, top first, down to the SDK's own method (botocore's
    is itself decorated: its ``__wrapped__`` is not followed)."""
    found = [vars(cls)[name]]
    while is_proxy(found[-1]) or found[-1].__module__.partition(".")[0] not in SDKS:
        below = getattr(found[-1], "__wrapped__", None)
        if below is None:
            break
        found.append(below)
    return found


def sequences(length: int) -> Iterator[tuple[str, ...]]:
    for n in range(1, length + 1):
        yield from itertools.product(STEPS, repeat=n)


class Wrapt:
    """A plain wrapt wrapper, put on and taken off as OpenTelemetry's ``unwrap`` does it."""

    def __init__(self, cls: type = botocore.client.BaseClient) -> None:
        self.cls, self.calls, self.on_ = cls, 0, False

    def _wrapper(self, wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
        self.calls += 1
        return wrapped(*args, **kwargs)

    def on(self) -> None:
        if not self.on_:
            wrapt.wrap_function_wrapper(self.cls, "_make_api_call", self._wrapper)
            self.on_ = True

    def off(self) -> None:
        if self.on_:
            method = self.cls._make_api_call
            if isinstance(method, PROXY):
                self.cls._make_api_call = method.__wrapped__
            self.on_ = False

    def count(self, call: Callable[[], Any]) -> int:
        before = self.calls
        call()
        return self.calls - before

    def mine(self, method: Any) -> bool:
        return is_proxy(method) and getattr(method, "_self_wrapper", None) == self._wrapper


class OpenTelemetry:
    """OpenTelemetry's own ``BotocoreInstrumentor``, spans kept in memory."""

    def __init__(self) -> None:
        from opentelemetry.instrumentation.botocore import BotocoreInstrumentor
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.instrumentor = BotocoreInstrumentor()
        self.on_ = False

    def on(self) -> None:
        self.instrumentor.instrument(tracer_provider=self.provider)
        self.on_ = True

    def off(self) -> None:
        self.instrumentor.uninstrument()
        self.on_ = False

    def count(self, call: Callable[[], Any]) -> int:
        self.exporter.clear()
        call()
        return len(self.exporter.get_finished_spans())

    def mine(self, method: Any) -> bool:
        wrapper = getattr(method, "_self_wrapper", None)
        return is_proxy(method) and "opentelemetry" in getattr(wrapper, "__module__", "")


@pytest.fixture
def otel() -> Iterator[OpenTelemetry]:
    pytest.importorskip("opentelemetry.instrumentation.botocore")
    library = OpenTelemetry()
    library.off()
    yield library
    library.off()
    assert vars(botocore.client.BaseClient)["_make_api_call"] is ORIGINAL


def test_opentelemetry_uninstrumented_inside_a_mock_leaves_one_span_per_call(otel) -> None:
    """The sequence that doubled every span of every botocore call in the process."""
    sqs = boto3.client("sqs", region_name="us-east-1")
    otel.on()
    with mock_sqs():
        otel.off()
    otel.off()
    otel.on()
    with mock_sqs():
        assert otel.count(sqs.list_queues) == 1
    assert [m for m in chain(botocore.client.BaseClient) if is_proxy(m)] == [
        vars(botocore.client.BaseClient)["_make_api_call"]
    ]


def play(library: Any, steps: tuple[str, ...], cls: type, original: Any) -> int:
    """Play ``steps``, stop the mocks still active, check that exactly the library's own
    wrappers are in place over botocore's method; how many there are (0 or 1)."""
    mocks: list[Any] = []
    for step in steps:
        if step == "on":
            library.on()
        elif step == "off":
            library.off()
        elif step == "start":
            mocks.append(mock_sqs())
            mocks[-1].start()
        elif mocks:
            mocks.pop().stop()
    while mocks:
        mocks.pop().stop()
    wanted = 1 if library.on_ else 0
    links = chain(cls)
    assert [library.mine(m) for m in links] == [True] * wanted + [False], steps
    assert links[-1] is original, steps
    return wanted


def check_sync(library: Any, steps: tuple[str, ...], sqs: Any) -> None:
    wanted = play(library, steps, botocore.client.BaseClient, ORIGINAL)
    links = chain(botocore.client.BaseClient)
    with mock_sqs():
        assert library.count(sqs.list_queues) == wanted, steps
    assert chain(botocore.client.BaseClient) == links, steps
    library.off()
    assert chain(botocore.client.BaseClient) == [ORIGINAL], steps


def test_every_order_with_a_plain_wrapt_wrapper() -> None:
    library, sqs = Wrapt(), boto3.client("sqs", region_name="us-east-1")
    for steps in sequences(4):
        check_sync(library, steps, sqs)


def test_every_order_with_opentelemetry(otel) -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    for steps in sequences(4):
        check_sync(otel, steps, sqs)


def test_every_order_with_a_plain_wrapt_wrapper_on_aiobotocore() -> None:
    pytest.importorskip("aiobotocore")
    from aiobotocore.client import AioBaseClient
    from aiobotocore.session import get_session

    original = vars(AioBaseClient)["_make_api_call"]
    library = Wrapt(AioBaseClient)

    async def main() -> None:
        async with get_session().create_client("sqs", region_name="us-east-1") as sqs:
            for steps in sequences(4):
                wanted = play(library, steps, AioBaseClient, original)
                with mock_sqs():
                    before = library.calls
                    await sqs.list_queues()
                    assert library.calls - before == wanted, steps
                library.off()
                assert chain(AioBaseClient) == [original], steps

    asyncio.run(main())


class XRay:
    """aws-xray-sdk's own patch of botocore (which it never undoes: ``off`` is the test's
    clean-up, taking its two proxies out as a fresh process would not have them)."""

    steps = ("on", "start", "stop")

    def __init__(self) -> None:
        from aws_xray_sdk.core import xray_recorder

        patch = importlib.import_module("aws_xray_sdk.ext.botocore.patch")

        class Emitter:
            def send_entity(self, entity: Any) -> None:
                pass

            def set_daemon_address(self, address: Any) -> None:
                pass

        xray_recorder.configure(emitter=Emitter(), sampling=False, context_missing="LOG_ERROR")
        self.recorder, self.patch, self.on_ = xray_recorder, patch, False

    def on(self) -> None:
        self.patch.patch()
        self.on_ = True

    def off(self) -> None:
        for cls, name in (
            (botocore.client.BaseClient, "_make_api_call"),
            (botocore.endpoint.Endpoint, "prepare_request"),
        ):
            method = vars(cls)[name]
            if is_proxy(method):
                setattr(cls, name, method.__wrapped__)
        if hasattr(botocore.client, "_xray_enabled"):
            delattr(botocore.client, "_xray_enabled")
        self.on_ = False

    def count(self, call: Callable[[], Any]) -> int:
        segment = self.recorder.begin_segment("test")
        try:
            call()
            return len(segment.subsegments)
        finally:
            self.recorder.end_segment()

    def mine(self, method: Any) -> bool:
        return is_proxy(method) and method._self_wrapper is self.patch._xray_traced_botocore


def test_every_order_with_aws_xray_sdk() -> None:
    pytest.importorskip("aws_xray_sdk")
    library, sqs = XRay(), boto3.client("sqs", region_name="us-east-1")
    try:
        for n in range(1, 5):
            for steps in itertools.product(library.steps, repeat=n):
                check_sync(library, steps, sqs)
    finally:
        library.off()
