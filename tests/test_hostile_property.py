"""Hostile input, generated: no request to the admin API, the developer endpoint or LocalStack's
routes gets a 500, a traceback in the log, or an answer that is not JSON where JSON is promised.

Hypothesis builds the requests: every admin route and a few made-up ones, every method, query
strings with the parameters the routes read (and Unicode digits, huge numbers, junk), and bodies
that are JSON of any shape (NaN and infinities included, as ``json.dumps`` writes them), JSON
objects with the keywords a route reads, or random bytes. After each one the server must still
answer a health check, and nothing it logged may be an error.
"""

from __future__ import annotations

import json
import logging
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_support import Answer, admin, client, request

import sqsmock
from sqsmock import SqsServer
from sqsmock._features import routes

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

ROUTES = [
    "health",
    "reset",
    "clock",
    "clock/advance",
    "queues",
    "messages",
    "metrics",
    "calls",
    "faults",
    "faults/1",
    "faults/f-1",
    "ui/",
    "ui/app.js",
    "queues/us-east-1/123456789012/hostile/messages",
    "queues/xx/123456789012/hostile/messages",
    "queues/us-east-1/1/2/3/messages",
    "nothing/here",
]
METHODS = ["GET", "HEAD", "POST", "DELETE", "PUT", "PATCH"]
QUERY_KEYS = [
    "limit",
    "next_token",
    "newest",
    "operation",
    "queue",
    "url",
    "region",
    "offset",
    "count",
    "QueueUrl",
    "ShowInvisible",
    "ShowDelayed",
    "MaxNumberOfMessages",
    "Action",
]
#: Numbers as text: ASCII, Unicode digits, signs, exponents, very long, not numbers at all.
NUMBER_TEXT = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["\u00b2", "\u0663", "\uff11\uff10", "1e400", "-0", "NaN", "inf", "0x10"]),
    st.sampled_from([" 5", "5 ", "9" * 5000]),
    st.text(max_size=12),
)
JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
FAULT_KEYS = sorted(routes._FAULT_KEYWORDS)  # every keyword a rule may carry
NUMBERS = st.one_of(
    st.sampled_from([float("nan"), float("inf"), float("-inf"), 1e308, -1.0, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.booleans(),
)
FAULT_VALUES = st.one_of(
    JSON_VALUES,
    st.sampled_from(["SendMessage", "ReceiveMessage", "QueueDoesNotExist", "InternalError"]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**20), max_value=10**20),
)


def encode(value: Any) -> bytes:
    return json.dumps(value).encode()  # NaN and Infinity written as Python writes them


BODIES = st.one_of(
    st.just(b""),
    JSON_VALUES.map(encode),
    st.dictionaries(st.sampled_from(FAULT_KEYS), FAULT_VALUES, max_size=5).map(encode),
    st.dictionaries(st.just("seconds"), JSON_VALUES, max_size=1).map(encode),
    st.binary(max_size=64),
)
CONTENT_TYPES = st.sampled_from(
    ["application/json", "application/x-www-form-urlencoded", "text/plain", None]
)


def strict_json(raw: bytes) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(raw, parse_constant=refuse)


def check(answer: Answer) -> None:
    assert answer.status < 500, (answer.status, answer.body[:300])
    if answer.headers.get("content-type", "").startswith("application/json") and answer.body:
        strict_json(answer.body)


@pytest.fixture(scope="module")
def module_server() -> Iterator[SqsServer]:
    with sqsmock.serve(port=0, localstack=True, read_timeout=2) as server:
        sqs = client(server.endpoint_url)
        sqs.create_queue(QueueName="hostile")
        yield server


@pytest.fixture
def server(module_server: SqsServer, caplog: pytest.LogCaptureFixture) -> Iterator[SqsServer]:
    yield module_server
    logged = [r.getMessage() for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    assert not logged


def after(server: SqsServer) -> None:
    """What one example changed is undone, and the server still answers."""
    server.faults.clear()
    assert admin(server.endpoint_url, "GET", "health").status == 200


@SETTINGS
@given(
    route=st.one_of(st.sampled_from(ROUTES), st.text(max_size=20)),
    method=st.sampled_from(METHODS),
    query=st.dictionaries(
        st.one_of(st.sampled_from(QUERY_KEYS), st.text(max_size=6)),
        st.one_of(NUMBER_TEXT, st.text(max_size=30)),
        max_size=3,
    ),
    body=BODIES,
    content_type=CONTENT_TYPES,
)
def test_admin_routes_answer_every_request_without_a_500(
    server: SqsServer,
    route: str,
    method: str,
    query: dict[str, str],
    body: bytes,
    content_type: str | None,
) -> None:
    if route == "reset" or route.startswith("clock"):  # their own tests below
        return
    path = "/_sqsmock/" + urllib.parse.quote(route, safe="/") + "?" + urllib.parse.urlencode(query)
    headers = {} if content_type is None else {"Content-Type": content_type}
    check(request(server.endpoint_url, method, path, body, headers))
    after(server)


@SETTINGS
@given(
    query=st.dictionaries(
        st.sampled_from(["limit", "next_token", "newest", "operation", "queue"]),
        st.one_of(NUMBER_TEXT, st.text(max_size=30)),
        min_size=1,
        max_size=3,
    )
)
def test_the_journal_answers_every_page_request_without_a_500(
    server: SqsServer, query: dict[str, str]
) -> None:
    path = "/_sqsmock/calls?" + urllib.parse.urlencode(query)
    check(request(server.endpoint_url, "GET", path))
    after(server)


@SETTINGS
@given(
    rule=st.one_of(
        st.dictionaries(st.sampled_from(FAULT_KEYS), FAULT_VALUES, min_size=1, max_size=4),
        # the numeric settings alone, so that a bad number is not hidden by a bad neighbour
        st.dictionaries(
            st.sampled_from(["latency", "probability", "times", "seed"]),
            NUMBERS,
            min_size=1,
            max_size=2,
        ),
    )
)
def test_fault_rules_are_refused_or_listed_as_json(server: SqsServer, rule: dict[str, Any]) -> None:
    check(admin(server.endpoint_url, "POST", "faults", encode(rule)))
    check(admin(server.endpoint_url, "GET", "faults"))
    after(server)


@SETTINGS
@given(seconds=JSON_VALUES)
def test_advancing_the_clock_answers_a_4xx_for_every_bad_amount(
    server: SqsServer, seconds: Any
) -> None:
    answer = admin(server.endpoint_url, "POST", "clock/advance", {"seconds": seconds})
    check(answer)
    after(server)


@SETTINGS
@given(
    wait=st.fixed_dictionaries(
        {},
        optional={
            "queue": st.one_of(st.just("hostile"), JSON_VALUES),
            "event": st.one_of(st.sampled_from(["sent", "received", "deleted"]), JSON_VALUES),
            "count": st.one_of(st.integers(min_value=-5, max_value=10**12), JSON_VALUES),
            "body": JSON_VALUES,
            # a short wait, or one whose length must be refused at once
            "timeout": st.one_of(
                st.floats(min_value=0, max_value=0.05),
                st.floats(min_value=3601, allow_infinity=True),
                st.just(float("nan")),
                st.text(max_size=5),
            ),
        },
    )
)
def test_the_wait_answers_every_body_without_a_500(server: SqsServer, wait: dict[str, Any]) -> None:
    timeout = wait.get("timeout")
    if timeout is None or (isinstance(timeout, float) and 0.05 < timeout <= 3600):
        wait["timeout"] = 0.01  # never a long wait for the example
    check(admin(server.endpoint_url, "POST", "wait", wait))
    after(server)


@SETTINGS
@given(
    suffix=st.one_of(
        st.just(""),
        st.just("/us-east-1/000000000000/hostile"),
        st.just("/us-east-1/123456789012/hostile"),
        st.text(max_size=20).map(lambda text: "/" + urllib.parse.quote(text)),
    ),
    method=st.sampled_from(["GET", "POST", "HEAD", "PUT"]),
    query=st.dictionaries(
        st.sampled_from(QUERY_KEYS), st.one_of(NUMBER_TEXT, st.text(max_size=30)), max_size=3
    ),
    accept_json=st.booleans(),
)
def test_the_developer_endpoint_answers_every_request_without_a_500(
    server: SqsServer, suffix: str, method: str, query: dict[str, str], accept_json: bool
) -> None:
    path = "/_aws/sqs/messages" + suffix + "?" + urllib.parse.urlencode(query)
    headers = {"Accept": "application/json"} if accept_json else {}
    check(request(server.endpoint_url, method, path, b"", headers))
    after(server)


@SETTINGS
@given(route=st.text(max_size=20), method=st.sampled_from(METHODS))
def test_localstack_routes_answer_every_request_without_a_500(
    server: SqsServer, route: str, method: str
) -> None:
    path = "/_localstack/" + urllib.parse.quote(route, safe="/")
    check(request(server.endpoint_url, method, path))
    after(server)
