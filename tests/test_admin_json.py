"""The server's JSON answers stay JSON: no ``NaN`` nor ``Infinity`` in any of them, and a fault
rule whose numbers are not finite ones in their range is refused with 400, not kept to fail
every call after it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from server_support import admin, call_json

import sqsmock
from sqsmock import SqsServer
from sqsmock._adapters.http.exchange import json_answer


def strict(body: bytes) -> Any:
    """``body`` parsed as JSON proper: ``NaN``, ``Infinity`` and ``-Infinity`` refused."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(body, parse_constant=refuse)


@pytest.fixture
def server() -> Iterator[SqsServer]:
    with sqsmock.serve(port=0, clock="frozen") as running:
        yield running


def test_json_answer_sends_a_number_that_is_not_finite_as_its_name() -> None:
    nan, inf = float("nan"), float("inf")
    answer = json_answer({"a": [nan, inf, -inf, 1.5], "b": {"c": (nan,)}, "d": "NaN"})
    assert answer.body is not None
    assert strict(answer.body) == {
        "a": ["NaN", "Infinity", "-Infinity", 1.5],
        "b": {"c": ["NaN"]},
        "d": "NaN",
    }
    assert strict(json_answer({"a": 1.5}).body) == {"a": 1.5}


def test_a_fault_with_a_latency_that_is_not_a_finite_number_is_refused(server: SqsServer) -> None:
    endpoint = server.endpoint_url
    for latency in (b"NaN", b"Infinity", b"1e999", b"3600"):
        body = b'{"operation": "ListQueues", "latency": ' + latency + b"}"
        refused = admin(endpoint, "POST", "faults", body)
        assert refused.status == 400, latency
        assert "latency must be a number of seconds from 0 to 60" in strict(refused.body)["error"]
    listed = admin(endpoint, "GET", "faults")
    assert listed.status == 200 and strict(listed.body) == {"faults": []}
    assert call_json(endpoint, "ListQueues", {}).status == 200


def test_the_journal_of_a_call_with_nan_in_it_is_json(server: SqsServer) -> None:
    endpoint = server.endpoint_url
    # a member SQS does not know is not checked, and the journal keeps it as sent
    assert call_json(endpoint, "ListQueues", b'{"Unknown": NaN}').status == 200
    answer = admin(endpoint, "GET", "calls?operation=ListQueues")
    assert answer.status == 200
    (call,) = strict(answer.body)["calls"]
    assert call["params"] == {"Unknown": "NaN"}
