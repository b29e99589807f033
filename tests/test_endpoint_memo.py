"""A client's endpoint is resolved once per operation, not on every call, on every path of a call
sqsmock answers; a call whose endpoint resolution somebody else watches resolves it as botocore
always does."""

from __future__ import annotations

from typing import Any

import boto3
import pytest

from sqsmock import mock_sqs


def _client(**kwargs: Any) -> Any:
    return boto3.client(
        "sqs",
        region_name="eu-west-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
        **kwargs,
    )


def _count_resolutions(client: Any) -> list[str]:
    """The operations whose endpoint the client's ruleset resolver was asked for, in order."""
    seen: list[str] = []
    resolver = client._ruleset_resolver
    real = resolver.construct_endpoint

    def counting(operation_model: Any, call_args: Any, request_context: Any) -> Any:
        seen.append(operation_model.name)
        return real(operation_model, call_args, request_context)

    resolver.construct_endpoint = counting
    return seen


def test_the_fast_path_resolves_an_endpoint_once_per_operation() -> None:
    with mock_sqs():
        client = _client()
        seen = _count_resolutions(client)
        url = client.create_queue(QueueName="q")["QueueUrl"]
        for _ in range(3):
            client.send_message(QueueUrl=url, MessageBody="m")
        for _ in range(3):
            handle = client.receive_message(QueueUrl=url)["Messages"][0]["ReceiptHandle"]
            client.delete_message(QueueUrl=url, ReceiptHandle=handle)
    assert seen == ["CreateQueue", "SendMessage", "ReceiveMessage", "DeleteMessage"]
    assert url == "https://sqs.eu-west-1.amazonaws.com/123456789012/q"


def test_the_kept_endpoint_is_the_clients_own() -> None:
    answered: list[str] = []

    def after(http_response: Any, **_: Any) -> None:  # does not take the call off the fast path
        answered.append(http_response.url)

    with mock_sqs():
        local, aws = _client(endpoint_url="http://localhost:4566"), _client()
        for client in (local, aws):
            client.meta.events.register("after-call.sqs", after)
            seen = _count_resolutions(client)
            client.create_queue(QueueName="q")
            client.get_queue_url(QueueName="q")
            client.get_queue_url(QueueName="q")
            assert seen == ["CreateQueue", "GetQueueUrl"]
    assert answered == ["http://localhost:4566"] * 3 + ["https://sqs.eu-west-1.amazonaws.com"] * 3


def test_a_handler_on_endpoint_resolution_sees_every_call() -> None:
    calls: list[str] = []

    def builtins_seen(builtins: Any, model: Any, **_: Any) -> None:
        calls.append(model.name)

    with mock_sqs():
        client = _client()
        client.meta.events.register("before-endpoint-resolution.sqs", builtins_seen)
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="m")
        client.send_message(QueueUrl=url, MessageBody="m")
    assert calls == ["CreateQueue", "SendMessage", "SendMessage"]


def _seen_at(event: str, client: Any) -> list[dict[str, Any]]:
    """What a handler on ``event`` sees of each call's request: URL, headers, auth type."""
    seen: list[dict[str, Any]] = []

    def watch(**kwargs: Any) -> None:
        request = kwargs.get("request") or kwargs.get("params")
        headers = request["headers"] if isinstance(request, dict) else request.headers
        url = request["url"] if isinstance(request, dict) else request.url
        context = request["context"] if isinstance(request, dict) else request.context
        seen.append(
            {
                "url": url,
                "headers": sorted(str(k).lower() for k in headers),
                "authorization": str(headers.get("Authorization", "")),
                "signing": dict(context.get("signing") or {}),
                "auth_type": context.get("auth_type"),
            }
        )

    client.meta.events.register(f"{event}.sqs", watch)
    return seen


@pytest.mark.parametrize("event", ["before-call", "before-send"])  # serialized, full
def test_a_watched_call_keeps_its_endpoint_and_builds_the_same_request(event: str) -> None:
    with mock_sqs():
        client = _client()
        resolved = _count_resolutions(client)
        seen = _seen_at(event, client)
        url = client.create_queue(QueueName="q")["QueueUrl"]
        for _ in range(3):
            client.send_message(QueueUrl=url, MessageBody="m")
        assert client.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "m"
    assert resolved == ["CreateQueue", "SendMessage", "ReceiveMessage"]
    first, *kept = seen[1:4]  # the sends: the first resolved, the others kept
    assert first["url"] == "https://sqs.eu-west-1.amazonaws.com/"
    for later in kept:
        assert later["url"] == first["url"]
        assert later["headers"] == first["headers"]
        assert later["signing"] == first["signing"]
        assert later["auth_type"] == first["auth_type"]
    if event == "before-send":  # signed: the same credential scope every time
        scopes = {s["authorization"].split("Credential=x/")[1].split(",")[0] for s in seen[1:4]}
        assert len(scopes) == 1
        assert scopes.pop().endswith("/eu-west-1/sqs/aws4_request")


@pytest.mark.parametrize("event", ["before-call", "before-send"])
def test_a_watched_call_with_endpoint_resolution_watched_resolves_every_time(event: str) -> None:
    calls: list[str] = []

    def builtins_seen(model: Any, **_: Any) -> None:
        calls.append(model.name)

    with mock_sqs():
        client = _client()
        seen = _count_resolutions(client)
        client.meta.events.register(f"{event}.sqs", lambda **_: None)
        client.meta.events.register("before-endpoint-resolution.sqs", builtins_seen)
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="m")
        client.send_message(QueueUrl=url, MessageBody="m")
    assert seen == ["CreateQueue", "SendMessage", "SendMessage"]
    assert calls == seen


def test_a_wrapped_request_builder_keeps_the_endpoint_unless_resolution_is_watched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import functools

    import botocore.endpoint

    built: list[str] = []
    create = botocore.endpoint.Endpoint.create_request

    @functools.wraps(create)
    def tracing(self: Any, params: Any, operation_model: Any = None) -> Any:
        built.append(params["url"])
        return create(self, params, operation_model)

    monkeypatch.setattr(botocore.endpoint.Endpoint, "create_request", tracing)
    with mock_sqs():
        client = _client()
        seen = _count_resolutions(client)
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="m")
        client.send_message(QueueUrl=url, MessageBody="m")
        assert seen == ["CreateQueue", "SendMessage"]
        client.meta.events.register("before-endpoint-resolution.sqs", lambda **_: None)
        client.send_message(QueueUrl=url, MessageBody="m")
        assert seen == ["CreateQueue", "SendMessage", "SendMessage"]
    assert built == ["https://sqs.eu-west-1.amazonaws.com/"] * 4  # every call took the full path


def test_no_endpoint_is_kept_once_the_mock_stops() -> None:
    client = _client()
    seen = _count_resolutions(client)
    with mock_sqs():
        url = client.create_queue(QueueName="q")["QueueUrl"]
        client.get_queue_url(QueueName="q")
    # Stopped: the call is resolved as botocore does (and then refused, bound for AWS).
    client.meta.events.register("before-send.sqs", lambda **_: _Refused())
    with pytest.raises(_Stop):
        client.send_message(QueueUrl=url, MessageBody="m")
    assert seen == ["CreateQueue", "GetQueueUrl", "SendMessage"]


def test_a_failed_resolution_is_not_kept() -> None:
    with mock_sqs():
        client = _client()
        resolver = client._ruleset_resolver
        real = resolver.construct_endpoint
        failures = [RuntimeError("endpoint resolution failed")]

        def failing_once(*args: Any, **kwargs: Any) -> Any:
            if failures:
                raise failures.pop()
            return real(*args, **kwargs)

        resolver.construct_endpoint = failing_once
        with pytest.raises(RuntimeError, match="endpoint resolution failed"):
            client.list_queues()
        assert client.list_queues().get("QueueUrls", []) == []


class _Stop(Exception):
    pass


class _Refused:
    def __getattr__(self, name: str) -> Any:
        raise _Stop


@pytest.mark.asyncio
@pytest.mark.parametrize("watched", [False, True])  # the fast path; the full path
async def test_an_aiobotocore_client_resolves_an_endpoint_once_per_operation(
    watched: bool,
) -> None:
    from aiobotocore.session import get_session

    seen: list[str] = []
    with mock_sqs():
        async with get_session().create_client(
            "sqs", region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="x"
        ) as client:
            resolver = client._ruleset_resolver
            real = resolver.construct_endpoint

            async def counting(operation_model: Any, call_args: Any, request_context: Any) -> Any:
                seen.append(operation_model.name)
                return await real(operation_model, call_args, request_context)

            resolver.construct_endpoint = counting
            sent: list[str] = []
            if watched:
                client.meta.events.register(
                    "before-send.sqs", lambda request, **_: sent.append(request.url)
                )
            url = (await client.create_queue(QueueName="q"))["QueueUrl"]
            for _ in range(3):
                await client.send_message(QueueUrl=url, MessageBody="m")
            got = await client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
    assert seen == ["CreateQueue", "SendMessage", "ReceiveMessage"]
    assert len(got["Messages"]) == 3
    assert sent == (["https://sqs.eu-west-1.amazonaws.com/"] * 5 if watched else [])
