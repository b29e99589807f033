"""The admin API's answers stay bounded and its bad input gets a 400 that says what is accepted:
peeks and journal pages come in pages (by count and by bytes), a queue's first page is built
without building the rest, and numbers are read as ASCII digits within range."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
from server_support import ACCOUNT, REGION, admin, client

import sqsmock
from sqsmock import SqsServer


@pytest.fixture(scope="module")
def module_server() -> Iterator[SqsServer]:
    with sqsmock.serve(port=0, clock="frozen") as server:
        yield server


@pytest.fixture
def server(module_server: SqsServer) -> SqsServer:
    module_server.reset()
    return module_server


@pytest.fixture
def sqs(server: SqsServer) -> Any:
    return client(server.endpoint_url)


# -- the journal's paging parameters -------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        "limit=\N{SUPERSCRIPT TWO}",
        "limit=\N{ARABIC-INDIC DIGIT FIVE}",
        "limit=" + "1" * 5000,
        "next_token=\N{SUPERSCRIPT TWO}",
        "next_token=" + "1" * 5000,
        "next_token=-1",
    ],
)
def test_journal_paging_numbers_are_ascii_digits_in_range(server: SqsServer, query: str) -> None:
    name, _, value = query.partition("=")
    answer = admin(server.endpoint_url, "GET", f"calls?{name}={urllib.parse.quote(value)}")
    assert answer.status == 400, answer.body[:200]
    error = answer.json()["error"]
    assert error.startswith(f"{name} must be")
    assert "invalid literal" not in error and len(error) < 200


# -- the clock -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seconds", [1e15, 10**300, 10**400, 253_402_300_800])
def test_advancing_the_clock_past_its_end_is_a_400(server: SqsServer, seconds: float) -> None:
    before = admin(server.endpoint_url, "GET", "clock").json()["now"]
    answer = admin(server.endpoint_url, "POST", "clock/advance", {"seconds": seconds})
    assert answer.status == 400, answer.body[:200]
    assert "9999-12-31T23:59:59Z" in answer.json()["error"]
    assert admin(server.endpoint_url, "GET", "clock").json()["now"] == before  # unchanged


# -- peeks ----------------------------------------------------------------------------------------


def test_a_peek_answers_a_page_and_a_token_for_the_next(server: SqsServer, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="deep")["QueueUrl"]
    for start in range(0, 150, 10):
        entries = [{"Id": str(i), "MessageBody": str(start + i)} for i in range(10)]
        sqs.send_message_batch(QueueUrl=url, Entries=entries)
    route = f"queues/{REGION}/{ACCOUNT}/deep/messages"
    first = admin(server.endpoint_url, "GET", route)
    assert [m["body"] for m in first.json()] == [str(i) for i in range(100)]  # the default page
    token = first.headers["x-sqsmock-next-token"]
    rest = admin(server.endpoint_url, "GET", f"{route}?next_token={token}")
    assert [m["body"] for m in rest.json()] == [str(i) for i in range(100, 150)]
    assert "x-sqsmock-next-token" not in rest.headers
    small = admin(server.endpoint_url, "GET", "messages?queue=deep&limit=3")
    assert [m["body"] for m in small.json()] == ["0", "1", "2"]
    after = small.headers["x-sqsmock-next-token"]
    following = admin(server.endpoint_url, "GET", f"messages?queue=deep&limit=2&next_token={after}")
    assert [m["body"] for m in following.json()] == ["3", "4"]


@pytest.mark.parametrize(
    "query",
    ["limit=0", "limit=1001", "limit=ten", "limit=\N{SUPERSCRIPT TWO}", "next_token=x"],
)
def test_bad_peek_paging_is_a_400(server: SqsServer, sqs: Any, query: str) -> None:
    sqs.create_queue(QueueName="deep")
    name, _, value = query.partition("=")
    answer = admin(
        server.endpoint_url, "GET", f"messages?queue=deep&{name}={urllib.parse.quote(value)}"
    )
    assert answer.status == 400, answer.body[:200]
    assert answer.json()["error"].startswith(f"{name} must be")


# -- the journal's pages ---------------------------------------------------------------------------


def test_a_journal_page_of_long_calls_is_bounded_by_bytes(server: SqsServer, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="long")["QueueUrl"]
    for i in range(40):
        sqs.send_message(QueueUrl=url, MessageBody=f"{i:02d}" + "x" * 60_000)
    route = "calls?operation=SendMessage&limit=1000"
    first = admin(server.endpoint_url, "GET", route)
    assert len(first.body) < 2 * 1024 * 1024
    page = first.json()
    assert 10 <= len(page["calls"]) < 40
    bodies = [c["params"]["MessageBody"][:2] for c in page["calls"]]
    while "next_token" in page:
        page = admin(server.endpoint_url, "GET", f"{route}&next_token={page['next_token']}").json()
        bodies += [c["params"]["MessageBody"][:2] for c in page["calls"]]
    assert bodies == [f"{i:02d}" for i in range(40)]  # each call once, in order
    newest = admin(server.endpoint_url, "GET", "calls?newest=true&limit=1000")
    assert len(newest.body) < 2 * 1024 * 1024
    assert newest.json()["calls"][-1]["params"]["MessageBody"][:2] == "39"
    assert "next_token" not in newest.json()


# -- many queues -----------------------------------------------------------------------------------


def _loop_ticks(server: SqsServer) -> tuple[list[int], Any]:
    """A counter the server's loop bumps on each of its turns, and a function that stops it."""
    loop = server._loop
    assert loop is not None
    ticks = [0]
    running = [True]

    def tick() -> None:
        ticks[0] += 1
        if running[0]:
            loop.call_soon(tick)

    loop.call_soon_threadsafe(tick)
    return ticks, lambda: running.__setitem__(0, False)


@pytest.mark.parametrize("route", ["queues", "metrics"])
def test_many_queues_are_read_with_the_loop_free_between_slices(
    server: SqsServer, sqs: Any, monkeypatch: pytest.MonkeyPatch, route: str
) -> None:
    from sqsmock._adapters.http import slices
    from sqsmock._engine.queue import Queue

    monkeypatch.setattr(slices, "SLICE", 2)
    for i in range(7):
        sqs.create_queue(QueueName=f"q{i}")
    seen: list[int] = []
    counts = Queue.counts
    ticks, stop = _loop_ticks(server)

    def counted(self: Queue) -> tuple[int, int, int]:
        seen.append(ticks[0])
        return counts(self)

    monkeypatch.setattr(Queue, "counts", counted)
    try:
        answer = admin(server.endpoint_url, "GET", route)
    finally:
        stop()
    assert answer.status == 200
    if route == "queues":
        assert [q["name"] for q in answer.json()] == [f"q{i}" for i in range(7)]
    else:
        assert b"sqsmock_queues 7\n" in answer.body
    assert len(seen) == 7
    assert len(set(seen)) == 4  # four slices, each on a turn of its own
