"""LocalStack's routes: ``/_localstack/`` in LocalStack mode, ``/_aws/sqs/messages`` always.

``/_localstack/health`` is what Testcontainers and compose health checks read (``GET /`` too,
answered 200 with no body in LocalStack mode, as LocalStack's gateway answers it);
``/_localstack/init`` and ``/_localstack/init/<stage>`` report the init scripts
(``localstack_mode``, which runs them, imports no aiohttp). ``/_aws/sqs/messages`` is
LocalStack's SQS developer endpoint -- a queue's messages without a side effect, in
ReceiveMessage's shape, a bounded page at a time (``X-Sqsmock-Next-Token`` holds the
``NextToken`` of the rest) -- which the protocol layer's ``developer`` module parses and
answers, so that tests and tools written for LocalStack run unchanged; it is answered in every
mode.
"""

from __future__ import annotations

from aiohttp import web
from aiohttp.web_request import BaseRequest

from ..._errors import SqsError
from ..._protocol import Result, developer
from ..._protocol.http import render
from ..._regions import is_region, shown
from ..._version import __version__
from .exchange import json_answer, request_of, sqs_answer
from .localstack_mode import health_document
from .served import Served
from .sqs import read_body

__all__ = ["PATH", "answer", "is_root_probe", "messages", "root"]

PATH = "/_localstack/"


async def messages(server: Served, request: BaseRequest) -> web.StreamResponse:
    """``/_aws/sqs/messages``: LocalStack's SQS developer endpoint, in every mode."""
    http = request_of(request)
    json_wanted = "application/json" in request.headers.get("Accept", "")
    try:
        if request.method not in ("GET", "POST", "DELETE"):
            return json_answer({"error": "use GET, POST or DELETE"}, 405, Allow="GET, POST, DELETE")
        body = await read_body(server, request, http)
        if isinstance(body, web.StreamResponse):
            return body
        http.body = body
        http.query = list(request.rel_url.query.items())
        runtime = server.runtime
        call = developer.parse_developer(
            http,
            region=runtime.region,
            account=runtime.account,
            urls=server.urls(request.headers.get("Host")),
        )
        if call.caller.region != runtime.region and not is_region(call.caller.region):
            raise SqsError("CredentialScopeRegion", region=shown(call.caller.region))
        backend = runtime.backend
        result, token = await runtime.run_engine(lambda: developer.answer(backend, call))
        protocol = call.protocol
    except SqsError as error:
        result, token = Result.of_error("ReceiveMessage", error), None
        protocol = "json" if "x-amz-target" in request.headers else "query"
    rendered = render("json" if protocol == "json" else "query", result)
    if token is not None:  # more messages are left: the NextToken to ask for them with
        rendered.headers[developer.NEXT_TOKEN] = token
    if json_wanted and protocol != "json":
        return web.Response(
            status=rendered.status,
            body=developer.as_json_document(rendered.body),
            content_type="application/json",
            headers={developer.NEXT_TOKEN: token} if token is not None else None,
        )
    return sqs_answer(rendered, request.method)


def is_root_probe(request: BaseRequest) -> bool:
    """``GET /`` (or ``HEAD /``) that asks for no SQS action: a health check's probe."""
    return (
        request.method in ("GET", "HEAD")
        and request.path == "/"
        and "Action" not in request.rel_url.query
        and "X-Amz-Target" not in request.headers
    )


def root() -> web.Response:
    """LocalStack mode's ``GET /``: 200 with an empty body, as LocalStack's gateway answers a
    request it finds no service for at its root (so ``curl -f http://localhost:4566`` passes)."""
    return web.Response(status=200, body=b"", content_type="text/plain")


async def answer(server: Served, request: BaseRequest) -> web.StreamResponse:
    """``/_localstack/health``, ``/_localstack/init`` and ``/_localstack/init/<stage>``."""
    mode = server.localstack
    assert mode is not None
    route = request.path[len(PATH) :].strip("/")
    if request.method not in ("GET", "HEAD"):
        return json_answer({"error": f"use GET for /_localstack/{route}"}, 405, Allow="GET, HEAD")
    if route == "health":
        return json_answer(health_document(f"{__version__} (sqsmock)"))
    if route == "init":
        return json_answer(mode.scripts.document())
    if route.startswith("init/"):
        found = mode.scripts.stage_document(route[len("init/") :])
        if found is not None:
            return json_answer(found)
    return json_answer({"error": f"no such endpoint /_localstack/{route}"}, 404)
