"""The call journal's byte bound is real memory: what it counts for an entry is what the entry
holds (measured with ``tracemalloc``), and a long list or a deep dict is truncated as a long
string is, so that no request -- above all a rejected one of 110 000 tiny batch entries -- keeps
more than the bound in memory.

Entries are recorded straight into a ``CallJournal`` with parameters built afresh for each call,
as the wire parser or botocore builds them, on both recording paths: a call recorded at once and
an ``unshared`` one (read off the wire) written out with the next ones.
"""

from __future__ import annotations

import gc
import json
import sys
import tracemalloc
import warnings
from collections import deque
from collections.abc import Callable
from typing import Any

import pytest

from sqsmock._errors import SqsError
from sqsmock._features import JournalFullWarning
from sqsmock._features.journal import ENTRY_OVERHEAD, CallJournal, measure
from sqsmock._features.routes import call_json
from sqsmock._protocol import Result

URL = "http://127.0.0.1:9324/000000000000/orders"
KIB = 1024
MIB = 1024 * KIB
#: What the journal counts must be within this factor of what it holds, either way.
FACTOR = 1.5

#: A call as a test builds it: operation, parameters, answer, error code (None: answered).
Call = tuple[str, dict[str, Any], dict[str, Any] | None, str | None]


def _result(operation: str, payload: dict[str, Any] | None, error: str | None) -> Result:
    if error is None:
        return Result(operation, 200, payload, None)
    return Result.of_error(operation, SqsError(error, **_ERROR_PARAMS.get(error, {})))


_ERROR_PARAMS: dict[str, dict[str, object]] = {
    "TooManyEntriesInBatchRequest": {"count": 11},
    "TooManyMessageAttributes": {"count": 500, "limit": 10},
}


def record(journal: CallJournal, make: Callable[[int], Call], calls: int, unshared: bool) -> None:
    for i in range(calls):
        operation, params, payload, error = make(i)
        result = _result(operation, payload, error)
        journal.record(operation, params, result, "us-east-1", "000000000000", i, False, unshared)


def held_and_counted(make: Callable[[int], Call], calls: int, unshared: bool) -> tuple[int, int]:
    """What ``calls`` entries made by ``make`` hold in memory once recorded (everything the calls
    allocated and the journal still references), and what the journal counts for them."""
    journal = CallJournal(limit=None, byte_limit=None)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        record(journal, make, calls, unshared)
        counted = journal.bytes  # (writes out the unshared calls waiting)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    return held, counted


def _message_id(i: int) -> str:
    return f"{i:08x}-0000-4000-8000-000000000000"


def small_send(i: int) -> Call:
    params = {"QueueUrl": URL, "MessageBody": f"order {i}", "DelaySeconds": 0}
    answer = {"MessageId": _message_id(i), "MD5OfMessageBody": f"{i:032x}"}
    return "SendMessage", params, answer, None


def long_body(i: int) -> Call:
    body = f"{i:08d}" * (32 * KIB)  # 256 KiB
    return "SendMessage", {"QueueUrl": URL, "MessageBody": body}, {"MessageId": str(i)}, None


def long_four_byte_body(i: int) -> Call:
    body = chr(0x1F600 + i % 50) * (64 * KIB)  # 64 Ki characters, 256 KiB as a str
    return "SendMessage", {"QueueUrl": URL, "MessageBody": body}, {"MessageId": str(i)}, None


def tiny_entries_kept(i: int) -> Call:
    """An answered batch of 2 000 tiny entries (more than SQS takes, but not rejected here):
    too large to pack, small enough to keep whole."""
    entries = [{"Id": str(n), "ReceiptHandle": f"rh-{i}-{n}"} for n in range(2000)]
    return "DeleteMessageBatch", {"QueueUrl": URL, "Entries": entries}, {"Successful": []}, None


def tiny_entries_rejected(i: int, count: int = 5000) -> Call:
    entries = [{"Id": str(n), "MessageBody": "x"} for n in range(count)]
    params = {"QueueUrl": URL, "Entries": entries}
    return "SendMessageBatch", params, None, "TooManyEntriesInBatchRequest"


def _tree(depth: int, i: int) -> dict[str, Any]:
    if depth == 0:
        return {"leaf": f"v{i}"}
    return {"a": _tree(depth - 1, i), "b": _tree(depth - 1, i), "n": 1000 + depth}


def deep_dicts(i: int) -> Call:
    """A member SQS does not know (ignored, as AWS ignores it) nesting nine levels of dicts."""
    params = {"QueueUrl": URL, "MessageBody": "b", "Extra": _tree(8, i)}
    return "SendMessage", params, {"MessageId": str(i)}, None


def deep_chain_rejected(i: int) -> Call:
    """A rejected request nesting 60 levels, each level with a long list of numbers."""
    chain: dict[str, Any] = {"end": i}
    for level in range(60):
        chain = {"next": chain, "values": [level * 1000 + n for n in range(150)]}
    return "SendMessage", {"QueueUrl": URL, "Junk": chain}, None, "InvalidJsonBody"


def attributes_map(i: int) -> Call:
    attributes = {
        f"attribute-{n}": {"DataType": "String", "StringValue": f"{i:04d}" * 250} for n in range(10)
    }
    params = {"QueueUrl": URL, "MessageBody": "b", "MessageAttributes": attributes}
    return "SendMessage", params, {"MessageId": str(i)}, None


def binary_values(i: int) -> Call:
    attributes = {
        f"blob-{n}": {"DataType": "Binary", "BinaryValue": bytes([i % 256, n]) * (2 * KIB)}
        for n in range(5)
    }
    params = {"QueueUrl": URL, "MessageBody": "b", "MessageAttributes": attributes}
    return "SendMessage", params, {"MessageId": str(i)}, None


def received(i: int) -> Call:
    messages = [
        {
            "MessageId": _message_id(n),
            "ReceiptHandle": f"AQEB{i:06d}{n:04d}" + "r" * 150,
            "MD5OfBody": f"{n:032x}",
            "Body": f"{n:05d}" * (4 * KIB),
            "Attributes": {
                "SentTimestamp": str(1_700_000_000_000 + n),
                "ApproximateReceiveCount": "1",
            },
        }
        for n in range(10)
    ]
    params = {"QueueUrl": URL, "MaxNumberOfMessages": 10, "AttributeNames": ["All"]}
    return "ReceiveMessage", params, {"Messages": messages}, None


SHAPES: dict[str, tuple[Callable[[int], Call], int]] = {
    "small send (packed)": (small_send, 1000),
    "256 KiB body": (long_body, 10),
    "four-byte characters": (long_four_byte_body, 10),
    "2 000 tiny entries kept whole": (tiny_entries_kept, 4),
    "5 000 tiny entries rejected": (tiny_entries_rejected, 4),
    "dicts nine deep": (deep_dicts, 10),
    "rejected, 60 deep": (deep_chain_rejected, 5),
    "attributes map": (attributes_map, 50),
    "binary values": (binary_values, 50),
    "received messages": (received, 20),
}


@pytest.mark.parametrize("unshared", [False, True], ids=["recorded", "unshared"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_what_the_journal_counts_is_what_its_entries_hold(shape: str, unshared: bool) -> None:
    make, calls = SHAPES[shape]
    held, counted = held_and_counted(make, calls, unshared)
    assert held > 0
    ratio = counted / held
    assert 1 / FACTOR <= ratio <= FACTOR, f"{shape}: counted {counted}, held {held} ({ratio:.2f}x)"


# -- what is kept of a large request ----------------------------------------------------------


@pytest.mark.parametrize("unshared", [False, True], ids=["recorded", "unshared"])
def test_rejected_batches_of_tiny_entries_stay_within_the_byte_limit(unshared: bool) -> None:
    """Ten rejected batches of 5 000 tiny entries each, under a 512 KiB byte limit: counted by
    their characters five fit, held in memory whole they would take 12 MiB. Each is kept
    truncated, small: all ten fit, and what they hold stays within the limit."""
    limit = 512 * KIB
    journal = CallJournal(byte_limit=limit)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        with warnings.catch_warnings():  # (the journal dropping entries is asserted below)
            warnings.simplefilter("ignore", JournalFullWarning)
            record(journal, tiny_entries_rejected, 10, unshared)
        counted, dropped = journal.bytes, journal.dropped
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held <= limit, f"{held} bytes held under a byte limit of {limit}"
    assert counted <= limit and dropped == 0 and len(journal) == 10
    assert all(call.truncated for call in journal)


@pytest.mark.parametrize("unshared", [False, True], ids=["recorded", "unshared"])
def test_a_long_list_is_kept_to_its_first_items_and_what_it_left_out_counted(
    unshared: bool,
) -> None:
    from sqsmock._features.journal_weights import ITEMS_KEPT

    journal = CallJournal()
    _, params, _, _ = tiny_entries_rejected(0, 20_000)
    record(journal, lambda i: tiny_entries_rejected(i, 20_000), 1, unshared)
    (call,) = journal
    assert call.error == "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"
    assert call.truncated and call.size == measure(params)  # its size as sent
    assert call.params == {"QueueUrl": URL, "Entries": params["Entries"][:ITEMS_KEPT]}
    assert call.omitted == 20_000 - ITEMS_KEPT
    assert f"truncated from {call.size}, {20_000 - ITEMS_KEPT} items omitted" in repr(call)
    assert journal.bytes < 64 * KIB


def test_a_long_dict_and_deep_nesting_are_cut_too() -> None:
    from sqsmock._features.journal_weights import DEPTH_KEPT, ITEMS_KEPT, TRUNCATED_KEPT

    journal = CallJournal()
    attributes = {f"a{n:05d}": {"DataType": "String", "StringValue": "v" * 200} for n in range(500)}
    attributes["a00000"]["StringValue"] = "v" * 5000
    params = {"QueueUrl": URL, "MessageBody": "b", "MessageAttributes": attributes}
    record(journal, lambda i: ("SendMessage", params, None, "TooManyMessageAttributes"), 1, True)
    record(journal, deep_chain_rejected, 1, False)
    wide, deep = journal
    kept = wide.params["MessageAttributes"]
    assert list(kept) == list(attributes)[:ITEMS_KEPT]
    assert kept["a00000"] == {"DataType": "String", "StringValue": "v" * TRUNCATED_KEPT}
    assert kept["a00001"] == attributes["a00001"]
    assert wide.omitted == 500 - ITEMS_KEPT and wide.truncated
    level, depth = deep.params["Junk"], 2  # the parameters are the first level
    while level.get("next"):
        assert level["values"] == [n + level["values"][0] for n in range(ITEMS_KEPT)]
        level, depth = level["next"], depth + 1
    assert (
        depth == DEPTH_KEPT and deep.truncated and deep.omitted >= DEPTH_KEPT * (150 - ITEMS_KEPT)
    )
    assert journal.bytes < 2 * 64 * KIB


def test_an_answered_request_holding_more_than_sqs_takes_is_truncated() -> None:
    """Empty dicts have no characters at all: counted by characters, 50 000 of them in a member
    SQS ignores came to nothing, and were kept whole."""
    journal = CallJournal()
    params = {"QueueUrl": URL, "MessageBody": "b", "Extra": [{} for _ in range(50_000)]}
    record(journal, lambda i: ("SendMessage", params, {"MessageId": "m"}, None), 1, False)
    (call,) = journal
    assert call.truncated and call.ok and call.params["MessageBody"] == "b"
    assert len(call.params["Extra"]) < 50_000 and call.omitted == 50_000 - len(call.params["Extra"])
    assert journal.bytes < 64 * KIB


def test_a_page_of_large_rejected_requests_is_small() -> None:
    """What ``GET /_sqsmock/calls`` answers for a page of them: each call as ``call_json``."""
    journal = CallJournal()
    record(journal, lambda i: tiny_entries_rejected(i, 20_000), 10, True)
    page = json.dumps([call_json(call) for call in journal.page().calls])
    assert len(page) < 256 * KIB, f"a page of 10 calls comes to {len(page)} bytes"


def test_a_batch_of_more_entries_than_a_packed_form_holds_is_not_marshalled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only what truncation keeps of it is: written out whole, it could only be thrown away."""
    from sqsmock._features import journal_entries
    from sqsmock._features.journal_weights import ITEMS_KEPT

    written: list[object] = []
    dumps = journal_entries.marshal.dumps
    monkeypatch.setattr(
        journal_entries.marshal,
        "dumps",
        lambda value, *a: written.append(value) or dumps(value, *a),
    )
    journal = CallJournal()
    for operation in ("SendMessageBatch", "DeleteMessageBatch", "ChangeMessageVisibilityBatch"):
        entries = [{"Id": str(n), "ReceiptHandle": "r"} for n in range(5000)]
        params = {"QueueUrl": URL, "Entries": entries}
        make = lambda i, o=operation, p=params: (o, p, None, "TooManyEntriesInBatchRequest")  # noqa: E731
        record(journal, make, 1, True)
    assert [len(value[1]["Entries"]) for value in written] == [ITEMS_KEPT] * 3  # type: ignore[index]
    assert not journal._pending
    assert [call.omitted for call in journal] == [5000 - ITEMS_KEPT] * 3


@pytest.mark.parametrize("shape", ["wide", "nested", "many members"])
def test_an_unshared_call_holding_many_items_is_written_at_once(shape: str) -> None:
    """Waiting to be written out with the next calls, it would be kept whole meanwhile: 32
    requests of 4 MiB of empty dicts, in a member SQS ignores, held 3 GB."""
    from sqsmock._features.journal_entries import WAITS_UP_TO

    many = WAITS_UP_TO + 1
    extra: dict[str, Any] = {
        "wide": {"Extra": [{} for _ in range(many)]},
        "nested": {"Extra": {"a": [{"b": [[] for _ in range(many)]}]}},
        "many members": {f"m{n}": n for n in range(many)},
    }[shape]
    journal = CallJournal()
    small = {
        "QueueUrl": URL,
        "MessageBody": "b",
        "MessageAttributes": {"a": {"DataType": "String", "StringValue": "v"}},
    }
    record(journal, lambda i: ("SendMessage", small, {"MessageId": "m"}, None), 1, True)
    assert len(journal._pending) == 1  # a call of a few items waits
    params = {"QueueUrl": URL, "MessageBody": "b", **extra}
    record(journal, lambda i: ("SendMessage", params, {"MessageId": "m"}, None), 1, True)
    assert not journal._pending and len(journal._entries) == 2
    assert journal[1].params == params  # (small enough to keep whole)


def test_a_truncated_entry_is_one_object() -> None:
    """The copies truncation makes are made among the request's own objects: kept, they would
    pin the memory that held the whole request."""
    journal = CallJournal()
    record(journal, tiny_entries_rejected, 1, False)
    (stored,) = journal._entries
    assert type(stored) is bytes and journal.bytes == len(stored) + ENTRY_OVERHEAD
    (call,) = journal
    assert call.truncated and call.omitted == 5000 - len(call.params["Entries"])


def held_by(journal: CallJournal) -> int:
    """What the journal's entries hold, object by object (``sys.getsizeof`` of everything they
    reach that is not shared by every use: None, booleans, small ints)."""
    seen: set[int] = set()
    stack: list[object] = [journal._entries]
    total = 0
    while stack:
        obj = stack.pop()
        kind = type(obj)
        if id(obj) in seen or obj is None or kind is bool or (kind is int and -5 <= obj <= 256):  # type: ignore[operator]
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if kind in (dict, list, tuple, deque):
            stack.extend(gc.get_referents(obj))
    return total


@pytest.mark.slow
def test_ten_rejected_batches_of_110_000_entries_through_boto3_hold_little() -> None:
    """The case as reported: each batch was counted as 2 MB and held 30 MB; now each is kept
    truncated and counted as what it holds."""
    import boto3
    from botocore.exceptions import ClientError

    from sqsmock import mock_sqs

    with mock_sqs(journal_byte_limit=8 * MIB) as sqs:
        client = boto3.client(
            "sqs", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
        )
        url = client.create_queue(QueueName="q")["QueueUrl"]
        entries = [{"Id": str(n), "MessageBody": "x"} for n in range(110_000)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JournalFullWarning)
            for _ in range(10):
                with pytest.raises(ClientError, match="TooManyEntriesInBatchRequest"):
                    client.send_message_batch(QueueUrl=url, Entries=entries)
        journal = sqs.calls
        held = held_by(journal)
        assert held < MIB, f"{held} bytes held by ten rejected batches"
        assert journal.bytes <= 8 * MIB and journal.dropped == 0
        assert len(journal.of("SendMessageBatch")) == 10
