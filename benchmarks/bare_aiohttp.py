"""A bare aiohttp app answering SQS calls with canned bodies: the yardstick ``sqsmock serve``'s
CPU per call is held to (``python benchmarks/server.py cpu``).

    python benchmarks/bare_aiohttp.py PORT ANSWERS.json

``ANSWERS.json`` maps a protocol (``json``, ``query``) to an operation to ``[content type,
body]``: the answers ``sqsmock serve`` gave to the same calls, so that both servers send bodies of
the same size, with the same headers. The app does only what any aiohttp app must to answer: a
route, the body read, the answer picked by ``X-Amz-Target`` (AWS JSON 1.0) or by the form's
first field, ``Action=`` (the query protocol), a response. It listens as ``sqsmock serve`` does:
on 127.0.0.1, a backlog of 1024, handlers cancelled when their client hangs up, no access log.
"""

from __future__ import annotations

import json
import sys

from aiohttp import web

TARGET_PREFIX = len("AmazonSQS.")
#: A request id of SQS's form, as long as those sqsmock sends.
REQUEST_ID = "d5a1c3a0-6f3e-4c6b-9f0e-2b7c1e0d9a84"


def app(answers: dict[str, dict[str, list[str]]]) -> web.Application:
    canned = {
        protocol: {
            operation: (content_type, body.encode())
            for operation, (content_type, body) in operations.items()
        }
        for protocol, operations in answers.items()
    }
    by_target, by_action = canned.get("json", {}), canned.get("query", {})

    async def sqs(request: web.Request) -> web.Response:
        body = await request.read()
        target = request.headers.get("X-Amz-Target")
        if target is not None:
            content_type, answer = by_target[target[TARGET_PREFIX:]]
        else:
            action = body.split(b"&", 1)[0].partition(b"=")[2].decode()
            content_type, answer = by_action[action]
        return web.Response(
            body=answer, headers={"x-amzn-RequestId": REQUEST_ID, "Content-Type": content_type}
        )

    async def health(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    application = web.Application()
    application.router.add_post("/", sqs)
    application.router.add_get("/health", health)
    return application


def main() -> None:
    port, path = int(sys.argv[1]), sys.argv[2]
    with open(path, encoding="utf-8") as file:
        answers = json.load(file)
    web.run_app(
        app(answers),
        host="127.0.0.1",
        port=port,
        print=None,
        access_log=None,
        handler_cancellation=True,
        backlog=1024,
        reuse_address=True,
    )


if __name__ == "__main__":
    main()
