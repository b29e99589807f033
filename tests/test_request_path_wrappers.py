"""Wrappers of the methods on botocore's request path run as often as against AWS.

Monitoring agents wrap what a real call runs after ``before-call``: Instana wraps
``botocore.auth.SigV4Auth.add_auth`` (``wrapt.patch_function_wrapper("botocore.auth",
"SigV4Auth.add_auth")`` in instana/instrumentation/boto3_inst.py) to read the request's headers;
New Relic wraps ``botocore.endpoint.Endpoint.make_request`` (``wrap_function_wrapper(module,
"Endpoint.make_request", _nr_endpoint_make_request_)`` in newrelic/hooks/external_botocore.py)
to record ``External/<host>/botocore/<method>``. The wrappers here are wrapt wrappers of exactly
those methods, doing what the agents' do with their arguments. With any of them in place a call
runs the whole path: each runs once per call, as against a real endpoint.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import botocore.auth
import botocore.awsrequest
import botocore.endpoint
import botocore.httpsession
import pytest
import wrapt
from botocore.config import Config

from sqsmock import mock_sqs


@pytest.fixture
def wrap() -> Iterator[Callable[..., list[Any]]]:
    """``wrap(cls, name, record)``: a wrapt wrapper of ``cls.name`` appending what ``record``
    makes of each call's ``(instance, args, kwargs)``; undone afterwards."""
    undo: list[tuple[type, str, Any]] = []

    def install(cls: type, name: str, record: Callable[..., Any]) -> list[Any]:
        seen: list[Any] = []

        def wrapper(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
            seen.append(record(instance, args, kwargs))
            return wrapped(*args, **kwargs)

        undo.append((cls, name, vars(cls)[name]))
        wrapt.wrap_function_wrapper(cls, name, wrapper)
        return seen

    yield install
    for cls, name, method in reversed(undo):
        setattr(cls, name, method)


def client() -> Any:
    return boto3.client("sqs", region_name="us-east-1")


def calls(sqs: Any) -> None:
    """Four calls, one of them an error."""
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    with pytest.raises(sqs.exceptions.QueueDoesNotExist):
        sqs.get_queue_url(QueueName="missing")
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "m"


def test_a_wrapped_signer_runs_once_per_call_and_sees_the_request_headers(wrap) -> None:
    """Instana's wrapper of ``SigV4Auth.add_auth`` reads ``args[0].headers``."""
    seen = wrap(botocore.auth.SigV4Auth, "add_auth", lambda i, a, k: dict(a[0].headers))
    with mock_sqs():
        calls(client())
    assert [h["X-Amz-Target"] for h in seen] == [
        "AmazonSQS.CreateQueue",
        "AmazonSQS.SendMessage",
        "AmazonSQS.GetQueueUrl",
        "AmazonSQS.ReceiveMessage",
    ]


def test_a_wrapped_make_request_runs_once_per_call(wrap) -> None:
    """New Relic's wrapper of ``Endpoint.make_request`` reads the operation model and the
    request dict's url and method."""
    seen = wrap(
        botocore.endpoint.Endpoint,
        "make_request",
        lambda i, a, k: (a[0].name, a[1]["url"], a[1]["method"]),
    )
    with mock_sqs():
        calls(client())
    url = "https://sqs.us-east-1.amazonaws.com/"
    assert seen == [
        ("CreateQueue", url, "POST"),
        ("SendMessage", url, "POST"),
        ("GetQueueUrl", url, "POST"),
        ("ReceiveMessage", url, "POST"),
    ]


@pytest.mark.parametrize(
    "cls,name",
    [(botocore.endpoint.Endpoint, "_send"), (botocore.httpsession.URLLib3Session, "send")],
    ids=["Endpoint._send", "URLLib3Session.send"],
)
def test_a_wrapped_send_runs_once_per_attempt(wrap, cls: type, name: str) -> None:
    seen = wrap(cls, name, lambda i, a, k: a[0].url)
    with mock_sqs(clock="frozen") as mock:  # the retries back off on the mock's clock
        sqs = boto3.client(
            "sqs", region_name="us-east-1", config=Config(retries={"mode": "standard"})
        )
        calls(sqs)
        assert len(seen) == 4
        mock.faults.add("SendMessage", error="ServiceUnavailable", times=2)
        sqs.send_message(QueueUrl=sqs.get_queue_url(QueueName="q")["QueueUrl"], MessageBody="x")
    assert len(seen) == 4 + 1 + 3  # GetQueueUrl, then SendMessage's three attempts


def test_a_replaced_method_counts_as_wrapped() -> None:
    original = botocore.endpoint.Endpoint.make_request
    seen: list[str] = []

    def make_request(self: Any, operation_model: Any, request_dict: Any) -> Any:
        seen.append(operation_model.name)
        return original(self, operation_model, request_dict)

    botocore.endpoint.Endpoint.make_request = make_request  # type: ignore[method-assign]
    try:
        with mock_sqs():
            client().list_queues()
    finally:
        botocore.endpoint.Endpoint.make_request = original  # type: ignore[method-assign]
    assert seen == ["ListQueues"]


def test_the_fast_path_comes_back_once_the_wrapper_is_gone(wrap, monkeypatch) -> None:
    seen = wrap(botocore.auth.SigV4Auth, "add_auth", lambda i, a, k: None)
    with mock_sqs():
        sqs = client()
        sqs.list_queues()
        assert len(seen) == 1
        botocore.auth.SigV4Auth.add_auth = vars(botocore.auth.SigV4Auth)["add_auth"].__wrapped__

        def no_request(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("an HTTP request was built")

        monkeypatch.setattr(sqs._endpoint, "make_request", no_request)
        sqs.list_queues()


def test_aiobotocore_wrapped_signer_and_session_send_run_once_per_call(wrap) -> None:
    pytest.importorskip("aiobotocore")
    from aiobotocore.httpsession import AIOHTTPSession
    from aiobotocore.session import get_session

    signed = wrap(botocore.auth.SigV4Auth, "add_auth", lambda i, a, k: a[0].url)
    sent = wrap(AIOHTTPSession, "send", lambda i, a, k: a[0].url)

    async def main() -> None:
        with mock_sqs():
            async with get_session().create_client("sqs", region_name="us-east-1") as sqs:
                url = (await sqs.create_queue(QueueName="q"))["QueueUrl"]
                await sqs.send_message(QueueUrl=url, MessageBody="m")
                with pytest.raises(sqs.exceptions.QueueDoesNotExist):
                    await sqs.get_queue_url(QueueName="missing")
                got = await sqs.receive_message(QueueUrl=url)
                assert got["Messages"][0]["Body"] == "m"

    asyncio.run(main())
    assert len(signed) == len(sent) == 4


def test_aiobotocore_on_httpx_with_a_wrapped_signer_is_answered_before_any_network(wrap) -> None:
    """sqsmock does not wrap the httpx session's ``send``: the call is answered beneath
    ``AioEndpoint._send``, and nothing leaves the process."""
    pytest.importorskip("httpx")
    from aiobotocore.config import AioConfig
    from aiobotocore.endpoint import AioEndpoint
    from aiobotocore.httpxsession import HttpxSession
    from aiobotocore.session import get_session

    signed = wrap(botocore.auth.SigV4Auth, "add_auth", lambda i, a, k: a[0].url)
    sent = wrap(AioEndpoint, "_send", lambda i, a, k: a[0].url)
    config = AioConfig(http_session_cls=HttpxSession)

    async def main() -> None:
        with mock_sqs():
            session = get_session()
            async with session.create_client("sqs", region_name="us-east-1", config=config) as sqs:
                url = (await sqs.create_queue(QueueName="q"))["QueueUrl"]
                await sqs.send_message(QueueUrl=url, MessageBody="m")
                got = await sqs.receive_message(QueueUrl=url)
                assert got["Messages"][0]["Body"] == "m"

    asyncio.run(main())
    assert len(signed) == len(sent) == 3


def test_a_wrapper_put_on_a_subclass_over_an_inherited_method_runs() -> None:
    """aws-xray-sdk wraps ``AioEndpoint.prepare_request``, which aiobotocore inherits from
    botocore: the wrapper lands on the subclass, and still runs once per call."""
    pytest.importorskip("aiobotocore")
    from aiobotocore.endpoint import AioEndpoint
    from aiobotocore.session import get_session

    assert "prepare_request" not in vars(AioEndpoint)
    original = botocore.endpoint.Endpoint.prepare_request
    seen: list[str] = []

    def inject(wrapped: Any, instance: Any, args: Any, kwargs: Any) -> Any:
        seen.append(args[0].url)
        return wrapped(*args, **kwargs)

    wrapt.wrap_function_wrapper(AioEndpoint, "prepare_request", inject)

    async def main() -> None:
        with mock_sqs():
            async with get_session().create_client("sqs", region_name="us-east-1") as sqs:
                await sqs.list_queues()

    try:
        asyncio.run(main())
    finally:
        del AioEndpoint.prepare_request
    assert AioEndpoint.prepare_request is original
    assert len(seen) == 1


@pytest.fixture
def prepared_without_context(monkeypatch) -> None:
    """Prepared requests carry no context, as botocore's did before 1.43.72 (aiobotocore 2.x pins
    such a botocore): a full-path call is then known only by the endpoint sending it."""
    prepare = botocore.awsrequest.AWSRequestPreparer.prepare

    def without_context(self: Any, original: Any) -> Any:
        prepared = prepare(self, original)
        vars(prepared).pop("context", None)
        return prepared

    monkeypatch.setattr(botocore.awsrequest.AWSRequestPreparer, "prepare", without_context)


def test_a_wrapped_signer_is_answered_where_the_prepared_request_has_no_context(
    wrap, prepared_without_context
) -> None:
    seen = wrap(botocore.auth.SigV4Auth, "add_auth", lambda i, a, k: a[0].url)
    with mock_sqs(clock="frozen") as mock:  # (the retry's back-off moves the clock)
        sqs = boto3.client(
            "sqs", region_name="us-east-1", config=Config(retries={"mode": "standard"})
        )
        calls(sqs)
        mock.faults.add("SendMessage", error="ServiceUnavailable", times=1)
        sqs.send_message(QueueUrl=sqs.get_queue_url(QueueName="q")["QueueUrl"], MessageBody="x")
    assert len(seen) == 4 + 1 + 2


@pytest.mark.parametrize("session", ["aiohttp", "httpx"])
def test_aiobotocore_is_answered_where_the_prepared_request_has_no_context(
    wrap, prepared_without_context, session: str
) -> None:
    """Beneath aiohttp's session's ``send``, or in ``AioEndpoint._send`` for httpx's."""
    pytest.importorskip("aiobotocore")
    pytest.importorskip(session)
    from aiobotocore.config import AioConfig
    from aiobotocore.session import get_session

    if session == "httpx":
        from aiobotocore.httpxsession import HttpxSession

        config = AioConfig(http_session_cls=HttpxSession)
    else:
        config = AioConfig()
    signed = wrap(botocore.auth.SigV4Auth, "add_auth", lambda i, a, k: a[0].url)

    async def main() -> None:
        with mock_sqs():
            session = get_session()
            async with session.create_client("sqs", region_name="us-east-1", config=config) as sqs:
                url = (await sqs.create_queue(QueueName="q"))["QueueUrl"]
                await sqs.send_message(QueueUrl=url, MessageBody="m")
                got = await sqs.receive_message(QueueUrl=url)
                assert got["Messages"][0]["Body"] == "m"

    asyncio.run(main())
    assert len(signed) == 3


def test_a_call_made_while_signing_is_not_given_the_sqs_answer(
    wrap, prepared_without_context
) -> None:
    """A call of another service made while an SQS call is signed (a credential provider
    fetching credentials) is its own: the AWS guard refuses it."""
    from sqsmock import AwsRequestRefused

    other = boto3.client(
        "sts", region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b"
    )
    outcomes: list[Any] = []
    signing: list[bool] = []

    def nested(instance: Any, args: Any, kwargs: Any) -> None:
        if signing:  # the other call's own signing
            return
        signing.append(True)
        try:
            outcomes.append(other.get_caller_identity())
        except Exception as error:
            outcomes.append(error)

    wrap(botocore.auth.SigV4Auth, "add_auth", nested)
    with mock_sqs():
        assert client().list_queues().get("QueueUrls", []) == []
    [outcome] = outcomes
    assert isinstance(outcome, AwsRequestRefused)
