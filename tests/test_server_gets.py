"""What a web page's GET can do to a running server: answer actions that change nothing, no more.

A browser sends an ``<img>`` or link GET to any origin with no ``Origin`` header, and sends
``Sec-Fetch-Site`` only to URLs it deems trustworthy: not to ``[::ffff:127.0.0.1]``, the
machine's other addresses or ``0.0.0.0``, which reach the same server (and are IP literals, so
the ``Host`` check lets them through). So a GET runs an action that changes state only when
signed (an AWS ``Authorization`` header, or an ``X-Amz-*`` header), which no page can send to
another origin without a preflight. Each test checks the answer and that nothing happened.
"""

from __future__ import annotations

import asyncio
import json
import urllib.parse
from collections.abc import Iterator

import pytest
from botocore.auth import SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.serialize import QuerySerializer
from multidict import CIMultiDict, CIMultiDictProxy
from protocol_samples import REQUESTS, query_model
from server_support import (
    ACCOUNT,
    REGION,
    Answer,
    call_query,
    client,
    raw_exchange,
    request,
    status_of,
)

import sqsmock
from sqsmock import SqsServer
from sqsmock._adapters.http import sqs
from sqsmock._adapters.http.browsers import READ_ONLY, Guard, check_cors_origin, signed
from sqsmock._adapters.http.server import SqsHttpServer
from sqsmock._protocol.http import HttpAnswer, HttpRequest
from sqsmock._protocol.shapes import OPERATIONS
from sqsmock._runtime import Runtime
from sqsmock._server_options import ServerOptions

#: What Chromium sends with an ``<img>`` GET to a URL that is not potentially trustworthy:
#: neither ``Origin`` nor ``Sec-Fetch-*``.
IMAGE = {
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36",
    "Accept": "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
    "Accept-Language": "en-US,en;q=0.9",
    "Referer": "http://localhost:8000/",
}
#: Hosts that reach a server on 127.0.0.1 (or on 0.0.0.0) without Fetch Metadata.
UNTRUSTED_HOSTS = ["[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "10.0.0.7", "0.0.0.0"]
CHANGES_STATE = sorted(set(OPERATIONS) - READ_ONLY)
CREDENTIALS = Credentials("testing", "secret")
QUERY_MODEL = query_model()


@pytest.fixture(scope="module")
def module_server() -> Iterator[SqsServer]:
    with sqsmock.serve(port=0, clock="frozen") as server:
        yield server


@pytest.fixture
def server(module_server: SqsServer) -> SqsServer:
    module_server.reset()
    return module_server


def queue_names(server: SqsServer) -> list[str]:
    return sorted(queue.name for queue in server.backend.queues())


def query(**form: str) -> str:
    return "/?" + urllib.parse.urlencode(form)


def get(server: SqsServer, path: str, headers: dict[str, str] | None = None) -> Answer:
    return request(server.endpoint_url, "GET", path, b"", headers)


def refused(answer: Answer, action: str) -> bool:
    message = answer.find("Error/Message") or ""
    return (
        answer.status == 403
        and answer.headers["content-type"] == "text/xml"
        and answer.error_code == "MissingAuthenticationToken"
        and message.startswith(f"{action} changes state")
        and "POST it instead" in message
    )


def sigv4_headers(server: SqsServer, path: str) -> dict[str, str]:
    """The headers boto 2 sends with a GET: SigV4 in ``Authorization``."""
    signed_request = AWSRequest(method="GET", url=server.endpoint_url + path)
    SigV4Auth(CREDENTIALS, "sqs", REGION).add_auth(signed_request)
    return dict(signed_request.headers.items())


# -- a page's GET changes nothing ----------------------------------------------------------------


@pytest.mark.parametrize("host", UNTRUSTED_HOSTS)
def test_an_image_get_changes_nothing(server: SqsServer, host: str) -> None:
    """``<img src="http://[::ffff:127.0.0.1]:9324/?Action=PurgeQueue&QueueUrl=...">``."""
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="orders")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="secret")
    headers = {**IMAGE, "Host": f"{host}:{server.port}"}
    for action, form in [
        ("CreateQueue", {"QueueName": "evil"}),
        ("SendMessage", {"QueueUrl": url, "MessageBody": "evil"}),
        ("SetQueueAttributes", {"QueueUrl": url, "Attribute.Name": "DelaySeconds"}),
        ("ReceiveMessage", {"QueueUrl": url}),
        ("PurgeQueue", {"QueueUrl": url}),
        ("DeleteQueue", {"QueueUrl": url}),
    ]:
        answer = get(server, query(Action=action, **form, **{"Attribute.Value": "900"}), headers)
        assert refused(answer, action), (action, answer.status, answer.body)
        assert b"secret" not in answer.body
    assert queue_names(server) == ["orders"]
    [message] = server.peek("orders")
    assert (message.body, message.receive_count) == ("secret", 0)
    assert sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["DelaySeconds"])[
        "Attributes"
    ] == {"DelaySeconds": "0"}


def sample_query(action: str) -> str:
    """A GET's path for a valid ``action`` call (protocol_samples' first, as botocore forms it)."""
    operation = QUERY_MODEL.operation_model(action)
    form = QuerySerializer().serialize_to_request(REQUESTS[action][0], operation)["body"]
    return "/?" + urllib.parse.urlencode(form, doseq=True)


@pytest.mark.parametrize("action", CHANGES_STATE)
def test_every_action_that_changes_state_is_refused_over_an_unsigned_get(
    server: SqsServer, action: str
) -> None:
    sqs = client(server.endpoint_url)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="m")
    path = sample_query(action)
    assert refused(get(server, path, IMAGE), action)
    assert queue_names(server) == ["q"]
    [message] = server.peek("q")
    assert message.receive_count == 0
    # The same GET signed is run (its answer is the action's own).
    answer = get(server, path, sigv4_headers(server, path))
    assert answer.error_code != "MissingAuthenticationToken", answer.body


@pytest.mark.parametrize("action", sorted(READ_ONLY))
def test_actions_that_change_nothing_answer_any_get(server: SqsServer, action: str) -> None:
    url = client(server.endpoint_url).create_queue(QueueName="q")["QueueUrl"]
    form = {} if action == "ListQueues" else {"QueueUrl": url, "QueueName": "q"}
    if action == "ListMessageMoveTasks":
        form = {"SourceArn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:q"}
    answer = get(server, query(Action=action, **form), IMAGE)
    assert answer.status == 200, answer.body
    assert set(OPERATIONS) >= READ_ONLY


def test_a_refusal_follows_the_protocol_the_client_reads(server: SqsServer) -> None:
    answer = get(server, query(Action="CreateQueue", QueueName="q"), {"Accept": "application/json"})
    assert answer.status == 403
    assert answer.headers["content-type"] == "application/json"
    error = answer.json()["Error"]
    assert (error["Code"], error["Type"]) == ("MissingAuthenticationToken", "Sender")
    assert "POST it instead" in error["Message"]
    assert queue_names(server) == []


def test_a_signature_in_the_query_string_does_not_count(server: SqsServer) -> None:
    """An ``<img>`` URL can carry one, and signatures are not verified."""
    presigned = AWSRequest(
        method="GET", url=server.endpoint_url + query(Action="CreateQueue", QueueName="q")
    )
    SigV4QueryAuth(CREDENTIALS, "sqs", REGION, expires=60).add_auth(presigned)
    path = urllib.parse.urlsplit(presigned.url)
    assert "X-Amz-Signature=" in path.query
    assert refused(get(server, f"{path.path}?{path.query}", IMAGE), "CreateQueue")
    # Nor does a scheme a browser may add by itself (credentials in the URL: Basic).
    basic = get(server, query(Action="CreateQueue", QueueName="q"), {"Authorization": "Basic eDp4"})
    assert refused(basic, "CreateQueue")
    assert queue_names(server) == []


# -- programs that GET still work -----------------------------------------------------------------


def test_gets_signed_in_the_authorization_header_run(server: SqsServer) -> None:
    """boto 2 sends most actions as SigV4-signed GETs."""
    assert refused(get(server, query(Action="CreateQueue", QueueName="q")), "CreateQueue")
    for path in (
        query(Action="CreateQueue", QueueName="q"),
        query(Action="SendMessage", QueueUrl="/queue/us-east-1/123456789012/q", MessageBody="m"),
    ):
        answer = get(server, path, sigv4_headers(server, path))
        assert answer.status == 200, answer.body
    path = query(Action="ReceiveMessage", QueueUrl="/queue/us-east-1/123456789012/q")
    headers = sigv4_headers(server, path)
    only = {"Authorization": headers["Authorization"]}
    assert get(server, path, only).find("ReceiveMessageResult/Message/Body") == "m"
    assert [message.receive_count for message in server.peek("q")] == [1]


def test_gets_with_an_amz_header_run(server: SqsServer) -> None:
    """An ``X-Amz-*`` header is as far out of a page's reach as a signature: clients that GET
    unsigned send ``X-Amz-Date``; a JSON-protocol GET carries ``X-Amz-Target``."""
    assert refused(get(server, query(Action="CreateQueue", QueueName="a")), "CreateQueue")
    dated = get(
        server, query(Action="CreateQueue", QueueName="a"), {"X-Amz-Date": "20260101T000000Z"}
    )
    assert dated.status == 200
    json_get = request(
        server.endpoint_url,
        "GET",
        "/",
        json.dumps({"QueueName": "b"}).encode(),
        {"X-Amz-Target": "AmazonSQS.CreateQueue", "Content-Type": "application/x-amz-json-1.0"},
    )
    assert json_get.status == 200
    assert queue_names(server) == ["a", "b"]


def test_unsigned_posts_are_not_affected(server: SqsServer) -> None:
    """A page's POST carries ``Origin`` (the guard's to judge); a program's runs as ever."""
    answer = call_query(
        server.endpoint_url,
        [("Action", "CreateQueue"), ("QueueName", "q")],
        headers={"Host": f"[::ffff:127.0.0.1]:{server.port}"},
    )
    assert answer.status == 200
    assert queue_names(server) == ["q"]
    assert refused(get(server, query(Action="DeleteQueue", QueueUrl="q")), "DeleteQueue")
    assert queue_names(server) == ["q"]


# -- every front end applies the rule -----------------------------------------------------------


def test_the_shared_answering_path_refuses_an_unsigned_get() -> None:
    """``sqs.begin``: what aiohttp's handler and the express lane both answer through."""

    def call(headers: dict[str, str]) -> HttpAnswer:
        http = HttpRequest("GET", "/", [], CIMultiDictProxy(CIMultiDict(headers)), b"")
        answered = sqs.begin(http_server, http, "Action=CreateQueue&QueueName=q")
        assert isinstance(answered, HttpAnswer)
        return answered

    async def main() -> None:
        await http_server.start("127.0.0.1", 0)
        try:
            assert call({"Host": "[::ffff:7f00:1]:9324"}).status == 403
            assert http_server.runtime.backend.queues() == []
            signature = "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/sqs/aws4_request"
            assert call({"Host": "[::ffff:7f00:1]:9324", "Authorization": signature}).status == 200
            assert [queue.name for queue in http_server.runtime.backend.queues()] == ["q"]
        finally:
            await http_server.close()

    http_server = SqsHttpServer(Runtime(ServerOptions(clock="frozen")))
    asyncio.run(main())


def test_a_get_after_an_express_call_on_one_connection_is_refused(server: SqsServer) -> None:
    """The lane answers the POST, hands the connection over at the GET; the GET is refused."""
    body = b'{"QueueName": "lane"}'
    post = (
        b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: AmazonSQS.CreateQueue\r\n"
        b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n%s"
        % (len(body), body)
    )
    image = (
        b"GET /?Action=CreateQueue&QueueName=evil HTTP/1.1\r\n"
        b"Host: [::ffff:127.0.0.1]:%d\r\nAccept: image/*\r\nConnection: close\r\n\r\n" % server.port
    )
    raw = raw_exchange("127.0.0.1", server.port, post + image)
    first, _, rest = raw.partition(b"HTTP/1.1 ")[2].partition(b"HTTP/1.1 ")
    assert status_of(b"HTTP/1.1 " + first) == 200
    assert status_of(b"HTTP/1.1 " + rest) == 403
    assert b"MissingAuthenticationToken" in rest
    assert queue_names(server) == ["lane"]


def test_localstack_mode_applies_the_same_rule() -> None:
    """LocalStack's names (``*.localhost.localstack.cloud``) resolve to 127.0.0.1 but are not
    trustworthy to a browser either."""
    with sqsmock.serve(port=0, localstack=True) as server:
        headers = {**IMAGE, "Host": f"sqs.{REGION}.localhost.localstack.cloud:{server.port}"}
        answer = get(server, query(Action="CreateQueue", QueueName="evil"), headers)
        assert refused(answer, "CreateQueue")
        assert get(server, query(Action="ListQueues"), headers).status == 200
        assert queue_names(server) == []
        path = query(Action="CreateQueue", QueueName="q")
        assert get(server, path, sigv4_headers(server, path)).status == 200
        assert queue_names(server) == ["q"]


# -- the Host check reads IP literals as what they stand for -----------------------------------


#: Other spellings of 127.0.0.1, as ``curl http://127.1:9324`` sends them: addresses, which no
#: page can re-point (browsers read them as addresses too).
SPELLINGS = ["127.1", "0x7f.0.0.1", "0x7f.1", "2130706433", "0177.0.0.1", "[::ffff:7f00:1]"]
#: Names that only look like addresses: refused unless allowed, as any name.
LOOK_ALIKES = ["1.2.3.4.5", "08.0.0.1", "256.1", "127.0.0.1.nip.io", "0x7g.1"]


def test_other_spellings_of_an_address_pass_the_host_check(server: SqsServer) -> None:
    for host in SPELLINGS + LOOK_ALIKES:
        answer = get(server, query(Action="ListQueues"), {"Host": f"{host}:{server.port}"})
        if host in SPELLINGS:
            assert answer.status == 200, (host, answer.body)
        else:
            assert answer.status == 403, host
            assert b"--allow-host" in answer.body


def test_the_servers_own_origin_is_its_address_however_spelt() -> None:
    guard = Guard()
    assert guard.origin_allowed("http://127.0.0.1:9324", "[::ffff:127.0.0.1]:9324")
    assert guard.origin_allowed("http://[::ffff:7f00:1]:9324", "127.1:9324")
    assert not guard.origin_allowed("http://127.0.0.2:9324", "[::ffff:127.0.0.1]:9324")
    assert not guard.origin_allowed("http://127.0.0.1:9325", "[::ffff:127.0.0.1]:9324")
    assert check_cors_origin("http://[::ffff:127.0.0.1]:3000") == "http://127.0.0.1:3000"
    assert Guard(cors_origins=["http://127.1:3000"]).origin_allowed("http://127.0.0.1:3000", None)


def test_what_counts_as_signed() -> None:
    def headers(**given: str) -> CIMultiDictProxy[str]:
        return CIMultiDictProxy(CIMultiDict({k.replace("_", "-"): v for k, v in given.items()}))

    assert signed(headers(Authorization="AWS4-HMAC-SHA256 Credential=a/b/c/sqs/aws4_request"))
    assert signed(headers(authorization="AWS4-ECDSA-P256-SHA256 Credential=a"))
    assert signed(headers(x_amz_target="AmazonSQS.CreateQueue"))
    assert not signed(headers(Authorization="Basic eDp4", Accept="*/*"))
    assert not signed(headers(Authorization="Negotiate abc", X_Requested_With="x"))
    assert not signed(headers())
