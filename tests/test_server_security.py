"""What a web page can do to a running server: nothing, unless the user allows its origin.

Every test drives a real server over HTTP with the headers a browser sends (``Origin``,
``Sec-Fetch-Site``, a rebound ``Host``, CORS preflights) and checks both the answer and that
nothing happened: the queue is still there, the clock has not moved, the message was not
received, no fault rule was added, the journal was not cleared. Programs (boto3, curl) that send
none of those headers keep working, by IP address and by ``localhost``.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
from server_support import ACCOUNT, REGION, Answer, call_json, client, request

import sqsmock
from sqsmock import SqsServer

EVIL = "http://evil.example"
APP = "http://localhost:3000"
#: Request headers the AWS SDK for JavaScript v3 sends from a browser.
SDK_HEADERS = [
    "amz-sdk-invocation-id",
    "amz-sdk-request",
    "authorization",
    "content-type",
    "x-amz-content-sha256",
    "x-amz-date",
    "x-amz-security-token",
    "x-amz-target",
    "x-amz-user-agent",
    "x-amzn-query-mode",
]


@pytest.fixture(scope="module")
def module_server() -> Iterator[SqsServer]:
    with sqsmock.serve(port=0, clock="frozen") as server:
        yield server


@pytest.fixture
def server(module_server: SqsServer) -> SqsServer:
    module_server.reset()
    module_server.faults.clear()
    module_server.calls.clear()
    return module_server


@pytest.fixture(scope="module")
def app_server() -> Iterator[SqsServer]:
    """A server that lets the web app at ``APP`` call it."""
    with sqsmock.serve(port=0, clock="frozen", cors_origins=[APP]) as server:
        yield server


@pytest.fixture
def app(app_server: SqsServer) -> SqsServer:
    app_server.reset()
    return app_server


def host_of(server: SqsServer) -> str:
    return f"127.0.0.1:{server.port}"


def queue_names(server: SqsServer) -> list[str]:
    return sorted(queue.name for queue in server.backend.queues())


def make_queue(server: SqsServer, name: str = "orders") -> str:
    url: str = client(server.endpoint_url).create_queue(QueueName=name)["QueueUrl"]
    return url


def send(server: SqsServer, method: str, path: str, body: bytes = b"", **headers: str) -> Answer:
    return request(server.endpoint_url, method, path, body, headers)


def form(pairs: dict[str, str]) -> bytes:
    return urllib.parse.urlencode(pairs).encode()


# -- a page of another origin changes nothing --------------------------------------------------


def test_a_page_cannot_reset_the_server(server: SqsServer) -> None:
    make_queue(server)
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        answer = send(
            server, "POST", "/_sqsmock/reset", b"{}", Origin=EVIL, **{"Content-Type": content_type}
        )
        assert answer.status == 403
        assert b"--cors-origin" in answer.body
        assert "access-control-allow-origin" not in answer.headers
    assert queue_names(server) == ["orders"]


def test_a_page_cannot_advance_the_clock(server: SqsServer) -> None:
    before = server.clock.now()
    answer = send(
        server,
        "POST",
        "/_sqsmock/clock/advance",
        b'{"seconds": 86400}',
        Origin=EVIL,
        **{"Content-Type": "text/plain", "Sec-Fetch-Site": "cross-site"},
    )
    assert answer.status == 403
    assert server.clock.now() == before


def test_a_page_cannot_inject_faults_or_clear_the_journal(server: SqsServer) -> None:
    make_queue(server)
    rule = json.dumps({"operation": "SendMessage", "error": "RequestThrottled"}).encode()
    answer = send(
        server, "POST", "/_sqsmock/faults", rule, Origin=EVIL, **{"Content-Type": "text/plain"}
    )
    assert answer.status == 403
    assert list(server.faults) == []
    assert send(server, "DELETE", "/_sqsmock/calls", Origin=EVIL).status == 403
    assert [call.operation for call in server.calls] == ["CreateQueue"]


def test_a_form_post_cannot_delete_a_queue(server: SqsServer) -> None:
    url = make_queue(server)
    body = form({"Action": "DeleteQueue", "QueueUrl": url})
    for headers in (
        {"Origin": EVIL, "Sec-Fetch-Site": "cross-site"},
        {"Origin": "null"},  # a sandboxed frame or a file:// page
        {"Origin": f"http://127.0.0.1:{server.port + 1}"},  # another local port
        {"Sec-Fetch-Site": "cross-site"},  # a browser that left Origin out
        {"Sec-Fetch-Site": "same-site"},  # a page of a sibling name
    ):
        answer = send(
            server,
            "POST",
            "/",
            body,
            **{"Content-Type": "application/x-www-form-urlencoded", **headers},
        )
        assert answer.status == 403, headers
    assert queue_names(server) == ["orders"]


def test_an_image_get_cannot_create_a_queue(server: SqsServer) -> None:
    """``<img src="http://127.0.0.1:9324/?Action=CreateQueue&QueueName=evil">`` sends no Origin,
    but ``Sec-Fetch-Site: cross-site``."""
    path = "/?" + urllib.parse.urlencode({"Action": "CreateQueue", "QueueName": "evil"})
    answer = send(
        server, "GET", path, **{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}
    )
    assert answer.status == 403
    assert queue_names(server) == []


def test_a_page_cannot_receive_messages(server: SqsServer) -> None:
    url = make_queue(server)
    client(server.endpoint_url).send_message(QueueUrl=url, MessageBody="secret")
    answer = call_json(server.endpoint_url, "ReceiveMessage", {"QueueUrl": url}, {"Origin": EVIL})
    assert answer.status == 403
    assert b"secret" not in answer.body
    [message] = server.peek("orders")
    assert message.receive_count == 0


# -- DNS rebinding: a page's own name pointed at the server ------------------------------------


def test_a_rebound_name_reads_nothing(server: SqsServer) -> None:
    url = make_queue(server)
    client(server.endpoint_url).send_message(QueueUrl=url, MessageBody="secret")
    for path in (
        "/_sqsmock/messages?queue=orders",
        "/_sqsmock/queues",
        f"/_sqsmock/queues/{REGION}/{ACCOUNT}/orders/messages",
        "/_sqsmock/calls",
        "/_sqsmock/health",
    ):
        # Same-origin as far as the browser knows: no Origin on a GET, Sec-Fetch-Site same-origin.
        answer = send(
            server,
            "GET",
            path,
            Host=f"evil.example:{server.port}",
            **{"Sec-Fetch-Site": "same-origin"},
        )
        assert answer.status == 403, path
        assert b"secret" not in answer.body and b"orders" not in answer.body
        assert b"--allow-host evil.example" in answer.body


def test_a_rebound_name_runs_no_sqs_call(server: SqsServer) -> None:
    url = make_queue(server)
    client(server.endpoint_url).send_message(QueueUrl=url, MessageBody="secret")
    rebound = {
        "Host": f"evil.example:{server.port}",
        "Origin": f"http://evil.example:{server.port}",
    }
    received = call_json(server.endpoint_url, "ReceiveMessage", {"QueueUrl": url}, rebound)
    deleted = call_json(server.endpoint_url, "DeleteQueue", {"QueueUrl": url}, rebound)
    assert (received.status, deleted.status) == (403, 403)
    assert b"secret" not in received.body
    assert [m.receive_count for m in server.peek("orders")] == [0]


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:{port}",
        "localhost:{port}",
        "LOCALHOST:{port}",
        "localhost.:{port}",
        "app.localhost:{port}",
        "[::1]:{port}",
        "10.0.0.7:{port}",  # behind a port mapping: any IP address
        "127.0.0.1",
    ],
)
def test_ip_addresses_and_localhost_always_pass(server: SqsServer, host: str) -> None:
    host = host.format(port=server.port)
    own = f"http://{host}"  # a page the server itself would serve: its own origin
    answer = call_json(
        server.endpoint_url, "CreateQueue", {"QueueName": "q"}, {"Host": host, "Origin": own}
    )
    assert answer.status == 200
    assert answer.headers["access-control-allow-origin"] == own
    assert queue_names(server) == ["q"]


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "localhost.evil.example:{port}",
        "127.0.0.1.nip.io:{port}",
        "evillocalhost:{port}",
        "sqs:{port}",
    ],
)
def test_other_names_are_refused_by_default(server: SqsServer, host: str) -> None:
    answer = call_json(
        server.endpoint_url,
        "CreateQueue",
        {"QueueName": "q"},
        {"Host": host.format(port=server.port)},
    )
    assert answer.status == 403
    assert b"--allow-host" in answer.body
    assert queue_names(server) == []


def test_allowed_names_pass() -> None:
    with sqsmock.serve(port=0, allow_hosts=["sqs", ".example.com", "*.wild.test"]) as server:
        port = server.port
        passing = ["sqs", f"SQS:{port}", "example.com", f"a.example.com:{port}", "b.a.wild.test"]
        refused = ["sqs.evil", "wild.test", f"example.com.evil:{port}", "notexample.com"]
        for host in passing + refused:
            answer = call_json(server.endpoint_url, "ListQueues", {}, {"Host": host})
            assert answer.status == (200 if host in passing else 403), host
        created = call_json(
            server.endpoint_url, "CreateQueue", {"QueueName": "q"}, {"Host": "sqs:9324"}
        )
        assert created.json()["QueueUrl"] == f"http://sqs:9324/queue/{REGION}/{ACCOUNT}/q"


def test_any_name_with_a_star() -> None:
    with sqsmock.serve(port=0, allow_hosts=["*"]) as server:
        answer = call_json(server.endpoint_url, "ListQueues", {}, {"Host": "anything.example"})
        assert answer.status == 200


# -- methods and content types ------------------------------------------------------------------


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "TRACE", "OPTIONS", "HEAD"])
def test_sqs_runs_only_for_get_and_post(server: SqsServer, method: str) -> None:
    answer = send(
        server,
        method,
        "/",
        b'{"QueueName": "q"}',
        **{"X-Amz-Target": "AmazonSQS.CreateQueue", "Content-Type": "application/x-amz-json-1.0"},
    )
    assert answer.status == 405
    assert answer.headers["allow"] == "GET, POST"
    assert queue_names(server) == []
    path = "/?" + urllib.parse.urlencode({"Action": "CreateQueue", "QueueName": "q"})
    assert send(server, method, path).status == 405
    assert queue_names(server) == []


@pytest.mark.parametrize(
    ("method", "route", "body"),
    [
        ("POST", "reset", b""),
        ("POST", "clock/advance", b'{"seconds": 60}'),
        ("POST", "faults", b'{"operation": "ListQueues", "error": "RequestThrottled"}'),
        ("DELETE", "faults", b""),
        ("DELETE", "faults/{fault}", b""),
        ("DELETE", "calls", b""),
    ],
)
@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_admin_changes_take_json_only(
    server: SqsServer, method: str, route: str, body: bytes, content_type: str | None
) -> None:
    make_queue(server)
    fault = server.faults.add(operation="GetQueueUrl", error="RequestThrottled")
    before = (queue_names(server), server.clock.now(), len(list(server.faults)), len(server.calls))
    headers = {} if content_type is None else {"Content-Type": content_type}
    answer = send(server, method, "/_sqsmock/" + route.format(fault=fault.id), body, **headers)
    assert answer.status == 415
    assert "application/json" in answer.json()["error"]
    after = (queue_names(server), server.clock.now(), len(list(server.faults)), len(server.calls))
    assert after == before


def test_admin_changes_with_json_work(server: SqsServer) -> None:
    make_queue(server)
    json_type = {"Content-Type": "application/json; charset=utf-8"}
    advanced = send(server, "POST", "/_sqsmock/clock/advance", b'{"seconds": 60}', **json_type)
    assert advanced.status == 200
    assert send(server, "POST", "/_sqsmock/reset", b"", **json_type).status == 200
    assert queue_names(server) == []


@pytest.mark.parametrize(
    ("route", "allow"),
    [
        ("reset", "POST"),
        ("clock/advance?seconds=60", "POST"),
        ("faults/f1", "DELETE"),
    ],
)
def test_get_never_changes_admin_state(server: SqsServer, route: str, allow: str) -> None:
    make_queue(server)
    server.faults.add(operation="GetQueueUrl", error="RequestThrottled")
    before = (queue_names(server), server.clock.now(), len(list(server.faults)), len(server.calls))
    answer = send(server, "GET", "/_sqsmock/" + route)
    assert answer.status == 405
    assert answer.headers["allow"] == allow
    for read in (
        "health",
        "clock",
        "queues",
        "messages?queue=orders",
        "metrics",
        "calls",
        "faults",
    ):
        assert send(server, "GET", "/_sqsmock/" + read).status == 200
    after = (queue_names(server), server.clock.now(), len(list(server.faults)), len(server.calls))
    assert after == before


# -- CORS for an allowed web app ----------------------------------------------------------------


def test_an_allowed_origin_gets_a_preflight_for_the_sdk_headers(app: SqsServer) -> None:
    answer = send(
        app,
        "OPTIONS",
        "/",
        Origin=APP,
        **{
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": ",".join([*SDK_HEADERS, "x-evil"]),
            "Access-Control-Request-Private-Network": "true",
        },
    )
    assert answer.status == 204
    assert answer.headers["access-control-allow-origin"] == APP
    assert {m.strip() for m in answer.headers["access-control-allow-methods"].split(",")} == {
        "GET",
        "POST",
        "DELETE",
    }
    allowed = {h.strip() for h in answer.headers["access-control-allow-headers"].split(",")}
    assert allowed == set(SDK_HEADERS)
    assert "Origin" in answer.headers["vary"]
    assert answer.headers["access-control-allow-private-network"] == "true"
    assert queue_names(app) == []


def test_an_allowed_origin_reads_answers_and_errors(app: SqsServer) -> None:
    created = call_json(app.endpoint_url, "CreateQueue", {"QueueName": "q"}, {"Origin": APP})
    assert created.status == 200
    assert created.headers["access-control-allow-origin"] == APP
    assert "Origin" in created.headers["vary"]
    exposed = created.headers["access-control-expose-headers"].lower()
    assert "x-amzn-requestid" in exposed and "x-amzn-query-error" in exposed
    missing = call_json(app.endpoint_url, "GetQueueUrl", {"QueueName": "nope"}, {"Origin": APP})
    assert missing.status == 400
    assert missing.headers["access-control-allow-origin"] == APP
    assert missing.error_code == "AWS.SimpleQueueService.NonExistentQueue"


def test_other_origins_get_no_preflight(app: SqsServer) -> None:
    for origin in (EVIL, "http://localhost:3001", "https://localhost:3000", "null"):
        answer = send(
            app,
            "OPTIONS",
            "/_sqsmock/reset",
            Origin=origin,
            **{"Access-Control-Request-Method": "POST"},
        )
        assert answer.status == 403, origin
        assert "access-control-allow-origin" not in answer.headers


def test_the_servers_own_origin_is_allowed(server: SqsServer) -> None:
    own = f"http://{host_of(server)}"
    answer = call_json(server.endpoint_url, "CreateQueue", {"QueueName": "q"}, {"Origin": own})
    assert answer.status == 200
    assert answer.headers["access-control-allow-origin"] == own
    assert queue_names(server) == ["q"]


def test_any_origin_with_a_star() -> None:
    with sqsmock.serve(port=0, cors_origins=["*"]) as server:
        for origin in (EVIL, "null"):
            answer = call_json(server.endpoint_url, "ListQueues", {}, {"Origin": origin})
            assert answer.status == 200
            assert answer.headers["access-control-allow-origin"] == origin


# -- programs keep working -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost"])
def test_boto3_works_by_default(server: SqsServer, name: str) -> None:
    endpoint = f"http://{name}:{server.port}"
    sqs = client(endpoint)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    assert url == f"{endpoint}/queue/{REGION}/{ACCOUNT}/q"
    sqs.send_message(QueueUrl=url, MessageBody="tea")
    assert [m["Body"] for m in sqs.receive_message(QueueUrl=url)["Messages"]] == ["tea"]
    # ...and the same call from a page of another origin does not run.
    refused = call_json(
        endpoint, "SendMessage", {"QueueUrl": url, "MessageBody": "x"}, {"Origin": EVIL}
    )
    assert refused.status == 403
    assert len(server.peek("q")) == 1


def test_curl_style_query_requests_work(server: SqsServer) -> None:
    curl = {"User-Agent": "curl/8.5.0", "Accept": "*/*"}
    created = form({"Action": "CreateQueue", "QueueName": "q"})
    answer = send(
        server,
        "POST",
        "/",
        created,
        **curl,
        **{"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert answer.status == 200
    assert (
        answer.find("CreateQueueResult/QueueUrl")
        == f"{server.endpoint_url}/queue/{REGION}/{ACCOUNT}/q"
    )
    # GET answers actions that change nothing; one that would change state says to POST it.
    assert send(server, "GET", "/?Action=ListQueues", **curl).status == 200
    refused = send(server, "GET", "/?" + created.decode(), **curl)
    assert (refused.status, refused.error_code) == (403, "MissingAuthenticationToken")
    assert "POST it instead" in (refused.find("Error/Message") or "")
    assert queue_names(server) == ["q"]
    # a user typing the URL in the address bar: Sec-Fetch-Site none
    listed = send(server, "GET", "/?Action=ListQueues", **{"Sec-Fetch-Site": "none"})
    assert listed.status == 200
    assert (
        send(server, "GET", "/?Action=ListQueues", **{"Sec-Fetch-Site": "cross-site"}).status == 403
    )


# -- options -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"allow_hosts": "sqs"}, "list of strings"),
        ({"allow_hosts": ["sqs:9324"]}, "without its port"),
        ({"allow_hosts": ["bad host"]}, "not a host name"),
        ({"allow_hosts": [5]}, "strings"),
        ({"cors_origins": ["localhost:3000"]}, "not a web origin"),
        ({"cors_origins": ["http://localhost:3000/app"]}, "not a web origin"),
        ({"cors_origins": ["null"]}, "not a web origin"),
        ({"cors_origins": "http://localhost:3000"}, "list of strings"),
    ],
)
def test_bad_browser_options_are_refused(options: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        sqsmock.serve(port=0, **options)


def test_browser_options_are_normalised() -> None:
    server = sqsmock.serve(
        port=0, allow_hosts=["SQS.", "*.Example.com"], cors_origins=["HTTP://LocalHost:3000/"]
    )
    assert server.allow_hosts == ["sqs", "*.example.com"]
    assert server.cors_origins == ["http://localhost:3000"]
    with server:
        answer = call_json(
            server.endpoint_url, "ListQueues", {}, {"Origin": "http://localhost:3000"}
        )
        assert answer.headers["access-control-allow-origin"] == "http://localhost:3000"
